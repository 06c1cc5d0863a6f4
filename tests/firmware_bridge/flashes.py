"""MicroPython for the tests, and flashes of older firmware for the update's tests
(firmware_bridge/flash.py): a folder that plays a Pico's flash, for
firmware_bridge.mpy.MicroPythonDevice."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from firmware_bridge.firmware import protocol
from firmware_bridge.mpy import FIRMWARE_DIR, MicroPythonMissing, find_micropython


def micropython_or_skip() -> str:
    """The `micropython` executable; without one the test skips, and under CI=true it fails
    (CI must run them: ./dev installs it on x86_64)."""
    try:
        return find_micropython()
    except MicroPythonMissing as exc:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"the MicroPython tests cannot run under CI: {exc}")
        pytest.skip(str(exc))


def old_flash(folder: Path, *, leds: int = 40, before_release_3: bool = False) -> Path:
    """A Pico's flash holding release 2 with its own wiring: the host's files with RELEASE 2 and
    LED_COUNT `leds`. `before_release_3`: also as release 2 really was: no INFO, no MAINTENANCE
    (its main loop never ends), no boot.py, no end line to its wiring."""
    folder.mkdir()
    for name in protocol.FIRMWARE_FILES:
        shutil.copy(FIRMWARE_DIR / name, folder / name)
    edit(folder / "controller.py", "RELEASE = 3", "RELEASE = 2")
    if leds != 40:
        edit(folder / "main.py", "\nLED_COUNT = 40\n", f"\nLED_COUNT = {leds}\n")
    if before_release_3:
        edit(folder / "controller.py", "elif t == protocol.INFO_REQUEST:", "elif False:")
        edit(folder / "controller.py", "elif t == protocol.MAINTENANCE:", "elif False:")
        edit(folder / "main.py", "while not fw.stopped:", "while True:")
        edit(folder / "main.py", protocol.WIRING_END.decode(), "# (wiring ends)")
        (folder / "boot.py").unlink()
    return folder


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, f"{path.name} has no {old!r}"
    path.write_text(text.replace(old, new, 1))
