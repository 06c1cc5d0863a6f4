"""The clocks of the game in progress, kept with the journal (docs/board.md, "Clocks").

The Timekeeper holds the two clocks and the time controls, turns them over at each new turn,
and keeps what they show in the journal often enough that a power cut costs a player at most
CHECKPOINT_S. The Clockwork decides, for the referee, when a clock may run (only while its
player can play) and what a clock that ran out means for the game (a pass, or the game lost).
Pure and clock-injected like the referee, which owns one of each.
"""

from __future__ import annotations

import logging
from typing import Any

from board_driver.referee.clock import NONE, ClockError, Clocks, TimeControl, per_move
from games.base import IllegalMove

log = logging.getLogger("treeboard.referee")

#: While a clock runs, the journal keeps what it shows this often (and at every move and stop):
#: after a power cut the clock resumes at most this much above what it showed at the cut.
CHECKPOINT_S = 5.0


def default_controls(config: Any, game: Any) -> tuple[TimeControl, TimeControl]:
    """The time control a board starts with: the config's `time_control`, else its
    `turn_seconds` (a limit per turn; 0: none), else the game's own turn limit (Arbos: 300 s
    a turn), else none."""
    controls = config.time_control
    if controls is not None:
        return tuple(controls)  # type: ignore[return-value]
    seconds = config.turn_seconds if config.turn_seconds is not None else game.turn_seconds
    control = per_move(seconds) if seconds else NONE
    return (control, control)


class Timekeeper:
    def __init__(self, controls: tuple[TimeControl, TimeControl], journal: Any):
        self.journal = journal
        self.controls = controls          # the next game's (and this one's, before a move)
        self.clocks = Clocks(controls)    # the game in progress
        self._checkpoint_at: float | None = None
        self.undone = False   # the last change was a takeback (no increment for it)

    @property
    def timed(self) -> bool:
        return self.clocks.timed

    def start(self, now: float) -> None:
        """A new game's clocks, full, kept in the journal if timed."""
        self.clocks = Clocks(self.controls)
        self._checkpoint_at = None
        if self.clocks.timed:
            self.journal.save_clocks(self.clocks.to_json(now))

    def set_controls(self, controls: tuple[TimeControl, TimeControl], now: float,
                     this_game: bool) -> None:
        """The time control of the next games, and of this one too when `this_game` (no move
        made yet)."""
        self.adopt(controls, this_game)
        if this_game:
            self.journal.save_clocks(self.clocks.to_json(now))

    def adopt(self, controls: tuple[TimeControl, TimeControl], this_game: bool) -> None:
        """The time control of the next games, and of this one too when `this_game`."""
        self.controls = (controls[0], controls[1])
        if this_game:
            self.clocks = Clocks(self.controls)
            self._checkpoint_at = None

    def restore(self, saved: dict, now: float) -> bool:
        """The clocks as the journal kept them (a restart): each resumes at what it showed when
        last kept. A saved form this board cannot read is logged, and the clocks start afresh
        (returns False)."""
        try:
            self.clocks = Clocks.from_json(saved, f"journal {self.journal.path}")
        except ClockError as exc:
            log.error("%s; the clocks start afresh", exc)
            return False
        self._checkpoint_at = None
        log.info("clocks resumed: %s", self.clocks.left_ms(now))
        return True

    def restore_stopped(self, saved: dict) -> None:
        """A finished game's clocks, as they stopped."""
        try:
            self.clocks = Clocks.from_json(saved, f"journal {self.journal.path}")
        except ClockError as exc:
            log.error("%s", exc)

    def deadline(self) -> float | None:
        """When the running clock runs out or what it shows is next kept, or None."""
        found = [d for d in (self.clocks.deadline(), self._checkpoint_at) if d is not None]
        return min(found) if found else None

    def turn(self, seat: int, running: bool, now: float) -> float | None:
        """`seat` is to move: its turn begins if it had not (an increment for the other seat's
        move, none after a takeback); its clock runs if `running`. Returns its time left."""
        clocks = self.clocks
        if clocks.turn_of != seat:
            clocks.new_turn(seat, now, after_move=not self.undone)
        self.undone = False
        clocks.run(seat if running else None, now)
        return clocks.left(seat, now)

    def keep(self, now: float, was_running: bool, over: bool) -> None:
        """The clocks into the journal: every CHECKPOINT_S while one runs, and when it stops
        (a finished game's are kept with its result)."""
        running = self.clocks.running is not None
        if over:
            self._checkpoint_at = None
            return
        if running and self._checkpoint_at is None:
            self._checkpoint_at = now + CHECKPOINT_S
            return
        if (running and now >= self._checkpoint_at) or (was_running and not running):
            self.journal.save_clocks(self.clocks.to_json(now))
            self._checkpoint_at = now + CHECKPOINT_S if running else None

    def at_move(self, now: float) -> dict | None:
        """The clocks as they stand when a move is made (its mover's time charged, its
        increment not yet given), to journal with it; None in an untimed game."""
        if not self.clocks.timed:
            return None
        self.clocks.stop(now)
        return self.clocks.to_json(now)

    def flag(self, seat: int, now: float) -> None:
        """`seat`'s time ran out: its clock at 0, both stopped, kept."""
        self.clocks.stop(now)
        self.clocks.set_left(seat, 0.0, now)
        self.journal.save_clocks(self.clocks.to_json(now))
        self._checkpoint_at = None

    def left(self, now: float) -> list[float | None]:
        """Both clocks' seconds left at `now` (None: an untimed seat)."""
        return [self.clocks.left(seat, now) for seat in (0, 1)]

    def pause(self, seat: int | None, now: float) -> None:
        """`seat`'s clock paused while its player is away (None: no longer), kept at once."""
        self.clocks.stop(now)
        self.clocks.paused_for = seat
        self.journal.save_clocks(self.clocks.to_json(now))


