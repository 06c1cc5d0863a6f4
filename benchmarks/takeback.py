"""The cost of a takeback as a game's journal grows: place and lift one rod, over and over.

    .venv/bin/python benchmarks/takeback.py [--actions 10000] [--rounds 2]

Each action goes through the whole simulated board (`treeboard trace`'s Tracer: mock pins,
matrix scan, debounce, reconcile, journal on disk, LEDs). A place is a move, a lift its
takeback, so the journal gains two records per pair and the game never gets longer. The
journal is on tmpfs (/dev/shm) where there is one: an fsync per action would hide the rest.

Compared in the same run, alternating: the journal as it is (the game in progress kept in
memory: a takeback is one insert) and the reference, the journal as it was (every takeback
first re-read the whole game with `Journal.current()`). Prints one JSON object: ms per action
over the first and the last 500 actions of each round, and their ratio (1.0: the cost does
not grow with the game; the reference grows linearly, so the whole trace is quadratic).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from board_driver.config import sim_config  # noqa: E402
from board_driver.referee.journal import Journal  # noqa: E402
from board_driver.referee.tracer import Tracer  # noqa: E402

WINDOW = 500


def run(actions: int, reread: bool) -> dict:
    # tmpfs: the journal's fsync (milliseconds on a disk) would hide the cost that grows.
    shm = "/dev/shm" if Path("/dev/shm").is_dir() else None
    with tempfile.TemporaryDirectory(prefix="treeboard-takeback-", dir=shm) as tmp:
        tracer = Tracer(sim_config(journal=str(Path(tmp) / "j.sqlite"),
                                   layout="tree-planting-classic-matrix"))
        journal = tracer.session.journal
        if reread:  # the reference: what record_undo did before, a whole-game read first
            undo = journal.record_undo

            def record_undo_rereading():
                Journal.current(journal)
                undo()

            journal.record_undo = record_undo_rereading
        times = []
        try:
            for i in range(actions):
                verb = "place" if i % 2 == 0 else "lift"
                started = time.perf_counter()
                tracer.step(verb, ["h0.0"])
                times.append(time.perf_counter() - started)
            events = journal.current().events
        finally:
            tracer.close()
    first = statistics.fmean(times[:WINDOW]) * 1000
    last = statistics.fmean(times[-WINDOW:]) * 1000
    return {"first_ms": round(first, 3), "last_ms": round(last, 3), "growth": round(last / first, 2),
            "total_s": round(sum(times), 2), "journal_events": events}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--actions", type=int, default=10000)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    rows = {"now": [], "reference_reread": []}
    run(2 * WINDOW, reread=False)  # warm-up: imports, caches, the first frames
    for _ in range(args.rounds):  # alternating, so both see the same machine
        rows["now"].append(run(args.actions, reread=False))
        rows["reference_reread"].append(run(args.actions, reread=True))
    out = {"what": "ms per place/lift action on one groove, first vs last 500 actions",
           "actions": args.actions, "python": platform.python_version()}
    for name, results in rows.items():
        growth = [r["growth"] for r in results]
        out[name] = {"runs": results, "growth_min_max": [min(growth), max(growth)]}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
