"""What the referee decided the board shows besides the game, and the frozen moments made of it.

`Decisions` is the referee's own record (it alone writes it, as it reconciles, plays and takes
back); `Moments` makes from it and the game the `Moment` the views draw (board_driver/moment.py,
DESIGN.md "The seam"): one frozen value, with a copy of the position made again only when the
game changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from board_driver import views
from board_driver.moment import Correction, Moment, TouchFace, frozen_map
from board_driver.referee.clock import control_text


@dataclass
class Decisions:
    """The referee's decisions about what the board shows besides the game itself."""

    corrections: list[Correction] = field(default_factory=list)
    # A move in progress (reconcile's "in-progress"): where a piece may go next (want set), or
    # which pieces may be taken off (want None); and the sites whose piece is lifted off.
    completions: list[Correction] = field(default_factory=list)
    lifted: frozenset = frozenset()
    # The other seat's move (the computer's, a remote board's), still to put down, and whose.
    to_make: frozenset = frozenset()
    to_make_by: str = "computer"
    # The next move's sites, put before the pieces the last move owes (Moment.waiting).
    waiting: frozenset = frozenset()
    over_since: float | None = None   # when the game ended (the winner's animation)
    # Once the game is over, the sites of its last moves whose pieces are still to put (the
    # computer's last rod, the tree of a last square); None until the end is first decided.
    end_owed: frozenset | None = None
    # The computer's hints (hints "best"): site -> "best" / "keeps" / "loses"; why; its move.
    hints: dict[str, str] = field(default_factory=dict)
    hint_reason: str | None = None
    hint_move: str | None = None
    # Computer seat -> its level, where its last search the wall-time cap cut short (written
    # by the computer's seat, seats.py; Moment.limited).
    limited: dict[int, str] = field(default_factory=dict)

    def clear_marks(self) -> None:
        """Nothing to correct, complete or wait for is shown."""
        self.corrections, self.completions, self.waiting = [], [], frozenset()


class Moments:
    """Makes the referee's `Moment`s (it reads the referee, never writes it)."""

    def __init__(self, referee: Any):
        self.referee = referee
        self._position: tuple[Any, Any] = (None, None)   # (the game's key, its copy)
        # (the game's key and the seats, how many moves a takeback takes back): worked out
        # once a change, not each frame (against the computer it walks a copy of the game)
        self._depth: tuple[Any, int] = (None, 0)
        # Moves made and taken back, told by the referee: the position's key counts them, so a
        # takeback and a replay to the same length and last move is a new position, not the
        # copy of the old one (two moves back, two others played, the last the same).
        self._changes = 0
        referee.listeners.append(self._heard)

    def _heard(self, what: str, move: Any, origin: str) -> None:
        if what in ("move", "undo"):
            self._changes += 1

    def at(self, now: float) -> Moment:
        """What the board is at `now`, frozen."""
        ref = self.referee
        state, clocks, decided = ref.state, ref.keeper.clocks, ref.decided
        key = (ref.game_number, id(state), self._changes, len(state.moves),
               str(state.moves[-1]) if state.moves else None)
        if self._position[0] != key:
            self._position = (key, state.copy())
        position = self._position[1]
        if self._depth[0] != (key, ref.seats):
            self._depth = ((key, ref.seats), ref.takeback_depth() if state.moves else 0)
        running = clocks.running
        mode = ref.mode   # a study or a puzzle (one at a time), or None
        return Moment(
            settings=ref.settings, state=position, game=ref.game_number, seats=ref.seats,
            sensed=tuple(ref.sensed), corrections=tuple(decided.corrections),
            completions=tuple(decided.completions), lifted=decided.lifted,
            to_make=decided.to_make, to_make_by=decided.to_make_by, waiting=decided.waiting,
            holding=ref.holding,
            over_since=decided.over_since, flagged=ref.flagged,
            timed_out=frozenset(ref.timed_out),
            takeback_depth=self._depth[1] if ref.flagged is None else 0,
            clocks=tuple(ref.keeper.left(now)) if clocks.timed else None, clock_running=running,
            turn_left=clocks.left(running, now) if running is not None else None,
            clock_control=control_text(clocks.controls) if clocks.timed else None,
            hints=decided.hints, hint_reason=decided.hint_reason, hint_move=decided.hint_move,
            limited={seat: level for seat, level in decided.limited.items()
                     if ref.seats[seat] == f"computer:{level}"},   # (not a seat changed since)
            menu=ref.menu.face(ref.touch is not None), touch=self._touch(position),
            ending=ref.endings.face(),
            setup=ref.setting_up.face() if ref.setting_up is not None else None,
            study=mode.face() if mode is not None and mode.kind == "study" else None,
            puzzle=mode.face() if mode is not None and mode.kind == "puzzle" else None,
            absent=ref.absence.face(now),
            away=frozenset(seat for seat in (0, 1) if ref.absence.away(seat)))

    def _touch(self, position: Any) -> TouchFace | None:
        """A touch game's selection as it stands (None: a piece game)."""
        ref = self.referee
        touch = ref.touch
        if touch is None:
            return None
        name = position.game.name
        shown = touch.shown_state(ref.state)   # (the live state: it keys the selection)
        return TouchFace(
            shown=position if shown is ref.state else shown, selected=touch.selected,
            targets=frozenset(touch.targets), stops=frozenset(touch.stops),
            choice=bool(touch.choice), choice_target=touch.choice_target,
            confirming=touch.confirming, flash=touch.flash, words=touch.words(name),
            note=touch.note_words(views.players(name)),
            note_key=touch.note[0] if touch.note is not None else None,
            described=frozen_map(touch.describe()))