class Clockwork:
    """What the clocks do to the game on the board: a clock runs only while its player can
    play; one that runs out passes the turn (a per-turn limit, where the game has a pass that
    is legal then) or loses the game. Works through the referee's own methods (`accept`,
    `decide`, `finish_on_time`); the clocks themselves are the Timekeeper's."""

    def __init__(self, referee: Any):
        self.referee = referee

    def can_play(self, seat: int) -> bool:
        """Whether `seat` can play now, so that its clock runs: not while the board must be
        put right after the other side's move (the computer's or the other board's pieces not
        yet put down) or before the game (a new game's or a takeback's pieces still to lift);
        the computer, only while the board agrees with the game (it thinks only then)."""
        ref = self.referee
        if ref.over or ref.holding or ref.to_make or ref.menu.open:
            return False
        if ref.keeper.clocks.paused_for == seat or ref.absence.stalled(seat):
            # paused while its player is away; a browser's seat while this board's own link is
            # down (it cannot move until the board is back: absence.py)
            return False
        if ref.seats[seat].startswith("computer"):
            return not ref.corrections and not ref.completions
        return True

    def check(self, now: float) -> str | None:
        """Keep the clocks with the game: a new turn, running only while its player can play,
        kept in the journal; a clock that ran out passes or loses. Returns what it did to the
        game: "passed" (the caller decides the board again), "flagged", "asked" (the player to
        move has been away long enough that the present player is asked: absence.py), or
        None."""
        done = self._check(now)
        if done is None and self.referee.absence.check(now):
            return "asked"
        return done

    def _check(self, now: float) -> str | None:
        ref = self.referee
        keeper = ref.keeper
        clocks = keeper.clocks
        if not clocks.timed:
            return None
        was_running = clocks.running is not None
        if ref.over:
            clocks.stop(now)
            keeper.keep(now, was_running, over=True)
            return None
        state = ref.state
        seat = state.to_move
        control = clocks.controls[seat]
        # A game with its own turn rule (Arbos) times no phase with no move for a turn out of
        # time (its setup): a per-turn clock does not run there.
        untimed_now = (control.per_move_s is not None and state.game.turn_seconds is not None
                       and state.timeout_move() is None)
        left = keeper.turn(seat, self.can_play(seat) and not untimed_now, now)
        if left is None or left > 0:
            keeper.keep(now, was_running, over=False)
            return None
        move = self.pass_move() if control.per_move_s is not None else None
        absence = ref.absence
        if (ref.seats[seat] == "remote" and not absence.decides(seat)) or (move is None and (
                absence.away(seat) or (control.per_move_s is not None
                                       and state.timeout_move() is not None))):
            # A remote board's seat's clock is its own board's: that board says when it ran
            # out (a browser's is this board's: flagged here). A player away never loses by it:
            # the clock stays at 0 and the present player is asked (absence.py). A game's move
            # for a turn out of time that is not legal now: the clock stays at 0 until it is,
            # or the action under way ends the turn.
            clocks.stop(now)
            keeper.keep(now, was_running, over=False)
            return None
        if move is not None:
            log.info("turn time limit: %s plays %s", seat, move)
            ref.pass_on_time(move, seat, now)
            return "passed"
        ref.flag(seat, now)
        return "flagged"

    def pass_move(self) -> Any:
        """The game's move for a turn whose time ran out, if it is legal now; None otherwise."""
        state = self.referee.state
        move = state.timeout_move()
        if move is None:
            return None
        try:
            state.copy().play(move)
        except IllegalMove:
            return None
        return move
