"""How long `treeboard firmware update` takes on MicroPython's unix port standing in for a Pico,
against a plain copy of the same files through the same raw REPL (what `mpremote cp` does).

    .venv/bin/python benchmarks/firmware_update.py [--runs 5]

Each run boots a flash of release 2 (firmware_bridge/mpy.py's MicroPythonDevice: a folder,
`micropython -i`, a pty) and times, alternating:

- update: firmware_bridge/flash.py's whole update (stop the bridge, raw REPL, each file written
  under a temporary name in 1 KB chunks, hashed on the device, boot.py, the journal, the
  renames, main.py last, the reset);
- copy: the reference: stop the bridge, raw REPL, each file written in place with mpremote's
  own fs_writefile at its default 256-byte chunks, no hash, no rename, no reset.

Prints the median and the spread (min-max) of each, in seconds. These are this machine's
figures over a pty (no USB, no flash): a Pico's USB CDC (12 Mbit/s full speed, but a REPL that
echoes and compiles each chunk) and its littlefs writes are slower; measure there with a real
board (`treeboard firmware update --force` prints nothing of its time: time it with `time`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from firmware_bridge import flash  # noqa: E402
from firmware_bridge.firmware import protocol  # noqa: E402
from firmware_bridge.mpy import MicroPythonDevice  # noqa: E402
from tests.firmware_bridge.flashes import old_flash  # noqa: E402


def update(dev: MicroPythonDevice) -> float:
    start = time.perf_counter()
    flash.update_firmware(dev.port)
    dev.wait_reset(60)
    return time.perf_counter() - start


def copy(dev: MicroPythonDevice) -> float:
    from mpremote.transport_serial import SerialTransport

    start = time.perf_counter()
    t = SerialTransport(dev.port, baudrate=115200)
    try:
        t.serial.write(protocol.Encoder().maintenance())
        time.sleep(flash.STOP_GAP_S)   # (as the update waits: the firmware ends its loop)
        t.enter_raw_repl(soft_reset=False)
        for name, data in flash.host_files().items():
            t.fs_writefile(name, data)
    finally:
        t.close()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    times: dict[str, list[float]] = {"update": [], "copy": []}
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs):
            for kind, measure in (("update", update), ("copy", copy)):
                dev = MicroPythonDevice(old_flash(Path(tmp) / f"{kind}{run}"))
                try:
                    dev.boot()
                    dev.wait_report("booting", 30)
                    times[kind].append(measure(dev))
                finally:
                    dev.close()
    size = sum(len(data) for data in flash.host_files().values())
    print(f"firmware update on MicroPython's unix port over a pty: {len(protocol.FIRMWARE_FILES)} "
          f"files, {size} bytes, {args.runs} runs each, alternating")
    for kind, values in times.items():
        print(f"{kind:7s} median {statistics.median(values):.2f} s  "
              f"(min {min(values):.2f}, max {max(values):.2f})")


if __name__ == "__main__":
    main()
