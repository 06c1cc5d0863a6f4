"""Remote play through a real Mosquitto broker on localhost: what it costs and how fast it is.

    python benchmarks/remote.py [--moves 40] [--rounds 5]

Prints, each with what it measures:
  1. move hop: one board's referee accepting a move -> the other board's referee playing it
     (sign, publish, broker, receive, verify, play, journal), p50/p99;
  2. what the other family sees: a magnet put down at one board -> the piece to put lit on the
     other board's strip (includes the 20 ms debounce and the scan), p50/p99, alternating with
     the same move's local latency (magnet -> its own board's frame) as the reference;
  3. recovery: the broker coming back after a move made while it was down -> both boards
     agreeing, over several rounds;
  4. memory: the daemon's own RSS (VmRSS of its process) idle with remote play on vs off.
Needs mosquitto (./dev test installs it).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from board_driver.config import sim_config  # noqa: E402
from board_driver.daemon.loop import Daemon  # noqa: E402
from board_driver.daemon.notify import Notifier  # noqa: E402
from tests.broker import Broker  # noqa: E402

SECRET = "benchmark secret"
LAYOUT = "tree-planting-classic-pins"


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def ms(values) -> str:
    return (f"p50 {pct(values, 50) * 1000:.2f} ms, p99 {pct(values, 99) * 1000:.2f} ms, "
            f"min {min(values) * 1000:.2f}, max {max(values) * 1000:.2f} (n={len(values)})")


def make_board(folder: Path, remote_seat: int, broker: Broker) -> Daemon:
    folder.mkdir(parents=True, exist_ok=True)
    players = ["human", "human"]
    players[remote_seat] = "remote"
    return Daemon(sim_config(journal=str(folder / "journal.sqlite"), layout=LAYOUT,
                             players=tuple(players),
                             remote={"broker": broker.url, "game": "bench", "secret": SECRET,
                                     "keepalive": 5}), notifier=Notifier(None))


async def until(condition, timeout=20.0):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("benchmark step timed out")
        await asyncio.sleep(0.0005)


def strip_shows(daemon: Daemon, site: str, before) -> bool:
    leds = daemon.session.layout.leds_of_site[site]
    shown = daemon.session.hardware.leds.shown
    return shown is not None and any(shown[i] != before[i] for i in leds)


async def latency_run(broker: Broker, workdir: Path, moves: int):
    a = make_board(workdir / "a", 1, broker)
    b = make_board(workdir / "b", 0, broker)
    ra, rb = asyncio.ensure_future(a.run()), asyncio.ensure_future(b.run())
    hops, seen_remote, seen_local = [], [], []
    accepted_at = {}
    try:
        await until(lambda: a.remote is not None and b.remote is not None)
        await until(lambda: a.remote.peer_online and b.remote.peer_online)
        a.session.referee.listeners.append(_stamper(a, "a", accepted_at))
        b.session.referee.listeners.append(_stamper(b, "b", accepted_at))
        reference = a.session.referee.state.copy()
        rng = random.Random(1)
        played = 0
        while played < moves and not reference.is_over():
            mover = a if reference.to_move == 0 else b
            other = b if mover is a else a
            move = rng.choice(sorted(reference.legal_moves(), key=str))
            before = reference.occupancy()
            reference.play(move)
            after = reference.occupancy()
            sites = [s for s in sorted(before.keys() | after.keys()) if before.get(s) != after.get(s)]
            n = len(reference.moves)
            rod = str(move)
            mover_before = list(mover.session.hardware.leds.shown)
            other_before = list(other.session.hardware.leds.shown)
            t0 = time.perf_counter()
            for site in sites:
                mover.session.hardware.board.place(site)
            # alternate which figure is waited for first, so neither always pays the other's poll
            local_done = remote_done = None
            while local_done is None or remote_done is None:
                now = time.perf_counter()
                if local_done is None and strip_shows(mover, rod, mover_before):
                    local_done = now
                if remote_done is None and strip_shows(other, rod, other_before):
                    remote_done = now
                if now - t0 > 20:
                    raise TimeoutError("a move did not show")
                await asyncio.sleep(0.0005)
            seen_local.append(local_done - t0)
            seen_remote.append(remote_done - t0)
            await until(lambda: len(other.session.referee.state.moves) == n)
            ka = ("a" if mover is a else "b", n)
            kb = ("b" if mover is a else "a", n)
            hops.append(accepted_at[kb] - accepted_at[ka])
            for site in sites:
                other.session.hardware.board.place(site)
            await until(lambda: not other.session.referee.corrections and
                        not mover.session.referee.corrections)
            played += 1
    finally:
        a.stop()
        b.stop()
        await asyncio.gather(ra, rb, return_exceptions=True)
    return hops, seen_remote, seen_local


def _stamper(daemon, name, table):
    """A referee listener noting when each move was accepted on this board."""
    def listener(what, move, origin):
        if what == "move":
            table[(name, len(daemon.session.referee.state.moves))] = time.perf_counter()
    return listener


async def recovery_run(broker: Broker, workdir: Path, rounds: int):
    a = make_board(workdir / "ra", 1, broker)
    b = make_board(workdir / "rb", 0, broker)
    ra, rb = asyncio.ensure_future(a.run()), asyncio.ensure_future(b.run())
    times = []
    try:
        await until(lambda: a.remote is not None and b.remote is not None)
        await until(lambda: a.remote.peer_online and b.remote.peer_online)
        reference = a.session.referee.state.copy()
        rng = random.Random(2)
        for _ in range(rounds):
            mover = a if reference.to_move == 0 else b
            other = b if mover is a else a
            broker.stop()
            await until(lambda: a.remote.status == "no broker" and b.remote.status == "no broker")
            move = rng.choice(sorted(reference.legal_moves(), key=str))
            before = reference.occupancy()
            reference.play(move)
            after = reference.occupancy()
            sites = [s for s in sorted(before.keys() | after.keys()) if before.get(s) != after.get(s)]
            for site in sites:
                mover.session.hardware.board.place(site)
            n = len(reference.moves)
            await until(lambda: len(mover.session.referee.state.moves) == n)
            await asyncio.get_running_loop().run_in_executor(None, broker.start)
            t0 = time.perf_counter()
            await until(lambda: len(other.session.referee.state.moves) == n)
            times.append(time.perf_counter() - t0)
            for site in sites:
                other.session.hardware.board.place(site)
            await until(lambda: not other.session.referee.corrections)
    finally:
        a.stop()
        b.stop()
        await asyncio.gather(ra, rb, return_exceptions=True)
    return times


IDLE = r"""
import asyncio, json, sys, time
from board_driver.config import sim_config
from board_driver.daemon.loop import Daemon
from board_driver.daemon.notify import Notifier
fields = json.loads(sys.argv[1])
fields["players"] = tuple(fields["players"])
seconds = float(sys.argv[2])
async def main():
    d = Daemon(sim_config(**fields), notifier=Notifier(None))
    task = asyncio.ensure_future(d.run())
    await asyncio.sleep(seconds)
    print(next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmRSS")), flush=True)
    d.stop()
    await task
asyncio.run(main())
"""


def idle_rss(fields: dict, seconds: float) -> int:
    out = subprocess.run([sys.executable, "-c", IDLE, json.dumps(fields), str(seconds)],
                         capture_output=True, text=True, timeout=120,
                         cwd=str(Path(__file__).resolve().parent.parent))
    if out.returncode:
        raise RuntimeError(out.stderr)
    return int(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--idle-seconds", type=float, default=5.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        broker = Broker(workdir)
        broker.start()
        try:
            hops, remote, local = asyncio.run(latency_run(broker, workdir, args.moves))
            print(f"move hop, referee accepts here -> referee plays there: {ms(hops)}")
            print(f"magnet put down here -> piece to put lit there:      {ms(remote)}")
            print(f"  reference, the same magnet -> its own board's frame:  {ms(local)}")
            print(f"  remote minus local, per move: median "
                  f"{statistics.median(r - l for r, l in zip(remote, local)) * 1000:.2f} ms")
            times = asyncio.run(recovery_run(broker, workdir, args.rounds))
            print(f"broker back -> both boards agree (move made while it was down): "
                  f"{ms(times)}")
            base = {"layout": LAYOUT, "players": ["human", "human"]}
            on_rss, off_rss = [], []
            for i in range(3):   # alternating, a fresh process each
                (workdir / f"off{i}").mkdir()
                (workdir / f"on{i}").mkdir()
                off_rss.append(idle_rss(dict(base, journal=str(workdir / f"off{i}" / "j.sqlite")),
                                        args.idle_seconds))
                on_rss.append(idle_rss(dict(base, journal=str(workdir / f"on{i}" / "j.sqlite"),
                                            players=["human", "remote"],
                                            remote={"broker": broker.url, "game": "rss",
                                                    "secret": SECRET}), args.idle_seconds))
            print(f"daemon RSS idle {args.idle_seconds:.0f} s: remote off median "
                  f"{statistics.median(off_rss) / 1024:.1f} MiB, on "
                  f"{statistics.median(on_rss) / 1024:.1f} MiB, extra "
                  f"{(statistics.median(on_rss) - statistics.median(off_rss)) / 1024:.1f} MiB "
                  f"(off {min(off_rss) / 1024:.1f}-{max(off_rss) / 1024:.1f}, "
                  f"on {min(on_rss) / 1024:.1f}-{max(on_rss) / 1024:.1f})")
        finally:
            broker.stop()


if __name__ == "__main__":
    main()
