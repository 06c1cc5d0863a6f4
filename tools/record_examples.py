"""docs/records.md's example records, made by the board's own code, so they cannot go stale.

    python tools/record_examples.py          rewrite the examples in docs/records.md
    python tools/record_examples.py check    exit 1 when they differ from what the code makes

Each example is a game played by a seeded random hand, kept in a journal as the board keeps
one (its seats, the clocks at each move, its end), and exported as the page and `treeboard
export` export it (dates in UTC here, the board's local time on a board).
tests/board_driver/test_records.py runs the check.
"""

from __future__ import annotations

import datetime as dt
import random
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import games  # noqa: E402
from board_driver.records import library, sgf  # noqa: E402
from board_driver.referee.clock import parse_time_control  # noqa: E402
from board_driver.referee.journal import Journal  # noqa: E402

DOC = ROOT / "docs" / "records.md"
#: When the examples were played (2026-05-28, 13:20 UTC).
PLAYED_AT = 1_779_974_400.0
#: game, options, hand's seed, seats, time control, how it ends ("rules": played to the end
#: by the rules; "flag": the player to move runs out of time after `moves`; "stop": put
#: aside after `moves`), moves, whether the computer's review is added.
EXAMPLES = [
    ("tree-planting", {"board": "2x2"}, 2, ("human", "computer:easy"), "5+3", "rules", None,
     True),
    ("treeblox", {"cubes": 2}, 2, ("human", "human"), None, "rules", None, False),
    ("fangqi", {"board": "3x3"}, 0, ("computer:medium", "remote"), None, "rules", None, False),
    ("arbos", {"board": "6x6", "setup_seed": 7}, 0, ("human", "web"), "1", "flag", 8, False),
    ("game-for-the-trees", {"limit": 10}, 0, ("human", "human"), "10", "stop", 6, False),
]


def journal_game(journal: Journal, game: str, options: dict, seed: int, seats, control,
                 ending: str = "rules", moves: int | None = None) -> games.State:
    """A game played by a seeded random hand, kept in `journal` as the referee keeps one:
    its seats, each move with the clocks as it was made (a few seconds a move, `control`'s
    increment after it), and its end (the rules', a flag, or none). Returns its position."""
    state = games.get_game(game).new_state(**options)
    rng = random.Random(seed)
    journal.start_game(game, state.options(), seats)
    controls = parse_time_control(control) if control else None
    left = None if controls is None else [None if c.start_s is None else int(c.start_s * 1000)
                                          for c in controls]
    while not state.is_over() and (moves is None or len(state.moves) < moves):
        mover = state.to_move
        state.play(rng.choice(sorted(state.legal_moves(), key=str)))
        clocks = None
        if left is not None:
            left[mover] = max(0, left[mover] - 500 - rng.randrange(4500))
            clocks = {"control": control, "left_ms": list(left), "turn_of": mover}
            left[mover] += int(controls[mover].increment_s * 1000)
        journal.record_move(str(state.moves[-1]), clocks=clocks,
                            finish=state.summary() if state.is_over() else None)
    if ending == "flag":
        seat = state.to_move
        journal.save_clocks({"control": control, "left_ms": [0 if s == seat else v for s, v
                                                             in enumerate(left)],
                             "turn_of": seat})
        journal.finish(dict(state.summary(), over=True, winner=1 - seat, flag=seat))
    return state


def examples() -> dict[str, str]:
    """Each game's example record, by the game's registry name."""
    from games.ai.review import review

    made = {}
    with tempfile.TemporaryDirectory() as folder:
        with Journal(Path(folder) / "journal.sqlite", clock=lambda: PLAYED_AT) as journal:
            journal.durable(False)
            for game, options, seed, seats, control, ending, moves, reviewed in EXAMPLES:
                state = journal_game(journal, game, options, seed, seats, control, ending, moves)
                game_id = journal.history(limit=1, include_abandoned=True)[0].game_id \
                    if ending != "stop" else journal.current().game_id
                rows = {game_id: review(state, seconds=1.0, seed=0)} if reviewed else None
                record = library.export(journal, [game_id], rows, dt.timezone.utc)[0]
                made[game] = sgf.dumps([record]).decode("utf-8")
    return made


_BLOCK = re.compile(r"(<!-- example: (?P<game>[a-z-]+) -->\n```sgf\n)(?P<text>.*?)(```)", re.S)


def rewritten(doc: str, made: dict[str, str]) -> str:
    """docs/records.md with each example block holding what the code makes."""
    return _BLOCK.sub(lambda m: m.group(1) + made[m.group("game")].rstrip("\n") + "\n"
                      + m.group(4), doc)


def main(argv: list[str]) -> int:
    doc = DOC.read_text(encoding="utf-8")
    new = rewritten(doc, examples())
    if argv[1:] == ["check"]:
        if new != doc:
            print("docs/records.md: its examples are not what the code makes "
                  "(run python tools/record_examples.py)", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
