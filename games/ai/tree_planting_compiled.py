"""The exact Tree Planting solver with its search compiled (games/ai/_tree_planting_core.c).

`CompiledSolver` is `tree_planting.Solver` with `_search` (and so the transposition table and
the node count) in C: the same nodes, the same move ordering, bounds, keys and symmetries,
some 40 times faster. Everything around the search (MTD(f), every move's value, the best
moves, the opening book) is the Python solver's own code. The pure-Python `Solver` stays the
reference: tests/games/test_ai_tree_planting_core.py checks this one against it.

The core is an optional C extension (setup.py): `pip install` builds it where a C compiler and
Python's headers are (build-essential and python3-dev: ./dev installs them), and without them
installs without it; then `core()` says "python" and why, and the Python solver answers (about
a third of the reach: docs/ai.md, "Reach"). `TREEBOARD_SOLVER_CORE=python` in the environment
chooses the Python solver even where the core is built (to compare, or to rule the core out).
"""

from __future__ import annotations

import os
from typing import Any

from games.ai.tree_planting import SYMMETRIC_DRAWN, OutOfTime, Solver
from games.tree_planting import Board

try:
    from games.ai import _tree_planting_core as _core
except ImportError as exc:  # not built (no compiler when installed): the Python solver answers
    _core = None
    _why_not = f"the compiled core is not built ({exc})"
else:
    _why_not = ""

#: The environment variable that chooses the Python solver although the core is built.
CHOOSE_ENV = "TREEBOARD_SOLVER_CORE"


def core() -> tuple[str, str]:
    """("compiled", the core's file) or ("python", why not compiled): which search
    `solver_for` gives to boards that fit the core."""
    if os.environ.get(CHOOSE_ENV, "").strip().lower() == "python":
        return "python", f"{CHOOSE_ENV}=python"
    if _core is None:
        return "python", _why_not
    return "compiled", _core.__file__


def fits(board: Board) -> bool:
    """Whether the core can hold this board: a position is one 64-bit word, so at most 64
    grooves (every named board up to `16`; the 29-square board and larger keep Python)."""
    return _core is not None and len(board.grooves) <= _core.MAX_GROOVES


def compiled_for(board: Board) -> bool:
    """Whether `solver_for` gives this board the compiled search."""
    return core()[0] == "compiled" and fits(board)


class CompiledSolver(Solver):
    """`Solver` with the search in C. Its `table` is the core itself (`get`, `len`, `clear`):
    a fixed array holding `max_entries` entries (16 bytes each), where a new entry may push
    out an old one instead of the whole table being cleared when full."""

    #: Some 40 times the Python solver's speed reaches 6 grooves further (each two grooves
    #: multiply the work by about 8): 30 free grooves on the 16-square board take 0.1 s median
    #: and 0.3 s at most here (docs/ai.md, "Reach"), so a Pi 4's slower core still answers in
    #: about a second, well within the share of its cap a level gives the solver.
    exact_free = 30
    #: 34 free grooves take seconds here, 36 minutes: past that nobody waits.
    reach_free = 34

    def _start(self, max_entries: int) -> None:
        if _core is None:
            raise RuntimeError(_why_not)
        self._core = _core.Core(self.geometry(), max_entries, OutOfTime)
        self._max_entries = max_entries

    def geometry(self) -> dict[str, Any]:
        """The Python solver's tables, as the core reads them (plain lists of ints)."""
        index_of_bit = {1 << i: i for i in range(len(self.board.cells))}
        return {
            "full": self.full,
            "sq_mask": list(self.sq_mask),
            "adj": [[index_of_bit[b] for b, _ in g.squares] for g in self.board.grooves],
            "normal_pairs": [b for pair in self.normal_pairs for b in pair],
            # each set's mask and its lowest 0..4 grooves (a square has at most four)
            "normal_sets": [x for mask, lowest in self.normal_sets
                            for x in [mask, *lowest, *[0] * (5 - len(lowest))]],
            "ground_pairs": [b for pair in self.ground_pairs for b in pair],
            "symmetries": self.symmetries,
            "inverse": self.inverse,
            "edge_mates": self.edge_mates,
            "order": self.order,
            "symmetric_drawn": SYMMETRIC_DRAWN,
        }

    @property
    def table(self):
        return self._core

    @property
    def nodes(self) -> int:
        return self._core.nodes

    @nodes.setter
    def nodes(self, value: int) -> None:
        self._core.nodes = value

    @property
    def max_entries(self) -> int:
        return self._max_entries

    @max_entries.setter
    def max_entries(self, value: int) -> None:
        # A larger table is a new, empty one: asked for rarely (`treeboard solve` after a game).
        if value != self._max_entries:
            self._core.resize(value)
            self._max_entries = value

    def _search(self, edges: int, threes: int, alpha: int, beta: int, twos: int = -1) -> int:
        # Called from outside only (the core recurses in C); `twos` is found there.
        return self._core.search(edges, threes, alpha, beta, self._deadline, self._clock)
