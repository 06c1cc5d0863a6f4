"""Game review: every move of a finished (or unfinished) game against the best one.

For each move: the value of the position for the player making it, before the move (with best
play) and after it (the move made, then best play), the best moves, and whether the move
changed the result (a win became a draw or a loss, a draw became a loss).

Values are exact final tree margins where the Tree Planting solver finishes within the budget,
otherwise the MCTS's mean reward in [0, 1] (0.5 even). Positions are reviewed from the last one
back: late positions are cheap to solve and fill the solver's table for the early ones.

Pure: no I/O; the budget per position is read from an injected clock.
"""

from __future__ import annotations

import time
from typing import Any, Callable

from games.ai import analyse


def _result(value: float, exact: bool) -> int:
    """+1 a win, 0 a draw, -1 a loss, for the player the value belongs to."""
    if exact:
        return (value > 0) - (value < 0)
    # An estimate: call it decided only when the search is fairly sure.
    return 1 if value > 0.65 else -1 if value < 0.35 else 0


def review(state: Any, *, seconds: float, seed: int | None = None,
           clock: Callable[[], float] = time.perf_counter) -> list[dict[str, Any]]:
    """One row per move of `state`'s history (the state itself is left as it is)."""
    moves = state.moves
    work = state.copy()
    analyses: list[tuple[int, list]] = []  # (mover, analysis) of the position before move i
    for _ in moves:
        work.undo()
    positions = []
    for m in moves:
        positions.append(work.copy())
        work.play(m)
    for before in reversed(positions):
        analyses.append((before.to_move, analyse(before, seconds=seconds, seed=seed, clock=clock)))
    analyses.reverse()
    rows = []
    for i, (move, (mover, rows_before)) in enumerate(zip(moves, analyses), 1):
        by_move = {str(r.move): r for r in rows_before}
        best = rows_before[0]
        made = by_move.get(str(move))
        exact = best.exact and made is not None and made.exact
        top = [str(r.move) for r in rows_before if r.value == best.value] if best.exact \
            else [str(best.move)]
        # A move the search never tried (a wide position, progressive widening) has no
        # estimate: its 0.0 is not a loss.
        after = made.value if made is not None and (made.exact or made.visits) else None
        changed = (after is not None
                   and _result(after, exact) < _result(best.value, exact)
                   # an estimate must also drop clearly, not by the search's noise
                   and (exact or best.value - after >= 0.2))
        rows.append({
            "n": i, "player": mover, "move": str(move),
            "before": best.value, "after": after, "exact": exact,
            "best": top, "changed_result": changed,
            "loss": (best.value - after) if after is not None else None,
        })
    return rows
