"""A record studied on the board, a mode of the referee (docs/study.md, "Studying a record").

A record (a journal game, an imported SGF file) is opened at one of its moves: that position is
set up on the board (setup.py), and the study steps forward and back through the record's main
line. A step forward plays the record's next move in the game at once and lights its pieces to
put, as the other seat's move is lit ("make it on the board"); a step back takes the last move
back, and its pieces light to lift. Each step is said with the record's comment on that move
(SGF's C: the review's sentence) where it has one (Moment.study).

Branching off: a move made on the board that is not the record's next leaves the record there
(the study's steps forward are refused, its steps back still take back); `branch` ends the
study and plays on from the position as a game, against a person or the computer.

The study is kept in the journal as a game of its own (from `set_up`), so a power cut resumes
its position and a branch played from it is a game of the library.

The referee holds the Study as its mode (`referee.mode`); it acts through the referee's own
methods (`accept`, `undo_moves`, `hold_for_pieces`, `decide`).
"""

from __future__ import annotations

import logging
from typing import Any, Mapping, Sequence

import games
from board_driver.moment import StudyFace
from board_driver.referee.reconcile import changed_sites
from games.base import Reason

log = logging.getLogger("treeboard.referee")


class Study:
    kind = "study"

    def __init__(self, referee: Any, game: str, options: Mapping[str, Any], moves: Sequence[str],
                 comments: Mapping[int, str] | None = None, title: str | None = None):
        self.referee = referee
        self.start_state = games.get_game(game).new_state(**dict(options))
        # The record's main line, checked against the rules before anything changes.
        probe, self.moves = self.start_state.copy(), []
        for n, text in enumerate(moves, 1):
            try:
                move = probe.parse_move(str(text))
                probe.play(move)
            except games.GameError as exc:
                raise games.IllegalMove(text, Reason("move {n} of the record does not replay: "
                                                     "{reason}", n=n, reason=str(exc))) from None
            self.moves.append(str(move))
        self.comments = {int(n): str(c) for n, c in (comments or {}).items() if c}
        self.title = title

    def start(self, at: int, now: float) -> None:
        """Set the record's position after `at` of its moves up on the board."""
        if not 0 <= at <= len(self.moves):
            raise ValueError(f"move {at}: the record has 0 to {len(self.moves)}")
        state = self.start_state.copy()
        for text in self.moves[:at]:
            state.play(state.parse_move(text))
        ref = self.referee
        ref.set_up(state, now, purpose="study")
        ref.mode = self
        log.info("studying a record of %d moves at move %d", len(self.moves), at)

    @property
    def at(self) -> int:
        """How many moves stand in the game (the record's, until a move off it is made)."""
        return len(self.referee.state.moves)

    def on_record(self) -> bool:
        """Whether the game is still the record's main line (no move of its own made)."""
        played = [str(m) for m in self.referee.state.moves]
        return played == self.moves[:len(played)]

    def step(self, count: int, now: float) -> None:
        """`count` moves forward (negative: back). Raises games.IllegalMove for a step past
        either end, or forward once a move off the record was made."""
        ref = self.referee
        if count < 0:
            if -count > self.at:
                raise games.IllegalMove("back", Reason("the study is at the record's start"))
            for _ in range(-count):
                ref.undo_moves(1, "study")
            ref.hold_for_pieces()   # (the pieces taken back are to be lifted first)
        else:
            if not self.on_record():
                raise games.IllegalMove("forward", Reason("a move off the record was played: "
                                                          "step back to return to it"))
            if self.at + count > len(self.moves):
                raise games.IllegalMove("forward", Reason("the record has no move after "
                                                          "move {n}", n=len(self.moves)))
            for _ in range(count):
                state = ref.state
                before = state.occupancy()
                move = state.parse_move(self.moves[self.at])
                ref.accept(move, now, "study")
                after = ref.state.occupancy()
                ref.decided.to_make |= changed_sites(before, after)   # (to put on the board)
                ref.decided.to_make_by = "study"
        ref.decide(now)

    def face(self) -> StudyFace:
        """What the views draw and say of the study."""
        at = self.at
        on = self.on_record()
        return StudyFace(at=at, count=len(self.moves),
                         move=str(self.referee.state.moves[-1]) if at else None,
                         comment=self.comments.get(at) if on and at else None, title=self.title,
                         off=not on, next=self.moves[at] if on and at < len(self.moves) else None)
