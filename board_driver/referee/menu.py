"""The menu: a board set up from the board, with no screen (docs/board.md, "The menu").

A mode of the referee. It opens by a gesture that cannot happen in play, on every layout:

- a piece board (pins, matrix, ADC, bridge): pieces on both corner sites (the first and the
  last sensed site: docs/board.md draws them) of an empty board, the second within PAIR_S of
  the first, then left alone for HOLD_S. Two players do not make two moves that fast; the
  pieces are played as usual meanwhile (a trace at machine speed plays on), and taken back
  when the menu opens;
- a touch board (Game for the Trees): both corner squares touched at once (a wand touches one
  square at a time);
- a layout with a button named `menu` ([buttons] menu = GPIO): pressing it (again: leaving).

In a game under way, the button (a touch board: both corners touched at once) opens the game
menu instead (docs/board.md, "Ending and pausing a game"): its choices, on sites free of
pieces, are resign, offer a draw, put the game away, and, while a draw offered by the other
side waits for a person here, accept or refuse it, and, while the other side's takeback
request waits (a remote board's, a browser's), accept or refuse that; the apply site does the
one chosen. Between
games the menu's sites after its apply site take up a game put away (newest first, as many as
the board has sites for): chosen and applied, that game comes back instead of a new one.

Then every choice is a site lit in its group's colour, the chosen one bright: who plays (two
people; the computer plays player 2; the computer plays player 1), the computer's level, the
clock, the hints; one site that applies, and (where the board has a site to spare) one that
starts the game's puzzles. A piece put on a site (a tap on a touch board) chooses; a piece on
the apply site (a tap) applies the choices and starts a new game; on the puzzle site, sets up
the first puzzle of the set shipped for the game (board_driver/referee/puzzle.py). Lifting
both corner pieces (touching both corners again), or MENU_TIMEOUT_S without a choice, leaves
without change.

A mode of its own: the Menu watches for its gesture in play and, once open, takes the board's
readings itself; it answers what they mean ("enter", "apply", "leave" or nothing) and never
reaches into the referee, which owns the one Menu of the game and carries those answers out.
Pure and clock-injected like the referee.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from board_driver.moment import MenuFace, frozen_map

#: The menu leaves without change after this long with nothing chosen.
MENU_TIMEOUT_S = 60.0
#: The second corner piece comes within this long of the first (either may have been a move)...
PAIR_S = 1.0
#: ...and both stay, with nothing else on the board, this long.
HOLD_S = 2.0

#: The choices, group by group, in the order their sites follow the first corner.
SEATS = (("people", ("human", "human")), ("computer-2", ("human", "computer")),
         ("computer-1", ("computer", "human")))
LEVELS = ("easy", "medium", "hard")
CLOCKS = ("none", "5+3", "10")
GROUPS = ("seats", "level", "clock", "hints")
#: The game menu's choices (group "ending"), in the order its sites follow.
ENDINGS = ("resign", "draw", "away", "accept", "refuse", "accept-takeback", "refuse-takeback")
#: ... and while the player to move is away (referee/absence.py), its choices, after those.
ABSENT = ("absent-pause", "absent-wait", "absent-claim", "absent-draw")


@dataclass(frozen=True)
class Choice:
    group: str      # seats, level, clock, hints, or apply
    value: Any


def choice_sites(sensed: Sequence[str], hint_modes: Sequence[str],
                 away: Sequence[int] = ()) -> dict[str, Choice] | None:
    """Site -> choice for a board whose sensed sites are `sensed` (in the game's order): the
    sites after the first corner, group after group, then the apply site, then a site for each
    game put away (`away`: their ids, newest first) that the board has a site for. None when
    the board has too few sites for the menu."""
    items = ([Choice("seats", name) for name, _ in SEATS] + [Choice("level", v) for v in LEVELS]
             + [Choice("clock", v) for v in CLOCKS] + [Choice("hints", v) for v in hint_modes]
             + [Choice("apply", None)])
    rest = list(sensed[1:-1])
    if len(rest) < len(items):
        return None
    if len(rest) > len(items):
        # A board with a site to spare: the one after apply starts the game's puzzles
        # (docs/study.md), both seats people.
        items.append(Choice("puzzle", None))
    items += [Choice("take up", game_id) for game_id in away][:len(rest) - len(items)]
    return dict(zip(rest, items))


def game_choice_sites(free: Sequence[str], values: Sequence[str]) -> dict[str, Choice] | None:
    """The game menu: site -> choice for `values` (of ENDINGS), then the apply site, on the
    `free` sites in order (a piece board's sites with no piece, not a corner). None when there
    are too few, or nothing to choose."""
    items = [Choice("ending", v) for v in values] + [Choice("apply", None)]
    if not values or len(free) < len(items):
        return None
    return dict(zip(free, items))


def seats_of(name: str, level: str) -> tuple[str, str]:
    """The seats a "seats" choice and a level mean."""
    seats = dict(SEATS)[name]
    return tuple(f"computer:{level}" if s == "computer" else s for s in seats)  # type: ignore


#: Seats the menu does not choose: played on the page (a web seat), from another board or a
#: browser (a remote seat; the menu does not open in a remote game, whose seats are the join's).
NOT_CHOSEN = ("web", "remote")


def applied_seats(now: Sequence[str], name: str, level: str, fits: Any) -> tuple[str, str]:
    """The seats the menu's "seats" choice and level make of the seats `now`. The choice says
    who plays each seat: a person, or the computer. A seat the menu does not choose (a web
    seat: its person plays on the page) is kept where the choice puts a person, and the
    computer takes it where the choice puts the computer; kept seats the game cannot play
    (`fits(seats)` false: web against the computer in a piece game) are the choice's own."""
    chosen = seats_of(name, level)
    kept = tuple(seat if seat in NOT_CHOSEN and want == "human" else want
                 for seat, want in zip(now, chosen))
    return kept if fits(kept) else chosen  # type: ignore[return-value]


def current_choices(seats: Sequence[str], controls_text: str, hints: str) -> dict[str, Any]:
    """What the menu shows chosen when it opens: the board's settings now."""
    name, level = "people", "medium"
    for seat, who in enumerate(seats):
        if who.startswith("computer"):
            name = "computer-2" if seat == 1 else "computer-1"
            level = who.split(":", 1)[1] if ":" in who else "medium"
    return {"seats": name, "level": level if level in LEVELS else "medium",
            "clock": controls_text if controls_text in CLOCKS else None, "hints": hints}


class Menu:
    def __init__(self, sensed: Sequence[str], hint_modes: Sequence[str]):
        self.corners: tuple[str, str] | None = (sensed[0], sensed[-1]) if len(sensed) > 1 else None
        self._made = (tuple(sensed), tuple(hint_modes))   # (its sites are made at each opening)
        self.sites = choice_sites(sensed, hint_modes)
        self.game = False   # the game menu (ENDINGS) is open, not the one between games
        self.open = False
        self.by_button = False
        self.chosen: dict[str, Any] = {}
        self._since = 0.0                 # the last thing done in the menu (its timeout)
        self._seen: set[str] = set()      # sites with a piece already counted
        self.corner_at: dict[str, float] = {}   # when each corner's piece was put
        self.pair_at: float | None = None       # when the pair was complete (the gesture)

    @property
    def available(self) -> bool:
        return self.sites is not None and self.corners is not None

    def enter(self, now: float, chosen: dict[str, Any], occupied: set[str],
              by_button: bool = False, away: Sequence[int] = ()) -> None:
        """Open between games, a site for each game put away (`away`) after the apply site."""
        self.sites = choice_sites(*self._made, away)
        self.open, self.chosen, self._since = True, dict(chosen), now
        self.by_button = by_button   # (then the button, not the corners, leaves it)
        self._seen = set(occupied)
        self.corner_at, self.pair_at = {}, None

    def enter_game(self, now: float, sites: dict[str, Choice], occupied: set[str]) -> None:
        """Open the game menu (`game_choice_sites`) in a game under way."""
        self.enter(now, {}, occupied, by_button=True)
        self.sites, self.game = sites, True

    def close(self) -> None:
        self.open = self.game = False
        self.sites = choice_sites(*self._made)
        self._seen = set()

    def forget_gesture(self) -> None:
        """In play: corner pieces seen so far count for nothing (a game under way)."""
        if self.corner_at or self.pair_at is not None:
            self.corner_at, self.pair_at = {}, None

    def reading(self, occupied: set[str], now: float, *, may_open: bool,
                only_corners: bool) -> str | None:
        """A piece board's sites with a piece: while open, what they choose ("apply", "leave",
        or None); closed, "enter" once the gesture is complete. `may_open`: the menu may open
        now (between games, no remote seat, at most the first two moves made); `only_corners`:
        the game's pieces, if any, stand on the corners only."""
        if self.open:
            return self.pieces(occupied, now)
        if not self.available or not may_open:
            self.forget_gesture()
            return None
        if only_corners and self.gesture(occupied, now):
            return "enter"
        return None

    def touched(self, site: str, on: bool, corners_on: bool, may_open: bool,
                now: float) -> str | None:
        """A touch board's square touched (`on`) or let go: both corners at once open the menu
        ("enter", when it `may_open`; "corners" when not) or, open, leave it ("leave"); open, a
        square let go chooses ("apply" on the apply square, "chosen" otherwise). Returns None
        when the menu does not take the touch: the game does."""
        if self.available and self.corners is not None and site in self.corners and on \
                and corners_on:
            if self.open:
                return "leave"
            return "enter" if may_open else "corners"
        if self.open:
            what = self.choose(site, now) if not on else None
            return what or "chosen"
        return None

    def face(self, touch: bool) -> MenuFace | None:
        """What the views draw of the menu (None: closed)."""
        if not self.open:
            return None
        return MenuFace(sites=frozen_map(self.sites), selected=frozenset(self.selected_sites()),
                        corners=self.corners, chosen=frozen_map(self.chosen), touch=touch,
                        game=self.game)

    def deadline(self) -> float | None:
        """When the menu leaves by itself, or opens (a pair of corners held): None if neither."""
        if self.open:
            return self._since + MENU_TIMEOUT_S
        if self.pair_at is not None:
            return self.pair_at + HOLD_S
        return None

    def gesture(self, occupied: set[str], now: float) -> bool:
        """A piece board, closed: whether both corner pieces, put within PAIR_S of each other,
        have stood alone for HOLD_S (the caller checks the game: at most its first two moves,
        on the corners)."""
        corners = set(self.corners or ())
        for corner in corners:
            if corner in occupied:
                self.corner_at.setdefault(corner, now)
            else:
                self.corner_at.pop(corner, None)
        if occupied != corners or len(self.corner_at) != 2:
            self.pair_at = None
            return False
        first, second = sorted(self.corner_at.values())
        if second - first > PAIR_S:
            self.pair_at = None
            return False
        if self.pair_at is None:
            self.pair_at = second
        return now >= self.pair_at + HOLD_S

    def timed_out(self, now: float) -> bool:
        return self.open and now >= self._since + MENU_TIMEOUT_S

    def choose(self, site: str, now: float) -> str | None:
        """A piece put or a tap on `site`: "apply", "puzzle", or None (a choice made, or no
        choice)."""
        choice = (self.sites or {}).get(site)
        if choice is None:
            return None
        self._since = now
        if choice.group in ("apply", "puzzle"):
            return choice.group
        self.chosen[choice.group] = choice.value
        return None

    def pieces(self, occupied: set[str], now: float) -> str | None:
        """A piece board's sites with a piece, in the menu: "apply", "puzzle", "leave" (both
        corner pieces lifted), or None."""
        if not self.by_button and self.corners is not None and not occupied & set(self.corners):
            return "leave"
        new = sorted(occupied - self._seen)
        self._seen = set(occupied)
        for site in new:
            what = self.choose(site, now)
            if what is not None:
                return what
        return None

    def selected_sites(self) -> set[str]:
        return {site for site, c in (self.sites or {}).items()
                if c.group in self.chosen and self.chosen[c.group] == c.value}
