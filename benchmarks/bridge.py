"""Round trips over the firmware bridge, measured over a real pty against the simulated firmware.

    .venv/bin/python benchmarks/bridge.py [--rounds 300] [--only roundtrips|scan|latency|faults|arbos]

- LED frame (`roundtrips`): `sink.show(frame)` (every pixel changed, so a whole LED_FRAME) until the host has
  the firmware's ACK with the matching CRC (`sink.flush`).
- Sensor change: `fw.place(channel)` until the host's callback has the SensorEvent. The
  simulated firmware scans every 1 ms with no debounce here; a real one adds its debounce
  (4 scans x 2 ms by default: firmware/main.py).

- Full 400-cell scan (`scan`): one `Controller.scan()` of the 20 x 20 firmware on an idle
  board, i.e. `ShiftRegisterMatrix.scan()` through the simulated 74HC595/74HC165 chain (bit by
  bit, 21 SPI transfers of 3 bytes) plus the row-mask debounce, alternating with the same
  board read straight from memory ("pins": no chips to simulate) and with the debounce as it
  was before the row masks (a loop over all 400 cells), both as references. These are CPython
  times of the simulation; what the chips cost on an RP2040 is computed (SPI bits at
  `SPI_BAUD`, plus the settle time per row) and printed beside them.
- Sensor to LED (`latency`): `fw.place(cell)` until the firmware shows the frame the host
  built in its sensor callback with that cell lit (host callback -> `sink.show` -> LED_FRAME or
  LED_PARTIAL -> firmware), with the firmware's default debounce (main.py's: 4 scans x 2 ms,
  which the simulation takes); the 20 x 20 shift-register board with its 400-LED strip, alternating round by
  round with the 5 x 8 pin board and its 40 LEDs as the reference.
- Sensor to LED on the Arbos board (`arbos`): the whole daemon (`board_driver.daemon.loop.Daemon`,
  its asyncio loop, the layout's host window (1 ms: the firmware's debounce is the one), reconcile, the journal, the Arbos view, the
  current limit) on `arbos-20x20-bridge`, its simulated firmware on a pty with the real
  firmware's timing (main.py's: a scan every 2 ms through the simulated 74HC595/165 chain,
  4 equal scans to change): from `fw.place(cell)` (a seed put down in the setup) until the firmware's strip
  shows that cell in the seed's colour; then the seed is lifted (a takeback) and the cell must
  show its hint again. Alternating round by round with the reference: the same firmware and
  link with no daemon, the host's callback lighting the cell at once (so the difference is the
  daemon's share: mostly its debounce). The first round learns the seed's colour and is not
  counted. At most 100 rounds (each is real time: two moves and their settling).
- Sensor change on a noisy line (`faults`): the same, on the 40-channel board, while every
  byte either way has a 5 % chance of a flipped bit (`LineFaults(corrupt_bytes=0.05)`),
  alternating round by round with the same board on a clean line as the reference. With the
  default firmware and host timings (heartbeat 250 ms, repeats every 25 ms), so it shows what
  a player waits for. A change counts when the host's callback has it *and* its snapshot
  agrees (no phantom in between is checked by the tests, not here).

A pty moves bytes at memory speed whatever the baud rate, so the measured times are the
software's share (codec, threads, the tty layer). The wire's share at a real baud rate is
computed from the bytes each round trip puts on the line (10 bits a byte: 8N1) and reported
as wire / (wire + software p50). A USB CDC link ignores the baud rate too, so on an RP2040 over
USB the wire share is nearer the 1,000,000-baud row; the 115200 row is a UART.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from firmware_bridge.faults import LineFaults  # noqa: E402
from firmware_bridge.firmware import protocol  # noqa: E402
from firmware_bridge.host import BridgeTimings, open_bridge  # noqa: E402
from firmware_bridge.firmware.controller import Controller  # noqa: E402
from firmware_bridge.firmware.shiftreg import ShiftRegisterMatrix  # noqa: E402
from firmware_bridge.shiftchain import SimulatedShiftChain  # noqa: E402
from firmware_bridge.sim import start_simulated_firmware  # noqa: E402
from hardware.layout import load_layout  # noqa: E402

BAUDS = (115200, 1_000_000)


def percentile(samples, q):
    samples = sorted(samples)
    return samples[min(len(samples) - 1, int(q * len(samples)))]


def wire_seconds(nbytes, baud):
    return nbytes * 10 / baud


def measure(rows, cols, leds, rounds, matrix):
    fw = start_simulated_firmware(rows, cols, leds, scan_ms=1, debounce_scans=1, boot_noise=b"",
                                  matrix=matrix)
    # Long ack timeout: a slow round trip is measured, not retried.
    timings = BridgeTimings(ack_timeout=1.0)
    source, sink = open_bridge(fw.port, timings=timings)
    try:
        led = []
        for i in range(rounds):
            frame = [((i + j) % 256, (i * 3) % 256, j % 256) for j in range(leds)]
            t0 = time.perf_counter()
            sink.show(frame)
            if not sink.flush(2.0):
                raise RuntimeError("LED frame not acknowledged")
            led.append(time.perf_counter() - t0)

        arrived = threading.Event()
        source.start(lambda event: arrived.set())
        sensor = []
        for i in range(rounds):
            arrived.clear()
            t0 = time.perf_counter()
            (fw.place if i % 2 == 0 else fw.lift)(leds % (rows * cols))
            if not arrived.wait(2.0):
                raise RuntimeError("sensor change not seen")
            sensor.append(time.perf_counter() - t0)
    finally:
        source.close()
        sink.close()
        fw.stop()

    enc = protocol.Encoder()
    led_bytes = len(enc.led_frame(bytes(3 * leds))) + len(enc.ack(0, 0))
    change_bytes = len(enc.change(0, 1, 0)) + len(enc.heartbeat(0, 0))  # the change and its second witness
    return [("LED frame", led, led_bytes), ("sensor change", sensor, change_bytes)]


def measure_noisy_line(rounds, rate=0.05, seed=1):
    """Sensor change latency, alternating a clean line and one corrupting `rate` of bytes."""
    fw = start_simulated_firmware(5, 8, 40, boot_noise=b"")
    source, sink = open_bridge(fw.port, connect_timeout=30)
    seen = {}
    arrived = threading.Condition()

    def on_event(event):
        with arrived:
            seen[event.channel] = event.value
            arrived.notify_all()

    source.start(on_event)
    noisy = (LineFaults(seed, corrupt_bytes=rate), LineFaults(seed + 1, corrupt_bytes=rate))
    samples = {"clean": [], "noisy": []}
    stats_before = dict(sink.link.stats)
    try:
        for i in range(2 * rounds):
            kind = "noisy" if i % 2 else "clean"
            fw.faults_to_host, fw.faults_to_firmware = noisy if kind == "noisy" else (None, None)
            channel = (i // 2) % 40
            want = None if fw.sensors()[channel] else "present"
            t0 = time.perf_counter()
            (fw.lift if want is None else fw.place)(channel)
            with arrived:
                while not (seen.get(channel, "?") == want and source.snapshot()[channel] == want):
                    if time.perf_counter() - t0 > 60:
                        raise RuntimeError(f"channel {channel} not seen within 60 s")
                    arrived.wait(0.05)
            samples[kind].append(time.perf_counter() - t0)
    finally:
        source.close()
        sink.close()
        fw.stop()
    stats = {k: v - stats_before.get(k, 0) for k, v in sink.link.stats.items()}
    return samples, stats, sink.link.reconnects


def report_noisy_line(rounds):
    samples, stats, reconnects = measure_noisy_line(rounds)
    print("Sensor change (fw.place/lift -> host callback and snapshot agree), 40-channel board,")
    print("default timings; clean and 5 % byte corruption alternating round by round:")
    print(f"{'line':<10}{'rounds':>7}{'p50 ms':>9}{'p90 ms':>9}{'p99 ms':>9}{'max ms':>9}")
    for kind, xs in samples.items():
        print(f"{kind:<10}{len(xs):>7}" + "".join(
            f"{percentile(xs, q) * 1e3:>9.1f}" for q in (0.5, 0.9, 0.99)) + f"{max(xs) * 1e3:>9.1f}")
    print(f"link: {stats}, reconnects {reconnects}")


class IdleHw:
    """The controller's shim for timing scans: no line, a clock that never moves."""

    def __init__(self, scan):
        self.scan = scan

    ticks_ms = staticmethod(lambda: 0)
    ticks_diff = staticmethod(lambda a, b: a - b)
    read = staticmethod(lambda: b"")
    write = show = staticmethod(lambda data: None)


