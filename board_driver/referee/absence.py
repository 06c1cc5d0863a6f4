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

The choices are the same whoever the away player is; what they do differs by who owns the
away player's clock and the game's end:

- A browser's seat (`hosted`): this board alone decides its game; the choice is carried out
  here and the browser's view says it.
- Another board's seat: that board owns its player's clock (it runs there, with the player who
  may be at that board, moving while only its link is down) and the game's end is both boards'.
  So the choice is sent to that board as a signed `away` message (remote/away.py, protocol 1.3,
  repeated in this board's retained state, so a board that was away learns it on coming back,
  or after a restart), and each board applies it to what it owns:
  - "pause": this board stops its copy of that clock (kept paused across a restart, as for a
    browser); the away board, when it hears it, gives its player back the time since the pause
    (its clock set to what this board showed as it paused, when its own shows less).
  - "wait": nothing to apply; the away board says that the other waited.
  - "claim" / "draw": PENDING here (the clock copy stopped, the board says the game ends when
    the other board hears it) until the away board applies it: it ends its game (journaled
    `forfeit` / `drawn_away` of its own seat, SGF RE `B+F`/`W+F` or `0`), and its retained
    state says so; this board then ends its own the same way (`confirmed`). The rule for a
    move made at the away board while its link was down: THE MOVE WINS. The away board applies
    a choice only to the game as it stands when it hears it (the same takebacks, the same
    moves, its player to move); a board that moved meanwhile drops the claim, its move reaches
    this board, which withdraws the claim (said: "the claim is withdrawn, the game goes on").
    Why: the claim was made on "away", but that board's player was there and playing, only
    their link was not; and the broker orders the claim before any move queued during the cut,
    so "before the claim" cannot be told fairly from the clocks of two boards. A move is never
    lost; a claim is never final on one board only. Chosen again before the away board heard
    it (wait, pause), the claim is withdrawn; if it had heard it, both end as claimed.
- A board cut off from the broker itself (`cut_off`: its own link is down) cannot tell
  whether the other player is there: it offers nothing (no claim against a player who may be
  playing), says that it is cut off, and a browser's clock stops meanwhile (the browser cannot
  move until the board is back: timekeeper.py's `can_play`).

