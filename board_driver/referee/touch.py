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
- hold a site (at least `hold_s`): the move it makes by holding is only *offered*: the
  square blinks in the colour of a move that stops or gives up something (the "unsafe"
  colour), and a second tap on it confirms; anything else cancels (a choice again when there
  are several). A slow hand never destroys: Game for the Trees' retreat gives up a square;
- a move that loses at once (a tree grown onto one's own last Huckleberry square is legal
  and loses) is offered the same way before it is played: tap the target again to confirm;
- once the game is over, a hold anywhere starts the next game;
- a tap that does nothing (a bare square, the opponent's), and a cancel, are said
  (`note_words`) and the tapped square flashes in the "wrong" colour for `FLASH_S`, so a
  tap is never met by silence.

A square may have more than one LED: a touch game's view may light *parts* of a square,
frame keys "SITE:PART" (Game for the Trees: "e4:kind"), which a layout provides as named LED
groups. `views.frame.fit_parts` keeps the parts the layout has, so one view serves both layouts.

Pure and clock-free like the referee: every call takes `now`.
"""

from __future__ import annotations

import logging
from typing import Any

from board_driver import views
from board_driver.views.words import tr

log = logging.getLogger("treeboard.touch")

HOLD_S = 1.2          # a touch this long or longer is a hold
FLASH_S = 0.6         # a tap that did nothing: its square flashes this long


def loses_at_once(state: Any, move: Any) -> bool:
    """Does `move` end the game at once with the mover beaten (Game for the Trees: a tree
    grown onto one's own last Huckleberry square)? Such a move is offered, not played."""
    mover = state.to_move
    probe = state.copy()
    probe.play(move)
    return probe.is_over() and probe.winner() != mover


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
        # The offer waits for a confirming tap even with one move: a hold's move (a retreat)
        # or a move that loses at once. Its square blinks in the "unsafe" colour.
        self.confirming = False
        # What the last tap that did no move meant, for words and a flash: (number, what,
        # site, player to move) with what "nothing" (nothing of the mover's begins there) or
        # "cancelled"; the number grows with every note so the same words said twice are told.
        self.note: tuple[int, str, str, int] | None = None
        self.flash: tuple[str, float] | None = None      # (site, until when) it flashes
        self._notes = 0
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
        self.confirming = False
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
        started = self._down.pop(site, None)
        if started is None:
            return None  # a touch that began before we were watching (a resync)
        return self.gesture(site, now - started >= self.hold_s, now, state, over)

    def gesture(self, site: str, held: bool, now: float, state: Any,
                over: bool | None = None) -> Any:
        """A tap (`held` False) or a hold of `site`, however it was made (the wand on a
        sensor, the sim's `tap`/`hold`). Returns None, a move to play, or "new-game". `over`:
        whether the game is over (the referee's word, which a flag fall decides too); None:
        the state's."""
        self._check(state)
        if state.is_over() if over is None else over:
            self.reset()
            return "new-game" if held else None
        was = self.selected is not None
        what = self.hold(site, state) if held else self.tap(site, state)
        if what is None and self.selected is None:
            # Nothing selected after it: the tap cancelled, or nothing began there.
            self._note("cancelled" if was else "nothing", site, now, state)
        return what

    def _note(self, what: str, site: str, now: float, state: Any) -> None:
        self._notes += 1
        self.note = (self._notes, what, site, state.to_move)
        self.flash = (site, now + FLASH_S)
        log.info("tap on %s: %s", site, what)

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
                return self._offer(moves, site, state, confirm=False)
            self.reset()  # a site that is neither: cancelled, or the next selection
        self._select(site, state)
        return None

    def hold(self, site: str, state: Any) -> Any:
        self._select(site, state)
        moves = self.targets.get(None, [])
        if not moves:
            self.reset()
            return None
        return self._offer(moves, site, state, confirm=True)

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

    def _offer(self, moves: list[Any], target: str, state: Any, confirm: bool) -> Any:
        confirm = confirm or any(loses_at_once(state, m) for m in moves)
        if len(moves) == 1 and not confirm:
            self.reset()
            return moves[0]
        self.choice = list(moves)
        self.choice_index = 0
        self.choice_target = target
        self.confirming = confirm
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

    def words(self, game_name: str) -> str | None:
        """The selection in words, for `treeboard sim` (None: nothing selected); each move as
        the game's view shows it (`views.show_move`: "retreat:d5" in the board's language)."""
        if self.selected is None:
            return None

        def shown(move: Any) -> str:
            return views.show_move(game_name, str(move))

        if self.confirming and len(self.choice) == 1:
            why = tr("{move}? tap {site} again to confirm; any other square cancels") \
                if self.choice_target == self.selected else \
                tr("{move} and loses the game? tap {site} again to confirm; any other square cancels")
            return why.format(move=shown(self.offered), site=self.choice_target)
        if self.choice:
            return tr("{n} turns lead to {site}; offered "
                      "{move} ({at} of {n}): tap "
                      "{site} to play it, {selected} for the next").format(
                n=len(self.choice), site=self.choice_target, move=shown(self.offered),
                at=self.choice_index + 1, selected=self.selected)
        grow = sorted(t for t in self.targets if t is not None and t not in self.stops)
        stop = sorted(self.stops)
        parts = []
        if grow:
            parts.append(tr("tap {sites} to grow there").format(sites=" ".join(grow)))
        if stop:
            parts.append(tr("tap {sites} to stop the chain growing there").format(sites=" ".join(stop)))
        if None in self.targets:
            parts.append(tr("hold {site}: {move}").format(site=self.selected,
                                                             move=shown(self.targets[None][0])))
        return tr("selected {site}: {parts}; tap {site} again to cancel").format(
            site=self.selected, parts=tr("; ").join(parts))

    def note_words(self, players: tuple[str, str]) -> str | None:
        """The last tap that made no move, in words (None: none yet); `players` are the
        sides' names as the game's view says them."""
        if self.note is None:
            return None
        _, what, site, mover = self.note
        if what == "cancelled":
            return tr("tap on {site}: cancelled, nothing is selected").format(site=site)
        return tr("tap on {site}: nothing of {player}'s grows from there").format(site=site, player=players[mover])

    def describe(self) -> dict[str, Any]:
        """For the page and traces: what is selected and offered, in move texts."""
        return {
            "selected": self.selected,
            "targets": sorted(t for t in self.targets if t is not None),
            "hold": [str(m) for m in self.targets.get(None, [])],
            "choice": [str(m) for m in self.choice],
            "offered": None if not self.choice else str(self.offered),
            "confirm": self.confirming,
        }
