"""How long a board takes to come back when a part of the daemon dies.

    .venv/bin/python benchmarks/supervision.py [--rounds 5] [--layouts A,B]

One real daemon per layout (simulated hardware: gpiozero mock pins, or the simulated RP2040 on
a pty), with the computer playing seat 1 and the page served. Each round kills, in turn:

- the computer's worker process (SIGKILL, as the OOM killer) — from the kill to a new
  worker's first answer (the first ask meets the broken pool; the supervisor starts another);
- the sensors: the scan thread dies (an I/O error), gpiozero's edge callbacks stop (pins), or
  the bridge's link thread dies (a bug) — from the kill to a piece put meanwhile reaching the
  referee, with the part up again;
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
    await until(lambda: not ref.corrections and not ref.completions)


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
        board = daemon.session.hardware.board
        site = ref.sensed[0]
        kind = ref.state.occupancy().get(site) or "dark-leaf" if layout == "treeblox-adc" else None
        out: dict[str, list[float]] = {}
        await asyncio.wrap_future(daemon._submit(os.getpid))   # the worker, started
        for _ in range(rounds):
            # the computer's worker: from its death to a new worker's first answer
            for child in multiprocessing.active_children():
                os.kill(child.pid, signal.SIGKILL)
            killed = time.monotonic()
            while True:
                try:
                    await asyncio.wrap_future(daemon._submit(os.getpid))
                    break
                except Exception:      # BrokenExecutor: the supervisor starts another
                    await asyncio.sleep(0.01)
            out.setdefault("computer (a new worker answering)", []).append(time.monotonic() - killed)
            # the sensors: from the death to a piece put meanwhile reaching the referee
            name = kill_sensors(daemon)
            killed = time.monotonic()
            part = sup.parts[name]
            if name == "bridge":
                await until(lambda: part.state != "up")
            here = ref.physical.get(site) is not None
            await asyncio.get_running_loop().run_in_executor(
                None, (lambda: board.lift(site)) if here else (lambda: board.place(site, kind)))
            await until(lambda: (ref.physical.get(site) is not None) != here and part.state == "up")
            out.setdefault(f"{name} (a piece put meanwhile seen)", []).append(time.monotonic() - killed)
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
