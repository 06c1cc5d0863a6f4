"""Sensor latency on the simulated board: an edge at a mock pin -> the event out of the source.

    .venv/bin/python benchmarks/latency.py [--edges 10000] [--layout NAME]
    .venv/bin/python benchmarks/latency.py --voice-only [--seen 300] [--voice-rounds 3]

Direct pins: the time from `MockPin.drive_low/high` to the source's callback (gpiozero's
callback chain plus ours). Matrix and ADC sources only see an edge when they scan, so their
latency on a real board is up to one scan period plus the scan itself; this prints the scan
time, measured the same way. Prints one JSON object; percentiles in microseconds.

Two figures for a rod put in a groove, which are different things:

- processing cost: matrix switch + one scan -> the LED frame handed to the strip, through the
  referee on a simulated clock that jumps over the debounce window and scans at once
  (reconcile, journal write, render, LED corrections); journal on tmpfs (the pipeline's own
  cost) and on the disk this runs on (adds SQLite's fsync). Not what a player waits.
- player-seen latency: the magnet settled (the reed switch closed at the mock pins) -> the
  frame at the strip, on the real daemon: its asyncio loop and real clock, its matrix scan
  thread (5 ms period), the 20 ms debounce. This is what a player waits, on this machine.

The player-seen latency again with the voice off and on (espeak-ng writing a WAV of every
sentence on the speech worker, the daemon's own queue), alternating in one run, several rounds:
speech must never slow the sensor path, and the spread over rounds says how far the shared
machine's load moves the figure.

Then the real daemon (`treeboard sim`, its own process) left idle on the simulated classic
board: its CPU share and its own resident memory, read from /proc.

The garbage collector: the benchmark keeps samples and the recording strip keeps frames,
so collections run that a board would not pay for. Objects made before timing are frozen
(gc.freeze, as a long-running daemon's are old), and every collection during the timed part
is counted and timed, and printed, so a slow sample can be told apart from a GC pause.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
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


def processing_cost(moves: int, journal_dir: str) -> dict:
    import random
    import tempfile

    from board_driver.config import sim_config
    from board_driver.referee.session import open_session

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


class GcPauses:
    """Times every collection while active (gc.callbacks), to account for the pauses."""

    def __init__(self):
        self.pauses: list[float] = []
        self._start = 0.0

    def _callback(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._start = time.perf_counter()
        else:
            self.pauses.append(time.perf_counter() - self._start)

    def __enter__(self):
        gc.collect()
        gc.freeze()  # what exists now is old: a collection need not walk it again
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc):
        gc.callbacks.remove(self._callback)
        gc.unfreeze()

    def summary(self) -> dict:
        return {"collections": len(self.pauses),
                "max_ms": round(max(self.pauses, default=0) * 1000, 3),
                "total_ms": round(sum(self.pauses) * 1000, 3)}


def player_seen(moves: int, voice: bool = False, pause_s: float = 0.0) -> dict:
    """Magnet settled -> frame at the strip, on the real daemon (real clock, scan thread);
    `voice`: with the board speaking every move (espeak-ng writing WAVs on the speech worker,
    as on a board with no audio device: the same queue and engine, a file instead of ALSA).
    `pause_s`: a player's time between one move's light and the next rod (0: as fast as the
    pegs settle, far faster than a person)."""
    import asyncio
    import random
    import tempfile

    from board_driver.config import sim_config
    from board_driver.daemon.loop import Daemon
    from board_driver.daemon.notify import Notifier

    samples: list[float] = []
    lost: list[str] = []
    with tempfile.TemporaryDirectory(dir="/dev/shm") as tmp:
        config = sim_config(layout="tree-planting-classic-matrix", journal=f"{tmp}/j.sqlite")
        if voice:
            from board_driver.config import Voice

            config.voice = Voice(enabled=True, wav_dir=f"{tmp}/voice")
        daemon = Daemon(config, notifier=Notifier(None), new_game=True)

        async def run(gc_pauses: list) -> None:
            loop = asyncio.get_running_loop()
            runner = asyncio.ensure_future(daemon.run())
            while daemon.session is None:
                await asyncio.sleep(0.01)
            session = daemon.session
            ref, board, strip = session.referee, session.hardware.board, session.hardware.board.strip
            shown = asyncio.Event()
            seen: list[float] = []
            transmit = strip._buffer._transmit

            def timed_transmit(buffer):  # the frame's bytes leave for the strip: the moment
                transmit(buffer)
                seen.append(time.monotonic())
                shown.set()

            strip._buffer._transmit = timed_transmit
            await asyncio.sleep(0.3)
            rng = random.Random(1)
            with GcPauses() as pauses:
                while len(samples) < moves:
                    state = ref.state
                    if state.is_over():
                        for site in list(state.occupancy()):
                            board.lift(site)
                        await asyncio.sleep(0.1)
                        continue
                    move = str(rng.choice(state.legal_moves()))
                    before = len(state.moves)
                    shown.clear()
                    settled = time.monotonic()  # the daemon's own clock (loop.time)
                    board.place(move)
                    # The first frame after the move was accepted (a blink does not count).
                    # A move that never shows (the simulated matrix's scan thread can die of a
                    # race with the hands, issue 9) is counted, not waited for forever.
                    try:
                        while True:
                            await asyncio.wait_for(shown.wait(), timeout=2.0)
                            shown.clear()
                            if len(ref.state.moves) > before or ref.state is not state:
                                break
                    except asyncio.TimeoutError:
                        lost.append(move)
                        if len(lost) > 3:
                            break
                        board.lift(move)
                        await asyncio.sleep(0.1)
                        continue
                    samples.append(seen[-1] - settled)
                    for hole in ref.state.last_planted() if ref.state.moves and str(ref.state.moves[-1]) == move else []:
                        board.place(hole)
                    await asyncio.sleep(ref.debouncer.window_s * 2)  # the pegs settle too
                    if pause_s:
                        await asyncio.sleep(pause_s)
                gc_pauses.extend(pauses.pauses)
                summary = pauses.summary()
            daemon.stop()
            await runner
            return summary

        gc_summary = asyncio.run(run([]))
        spoken = len(list(Path(tmp, "voice").glob("*.wav"))) if voice else None
    layout = load_layout("tree-planting-classic-matrix")
    return {**{k.replace("_us", "_ms"): round(v / 1000, 2) if k.endswith("_us") else v
               for k, v in percentiles(samples).items()},
            "debounce_ms": layout.debounce_s * 1000, "scan_period_ms": layout.matrix.scan_period_s * 1000,
            "gc_during_timing": gc_summary, "moves_never_shown": lost,
            **({"utterances_spoken": spoken} if voice else {})}


def voice_on_and_off(moves: int, rounds: int) -> dict:
    """The player-seen latency with the voice off and on, alternating in one run (a shared
    machine's load drifts: each pair is measured back to back), and the spread over rounds."""
    runs: dict[str, list[dict]] = {"voice off": [], "voice on": []}
    for _ in range(rounds):
        for label in runs:
            runs[label].append(player_seen(moves, voice=label == "voice on"))
    out = {}
    for label, results in runs.items():
        p99 = [r["p99_ms"] for r in results]
        p50 = [r["p50_ms"] for r in results]
        out[label] = {"p50_ms each round": p50, "p99_ms each round": p99,
                      "p99_ms median": statistics.median(p99),
                      "p99_ms spread": [min(p99), max(p99)],
                      **({"utterances_spoken": [r["utterances_spoken"] for r in results]}
                         if label == "voice on" else {})}
    return out


def idle_daemon(seconds: float) -> dict:
    """`treeboard sim` in its own process, idle: its CPU share and resident memory (/proc)."""
    import tempfile

    exe = Path(sys.executable).with_name("treeboard")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "board_driver.cli"]
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen(cmd + ["sim", "--journal", f"{tmp}/j.sqlite"], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(2.0)  # started, first frame shown
            ticks = os.sysconf("SC_CLK_TCK")

            def cpu_s() -> float:
                fields = Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
                return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime

            def rss_kib() -> int:
                for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
                return 0

            cpu0, wall0, rss0 = cpu_s(), time.perf_counter(), rss_kib()
            time.sleep(seconds)
            share = (cpu_s() - cpu0) / (time.perf_counter() - wall0)
            rss1 = rss_kib()
        finally:
            proc.stdin.close()
            proc.terminate()
            proc.wait(timeout=10)
    return {"seconds": seconds, "cpu_share_percent": round(share * 100, 2),
            "daemon_rss_mib_start": round(rss0 / 1024, 1), "daemon_rss_mib_end": round(rss1 / 1024, 1),
            "note": "the daemon's own process (treeboard sim), simulated 5 ms matrix scan included"}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--edges", type=int, default=10_000)
    parser.add_argument("--scans", type=int, default=1_000)
    parser.add_argument("--moves", type=int, default=10_000)
    parser.add_argument("--seen", type=int, default=300, help="moves timed on the real daemon")
    parser.add_argument("--idle-seconds", type=float, default=5.0)
    parser.add_argument("--voice-rounds", type=int, default=3,
                        help="rounds of the player-seen latency with the voice off, then on")
    parser.add_argument("--voice-only", action="store_true",
                        help="only the voice off/on comparison (--seen moves a round)")
    args = parser.parse_args(argv)
    if args.voice_only:
        print(json.dumps({"python": platform.python_version(), "machine": platform.machine(),
                          "player_seen with the voice off and on (ms)":
                          voice_on_and_off(args.seen, args.voice_rounds)}, indent=2))
        return
    result = {
        "python": platform.python_version(),
        "machine": platform.machine(),
        "pin_edge_to_event": pin_edges(args.edges),
        "matrix_scan tree-planting-classic-matrix (6x7)": scans("tree-planting-classic-matrix", args.scans),
        "matrix_scan grid-8x8-matrix": scans("grid-8x8-matrix", args.scans),
        "adc_poll treeblox-adc (16 channels, software SPI)": scans("treeblox-adc", max(50, args.scans // 10)),
        "processing_cost rod edge -> frame, debounce skipped, journal on tmpfs": processing_cost(args.moves, "/dev/shm"),
        "processing_cost the same, journal on disk (with fsync)": processing_cost(
            max(200, args.moves // 10), str(Path(__file__).resolve().parent.parent)),
        "player_seen magnet settled -> frame at the strip, real daemon (ms)": player_seen(args.seen),
        "player_seen with the voice off and on (ms)": voice_on_and_off(
            max(50, args.seen // 2), args.voice_rounds),
        "idle_daemon": idle_daemon(args.idle_seconds),
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