An untimed game has nothing to choose: it waits.
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
        self._cut_off = False                # this board's own link is down (the link says)
        # A claim or draw sent to an away board: (choice, the away seat), until it hears it.
        self._pending: tuple[str, int] | None = None
        referee.listeners.append(self._heard)

    # --- what the link says -------------------------------------------------------------------

    def seen(self, seat: int, here: bool, now: float, hosted: bool = True,
             cut_off: bool = False) -> bool:
        """The link says whether `seat`'s player is there (`hosted`: this board alone decides
        that seat's game, a browser's; `cut_off`: this board's own link is down, so it cannot
        tell). Returns whether anything changed."""
        (self._hosted.add if hosted else self._hosted.discard)(seat)
        changed = cut_off != self._cut_off
        self._cut_off = cut_off
        if changed:
            log.info("this board's link is %s", "down" if cut_off else "up")
        if not here:
            if seat in self._away:
                return changed
            self._away[seat] = now
            log.info("seat %d is away", seat)
            return True
        if self._away.pop(seat, None) is None and \
                self.referee.keeper.clocks.paused_for != seat:
            return changed   # (paused before a restart: its return starts the clock again)
        log.info("seat %d is back", seat)
        self._quiet_until, self._asked = None, False
        if self._pending is None or self._pending[1] != seat:
            self._resume(seat, now)   # (a claim sent: paused until that board answers it)
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
            self._say("withdrawn" if self._pending is not None else "back", clocks.paused_for)
            clocks.paused_for = None
            self._quiet_until, self._asked = None, False
        if what in ("move", "undo", "new-game") and self._pending is not None:
            # (a move of the away board's made while its link was down wins: absence's rule)
            log.info("the claim sent to the away board is withdrawn (%s)", what)
            self._pending = None

    def away(self, seat: int) -> bool:
        """Whether the link says `seat`'s player is away (a clock that runs out then loses
        nothing: timekeeper.py)."""
        return seat in self._away

    @property
    def cut_off(self) -> bool:
        """Whether this board's own link is down, as the link last said."""
        return self._cut_off

    def stalled(self, seat: int) -> bool:
        """Whether `seat` cannot move for want of this board's link: a browser's seat while
        this board is cut off (its clock does not run then: timekeeper.py's `can_play`)."""
        return self._cut_off and seat in self._hosted

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
        """What the present player may choose about `seat`: in a timed game, CHOICES (carried
        out here for a browser's seat, sent to the other board for its own); nothing while this
        board is cut off from the broker, or in an untimed game (the game waits)."""
        return CHOICES if self.referee.keeper.timed and not self._cut_off else ()

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
        # (what the away seat's clock showed as the choice was made: a pause gives it back)
        left = ref.keeper.clocks.left(seat, now)
        board = seat not in self._hosted
        withdrawn, self._pending = self._pending is not None, None   # (chosen again: replaced)
        if choice == "pause":
            if ref.keeper.clocks.paused_for != seat or withdrawn:
                ref.keeper.pause(seat, now)
                self._say("paused", seat)
        elif choice == "wait":
            self._quiet_until, self._asked = now + self.grace, False
            if ref.keeper.clocks.paused_for == seat:
                ref.keeper.pause(None, now)   # (paused before: the clock runs again)
            self._say("waiting", seat)
        elif board:
            self._pending = (choice, seat)   # final when the away board hears it
            ref.keeper.pause(seat, now)
        else:
            ref.endings.claim(now, seat, draw=choice == "draw", origin=origin)
        if board:   # the other board's link sends it (remote/away.py)
            ref.tell("absent-choice", {"choice": choice, "seat": seat, "clock_s": left}, origin)
        ref.decide(now)
        return seat

    # --- another board's player away: the choice sent, answered (remote/away.py) ------------

    def pending(self) -> tuple[str, int] | None:
        """The claim or draw sent to an away board, until it hears it: (choice, seat)."""
        return self._pending

    def pend(self, choice: str, seat: int, now: float) -> None:
        """A claim or draw sent before a restart (the link's kept choice), pending again."""
        if choice in ("claim", "draw") and not self.referee.over:
            self._pending = (choice, seat)
            if self.referee.keeper.clocks.paused_for != seat:
                self.referee.keeper.pause(seat, now)

    def confirmed(self, choice: str, seat: int, now: float) -> bool:
        """The away board applied this board's claim or draw (its retained state says its game
        ended so): the game ends here the same way. Returns whether it did."""
        ref = self.referee
        if ref.over or choice not in ("claim", "draw"):
            return False
        self._pending = None
        ref.endings.claim(now, seat, draw=choice == "draw", origin="remote")
        ref.decide(now)
        return True

    def chosen_there(self, choice: str, seat: int, clock_s: float | None, now: float) -> bool:
        """The other board's player chose `choice` while `seat` (this board's player, to move)
        was away: applied to what this board owns. "pause": its clock given back the time from
        the pause (set to `clock_s` where it shows less); "wait": said; "claim"/"draw": the
        game ends here (then the retained state tells the other board). Returns whether it
        was applied (not when the game is over or another seat is to move)."""
        ref = self.referee
        if ref.over or ref.state.to_move != seat:
            return False
        log.info("the other board chose %s while seat %d was away", choice, seat)
        if choice in ("claim", "draw"):
            ref.endings.claim(now, seat, draw=choice == "draw", origin="remote")
        elif choice == "pause":
            left = ref.keeper.clocks.left(seat, now)
            if clock_s is not None and left is not None and clock_s > left:
                ref.keeper.clocks.set_left(seat, clock_s, now)
                ref.journal.save_clocks(ref.keeper.clocks.to_json(now))
            self._say("credited", seat)
        else:
            self._say("waited", seat)
        ref.decide(now)
        return True

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
        pending = self._pending[0] if self._pending is not None and \
            self._pending[1] == seat and away else None
        return AbsentFace(seat=seat if away else None, asked=self.question(now) is not None,
                          paused=paused and away,
                          choices=self.choices(seat) if asking is not None else (),
                          hosted=seat in self._hosted, news=self._news,
                          cut_off=self._cut_off and away, pending=pending)
