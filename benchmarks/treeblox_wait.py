"""The player's wait on the Treeblox ADC board: a cube put down -> the frame at the strip.

    .venv/bin/python benchmarks/treeblox_wait.py [--rounds 8] [--moves 12] [--before-ms 20]

The whole daemon (`board_driver.daemon.loop.Daemon`: its asyncio loop and real clock, the ADC
source's poll thread reading 16 analog hall sensors through gpiozero's MCP3008 on mock SPI every
10 ms, the referee's debounce, reconcile, the journal on tmpfs, the view, the recording strip)
on `treeblox-adc`. From `board.place(hole, kind)` (the cube's reading at its band's middle,
settled) until the strip transmits the frame of the move accepted.

Two settings, alternating round by round in one run so that the shared machine's load falls on
both alike: the shipped layout ("now": its `debounce_ms`), and the same layout with
`debounce_ms = --before-ms` ("before": 20, what it was). Each round is a fresh daemon and game
and plays `--moves` cubes on the board's holes (random legal ones, seeded by the round). Prints
one JSON object: per setting, the percentiles over all its samples and each round's p50 and
max (the spread).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hardware.layout import LAYOUT_DIR, load_layout  # noqa: E402

LAYOUT = "treeblox-adc"


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def layout_with_debounce(ms: int, into: str) -> str:
    """The shipped layout with another `debounce_ms`, written to a file in `into`."""
    text = (LAYOUT_DIR / f"{LAYOUT}.toml").read_text(encoding="utf-8")
    lines = text.split("\n")
    hits = [i for i, line in enumerate(lines) if line.startswith("debounce_ms = ")]
    if len(hits) != 1:
        raise SystemExit(f"{LAYOUT}.toml: expected one `debounce_ms = ` line, found {len(hits)}")
    lines[hits[0]] = f"debounce_ms = {ms}"
    path = Path(into) / f"{LAYOUT}-{ms}ms.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    return str(path)


def one_round(layout: str, moves: int, seed: int, tmp: str) -> tuple[list[float], list[str]]:
    from board_driver.config import sim_config
    from board_driver.daemon.loop import Daemon
    from board_driver.daemon.notify import Notifier
    from games.treeblox import COLOURS, cell_name

    config = sim_config(layout=layout, journal=f"{tmp}/j{seed}-{Path(layout).stem}.sqlite")
    daemon = Daemon(config, notifier=Notifier(None), new_game=True)
    samples: list[float] = []
    lost: list[str] = []

    async def run() -> None:
        runner = asyncio.ensure_future(daemon.run())
        while daemon.session is None:
            await asyncio.sleep(0.01)
        session = daemon.session
        ref, board = session.referee, session.hardware.board
        strip = board.strip
        shown = asyncio.Event()
        seen: list[float] = []
        transmit = strip._buffer._transmit

        def timed_transmit(buffer):  # the frame's bytes leave for the strip
            transmit(buffer)
            seen.append(time.monotonic())
            shown.set()

        strip._buffer._transmit = timed_transmit
        await asyncio.sleep(0.3)
        rng = random.Random(seed)
        while len(samples) + len(lost) < moves:
            state = ref.state
            holes = [m for m in state.legal_moves()
                     if m.cell is not None and m.cell[2] == 0 and -1 < m.cell[0] < 4 and -1 < m.cell[1] < 4]
            if not holes or state.is_over():
                break
            move = rng.choice(sorted(holes, key=str))
            kind = f"{COLOURS[state.to_move]}-{move.kind}"
            before = len(state.moves)
            shown.clear()
            settled = time.monotonic()
            board.place(cell_name(move.cell), kind)
            try:
                while True:
                    await asyncio.wait_for(shown.wait(), timeout=2.0)
                    shown.clear()
                    if len(ref.state.moves) > before:
                        break
            except asyncio.TimeoutError:
                lost.append(str(move))
                break
            samples.append(seen[-1] - settled)
            await asyncio.sleep(0.03 + rng.random() * 0.01)  # the next hand, at another phase
        daemon.stop()
        await runner

    asyncio.run(run())
    return samples, lost


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=8)
    parser.add_argument("--moves", type=int, default=12)
    parser.add_argument("--before-ms", type=int, default=20)
    args = parser.parse_args(argv)
    shipped = load_layout(LAYOUT)
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as tmp:
        settings = {f"before (debounce {args.before_ms} ms)": layout_with_debounce(args.before_ms, tmp),
                    f"now (debounce {round(shipped.debounce_s * 1000)} ms)": LAYOUT}
        per = {name: {"samples": [], "rounds": [], "lost": []} for name in settings}
        for r in range(args.rounds):
            for name, layout in (settings.items() if r % 2 == 0 else reversed(settings.items())):
                samples, lost = one_round(layout, args.moves, r, tmp)
                per[name]["samples"] += samples
                per[name]["lost"] += lost
                if samples:
                    per[name]["rounds"].append((round(statistics.median(samples) * 1000, 1),
                                                round(max(samples) * 1000, 1)))
        for name, got in per.items():
            s = got["samples"]
            results[name] = {
                "moves": len(s), "p50_ms": round(percentile(s, 0.5) * 1000, 1),
                "p90_ms": round(percentile(s, 0.9) * 1000, 1), "p99_ms": round(percentile(s, 0.99) * 1000, 1),
                "max_ms": round(max(s) * 1000, 1),
                "each_round_p50_max_ms": got["rounds"], "moves_never_shown": got["lost"]}
    print(json.dumps({"layout": LAYOUT, "poll_period_ms": round(shipped.adc.poll_period_s * 1000),
                      "load_average": os.getloadavg(), **results}, indent=1))


if __name__ == "__main__":
    main()
