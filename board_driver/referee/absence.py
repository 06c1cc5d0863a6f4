"""A player away, and what the present player chooses (docs/board.md, "A player away").

A part of the referee, as its endings and clockwork are. The link tells it whether the other
side is there (`seen`: a browser's presence with its will, the other board's, or no broker).
A family game is never forfeited because someone is away: once the player to move has been
away GRACE_S, the board says so (the moment's `absent`: the LEDs, the page, the voice) and the
present player chooses (`choose`, from the page, the sim, the board's game menu):

- "pause": the away player's clock stops until they return (kept with the clocks in the
  journal: a restart keeps it paused; their return, or a move of theirs, starts it again);
- "wait": the clock runs on, as lichess's does; asked again after another GRACE_S;
- "claim" (a timed game): the game is over, won by the present player (journaled `forfeit`:
  the away seat; SGF RE `W+F`);
- "draw" (a timed game): the game is over, drawn (journaled `drawn_away`: the away seat).

Only a seat whose game this board alone decides (`hosted`: a browser's seat) is offered the
choices: a remote board owns its own player's clock (it runs there, with the player who may be
at that board, moving while its link is down) and the end of a game is both boards', so of an
away board the board says only that it is away and that nothing is lost. An untimed game has
nothing to choose: it waits.
"""

from __future__ import annotations

import logging
from typing import Any

import games
from board_driver.moment import AbsentFace
from games.base import Reason

log = logging.getLogger("treeboard.referee")

#: How long the player to move may be away before the present player is asked (lichess offers
#: its claim after a similar wait; long enough for a phone to reconnect after a tunnel), unless
#: the config says otherwise (away_grace_seconds).
GRACE_S = 60.0
#: What the present player may choose, in a timed game.
CHOICES = ("pause", "wait", "claim", "draw")


