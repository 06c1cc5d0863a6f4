"""Touch input: the referee's second way in, for games whose position lives on the LEDs.

On such a board the sensors under the sites hold no pieces: a magnet wand touched to a
square, or a pressed square, is a *tap*. A game asks for this mode by declaring
`input_mode = "touch"` on its `Game`, and its states answer (games/base.py declares both):

    state.touch_moves(site) -> list[tuple[move, str | None]]
        The legal moves that begin by tapping `site`, each with the second site to tap, or
        None for a move made by *holding* `site` (Game for the Trees: a retreat).
    state.touch_stops(move) -> bool
        Whether the move stops something rather than grows (its target blinks orange).

The gestures (all decided when the wand lifts, so a tap and a hold are told apart by how
long the sensor stayed on):

- tap a site that begins moves: it is *selected*; the LEDs show the sites to tap next
  (`views.frame`: growth targets blink bluish green, the ends of chains it could stop blink
  orange, the selected site is white);
- tap one of those sites: the move is played; tap the selected site again: cancelled; tap
  a site that is neither: that site is selected instead if it begins moves, else cancelled;
- several moves behind one target (Game for the Trees: the order of the chains, or the
  attacker that takes a square): a *choice*. The board shows the position after the
  offered move (`shown_state`), source and target blinking white; tap the target again to
  play it, the source for the next offer, anywhere else to cancel;
- hold a site (at least `hold_s`): the move it makes by holding (a choice again when there
  are several); once the game is over, a hold anywhere starts the next game.

A square may have more than one LED: a touch game's view may light *parts* of a square,
frame keys "SITE:PART" (Game for the Trees: "e4:kind"), which a layout provides as named LED
groups. `views.frame.fit_parts` keeps the parts the layout has, so one view serves both layouts.

Pure and clock-free like the referee: every call takes `now`.
"""

from __future__ import annotations

import logging
from typing import Any

log = logging.getLogger("treeboard.touch")

HOLD_S = 1.2          # a touch this long or longer is a hold


def is_touch_game(state: Any) -> bool:
    """Does this game take its moves by touch (`input_mode = "touch"` on its Game)?"""
    return state.game.input_mode == "touch"


class TouchInput:
    """The gesture state of one board: what is selected, what is offered."""

    def __init__(self, hold_s: float = HOLD_S):
        self.hold_s = hold_s
        self.selected: str | None = None
        self.targets: dict[str | None, list[Any]] = {}   # second site -> moves behind it
        self.stops: set[str] = set()                     # targets whose every move stops
        self.choice: list[Any] = []                      # moves offered one by one
        self.choice_index = 0
        self.choice_target: str | None = None
        self._down: dict[str, float] = {}                # site -> when the wand touched it
        self._for: tuple | None = None                   # the position the selection is for

    # --- what the gestures mean ----------------------------------------------------------

    def reset(self) -> None:
        """Forget the selection (after a move, a takeback, a new game, a resync)."""
        self.selected = None
        self.targets = {}
        self.stops = set()
        self.choice = []
        self.choice_index = 0
        self.choice_target = None
        self._for = None

    def _check(self, state: Any) -> None:
        # A move made some other way (the page, a takeback, a new game) ends the selection.
        if self._for is not None and self._for != (id(state), len(state.moves)):
            self.reset()

    def forget_touches(self) -> None:
        """A resync: sensors already on were not touched now; only new touches count."""
        self._down.clear()
        self.reset()

    def sensor(self, site: str, on: bool, now: float, state: Any, over: bool | None = None) -> Any:
        """A settled sensor change at `site`. Returns what to do: None, a move to play, or the
        string "new-game" (a hold on a finished game). `over`: whether the game is over (the
        referee's word, which a flag fall decides too); None: the state's."""
        if on:
            self._down[site] = now
            return None
        self._check(state)
        started = self._down.pop(site, None)
        if started is None:
            return None  # a touch that began before we were watching (a resync)
        held = now - started >= self.hold_s
        if state.is_over() if over is None else over:
            self.reset()
            return "new-game" if held else None
        return self.hold(site, state) if held else self.tap(site, state)

    def tap(self, site: str, state: Any) -> Any:
        if self.choice:
            if site == self.choice_target:
                move = self.choice[self.choice_index]
                self.reset()
                return move
            if site == self.selected:
                self.choice_index = (self.choice_index + 1) % len(self.choice)
                return None
            self.reset()
            return None
        if self.selected is not None:
            if site == self.selected:
                self.reset()  # tap the source again: cancelled
                return None
            moves = self.targets.get(site)
            if moves:
                return self._offer(moves, site)
        self._select(site, state)
        return None

    def hold(self, site: str, state: Any) -> Any:
        self._select(site, state)
        moves = self.targets.get(None, [])
        if not moves:
            self.reset()
            return None
        return self._offer(moves, site)

    def _select(self, site: str, state: Any) -> None:
        self.reset()
        targets: dict[str | None, list[Any]] = {}
        for move, target in state.touch_moves(site):
            targets.setdefault(target, []).append(move)
        if targets:
            self.selected = site
            self.targets = targets
            self.stops = {t for t, ms in targets.items()
                          if t is not None and all(state.touch_stops(m) for m in ms)}
            self._for = (id(state), len(state.moves))
        else:
            log.info("tap on %s: nothing begins there", site)

    def _offer(self, moves: list[Any], target: str) -> Any:
        if len(moves) == 1:
            self.reset()
            return moves[0]
        self.choice = list(moves)
        self.choice_index = 0
        self.choice_target = target
        return None

    # --- what the board shows --------------------------------------------------------------

    @property
    def offered(self) -> Any:
        """The move on offer in a choice, or None."""
        return self.choice[self.choice_index] if self.choice else None

    def shown_state(self, state: Any) -> Any:
        """The position to light: the game's, or in a choice the one after the offered move."""
        self._check(state)
        if not self.choice:
            return state
        preview = state.copy()
        preview.play(self.offered)
        return preview


    def words(self) -> str | None:
        """The selection in words, for `treeboard sim` (None: nothing selected)."""
        if self.selected is None:
            return None
        if self.choice:
            return (f"{len(self.choice)} turns lead to {self.choice_target}; offered "
                    f"{self.offered} ({self.choice_index + 1} of {len(self.choice)}): tap "
                    f"{self.choice_target} to play it, {self.selected} for the next")
        grow = sorted(t for t in self.targets if t is not None and t not in self.stops)
        stop = sorted(self.stops)
        parts = []
        if grow:
            parts.append(f"tap {' '.join(grow)} to grow there")
        if stop:
            parts.append(f"tap {' '.join(stop)} to stop the chain growing there")
        if None in self.targets:
            parts.append(f"hold {self.selected} for {self.targets[None][0]}")
        return f"selected {self.selected}: " + "; ".join(parts) + \
            f"; tap {self.selected} again to cancel"

    def describe(self) -> dict[str, Any]:
        """For the page and traces: what is selected and offered, in move texts."""
        return {
            "selected": self.selected,
            "targets": sorted(t for t in self.targets if t is not None),
            "hold": [str(m) for m in self.targets.get(None, [])],
            "choice": [str(m) for m in self.choice],
            "offered": None if not self.choice else str(self.offered),
        }
