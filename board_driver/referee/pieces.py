"""How a move gets in with pieces (DESIGN.md, "How a move gets in"): the board's settled reading
against the game's `occupancy()`. Exactly one legal move explains the change: it is played; the
last move lifted off: it is taken back; anything else: what must change is lit.

The referee owns one Pieces; it decides through the referee's own methods (`accept`,
`undo_moves`) and writes only the referee's decisions (what to correct or complete). Pure and
clock-injected like the referee.
"""

from __future__ import annotations

import logging
from typing import Any

from board_driver.referee.reconcile import differences, reconcile

log = logging.getLogger("treeboard.referee")


class Pieces:
    def __init__(self, referee: Any):
        self.referee = referee

    def swapped(self, sites: list[str], now: float) -> None:
        """A swap faster than the debounce (a seed out, a spore in): decide first on the board
        as it was with those sites empty, and keep it only if that was a move (an Arbos
        replacement); the board as it is then comes next, as usual."""
        ref = self.referee
        momentary = dict(ref.physical)
        momentary.update(dict.fromkeys(sites))
        verdict = reconcile(ref.state, momentary, ref.sensed, takeback=False)
        if verdict.action == "play" and ref.at_board(ref.state.to_move):
            log.info("a piece swapped faster than the debounce at %s", ", ".join(sites))
            ref.accept(verdict.move, now)

    def owed(self, move: Any) -> bool:
        """Whether `move` changes a site where the other seat's move still owes its piece
        (`to_make`): the site reads as it does because the piece is not put yet."""
        ref = self.referee
        if not ref.decided.to_make:
            return False
        state = ref.state
        before = state.occupancy()
        state.play(move)
        after = state.occupancy()
        state.undo()
        return any(before.get(s) != after.get(s) for s in ref.decided.to_make)

    def put_right(self) -> bool:
        """Every site that differs from the game, to correct; whether any does."""
        ref = self.referee
        diff = differences(ref.state.occupancy(), ref.physical, ref.sensed)
        ref.decided.corrections = sorted(diff.values(), key=lambda c: c.site)
        ref.decided.completions = []
        return bool(diff)

    def settle(self, now: float) -> bool:
        """Play what the board explains, take back what it lifted, or light what to correct.
        Returns whether the board must be put right before anything more is played (a
        takeback by lifting whose computer's reply still stands)."""
        ref = self.referee
        for _ in range(8):  # a play or undo can leave a remainder (a tree peg still to plant)
            # A takeback by lifting is for a game played at this board, alone or against the
            # computer (lifting one's own last piece takes back the computer's reply with it); a
            # remote board's move is not the players' to lift (a remote takeback is asked).
            takeback = ref.settings.takeback and "remote" not in ref.seats
            depth = ref.takeback_depth() if takeback and ref.state.moves else 1
            if depth == 0:
                takeback, depth = False, 1
            verdict = reconcile(ref.state, ref.physical, ref.sensed, takeback=takeback,
                                depth=depth)
            if verdict.action == "play" and ref.at_board(ref.state.to_move) \
                    and not self.owed(verdict.move):
                ref.accept(verdict.move, now)
                if ref.state.is_over():
                    ref.decided.corrections, ref.decided.completions = [], []
                    return False
            elif verdict.action == "undo":
                ref.undo_moves(depth, "board")
                if depth > 1:
                    # The computer's reply may still stand on the board: it is to be lifted,
                    # never read as the player's next move.
                    return True
            elif verdict.action == "play":
                # The other seat's turn: a piece put for it is a mistake to correct. Or a move
                # read where the other seat's move still owes its piece (the computer's or the
                # remote board's Arbos seed not yet put would read as the player lifting it):
                # the piece is to be put first.
                self.put_right()
                return False
            else:  # in sync, a move in progress, or a correction
                ref.decided.corrections = list(verdict.corrections)
                ref.decided.completions = list(verdict.completions)
                expected = ref.state.occupancy()
                ref.decided.lifted = frozenset(
                    s for s in ref.sensed if verdict.action == "in-progress"
                    and expected.get(s) is not None and ref.physical.get(s) is None)
                if verdict.action == "in-sync":
                    ref.decided.to_make = frozenset()   # the other seat's move is made
                return False
        return False
