"""Memory of an idle board over time: `treeboard sim` left alone on every shipped layout.

    .venv/bin/python benchmarks/memory.py [--minutes 10] [--reference-seconds 30] [--layouts A,B]

One child process per shipped layout, all at once: each runs the simulated board the way
`treeboard sim` does (the asyncio daemon, its scan or polling thread on gpiozero mock pins or
the simulated RP2040 on a pty, the terminal drawing into /dev/null) and samples its own
resident set size (/proc/self/statm) every few seconds. A layout that names no game
(the generic grids: a config picks their game) runs its hardware alone: the sources scanning,
the strip lit.

Growth is the least-squares slope of RSS over the samples after a warm-up (the first fifth of
the run, at most a minute: imports settle, the bounded histories fill), in KiB/s, against the
limit of 8 KiB/s (a board runs for months: 8 KiB/s is 20 GiB a month... the limit is what a
Pi notices within a day; a bounded board's slope is ~0). The spread is the slope of the first
and of the second half of those samples.

The reference, in the same run and at the same time: the same children with gpiozero's mock
pin history and the recording strip unbounded (how the simulated board was before they were
bounded), for --reference-seconds only (on treeblox-adc it grew by ~8 MiB/s). 0 skips it.

Prints one JSON object. Each child also reports how many scans its sources made, so a
starved machine (the layouts share the cores) shows as few scans, not as a false pass.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

LIMIT_KIB_S = 8.0
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


# --- the child: one board, idle -----------------------------------------------------------

def child(layout_name: str, seconds: float, interval: float, reference: bool) -> None:
    import hardware.sensors as sensors
    import hardware.sim as sim
    from board_driver.config import ConfigError, sim_config
    from hardware.layout import load_layout
    from hardware.leds import RecordingStrip

    if reference:  # the simulated board as it was: every pin change, every frame kept
        sim.PIN_HISTORY = None
        RecordingStrip.__init__.__defaults__ = ("GRB", 1.0, None)

    scans = [0]
    scan_once = sensors._PolledSource.scan_once

    def counting_scan(self):
        scans[0] += 1
        scan_once(self)

    sensors._PolledSource.scan_once = counting_scan

    layout = load_layout(layout_name)
    tmp = tempfile.TemporaryDirectory(prefix="treeboard-memory-")
    config = sim_config(layout=layout_name, journal=str(Path(tmp.name) / "j.sqlite"))
    if layout.bridge is not None:
        config.backend, config.bridge_port = "bridge", "sim"
    import games

    mode = "daemon"
    if layout.game is None or layout.game not in games.names():
        # A generic grid names no game (its games pick it in their config).
        mode = "hardware only (the layout names no game)"

    def report(t0):
        out = {"t": round(time.monotonic() - t0, 2), "rss": rss_bytes(), "scans": scans[0]}
        print(json.dumps(out), flush=True)

    t0 = time.monotonic()
    stop = threading.Event()

    def sampler():
        while not stop.wait(interval):
            report(t0)

    print(json.dumps({"mode": mode}), flush=True)
    report(t0)
    threading.Thread(target=sampler, daemon=True).start()
    try:
        if mode == "daemon":
            _run_sim(config, seconds)
        else:
            _run_hardware(layout, config, seconds)
    except ConfigError as exc:
        print(json.dumps({"error": str(exc)}), flush=True)
    stop.set()
    report(t0)
    tmp.cleanup()


def _run_sim(config, seconds: float) -> None:
    """`treeboard sim`, its input a pipe that closes after `seconds` (which quits it)."""
    from board_driver.cli.sim import run_sim

    r, w = os.pipe()
    threading.Timer(seconds, os.close, (w,)).start()
    with open(r) as stdin, open(os.devnull, "w") as out:
        run_sim(config, stdin=stdin, out=out)


def _run_hardware(layout, config, seconds: float) -> None:
    if layout.bridge is not None:
        from firmware_bridge.board import open_bridge_hardware

        hardware = open_bridge_hardware(layout, "sim", config.bridge_baud)
    else:
        from hardware import open_hardware

        hardware = open_hardware(layout, "sim")
    try:
        hardware.source.start(lambda event: None)
        hardware.leds.show({i: (i % 256, 64, 0) for i in range(hardware.leds.count)})
        time.sleep(seconds)
    finally:
        hardware.close()


# --- the parent: every layout at once ------------------------------------------------------

def slope(points: list[tuple[float, int]]) -> float | None:
    """Least-squares bytes per second."""
    if len(points) < 3:
        return None
    n = len(points)
    mt = sum(t for t, _ in points) / n
    mr = sum(r for _, r in points) / n
    var = sum((t - mt) ** 2 for t, _ in points)
    return sum((t - mt) * (r - mr) for t, r in points) / var if var else None


def summarise(lines: list[dict], seconds: float) -> dict:
    samples = [(d["t"], d["rss"]) for d in lines if "rss" in d]
    mode = next((d["mode"] for d in lines if "mode" in d), "?")
    errors = [d["error"] for d in lines if "error" in d]
    warm = min(60.0, seconds / 5)
    after = [(t, r) for t, r in samples if t >= warm]
    half = len(after) // 2
    kib = lambda v: None if v is None else round(v / 1024, 2)  # noqa: E731
    growth = kib(slope(after))
    out = {
        "mode": mode,
        "growth_kib_s": growth,
        "spread_kib_s": [kib(slope(after[:half + 1])), kib(slope(after[half:]))],
        "rss_start_mib": round(samples[0][1] / 2**20, 1) if samples else None,
        "rss_end_mib": round(samples[-1][1] / 2**20, 1) if samples else None,
        "samples": len(samples),
        "scans_per_s": round(lines[-1].get("scans", 0) / max(samples[-1][0], 1e-9), 1) if samples else 0,
    }
    if errors:
        out["error"] = errors[0]
    return out


def spawn(layout: str, seconds: float, interval: float, reference: bool) -> subprocess.Popen:
    args = [sys.executable, __file__, "--child", layout, "--seconds", str(seconds),
            "--interval", str(interval)] + (["--reference"] if reference else [])
    return subprocess.Popen(args, stdout=subprocess.PIPE, text=True, cwd=ROOT)


def collect(proc: subprocess.Popen, into: list) -> None:
    for line in proc.stdout:
        try:
            into.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    proc.wait()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0, help="how long each board idles")
    ap.add_argument("--reference-seconds", type=float, default=30.0,
                    help="how long the unbounded reference runs (0: none)")
    ap.add_argument("--layouts", help="comma-separated layout names (default: every shipped one)")
    ap.add_argument("--interval", type=float, default=None, help="seconds between RSS samples")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--seconds", type=float, help=argparse.SUPPRESS)
    ap.add_argument("--reference", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.seconds, args.interval, args.reference)
        return

    from hardware.layout import shipped_layouts

    layouts = args.layouts.split(",") if args.layouts else list(shipped_layouts())
    seconds = args.minutes * 60
    interval = args.interval or max(1.0, seconds / 120)
    runs = {}
    for name in layouts:
        runs[(name, False)] = (seconds, spawn(name, seconds, interval, False), [])
        if args.reference_seconds > 0:
            ref_s = min(args.reference_seconds, seconds)
            runs[(name, True)] = (ref_s, spawn(name, ref_s, max(1.0, ref_s / 30), True), [])
    threads = [threading.Thread(target=collect, args=(proc, lines)) for _, proc, lines in runs.values()]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    result = {"what": "resident memory growth of an idle simulated board, per layout, all at once",
              "limit_kib_s": LIMIT_KIB_S, "minutes": args.minutes,
              "reference_seconds": args.reference_seconds,
              "python": platform.python_version(), "machine": platform.machine(),
              "cpus": os.cpu_count(), "layouts": {}}
    for name in layouts:
        seconds_run, _, lines = runs[(name, False)]
        row = summarise(lines, seconds_run)
        row["within_limit"] = row["growth_kib_s"] is not None and row["growth_kib_s"] < LIMIT_KIB_S
        if (name, True) in runs:
            ref_seconds, _, ref_lines = runs[(name, True)]
            ref = summarise(ref_lines, ref_seconds)
            row["reference_unbounded"] = {k: ref[k] for k in ("growth_kib_s", "spread_kib_s", "scans_per_s")}
        result["layouts"][name] = row
    result["all_within_limit"] = all(r["within_limit"] for r in result["layouts"].values())
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
