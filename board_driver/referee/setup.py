"""A position comes to the board: the set-up, a mode of the referee (DESIGN.md, "Positions to
the board"; docs/study.md).

`set_up(referee, state, now)` makes `state` (a game with its moves: an imported record at any
move, a studied game branched off, a puzzle, a game taken up again) the referee's game, and the
board then leads the hands until the pieces match it. The correction machinery already says
"put a piece here" / "take this off" (reconcile.differences); here it leads a whole set-up a few
sites at a time, in an order a person can follow: every piece that is wrong (a piece put where
none belongs, the hands' mistakes on the way) at once, and of the pieces still to put the
SHOWN nearest the last site put right, by the game's own plan of the board (games/plan.py: where
each site lies, in mm), starting from the plan's top-left corner. Nothing is played, and no
clock runs, until the board matches; then play continues from the position (the computer
moves at once if it is its turn).

A touch board (Game for the Trees) holds no pieces: its LEDs are the position, so its set-up is
done as soon as it starts.

The referee holds the SetUp while it lasts (`referee.setting_up`; None otherwise) and asks it
`guide()` in place of reconciling the board; `face()` is what the views draw and say
(Moment.setup: how many sites are left, which are lit).
"""

from __future__ import annotations

import logging
import math
from typing import Any

import games
from board_driver.moment import Correction, SetupFace
from board_driver.referee.reconcile import differences

log = logging.getLogger("treeboard.referee")

#: How many pieces to put are lit at a time (the nearest ones): few enough to follow, enough
#: that two hands are never idle.
SHOWN = 3


class SetUp:
    """A position being set up on the board (see the module docstring)."""

    def __init__(self, referee: Any, purpose: str):
        self.referee = referee
        self.purpose = purpose   # "record", "study", "puzzle", "game" (taken up): for the words
        plan = referee.state.plan()
        self.places = {s.site: (s.x, s.y) for s in plan.spots}
        # Where the hands are: the last site put right (at first, the plan's top-left corner).
        corner = min(self.places.values(), key=lambda p: (p[1], p[0])) if self.places \
            else (0.0, 0.0)
        self.at = corner
        self.left: frozenset = frozenset()      # the sites that differ, at the last look
        self.total = 0                          # how many differed when the set-up began
        self.shown: tuple[str, ...] = ()        # the sites lit now

    def guide(self) -> bool:
        """The board against the target position: light what to correct, nearest first.
        Returns whether the set-up goes on (False: the board matches it)."""
        ref = self.referee
        diff = differences(ref.state.occupancy(), ref.physical, ref.sensed)
        put_right = self.left - diff.keys()
        if put_right:
            # The hands were last at the site just put right (the nearest of them to where they
            # were, if several settled together).
            self.at = min((self.places.get(s, self.at) for s in put_right), key=self._distance)
        if not self.total:
            self.total = len(diff)
        self.left = frozenset(diff)
        wrong = sorted((c for c in diff.values() if c.want is None), key=lambda c: c.site)
        to_put = sorted((c for c in diff.values() if c.want is not None),
                        key=lambda c: (self._distance(self.places.get(c.site, self.at)), c.site))
        shown: list[Correction] = wrong + to_put[:SHOWN]
        ref.decided.corrections = shown
        ref.decided.completions, ref.decided.waiting = [], frozenset()
        self.shown = tuple(c.site for c in shown)
        return bool(diff)

    def _distance(self, place: tuple[float, float]) -> float:
        return math.hypot(place[0] - self.at[0], place[1] - self.at[1])

    def face(self) -> SetupFace:
        """What the views draw and say of the set-up."""
        corrections = {c.site: c for c in self.referee.decided.corrections}
        return SetupFace(left=len(self.left), total=self.total, purpose=self.purpose,
                         next=tuple(corrections[s] for s in self.shown if s in corrections))


def set_up(referee: Any, state: games.State, now: float, *, purpose: str = "record",
           journal: bool = True, origin: str = "setup", decide: bool = True) -> None:
    """Make `state` (its game must be the board's, its sites sensed by the layout) the game on
    the board and lead the hands until the pieces match it. With `journal` the position is a
    new game of the journal (its options, seats and moves; a power cut resumes it there); a
    game the journal holds already (taken up again) passes False. `decide` False: called from
    inside the referee's decide loop (the menu's puzzle site), which decides next. Raises
    games.BadOptions for a game this board cannot hold; changes nothing then."""
    ref = referee
    if state.game.name != ref.state.game.name:
        raise games.BadOptions(f"this board plays {ref.state.game.name}, not {state.game.name}")
    unsensed = [s for s in state.sites() if s not in ref.layout.channels_of_site]
    if unsensed and ref.touch is None and not _entries_only(state, unsensed, ref):
        raise games.BadOptions(f"layout {ref.layout.name} has no sensor for {unsensed[0]}: "
                               "that position does not fit this board")
    if journal:
        ref.journal.start_game(state.game.name, state.options(), ref.seats)
        for move in state.moves:
            ref.journal.record_move(str(move))
    ref.adopt(state.copy(), now, origin)   # (the board's own: the caller keeps its state)
    ref.setting_up = SetUp(ref, purpose)
    log.info("setting up %s at move %d (%s)", state.game.name, len(state.moves), purpose)
    if decide:
        ref.decide(now)


def _entries_only(state: games.State, unsensed: list[str], ref: Any) -> bool:
    """Whether the unsensed sites are ones the board's own game leaves unsensed too (a Treeblox
    cube above the board: entered, never sensed): the same game, the same board."""
    return set(unsensed) <= set(ref.state.sites()) - set(ref.layout.channels_of_site)


def guide(referee: Any) -> bool:
    """The referee's set-up step while one is in progress: whether the board still differs
    from the position (nothing is played then). Once it matches, the set-up is over and play
    continues (told to the listeners as "set-up-done")."""
    setting = referee.setting_up
    if referee.touch is None and setting.guide():
        return True
    referee.setting_up = None
    referee.clear_marks()
    log.info("set-up done: %s to move", referee.state.to_move)
    referee.tell("set-up-done", None, "board")
    return False
