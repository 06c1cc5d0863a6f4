"""The bridge's firmware updated over its own line (firmware_bridge/flash.py, `treeboard
firmware update`), on the real MicroPython unix port standing in for a Pico.

The device (firmware_bridge/mpy.py's MicroPythonDevice) is a folder playing the flash, run by
`micropython -i` through mpy_board.py: boot.py, then main.py, and when main.py returns the REPL,
as on a Pico; its stdin and stdout are relayed to a raw pty the host opens as a serial port.
So the host's side is the real one: mpremote's SerialTransport entering the raw REPL, writing,
hashing on the device with MicroPython's hashlib, renaming with MicroPython's os.

What only a Pico can check: its USB CDC (re-enumeration after machine.reset(), DTR, the
speed), littlefs (a rename is atomic on power loss: here it is a POSIX rename), flash wear,
MicroPython's rp2 port running boot.py before main.py (mpy_board.py does it here), the
heap with the firmware running and the update's chunks, and a real power cut mid-write
(here the process is killed: the bytes already written are on disk).

The faults: the device unplugged (process killed, pty closed) at every step of an update; after
each it boots the old firmware or the new, whole (its INFO's release and digests all the one
or all the other), and the host's error says what to do; the next update brings it up to date.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from firmware_bridge import flash
from firmware_bridge.firmware import controller, protocol
from firmware_bridge.host import open_bridge
from firmware_bridge.mpy import FIRMWARE_DIR, MicroPythonDevice
from tests.firmware_bridge import flashes
from tests.waits import scaled, wait_for

pytestmark = pytest.mark.timeout(180)

OLD_LEDS = 41  # the old flash's own wiring (LED_COUNT), which an update must keep


def old_flash(folder: Path, **options) -> Path:
    return flashes.old_flash(folder, leds=OLD_LEDS, **options)


@pytest.fixture(scope="module")
def micropython():
    return flashes.micropython_or_skip()


def ask_info(port: str) -> tuple:
    """Boot check: the bridge on `port` in sync, and its INFO (release, digests)."""
    source, sink = open_bridge(port, connect_timeout=scaled(15))
    try:
        assert sink.count == OLD_LEDS  # the board's own wiring, kept
        wait_for(lambda: source.firmware_info() is not None, scaled(10), "the firmware's INFO")
        return source.firmware_info()
    finally:
        source.close()
        sink.close()


@pytest.fixture
def device(micropython, tmp_path):
    made = []

    def make(**options):
        dev = MicroPythonDevice(old_flash(tmp_path / f"flash{len(made)}", **options))
        made.append(dev)
        return dev

    yield make
    for dev in made:
        dev.close()


def test_the_sim_reports_the_hosts_own_files(make_firmware):
    fw = make_firmware(5, 8, 40)
    source, sink = open_bridge(fw.port, connect_timeout=scaled(5))
    try:
        wait_for(lambda: source.firmware_info() is not None, scaled(5), "INFO")
        found = flash.compare(*source.firmware_info())
        assert found.device_release == controller.RELEASE and found.differing == ()
        assert not found.needs_update
    finally:
        source.close()
        sink.close()


def test_what_makes_an_update_due():
    ours = dict(flash.firmware_digests())
    assert not flash.compare(controller.RELEASE, ours).needs_update
    assert flash.compare(controller.RELEASE - 1, ours).needs_update   # older
    assert not flash.compare(controller.RELEASE + 1, {}).needs_update  # newer: left alone
    changed = dict(ours, **{"controller.py": bytes(8)})
    found = flash.compare(controller.RELEASE, changed)
    assert found.needs_update and found.differing == ("controller.py",)
    before = flash.compare(None, None)                                 # before release 3
    assert before.needs_update and before.needs_jumper


def test_the_digest_leaves_out_the_wiring():
    main = (FIRMWARE_DIR / "main.py").read_bytes()
    rewired = main.replace(b"\nLED_COUNT = 40\n", b"\nLED_COUNT = 400\n")
    assert rewired != main
    assert flash.digest(rewired) == flash.digest(main)
    assert flash.digest(main.replace(b"def main():", b"def main(): ")) != flash.digest(main)


def test_an_update_keeps_the_boards_wiring():
    new = (FIRMWARE_DIR / "main.py").read_bytes()
    theirs = (new.replace(b'MATRIX = "pins"', b'MATRIX = "shift-register"')
                 .replace(b"\nLED_COUNT = 40\n", b"\nLED_COUNT = 400\n")
                 .replace(b"SCAN_MS = 2", b"")                        # a setting it lacks
                 .replace(protocol.WIRING_END, b"# (an old main.py: no end line)"))
    kept = flash.keep_wiring(new, theirs)
    assert b'MATRIX = "shift-register"\n' in kept and b"LED_COUNT = 400\n" in kept
    assert b"SCAN_MS = 2\n" in kept                                   # the new default
    assert flash.digest(kept) == flash.digest(new)
    changed = [(a, b) for a, b in zip(new.splitlines(), kept.splitlines()) if a != b]
    assert changed == [(b'MATRIX = "pins"', b'MATRIX = "shift-register"'),
                       (b"LED_COUNT = 40", b"LED_COUNT = 400")]


def test_a_firmware_update_pushed_to_micropython(device):
    dev = device()
    dev.boot()
    before = ask_info(dev.port)
    assert before[0] == 2 and flash.compare(*before).needs_update
    said = []
    seen = []
    files = flash.update_firmware(dev.port, say=said.append, checkpoint=seen.append)
    assert files == list(protocol.FIRMWARE_FILES) and seen == flash.steps()
    assert dev.wait_reset(scaled(10)) == 3     # machine.reset()
    for name in ("protocol.py", "controller.py", "shiftreg.py", "boot.py"):
        assert (dev.files / name).read_bytes() == (FIRMWARE_DIR / name).read_bytes()
    main = (dev.files / "main.py").read_bytes()
    assert f"LED_COUNT = {OLD_LEDS}\n".encode() in main
    assert sorted(p.name for p in dev.files.iterdir()) == sorted(protocol.FIRMWARE_FILES)
    dev.boot()
    after = flash.compare(*ask_info(dev.port))
    assert after.device_release == controller.RELEASE and not after.needs_update


def test_a_line_that_goes_with_the_reset_before_its_ok_is_a_finished_update(device, monkeypatch):
    """The reset is the last step, after every file is in place: a line that breaks before its
    "OK" is read (a Pico's USB going at once; CI's sim line once, EIO) is no failed update."""
    from mpremote.transport_serial import SerialTransport

    real = SerialTransport.exec_raw_no_follow

    def reset_then_line_gone(self, command):
        real(self, command)
        if "machine.reset()" in str(command):
            raise OSError(5, "Input/output error")

    monkeypatch.setattr(SerialTransport, "exec_raw_no_follow", reset_then_line_gone)
    dev = device()
    dev.boot()
    said = []
    assert flash.update_firmware(dev.port, say=said.append) == list(protocol.FIRMWARE_FILES)
    assert any("the line went with the reset" in s for s in said)
    assert dev.wait_reset(scaled(10)) == 3
    assert sorted(p.name for p in dev.files.iterdir()) == sorted(protocol.FIRMWARE_FILES)


def test_a_firmware_before_release_3_needs_the_jumper_once(device):
    dev = device(before_release_3=True)
    dev.boot()
    assert ask_info(dev.port) == (None, None)   # answers INFO_REQUEST with "unknown type"
    old = {p.name: p.read_bytes() for p in dev.files.iterdir()}
    with pytest.raises(flash.FirmwareUpdateError, match="jumper from GP22"):
        flash.update_firmware(dev.port, repl_timeout=scaled(3))
    assert {p.name: p.read_bytes() for p in dev.files.iterdir()} == old
    dev.jumper = True    # GP22 to GND, power-cycle
    dev.boot()
    dev.wait_report("booting", scaled(10))
    flash.update_firmware(dev.port)
    assert dev.wait_reset(scaled(10)) == 3
    dev.jumper = False
    dev.boot()
    after = flash.compare(*ask_info(dev.port))
    assert after.device_release == controller.RELEASE and not after.needs_update


class Unplugged(Exception):
    pass


@pytest.mark.parametrize("step", flash.steps())
def test_an_unplug_at_each_step_leaves_a_board_that_boots(device, step):
    dev = device()
    dev.boot()
    old = dict(flash.firmware_digests(dev.files))

    def unplug_at(now):
        if now == step:
            dev.unplug()   # power and cable gone at once

    if step == "before reset":   # every file in place: the reset's line going is no failure
        assert flash.update_firmware(dev.port, checkpoint=unplug_at, repl_timeout=scaled(3)) \
            == list(protocol.FIRMWARE_FILES)
    else:
        with pytest.raises(flash.FirmwareUpdateError) as caught:
            flash.update_firmware(dev.port, checkpoint=unplug_at, repl_timeout=scaled(3))
        said = str(caught.value)
        assert "treeboard firmware update" in said and dev.port in said   # what to do, where
    dev.boot()
    release, files = ask_info(dev.port)
    if release == 2:
        assert files == old, "the old firmware, whole"
    else:
        assert release == controller.RELEASE and not flash.compare(release, files).needs_update
    assert not (dev.files / "update.txt").exists()   # boot.py finished (or none was begun)
    # ... and the next update brings it to the host's files.
    flash.update_firmware(dev.port)
    assert dev.wait_reset(scaled(10)) == 3
    dev.boot()
    assert not flash.compare(*ask_info(dev.port)).needs_update


def test_the_command_line_checks_updates_and_says_so(device, capsys):
    import threading

    from board_driver.cli import main

    dev = device()
    dev.boot()
    assert main(["firmware", "check", "--port", dev.port]) == 0
    out = capsys.readouterr().out
    assert "release 2; this host's: 3" in out and "an update is due" in out

    def come_back():   # a Pico boots again by itself after machine.reset()
        dev.wait_reset(scaled(60))
        dev.boot()

    back = threading.Thread(target=come_back)
    back.start()
    assert main(["firmware", "update", "--port", dev.port]) == 0
    back.join(scaled(60))
    out = capsys.readouterr().out
    assert "wrote and checked" in out and out.rstrip().endswith("release 3; this host's: 3")
    assert main(["firmware", "update", "--port", dev.port]) == 0
    assert "nothing to do" in capsys.readouterr().out


def test_the_link_lends_its_port_and_comes_back_whatever_the_borrower_did(make_firmware):
    from firmware_bridge.host import CONNECTED, UPDATING

    fw = make_firmware(5, 8, 40)
    source, sink = open_bridge(fw.port, connect_timeout=scaled(5))
    link = source.link
    seen = []

    def borrower(port):
        seen.append((port, link.state, link.health()))
        raise flash.FirmwareUpdateError("the cable came out")

    try:
        with pytest.raises(flash.FirmwareUpdateError):
            source.lend_port(borrower)
        assert seen == [(fw.port, UPDATING, None)]   # the port free, the watchdog fed
        assert link.wait_state((CONNECTED,), scaled(5)) == CONNECTED
        wait_for(lambda: source.firmware_info() is not None, scaled(5), "INFO again")
        assert source.lend_port(lambda port: "done") == "done"
        assert link.wait_state((CONNECTED,), scaled(5)) == CONNECTED
    finally:
        source.close()
        sink.close()


def test_the_stop_frame_is_harmless_to_a_repl_that_has_the_line_already():
    """The update sends MAINTENANCE again while it waits; a REPL that already has the line
    reads it as typing: it must hold no Ctrl-A (raw REPL), Ctrl-C, Ctrl-D (a soft reset, which
    would start main.py again) or Ctrl-E (paste mode). The frame is always the same bytes."""
    frame = protocol.Encoder().maintenance()
    assert frame == protocol.Encoder().maintenance()
    assert not set(frame) & {0x01, 0x03, 0x04, 0x05}
