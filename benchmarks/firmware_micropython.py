"""The bridge firmware under the real MicroPython (the unix port): its live heap on a 20 x 20
board and a scan's time per pass.

    .venv/bin/python benchmarks/firmware_micropython.py [--runs 5]

Runs benchmarks/firmware_mpy_scan.py (MicroPython code; its docstring says what each figure
is) `--runs` times on `micropython -X heapsize=192K` (about an RP2040's heap) and prints the
median and the spread (min-max) of each figure. The heap figures are the same every run; the
times are this machine's (an x86-64 core), not a Pico's: docs/hardware.md says how they scale
to a 125 MHz RP2040 and on what evidence. On a Pico with the firmware flashed, the same script
prints the Pico's own figures: `mpremote run benchmarks/firmware_mpy_scan.py`.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware_bridge.mpy import FIRMWARE_DIR, HEAP, find_micropython  # noqa: E402

SCRIPT = Path(__file__).resolve().parent / "firmware_mpy_scan.py"


def run_once(exe: str) -> dict[str, float]:
    env = {**os.environ, "MICROPYPATH": str(FIRMWARE_DIR)}
    done = subprocess.run([exe, "-X", f"heapsize={HEAP}", str(SCRIPT)], capture_output=True,
                          text=True, env=env, timeout=120)
    if done.returncode != 0:
        raise SystemExit(f"{SCRIPT.name} failed on MicroPython (exit {done.returncode}):\n{done.stderr}")
    out = done.stdout
    figures = {}
    for line in out.splitlines():
        name, value = line.split(" ", 1)
        try:
            figures[name] = float(value)
        except ValueError:
            pass
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    exe = find_micropython()
    runs = [run_once(exe) for _ in range(args.runs)]
    print(f"MicroPython (unix port, {exe}), heap {HEAP}, {args.runs} runs: median (min-max)")
    for name in runs[0]:
        xs = [r[name] for r in runs]
        unit = "bytes" if name.startswith("heap") else "us"
        print(f"{name:<14}{statistics.median(xs):>10.1f} {unit:<6}({min(xs):.1f}-{max(xs):.1f})")
    live = statistics.median(r["heap_live"] - r["heap_before"] for r in runs)
    objects = statistics.median(r["heap_live"] - r["heap_modules"] for r in runs)
    print(f"the firmware's live heap: {live:.0f} bytes (its modules' bytecode and its objects; "
          f"the objects alone {objects:.0f}), on a 64-bit build")


if __name__ == "__main__":
    main()