def per_cell_debounce(fw, masks):
    """The reference: the controller's debounce before row masks, one step per cell."""
    stable, pending, cols = fw.stable, fw.pending, fw.cols
    for i in range(fw.channels):
        code = masks[i // cols] >> (i % cols) & 1
        if code == stable[i]:
            pending[i] = 0
            continue
        pending[i] += 1


def measure_scan(rounds):
    rows = cols = 20
    cells = bytearray(rows * cols)
    for channel in (0, 21, 122, 399):  # a few pieces down: their rows' masks are not zero
        cells[channel] = 1
    chips = ShiftRegisterMatrix(SimulatedShiftChain(rows, cols, cells), rows, cols)
    masks = chips.scan()
    fixed = lambda: masks  # noqa: E731  the same reading every time: the debounce alone
    shift_fw = Controller(IdleHw(chips.scan), rows, cols, 400, 1)
    masks_fw = Controller(IdleHw(fixed), rows, cols, 400, 1)
    cells_fw = Controller(IdleHw(fixed), rows, cols, 400, 1)
    for fw in (shift_fw, masks_fw, cells_fw):
        fw.boot()
    kinds = {
        "chips alone (ShiftRegisterMatrix.scan)": chips.scan,
        "chips + row-mask debounce (Controller.scan)": shift_fw.scan,
        "row-mask debounce alone": masks_fw.scan,
        "per-cell debounce alone (before, ref)": lambda: per_cell_debounce(cells_fw, masks),
    }
    samples = {k: [] for k in kinds}
    for _ in range(rounds):
        for name, run in kinds.items():
            t0 = time.perf_counter()
            run()
            samples[name].append(time.perf_counter() - t0)
    clocks_per_scan = 21 * 3 * 8
    return samples, clocks_per_scan


def report_scan(rounds):
    samples, clocks = measure_scan(rounds)
    print("Full 400-cell scan (20 x 20), one Controller.scan() on an idle board; CPython, alternating:")
    print(f"{'what':<46}{'p50 us':>9}{'p99 us':>9}")
    for name, xs in samples.items():
        print(f"{name:<46}{percentile(xs, 0.5) * 1e6:>9.1f}{percentile(xs, 0.99) * 1e6:>9.1f}")
    spi = clocks / main_setting("SPI_BAUD")
    settle = 20 * main_setting("SETTLE_US") / 1e6
    print(f"on the RP2040, computed: {clocks} SPI clocks at {main_setting('SPI_BAUD') / 1e6:.0f} MHz = "
          f"{spi * 1e6:.0f} us, plus 20 x {main_setting('SETTLE_US')} us settling = {(spi + settle) * 1e6:.0f} us "
          "of chip time per scan (MicroPython's own time per row is not simulated here)")


def main_setting(name):
    """A wiring constant from firmware/main.py (which imports machine, so it is read, not run)."""
    import ast

    tree = ast.parse((Path(protocol.__file__).parent / "main.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                names = target.elts if isinstance(target, ast.Tuple) else [target]
                values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
                for t, v in zip(names, values):
                    if isinstance(t, ast.Name) and t.id == name:
                        return ast.literal_eval(v)
    raise KeyError(name)


def measure_sensor_to_led(rounds):
    boards = {"20x20 shift-register, 400 LEDs": (20, 20, 400, "shift-register"),
              "5x8 pins, 40 LEDs (ref)": (5, 8, 40, "pins")}
    opened = {}
    try:
        for name, (rows, cols, leds, matrix) in boards.items():
            fw = start_simulated_firmware(rows, cols, leds, boot_noise=b"", matrix=matrix)
            source, sink = open_bridge(fw.port, timings=BridgeTimings(ack_timeout=1.0))
            lit = threading.Event()
            state = {"want": None}

            def on_show(rgb, state=state, lit=lit):
                want = state["want"]
                if want is not None and rgb[3 * want:3 * want + 3] == bytes((255, 255, 255)):
                    lit.set()

            def on_event(event, sink=sink, leds=leds):
                # what a view does: light the cell that just changed
                frame = [(0, 0, 0)] * leds
                if event.value is not None:
                    frame[event.channel % leds] = (255, 255, 255)
                sink.show(frame)

            fw.on_show = on_show
            source.start(on_event)
            opened[name] = (fw, source, sink, lit, state)
        samples = {name: [] for name in boards}
        for i in range(rounds):
            for name, (fw, source, sink, lit, state) in opened.items():
                channel = (7 * i) % (fw.rows * fw.cols)
                fw.lift(channel)
                time.sleep(0.01)  # debounced and shown dark before the measured place
                lit.clear()
                state["want"] = channel % fw.led_count
                t0 = time.perf_counter()
                fw.place(channel)
                if not lit.wait(2.0):
                    raise RuntimeError(f"{name}: cell {channel} never lit")
                samples[name].append(time.perf_counter() - t0)
                state["want"] = None
                fw.lift(channel)
    finally:
        for fw, source, sink, _, _ in opened.values():
            source.close()
            sink.close()
            fw.stop()
    return samples


def report_sensor_to_led(rounds):
    samples = measure_sensor_to_led(rounds)
    print("Sensor to LED over the bridge: fw.place(cell) -> CHANGE + its witness -> host callback "
          "lights the cell -> LED update -> firmware shows it (default debounce: 4 scans x 2 ms); alternating:")
    print(f"{'board':<34}{'rounds':>7}{'p50 ms':>9}{'p99 ms':>9}")
    for name, xs in samples.items():
        print(f"{name:<34}{len(xs):>7}{percentile(xs, 0.5) * 1e3:>9.2f}{percentile(xs, 0.99) * 1e3:>9.2f}")


def report_roundtrips(rounds):
    header = (f"{'board':<18}{'round trip':<15}{'p50 ms':>8}{'p99 ms':>8}{'bytes':>7}"
              + "".join(f"{'wire ms @' + str(b):>17}{'share':>7}" for b in BAUDS))
    print(header)
    print("-" * len(header))
    for rows, cols, leds, name, matrix in ((5, 8, 40, "40 LEDs (5x8)", "pins"),
                                           (20, 20, 400, "400 LEDs (20x20)", "shift-register")):
        for what, samples, nbytes in measure(rows, cols, leds, rounds, matrix):
            p50, p99 = percentile(samples, 0.5), percentile(samples, 0.99)
            row = f"{name:<18}{what:<15}{p50 * 1e3:>8.3f}{p99 * 1e3:>8.3f}{nbytes:>7}"
            for baud in BAUDS:
                wire = wire_seconds(nbytes, baud)
                row += f"{wire * 1e3:>17.3f}{wire / (wire + p50):>7.0%}"
            print(row)
    print(f"{rounds} rounds each, Python {sys.version.split()[0]}; software time over a pty, "
          "wire time computed (8N1).")
    print(f"A 400-LED frame is {len(protocol.Encoder().led_frame(bytes(1200)))} bytes on the wire; the "
          f"strip itself then takes 400 x 24 bits x 1.25 us = {400 * 24 * 1.25 / 1000:.1f} ms to clock out (WS2812).")


def measure_arbos_board(rounds):
    """(daemon samples, bare link samples), alternating round by round; see the docstring."""
    import asyncio
    import tempfile

    from board_driver.config import sim_config
    from board_driver.daemon.loop import Daemon

    import os

    os.environ.setdefault("GPIOZERO_PIN_FACTORY", "mock")  # the layout's end-turn button: no Pi here
    fw_timing = {"scan_ms": main_setting("SCAN_MS"), "debounce_scans": main_setting("DEBOUNCE_SCANS")}
    tmp = tempfile.TemporaryDirectory(prefix="bench-arbos-")
    fw = start_simulated_firmware(20, 20, 400, boot_noise=b"", matrix="shift-register", **fw_timing)
    config = sim_config(layout="arbos-20x20-bridge", backend="bridge", bridge_port=fw.port,
                        journal=str(Path(tmp.name) / "journal.sqlite"), turn_seconds=0)
    daemon = Daemon(config, new_game=True)
    loop = asyncio.new_event_loop()
    failed = []

    def run():
        try:
            loop.run_until_complete(daemon.run())
        except BaseException as exc:  # said when the benchmark gives up waiting for it
            failed.append(exc)

    runner = threading.Thread(target=run, daemon=True)
    runner.start()
    ref_fw = start_simulated_firmware(20, 20, 400, boot_noise=b"", matrix="shift-register", **fw_timing)
    ref_source, ref_sink = open_bridge(ref_fw.port)
    try:
        deadline = time.monotonic() + 10
        while daemon.session is None or not daemon.started.is_set():
            if not runner.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"the daemon did not start: {failed[0] if failed else 'timeout'}")
            time.sleep(0.01)
        layout = daemon.session.layout
        channel = layout.channels_of_site["J10"][0]
        pixel = layout.leds_of_site["J10"][0]

        def shown(firmware):
            return firmware.leds()[pixel]

        def wait(what, test, firmware, t0):
            end = t0 + 2.0
            while not test(shown(firmware)):
                if time.perf_counter() > end:
                    raise RuntimeError(f"{what}: J10 shows {shown(firmware)}")
                time.sleep(0.0002)
            return time.perf_counter() - t0

        time.sleep(0.3)
        hint = shown(fw)  # the setup's hint: a seed may go here
        ref_source.start(lambda e: ref_sink.show(
            [(255, 255, 255) if (i == pixel and e.value is not None) else (0, 0, 0) for i in range(400)]))
        ours, bare = [], []
        seed = None
        for _ in range(rounds):
            t0 = time.perf_counter()
            fw.place(channel)
            if seed is None:
                wait("the seed", lambda c: c != hint, fw, t0)
                time.sleep(0.1)  # the colour it settles in (the last move may flash first)
                seed = shown(fw)
            else:
                ours.append(wait("the seed", lambda c: c == seed, fw, t0))
            fw.lift(channel)  # the last move lifted: taken back, the hint again
            wait("the takeback", lambda c: c == hint, fw, time.perf_counter())
            time.sleep(0.05)
            t0 = time.perf_counter()
            ref_fw.place(channel)
            bare.append(wait("the bare link", lambda c: c == (255, 255, 255), ref_fw, t0))
            ref_fw.lift(channel)
            wait("the bare link's lift", lambda c: c == (0, 0, 0), ref_fw, time.perf_counter())
            time.sleep(0.05)
        moves = [str(m) for m in daemon.session.referee.state.moves]
        if moves:
            raise RuntimeError(f"the takebacks did not all happen: {moves}")
        return ours, bare
    finally:
        loop.call_soon_threadsafe(daemon.stop)
        runner.join(10)
        ref_source.close()
        ref_sink.close()
        ref_fw.stop()
        fw.stop()
        tmp.cleanup()


def report_arbos_board(rounds):
    rounds = min(rounds, 100)  # each round is two moves of real time (~0.3 s)
    ours, bare = measure_arbos_board(rounds)
    print("Sensor to LED on the 20x20 Arbos bridge board: fw.place(J10) -> firmware scan through "
          f"the 74HC595/165 chain every {main_setting('SCAN_MS')} ms, {main_setting('DEBOUNCE_SCANS')} "
          "equal scans -> CHANGE + witness -> host link -> daemon (its window "
          f"{load_layout('arbos-20x20-bridge').debounce_s * 1000:g} ms, reconcile, journal, "
          "Arbos view) -> LED update -> the firmware's strip shows the seed; alternating with the same "
          "firmware and link lighting the cell from the host's callback (no daemon):")
    print(f"{'path':<44}{'rounds':>7}{'p50 ms':>9}{'p99 ms':>9}{'min ms':>9}{'max ms':>9}")
    for name, xs in (("daemon, Arbos 20x20 (arbos-20x20-bridge)", ours),
                     ("bare link, same firmware (ref)", bare)):
        print(f"{name:<44}{len(xs):>7}{percentile(xs, 0.5) * 1e3:>9.2f}{percentile(xs, 0.99) * 1e3:>9.2f}"
              f"{min(xs) * 1e3:>9.2f}{max(xs) * 1e3:>9.2f}")


SECTIONS = {"roundtrips": report_roundtrips, "scan": report_scan, "latency": report_sensor_to_led,
            "faults": report_noisy_line, "arbos": report_arbos_board}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--only", choices=list(SECTIONS), action="append",
                        help="run only this section (may be repeated); default all but faults and arbos")
    args = parser.parse_args()
    for name in args.only or ["roundtrips", "scan", "latency"]:
        SECTIONS[name](args.rounds)
        print()


if __name__ == "__main__":
    main()
