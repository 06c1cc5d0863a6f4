"""Sensor latency on the simulated board: an edge at a mock pin -> the event out of the source.

    .venv/bin/python benchmarks/latency.py [--edges 10000] [--layout NAME]

Direct pins: the time from `MockPin.drive_low/high` to the source's callback (gpiozero's
callback chain plus ours). Matrix and ADC sources only see an edge when they scan, so their
latency on a real board is up to one scan period plus the scan itself; this prints the scan
time, measured the same way. Prints one JSON object; percentiles in microseconds.
The daemon's issue extends this to the LEDs.
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


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, default=10_000)
    parser.add_argument("--scans", type=int, default=1_000)
    args = parser.parse_args(argv)
    result = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "pin_edge_to_event": pin_edges(args.edges),
        "matrix_scan tree-planting-classic-matrix (6x7)": scans("tree-planting-classic-matrix", args.scans),
        "matrix_scan grid-8x8-matrix": scans("grid-8x8-matrix", args.scans),
        "adc_poll treeblox-adc (16 channels, software SPI)": scans("treeblox-adc", max(50, args.scans // 10)),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
