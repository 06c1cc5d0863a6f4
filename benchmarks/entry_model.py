"""What the entry model costs (board_driver/views/entry.py): the page's state carries it after
every change while a web seat is to move, so its time is added to every push then.

    python benchmarks/entry_model.py [--rounds 7] [--positions 20] [--seed 1]

For each game, positions met in random games (the same ones every run, by --seed); each round
times, one after the other, the reference `state.legal_moves()` over every position and then
`entry.model(state)` over the same positions. Prints one JSON object: per game the
milliseconds of CPU per position of each (min/median/max over the rounds) and the model's
ratio to the reference, per round (the machine is shared: CPU time of this process, not wall
time).
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import games  # noqa: E402
from board_driver.views import entry  # noqa: E402


def spread(values: list[float]) -> dict:
    return {"min": round(min(values), 3), "median": round(statistics.median(values), 3),
            "max": round(max(values), 3)}


def positions(name: str, count: int, rng: random.Random) -> list:
    found = []
    while len(found) < count:
        state = games.get_game(name).new_state()
        while not state.is_over() and len(found) < count:
            if rng.random() < 0.2:
                found.append(state.copy())
            state.play(rng.choice(state.legal_moves()))
    return found


def per_position_ms(fn, states: list) -> float:
    start = time.process_time()
    for state in states:
        fn(state)
    return (time.process_time() - start) * 1000 / len(states)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--positions", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    out = {"machine": platform.machine(), "python": platform.python_version(),
           "rounds": args.rounds, "positions": args.positions, "games": {}}
    for name in games.names():
        states = positions(name, args.positions, rng)
        entry.model(states[0])   # (the view's module imported before timing)
        reference, model, ratio = [], [], []
        for _ in range(args.rounds):
            r = per_position_ms(lambda s: s.legal_moves(), states)
            m = per_position_ms(entry.model, states)
            reference.append(r)
            model.append(m)
            ratio.append(m / r if r else float("inf"))
        out["games"][name] = {"legal_moves_ms": spread(reference), "entry_model_ms": spread(model),
                              "ratio": spread(ratio),
                              "choices": round(statistics.mean(len(entry.choices(s))
                                                               for s in states), 1)}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
