"""Hand-built Fangqi positions in the movement phase, shared by the rules' tests
(tests/games/test_fangqi.py) and reconcile's (tests/board_driver/test_fangqi_reconcile.py)."""

from __future__ import annotations

from games.fangqi import GAME


def position(picture: list[str], to_move: int = 0, **options):
    """A hand-built position in the movement phase: rows top first, B, W, or . (vacant)."""
    rows, cols = len(picture), len(picture[0])
    state = GAME.new_state(board=f"{rows}x{cols}p", **options)
    masks = [0, 0]
    for r, line in enumerate(reversed(picture)):
        for c, ch in enumerate(line):
            if ch in "BW":
                masks["BW".index(ch)] |= 1 << (r * cols + c)
    state._masks, state._hand, state._phase, state._to_move = masks, [0, 0], "movement", to_move
    return state


# Black's c1-b1 completes the square a1 b1 a2 b2. White's squares a3 and b3 protect a3 b3 c3
# a4 b4 c4; d1 d2 d3 stand in no square.
SLIDE = [
    "WWW.",
    "WWWW",
    "BB.W",
    "B.BW",
]