class Absence:
    def __init__(self, referee: Any):
        self.referee = referee
        self._away: dict[int, float] = {}   # seat -> since when its player is away
        self._hosted: set[int] = set()       # seats whose game this board alone decides
        self._quiet_until: float | None = None   # "wait" chosen: asked again from then
        self._asked = False                  # the question was due at the last `check`
        self._news: tuple[int, str, int] | None = None   # (count, what, the away seat)
        self._count = 0
        referee.listeners.append(self._heard)

    # --- what the link says -------------------------------------------------------------------

    def seen(self, seat: int, here: bool, now: float, hosted: bool = True) -> bool:
        """The link says whether `seat`'s player is there (`hosted`: this board alone decides
        that seat's game, a browser's). Returns whether anything changed."""
        (self._hosted.add if hosted else self._hosted.discard)(seat)
        if not here:
            if seat in self._away:
                return False
            self._away[seat] = now
            log.info("seat %d is away", seat)
            return True
        if self._away.pop(seat, None) is None and \
                self.referee.keeper.clocks.paused_for != seat:
            return False   # (paused before a restart: its return starts the clock again)
        log.info("seat %d is back", seat)
        self._quiet_until, self._asked = None, False
        self._resume(seat, now)
        return True

    def _resume(self, seat: int, now: float) -> None:
        """`seat`'s player is back (or moved): a clock paused for them runs again."""
        ref = self.referee
        if ref.keeper.clocks.paused_for != seat:
            return
        ref.keeper.pause(None, now)
        self._say("back", seat)
        ref.decide(now)   # (its clock runs again from now)

    def _heard(self, what: str, move: Any, origin: str) -> None:
        """A referee listener: a move from the away side says it is there after all (its clock
        was stopped by the move itself; the next kept clocks no longer say paused)."""
        clocks = self.referee.keeper.clocks
        # (a browser's or another board's move: "remote"; a web seat's on this board's page: "web")
        if what == "move" and origin in ("remote", "web") and clocks.paused_for is not None:
            self._away.pop(clocks.paused_for, None)
            self._say("back", clocks.paused_for)
            clocks.paused_for = None
            self._quiet_until, self._asked = None, False

    def away(self, seat: int) -> bool:
        """Whether the link says `seat`'s player is away (a clock that runs out then loses
        nothing: timekeeper.py)."""
        return seat in self._away

    def decides(self, seat: int) -> bool:
        """Whether this board alone decides `seat`'s game (a browser's seat: its clock is this
        board's to flag), as the link last said."""
        return seat in self._hosted

    # --- what the board asks --------------------------------------------------------------------

    @property
    def grace(self) -> float:
        """The config's away_grace_seconds, else GRACE_S."""
        grace = self.referee.config.away_grace_seconds
        return GRACE_S if grace is None else grace

    def _candidate(self) -> tuple[int, float] | None:
        """The seat to move and when its absence asks, if it is away in a game in progress that
        a person here plays the other seat of; else None."""
        ref = self.referee
        if ref.over or ref.menu.open or ref.setting_up is not None or ref.mode is not None:
            return None
        seat = ref.state.to_move
        since = self._away.get(seat)
        if since is None or not ref.endings.local(1 - seat):
            return None
        return seat, since + self.grace

    def away_to_move(self, now: float) -> int | None:
        """The seat to move when its player has been away GRACE_S (`_candidate`), else None."""
        found = self._candidate()
        return found[0] if found is not None and now >= found[1] else None

    def question(self, now: float) -> int | None:
        """The away seat the present player is asked about now (not while paused for it, nor
        while "wait" holds), or None."""
        seat = self.away_to_move(now)
        if seat is None or self.referee.keeper.clocks.paused_for == seat:
            return None
        if self._quiet_until is not None and now < self._quiet_until:
            return None
        return seat

    def deadline(self) -> float | None:
        """When the question is next due (the daemon's tick then shows it), or None."""
        found = self._candidate()
        if found is None or self._asked or self.referee.keeper.clocks.paused_for == found[0]:
            return None
        return max(found[1], self._quiet_until or 0.0)

    def check(self, now: float) -> bool:
        """Whether the question became due since the last check (the board is shown anew)."""
        due = self.question(now) is not None
        news, self._asked = due and not self._asked, due
        return news

    def choices(self, seat: int) -> tuple[str, ...]:
        """What the present player may choose about `seat`: in a timed game this board alone
        decides, CHOICES; otherwise nothing (the game waits)."""
        return CHOICES if self.referee.keeper.timed and seat in self._hosted else ()

    def menu_choices(self) -> tuple[str, ...]:
        """What the game menu offers of it as it opens: the choices about the away player to
        move while the board asks (at its last `check`) or the clocks are paused for them."""
        found = self._candidate()
        if found is None or not (self._asked or
                                 self.referee.keeper.clocks.paused_for == found[0]):
            return ()
        return self.choices(found[0])

    def choose(self, choice: str, now: float, origin: str = "board") -> int:
        """The present player's choice about the away player to move. Returns the away seat.
        Raises games.IllegalMove with a reason a player reads (nothing changes then)."""
        ref = self.referee
        seat = self.away_to_move(now)
        if seat is None:
            raise games.IllegalMove(choice, Reason("no player to move is away: nothing to "
                                                   "choose"))
        offered = self.choices(seat)
        if choice not in offered:
            raise games.IllegalMove(choice, Reason(
                "choose one of: {choices}", choices=", ".join(offered)) if offered else Reason(
                "nothing to choose: the game waits for the player who is away"))
        log.info("seat %d away: %s (%s)", seat, choice, origin)
        if choice == "pause":
            if ref.keeper.clocks.paused_for != seat:
                ref.keeper.pause(seat, now)
                self._say("paused", seat)
        elif choice == "wait":
            self._quiet_until, self._asked = now + self.grace, False
            if ref.keeper.clocks.paused_for == seat:
                ref.keeper.pause(None, now)   # (paused before: the clock runs again)
            self._say("waiting", seat)
        else:
            ref.endings.claim(now, seat, draw=choice == "draw", origin=origin)
        ref.decide(now)
        return seat

    def _say(self, what: str, seat: int) -> None:
        self._count += 1
        self._news = (self._count, what, seat)

    def face(self, now: float) -> AbsentFace | None:
        """What the views draw of it: the away player to move, whether the present player is
        asked and may choose what, whether the clocks are paused; None when no one is away and
        nothing new is to be said."""
        ref = self.referee
        seat = ref.state.to_move
        paused = ref.keeper.clocks.paused_for == seat
        # (paused before a restart: shown so until the link says whether they are back)
        away = (seat in self._away or paused) and not ref.over
        if not away and self._news is None:
            return None
        asking = self.away_to_move(now) if away else None
        return AbsentFace(seat=seat if away else None, asked=self.question(now) is not None,
                          paused=paused and away,
                          choices=self.choices(seat) if asking is not None else (),
                          hosted=seat in self._hosted, news=self._news)
