"""Sensor latency on the simulated board: an edge at a mock pin -> the event out of the source.

    .venv/bin/python benchmarks/latency.py [--edges 10000] [--layout NAME]

Direct pins: the time from `MockPin.drive_low/high` to the source's callback (gpiozero's
callback chain plus ours). Matrix and ADC sources only see an edge when they scan, so their
latency on a real board is up to one scan period plus the scan itself; this prints the scan
time, measured the same way. Prints one JSON object; percentiles in microseconds.

The daemon's part: a rod put in a groove (matrix switch + one scan) -> the LED frame handed to
the strip, through the referee (debounce window excluded: the injected clock jumps over it;
reconcile, journal write, render, LED corrections), with the journal on tmpfs (the pipeline's
own cost) and on the disk this runs on (adds SQLite's fsync). Then the real asyncio daemon
left idle on the simulated classic board: its CPU share and resident memory.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hardware.layout import load_layout  # noqa: E402
from hardware.sim import SimulatedBoard  # noqa: E402


def percentiles(samples_s: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(samples_s, n=100, method="inclusive")
    return {"p50_us": round(cuts[49] * 1e6, 2), "p99_us": round(cuts[98] * 1e6, 2),
            "max_us": round(max(samples_s) * 1e6, 2), "n": len(samples_s)}


def pin_edges(edges: int) -> dict:
    board = SimulatedBoard(load_layout("tree-planting-classic-pins"), time.perf_counter, autoscan=False)
    out: list[float] = []
    board.source.start(lambda event: out.append(time.perf_counter()))
    pins = [board.factory.pin(gpio) for gpio in board.layout.pins.channels]
    samples = []
    for i in range(edges):
        pin = pins[i % len(pins)]
        before = len(out)
        started = time.perf_counter()
        if (i // len(pins)) % 2 == 0:
            pin.drive_low()
        else:
            pin.drive_high()
        assert len(out) == before + 1, "an edge produced no event"
        samples.append(out[-1] - started)
    board.close()
    return percentiles(samples)


def scans(layout_name: str, count: int) -> dict:
    board = SimulatedBoard(load_layout(layout_name), time.perf_counter, autoscan=False)
    events: list = []
    board.source.start(events.append)
    sites = [s for s in board.layout.sites if s in board.layout.channels_of_site]
    kind = next((k for k in board.layout.adc.kinds if k), None) if board.layout.adc else None
    samples = []
    for i in range(count):
        site = sites[i % len(sites)]
        board.place(site, kind) if (i // len(sites)) % 2 == 0 else board.lift(site)
        before = len(events)
        started = time.perf_counter()
        board.scan_once()
        samples.append(time.perf_counter() - started)
        assert len(events) == before + 1, "a scan missed the change"
    period = board.layout.matrix.scan_period_s if board.layout.matrix else board.layout.adc.poll_period_s
    board.close()
    return {**percentiles(samples), "scan_period_ms": period * 1000,
            "worst_latency_ms": round(period * 1000 + max(samples) * 1000, 3)}


def edge_to_frame(moves: int, journal_dir: str) -> dict:
    import random
    import tempfile

    from board_driver.config import sim_config
    from board_driver.session import open_session

    clock = [1000.0]
    with tempfile.TemporaryDirectory(dir=journal_dir) as tmp:
        session = open_session(sim_config(layout="tree-planting-classic-matrix",
                                          journal=f"{tmp}/journal.sqlite"),
                               clock=lambda: clock[0], autoscan=False, new_game=True)
        ref, board, strip = session.referee, session.hardware.board, session.hardware.board.strip
        session.hardware.source.start(ref.feed)
        window = ref.debouncer.window_s
        rng = random.Random(1)

        def settle():
            board.scan_once()
            while ref.next_deadline() is not None:
                clock[0] = ref.next_deadline() + 0.0001
                ref.tick(clock[0])
            ref.show(clock[0])

        samples = []
        while len(samples) < moves:
            state = ref.state
            if state.is_over():
                for site in list(state.occupancy()):
                    board.lift(site)
                settle()
                continue
            move = rng.choice(state.legal_moves())
            frames = strip.shows
            started = time.perf_counter()
            board.place(str(move))
            board.scan_once()                 # the edge reaches the source and the referee
            clock[0] += window + 0.0001       # the debounce window, excluded
            ref.tick(clock[0])                # reconcile, journal, ...
            ref.show(clock[0])                # ... render, correct, hand to the strip
            samples.append(time.perf_counter() - started)
            assert strip.shows == frames + 1, "the move lit nothing"
            for hole in state.last_planted() if str(state.moves[-1]) == str(move) else []:
                board.place(hole)
            settle()
        session.close()
    return percentiles(samples)


def idle_daemon(seconds: float) -> dict:
    import asyncio
    import resource
    import tempfile

    from board_driver.config import sim_config
    from board_driver.daemon import Daemon
    from board_driver.notify import Notifier

    with tempfile.TemporaryDirectory() as tmp:
        daemon = Daemon(sim_config(journal=f"{tmp}/j.sqlite"), notifier=Notifier(None))

        async def run():
            runner = asyncio.ensure_future(daemon.run())
            await asyncio.sleep(0.5)  # started, first frame shown
            cpu0, wall0 = time.process_time(), time.perf_counter()
            await asyncio.sleep(seconds)
            cpu = time.process_time() - cpu0
            wall = time.perf_counter() - wall0
            daemon.stop()
            await runner
            return cpu / wall

        share = asyncio.run(run())
    rss_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {"seconds": seconds, "cpu_share_percent": round(share * 100, 2),
            "max_rss_mib": round(rss_kb / 1024, 1),
            "note": "the simulated matrix scan thread (5 ms period over mock pins) included"}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, default=10_000)
    parser.add_argument("--scans", type=int, default=1_000)
    parser.add_argument("--moves", type=int, default=10_000)
    parser.add_argument("--idle-seconds", type=float, default=5.0)
    args = parser.parse_args(argv)
    result = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "pin_edge_to_event": pin_edges(args.edges),
        "matrix_scan tree-planting-classic-matrix (6x7)": scans("tree-planting-classic-matrix", args.scans),
        "matrix_scan grid-8x8-matrix": scans("grid-8x8-matrix", args.scans),
        "adc_poll treeblox-adc (16 channels, software SPI)": scans("treeblox-adc", max(50, args.scans // 10)),
        "rod_edge_to_led_frame journal on tmpfs": edge_to_frame(args.moves, "/dev/shm"),
        "rod_edge_to_led_frame journal on disk (with fsync)": edge_to_frame(
            max(200, args.moves // 10), str(Path(__file__).resolve().parent.parent)),
        "idle_daemon": idle_daemon(args.idle_seconds),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
