"""Round trips over the firmware bridge, measured over a real pty against the simulated firmware.

    .venv/bin/python benchmarks/bridge.py [--rounds 300]

- LED frame: `sink.show(frame)` (every pixel changed, so a whole LED_FRAME) until the host has
  the firmware's ACK with the matching CRC (`sink.flush`).
- Sensor change: `fw.place(channel)` until the host's callback has the SensorEvent. The
  simulated firmware scans every 1 ms with no debounce here; a real one adds its debounce
  (3 scans x 5 ms by default).

- Sensor change on a noisy line (`--faults`): the same, on the 40-channel board, while every
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
from firmware_bridge.sim import start_simulated_firmware  # noqa: E402

BAUDS = (115200, 1_000_000)


def percentile(samples, q):
    samples = sorted(samples)
    return samples[min(len(samples) - 1, int(q * len(samples)))]


def wire_seconds(nbytes, baud):
    return nbytes * 10 / baud


def measure(rows, cols, leds, rounds):
    fw = start_simulated_firmware(rows, cols, leds, scan_ms=1, debounce_scans=1, boot_noise=b"")
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
    change_bytes = len(enc.change(0, 1))
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--faults", action="store_true",
                        help="only the sensor change on a noisy line (--rounds of each kind)")
    args = parser.parse_args()
    if args.faults:
        report_noisy_line(args.rounds)
        return
    header = (f"{'board':<18}{'round trip':<15}{'p50 ms':>8}{'p99 ms':>8}{'bytes':>7}"
              + "".join(f"{'wire ms @' + str(b):>17}{'share':>7}" for b in BAUDS))
    print(header)
    print("-" * len(header))
    for rows, cols, leds, name in ((5, 8, 40, "40 LEDs (5x8)"), (20, 20, 400, "400 LEDs (20x20)")):
        for what, samples, nbytes in measure(rows, cols, leds, args.rounds):
            p50, p99 = percentile(samples, 0.5), percentile(samples, 0.99)
            row = f"{name:<18}{what:<15}{p50 * 1e3:>8.3f}{p99 * 1e3:>8.3f}{nbytes:>7}"
            for baud in BAUDS:
                wire = wire_seconds(nbytes, baud)
                row += f"{wire * 1e3:>17.3f}{wire / (wire + p50):>7.0%}"
            print(row)
    print(f"\n{args.rounds} rounds each, Python {sys.version.split()[0]}; software time over a pty, "
          "wire time computed (8N1).")


if __name__ == "__main__":
    main()
