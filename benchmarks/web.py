"""The companion page's numbers: push latency, the daemon's memory with open pages, page weight.

    .venv/bin/python benchmarks/web.py [--rounds 200] [--memory-rounds 3]

1. Push latency: a rod put in (and lifted from) a groove through the simulated sensors of the
   real daemon (asyncio loop, real clock, scan thread); from the moment its LED frame is handed
   to the strip to the moment a page's WebSocket client, in another process, has the new state
   (its JSON parsed). The clock is CLOCK_MONOTONIC, shared by both processes. The reference,
   alternating with each sample: the same bytes pushed over the same socket without making the
   state (the transport alone). So "push - reference" is what making the state and its SVG costs.
2. Memory: the resident set (VmRSS) of a `treeboard sim` process serving the page to 5 open
   WebSocket clients after a few moves, against the same `treeboard sim --no-web`, alternating,
   several rounds.
3. Weight: the page's HTML + JS + CSS, raw and gzipped, and one pushed state per game.

Prints one JSON object.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from board_driver.config import sim_config  # noqa: E402
from board_driver.daemon.loop import Daemon  # noqa: E402

TREEBOARD = str(Path(sys.executable).with_name("treeboard"))

# A page in another process: prints "<monotonic ns> <version or ref:N>" for every message.
CLIENT = r"""
import asyncio, json, sys, time
import aiohttp

async def one(url, quiet):
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(url) as ws:
            async for msg in ws:
                now = time.monotonic_ns()
                data = json.loads(msg.data)
                if not quiet:
                    tag = f"ref:{data['ref']}" if "ref" in data else str(data["version"])
                    print(now, tag, flush=True)

async def main(url, count):
    await asyncio.gather(*(one(url, i > 0) for i in range(count)))

asyncio.run(main(sys.argv[1], int(sys.argv[2])))
"""


def spread(samples_ns: list[int]) -> dict:
    ms = sorted(s / 1e6 for s in samples_ns)
    cuts = statistics.quantiles(ms, n=100, method="inclusive")
    return {"p50_ms": round(cuts[49], 3), "p99_ms": round(cuts[98], 3),
            "min_ms": round(ms[0], 3), "max_ms": round(ms[-1], 3), "n": len(ms)}


async def push_latency(rounds: int) -> dict:
    tmp = tempfile.TemporaryDirectory(prefix="treeboard-bench-web-")
    config = sim_config(journal=str(Path(tmp.name) / "j.sqlite"))
    config.web_port = 0
    daemon = Daemon(config, new_game=True, web=True)
    runner = asyncio.ensure_future(daemon.run())
    while daemon.web is None:
        await asyncio.sleep(0.01)
    web = daemon.web
    frames: dict[int, int] = {}
    original = web.frame_shown

    def frame_shown() -> None:
        shown = time.monotonic_ns()  # right after the strip got the frame
        version = web._version
        original()
        if web._version != version:
            frames[web._version] = shown

    daemon.web.frame_shown = frame_shown
    client = await asyncio.create_subprocess_exec(
        sys.executable, "-c", CLIENT, f"http://127.0.0.1:{web.port}/ws", "1",
        stdout=asyncio.subprocess.PIPE)
    loop = asyncio.get_running_loop()
    board = daemon.session.hardware.board

    async def received() -> tuple[int, str]:
        line = await asyncio.wait_for(client.stdout.readline(), 5)
        at, tag = line.decode().split()
        return int(at), tag

    await received()  # the state on connecting
    push, reference = [], []
    payload = web.current()
    for i in range(rounds):
        # The hands: a rod in, then out again (a takeback): each a new state to push.
        await loop.run_in_executor(None, board.place if i % 2 == 0 else board.lift, "h0.0")
        at, tag = await received()
        push.append(at - frames[int(tag)])
        # The reference: the same bytes over the same socket, nothing made.
        text = payload.replace('"game":', f'"ref": {i}, "game":', 1)
        sent = time.monotonic_ns()
        for c in web.clients:
            c.offer(text)
        at, tag = await received()
        assert tag == f"ref:{i}", tag
        reference.append(at - sent)
    client.kill()
    await client.wait()
    daemon.stop()
    await runner
    tmp.cleanup()
    return {"push": spread(push), "reference_same_bytes": spread(reference),
            "state_bytes": len(payload)}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def one_sim(web: bool, clients: int) -> int:
    """Start `treeboard sim`, play a few moves, open the pages, and read its RSS."""
    with tempfile.TemporaryDirectory(prefix="treeboard-bench-rss-") as tmp:
        port = free_port()
        args = [TREEBOARD, "sim", "--journal", f"{tmp}/j.sqlite", "--new-game"]
        args += ["--web-port", str(port)] if web else ["--no-web"]
        sim = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, text=True)
        pages = None
        try:
            sim.stdin.write("place h0.0\nplace v0.0\nplace h1.0\nplace v0.1\nplace t0.0\n")
            sim.stdin.flush()
            time.sleep(1.5)
            if web:
                pages = subprocess.Popen([sys.executable, "-c", CLIENT,
                                          f"http://127.0.0.1:{port}/ws", str(clients)],
                                         stdout=subprocess.DEVNULL)
                time.sleep(1.0)
                sim.stdin.write("place h2.2\n")  # one more push to every page
                sim.stdin.flush()
                time.sleep(0.5)
            return rss_kb(sim.pid)
        finally:
            if pages is not None:
                pages.kill()
                pages.wait()
            sim.stdin.close()
            sim.wait(10)


def memory(rounds: int, clients: int = 5) -> dict:
    with_web, without = [], []
    for _ in range(rounds):  # alternating, so a drifting machine shifts both alike
        without.append(one_sim(False, clients))
        with_web.append(one_sim(True, clients))
    diffs = [a - b for a, b in zip(with_web, without)]
    return {"rss_kb_no_web": without, "rss_kb_web_5_pages": with_web,
            "extra_kb_per_round": diffs,
            "extra_mb": {"min": round(min(diffs) / 1024, 1),
                         "median": round(statistics.median(diffs) / 1024, 1),
                         "max": round(max(diffs) / 1024, 1)},
            "target_mb": 20}


def weight() -> dict:
    static = ROOT / "board_driver" / "web" / "static"
    files = {p.name: p.read_bytes() for p in sorted(static.iterdir())}
    raw = sum(len(b) for b in files.values())
    out = {"files": {n: len(b) for n, b in files.items()}, "total_bytes": raw,
           "total_gzip_bytes": sum(len(gzip.compress(b)) for b in files.values()),
           "limit_bytes": 100_000}
    import games
    from board_driver import views
    from board_driver.config import DEFAULT_COLOURS
    for name in games.names():
        state = games.get_game(name).new_state()
        moves = state.legal_moves()
        if moves:
            state.play(moves[0])
        svg = views.svg(state, views.Moment.still(dict(DEFAULT_COLOURS), moves="safe"))
        out[f"svg_bytes_{name}"] = len(svg)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--memory-rounds", type=int, default=3)
    args = parser.parse_args()
    result = {"push_latency": asyncio.run(push_latency(args.rounds)),
              "memory": memory(args.memory_rounds), "weight": weight(),
              "cpu": os.cpu_count()}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
