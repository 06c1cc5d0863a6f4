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

from board_driver.moment import Correction
from board_driver.referee.reconcile import changed_sites, differences, reconcile

log = logging.getLogger("treeboard.referee")


class Pieces:
    def __init__(self, referee: Any):
        self.referee = referee
        self._lift_told: int | None = None   # the position whose last move was told lifted

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
            # (not `seen`: the board as it now reads may not explain the move by itself, so
            # a restart could not adopt it from the sensors: durable before it is shown)
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

    def put_right(self, waiting: frozenset = frozenset()) -> bool:
        """Every site that differs from the game, to correct, but the next move's pieces that
        wait for what is owed (`waiting`); whether any site differs."""
        ref = self.referee
        diff = differences(ref.state.occupancy(), ref.physical, ref.sensed)
        ref.decided.corrections = sorted((c for s, c in diff.items() if s not in waiting),
                                         key=lambda c: c.site)
        ref.decided.completions = []
        ref.decided.waiting = frozenset(waiting)
        return bool(diff)

    def at_end(self, now: float) -> None:
        """The game is over: light only what its last moves still owe the board (the
        computer's last rod, the tree of the last square), each until its piece is first put
        (clearing the board lifts it again); the winner's animation once none is owed."""
        ref = self.referee
        decided, state = ref.decided, ref.state
        ref.clear_marks()
        if ref.flagged is not None or ref.endings.ended is not None:
            return   # (lost on time, resigned or drawn: nothing the last move owes is lit)
        expected = state.occupancy()
        if decided.end_owed is None and state.moves:
            probe = state.copy()
            probe.undo()
            last = changed_sites(probe.occupancy(), expected) | decided.to_make
            decided.end_owed = frozenset(s for s in last if s in ref.sensed
                                         and expected.get(s) is not None)
        was = decided.end_owed
        owed = sorted(s for s in was or () if ref.physical.get(s) is None)
        decided.end_owed = frozenset(owed)
        decided.corrections = [Correction(s, expected[s], None) for s in owed]
        if owed:
            decided.over_since = None
        elif was:
            decided.over_since = now   # the last piece is down: now the winner's animation

    def waiting(self, corrections: list) -> frozenset:
        """The sites of a move made before what the last moves still owe the board (player 2's
        rod before the tree its rod planted, the player's before the computer's rod): the
        move that explains the board once the owed pieces are in. It counts then (reconcile
        plays it), so it is no mistake now. Empty when the board is no such move."""
        ref = self.referee
        state = ref.state
        if not state.moves or not ref.at_board(state.to_move) or not any(
                c.want is not None and c.have is None for c in corrections):
            return frozenset()
        probe = state.copy()
        after = probe.occupancy()
        probe.undo()
        last = changed_sites(probe.occupancy(), after) | ref.decided.to_make
        owed = {c.site: c.want for c in corrections
                if c.want is not None and c.have is None and c.site in last}
        if not owed:
            return frozenset()
        board = dict(ref.physical)
        board.update(owed)
        if reconcile(state, board, ref.sensed, takeback=False).action != "play":
            return frozenset()
        return frozenset(c.site for c in corrections if c.site not in owed)

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
            if ref.decided.to_make and ref.decided.to_make_by == "study":
                takeback = False   # a studied move not yet put is owed, not lifted (study.py)
            depth = ref.takeback_depth() if takeback and ref.state.moves else 1
            if depth == 0:
                takeback, depth = False, 1
            verdict = reconcile(ref.state, ref.physical, ref.sensed, takeback=takeback,
                                depth=depth)
            if verdict.action == "play" and ref.at_board(ref.state.to_move) \
                    and not self.owed(verdict.move):
                ref.accept(verdict.move, now, seen=True)
                if ref.state.is_over():
                    self.at_end(now)
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
                # the piece is to be put first, and the move waits for it.
                diff = differences(ref.state.occupancy(), ref.physical, ref.sensed)
                self.put_right(self.waiting(list(diff.values())))
                return False
            else:  # in sync, a move in progress, or a correction
                waiting = self.waiting(verdict.corrections) if verdict.action == "correct" \
                    else frozenset()
                ref.decided.corrections = [c for c in verdict.corrections
                                           if c.site not in waiting]
                ref.decided.waiting = waiting
                ref.decided.completions = list(verdict.completions)
                expected = ref.state.occupancy()
                ref.decided.lifted = frozenset(
                    s for s in ref.sensed if verdict.action == "in-progress"
                    and expected.get(s) is not None and ref.physical.get(s) is None)
                if verdict.action == "in-sync":
                    ref.decided.to_make = frozenset()   # the other seat's move is made
                self.lifted_to_ask(verdict.action == "correct")
                return False
        return False

    def lifted_to_ask(self, correcting: bool) -> None:
        """A remote game: this board's last move lifted whole (a takeback, were the game not
        remote) is told once, as `takeback-lifted` (its move count): a link whose other side
        is asked by lifting (a seat in a browser: remote/takeback.py) asks it. Meanwhile the
        lifted piece is corrected as before: put back if the answer is no."""
        ref = self.referee
        state = ref.state
        lifted = None
        if correcting and "remote" in ref.seats and ref.settings.takeback and state.moves:
            probe = state.copy()
            probe.undo()
            if ref.at_board(probe.to_move) and reconcile(
                    state, ref.physical, ref.sensed, takeback=True).action == "undo":
                lifted = len(state.moves)
        if lifted is not None and lifted != self._lift_told:
            ref.tell("takeback-lifted", lifted, "board")
        self._lift_told = lifted
