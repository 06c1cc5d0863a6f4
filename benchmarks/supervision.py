"""How long a board takes to come back when a part of the daemon dies.

    .venv/bin/python benchmarks/supervision.py [--rounds 5] [--layouts A,B]

One real daemon per layout (simulated hardware: gpiozero mock pins, or the simulated RP2040 on
a pty), with the computer playing seat 1 and the page served. Each round kills, in turn:

- the sensors: the scan thread dies (an I/O error), gpiozero's edge callbacks stop (pins), or
  the bridge's link thread dies (a bug) — timed from the kill to the supervisor's "up again";
- the computer's worker process (SIGKILL, as the OOM killer) — from the kill to the computer's
  next move, made by a new worker (a player's move in between, made at once);
- the page's listening socket (closed) — from the kill to the page served again.

The supervisor polls every 0.25 s and restarts at once; the numbers are what a family waits.
The reference is the code before the supervisor: none of these came back by itself (the
sensors' death withheld the watchdog, so systemd restarted the whole daemon after its
WatchdogSec, 10 s in the unit; the worker, the page and the remote link stayed dead).

Prints one JSON object: per layout and part, the median, min and max over the rounds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import platform
import signal
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from board_driver.config import sim_config  # noqa: E402
from board_driver.daemon.loop import Daemon  # noqa: E402
from board_driver.daemon.notify import Notifier  # noqa: E402

DEBUG: list = []
LAYOUTS = ["tree-planting-classic-matrix", "tree-planting-classic-pins", "treeblox-adc",
           "tree-planting-classic-bridge"]


async def until(condition, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError("the board did not come back" + (
                f" ({DEBUG[0]()})" if DEBUG else ""))
        await asyncio.sleep(0.005)


def changes_of(state, move):
    before = state.occupancy()
    after_state = state.copy()
    after_state.play(move)
    after = after_state.occupancy()
    return {s: after.get(s) for s in before.keys() | after.keys() if before.get(s) != after.get(s)}


async def hands(daemon, changes) -> None:
    board = daemon.session.hardware.board

    def act():
        for site, kind in sorted(changes.items(), key=lambda sk: (sk[1] is None, sk[0])):
            board.lift(site) if kind is None else board.place(site, kind)
    await asyncio.get_running_loop().run_in_executor(None, act)


async def human_move(daemon) -> None:
    ref = daemon.session.referee
    if ref.state.is_over():
        await hands(daemon, {s: None for s in ref.sensed if ref.physical.get(s)})
        await until(lambda: not ref.state.is_over() and not ref.corrections)
    sensed = set(ref.sensed)
    for move in ref.state.legal_moves():
        changes = changes_of(ref.state, move)
        if changes and set(changes) <= sensed:
            await hands(daemon, changes)
            return
    raise RuntimeError("no legal move the sensors see")


async def match_board(daemon) -> None:
    ref = daemon.session.referee
    want = ref.state.occupancy()
    await hands(daemon, {s: want.get(s) for s in ref.sensed if want.get(s) != ref.physical.get(s)})
    await until(lambda: not ref.corrections and not ref.view.completions)


def kill_sensors(daemon) -> str:
    source = daemon.session.hardware.source
    if daemon.config.backend == "bridge":
        link = source.link
        receive = link._receive

        def dies(data):
            link._receive = receive
            raise RuntimeError("a bug in the link thread")
        link._receive = dies
        return "bridge"
    from hardware.sensors import PinSource, _PolledSource
    for part in source.sources:
        if isinstance(part, _PolledSource):
            read_all = part._read_all

            def dies(part=part, read_all=read_all):
                part._read_all = read_all
                raise OSError("I/O error")
            part._read_all = dies
        elif isinstance(part, PinSource):
            for device in part._devices.values():
                device.when_activated = device.when_deactivated = None
    return "sensors"


async def measure(layout: str, rounds: int) -> dict[str, list[float]]:
    # (rounds past the game's end start a new game: the player clears the board)
    threading.excepthook = lambda args: None   # the deaths are the point
    with tempfile.TemporaryDirectory() as tmp:
        extra = dict(backend="bridge", bridge_port="sim") if layout.endswith("bridge") else {}
        config = sim_config(journal=str(Path(tmp) / "j.sqlite"), layout=layout, **extra)
        config.players = ("human", "computer:easy")
        config.web_port = 0
        daemon = Daemon(config, notifier=Notifier(None), new_game=True, web=True)
        runner = asyncio.ensure_future(daemon.run())
        await asyncio.wait_for(daemon.started.wait(), 60)
        ref, sup = daemon.session.referee, daemon.supervisor
        DEBUG[:] = [lambda: f"moves {[str(m) for m in ref.state.moves]}, to move {ref.state.to_move}, "
                            f"corrections {[c.site for c in ref.corrections]}, parts {sup.down_words()}, "
                            f"holding {ref.holding}"]
        out: dict[str, list[float]] = {}

        async def computer_turn() -> float:
            """The player moves until it is the computer's turn; the computer plays its moves
            (each made on the board). Returns when the computer's first move came."""
            for _ in range(30):
                n = len(ref.state.moves)
                await human_move(daemon)
                await until(lambda: len(ref.state.moves) > n or ref.state.is_over())
                if ref.state.to_move == 1 or ref.state.is_over():
                    break
                await match_board(daemon)
            first = None
            while not ref.state.is_over() and ref.state.to_move == 1:
                n = len(ref.state.moves)
                await until(lambda: len(ref.state.moves) > n)
                first = first or time.monotonic()
                await match_board(daemon)
            await match_board(daemon)
            return first or time.monotonic()

        await computer_turn()
        for _ in range(rounds):
            # the computer's worker
            for child in multiprocessing.active_children():
                os.kill(child.pid, signal.SIGKILL)
            killed = time.monotonic()
            came = await computer_turn()
            out.setdefault("computer (to its next move)", []).append(came - killed)
            # the sensors
            name = kill_sensors(daemon)
            part = sup.parts[name]
            restarts = part.total_restarts
            killed = time.monotonic()
            if name == "bridge":
                await until(lambda: part.state != "up")
            else:
                await human_move(daemon)   # (the death shows when the sensors are read)
            await until(lambda: part.total_restarts > restarts and part.state == "up")
            out.setdefault(name, []).append(time.monotonic() - killed)
            await until(lambda: ref.next_deadline() is None)
            await match_board(daemon)
            # the page
            page = sup.parts["page"]
            restarts = page.total_restarts
            daemon.web._site._server.close()
            killed = time.monotonic()
            await until(lambda: page.total_restarts > restarts and page.state == "up"
                        and daemon.web is not None)
            out.setdefault("page", []).append(time.monotonic() - killed)
        daemon.stop()
        await asyncio.wait_for(runner, 60)
        return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--layouts", default=",".join(LAYOUTS))
    args = ap.parse_args()
    result = {"machine": f"{platform.machine()}, {os.cpu_count()} cores (shared)",
              "rounds": args.rounds, "seconds": {}}
    for layout in args.layouts.split(","):
        try:
            times = asyncio.run(measure(layout, args.rounds))
        except TimeoutError as exc:   # (the scripted hands lost the game's thread: said, not hidden)
            result["seconds"][layout] = {"error": str(exc)}
            continue
        result["seconds"][layout] = {
            part: {"median": round(statistics.median(v), 3), "min": round(min(v), 3),
                   "max": round(max(v), 3)} for part, v in times.items()}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
