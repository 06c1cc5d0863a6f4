"""The referee: the one owner of the game in progress and of what the board should show.

Sensor events in, LED frames out:  debounce -> channel-to-site -> reconcile -> journal -> render.

Synchronous and clock-free (every call takes `now`), so the asyncio daemon, `treeboard trace`
and the tests drive exactly the same object; only who calls `tick` differs.
"""

from __future__ import annotations

import logging
from typing import Any, Hashable, Mapping

import games
from board_driver.reconcile import (Correction, candidate_moves, changed_sites, differences,
                                    reconcile)
from board_driver.views import View, render
from hardware.base import PRESENT, SensorEvent
from hardware.debounce import Debouncer

log = logging.getLogger("treeboard.referee")

#: The last this many seconds of a timed turn are shown running out.
COUNTDOWN_S = 30.0


class Referee:
    def __init__(self, state: games.State, layout: Any, leds: Any, journal: Any, config: Any,
                 *, debounce_s: float | None = None):
        self.state = state
        self.layout = layout
        self.leds = leds
        self.journal = journal
        self.config = config
        window = layout.debounce_s if debounce_s is None else debounce_s
        self.debouncer = Debouncer(window)
        # Channels whose piece came off since the last decision (raw edges, before debounce):
        # one that is back on when the board is quiet was swapped faster than the debounce.
        self._lifted: dict[Hashable, float] = {}
        self._window = window
        # The turn's clock: a limit in seconds (None: none), whose turn it is and since when.
        limit = config.turn_seconds if config.turn_seconds is not None else \
            getattr(state.game, "turn_seconds", None)
        self.turn_limit: float | None = limit or None
        self._turn_of: int | None = None
        self._turn_since = 0.0
        self.physical: dict[str, str | None] = {}   # settled reading of every sensed site
        self._channel_values: dict[Hashable, str | None] = {}
        self.view = View(colours=config.colours, moves=config.moves, blink_hz=config.blink_hz,
                         winner_seconds=config.winner_seconds)
        self.sensed = [s for s in state.sites() if s in layout.channels_of_site]
        # A move taken back from the page whose pieces still stand on the board: they are to be
        # lifted, not played again, until the board agrees with the game.
        self._retracted: str | None = None

    # --- the game in progress ------------------------------------------------------------

    @property
    def corrections(self) -> list[Correction]:
        return self.view.corrections

    def new_game(self, now: float, options: dict[str, Any] | None = None) -> None:
        """Start over (with other options of the same game, if given). Raises games.GameError
        for options the game refuses or whose sites this board has no sensor for."""
        state = self.state.game.new_state(**(self.state.options() if options is None else options))
        unsensed = [s for s in state.sites() if s not in self.layout.channels_of_site]
        if options is not None and unsensed:
            raise games.BadOptions(f"layout {self.layout.name} has no sensor for {unsensed[0]}: "
                                   "that game does not fit this board")
        self.state = state
        self.sensed = [s for s in state.sites() if s in self.layout.channels_of_site]
        self._retracted = None
        self.journal.start_game(self.state.game.name, self.state.options())
        self.view.over_since = None
        log.info("new game of %s %s", self.state.game.name, self.state.options())
        self._decide(now)

    # --- sensors ------------------------------------------------------------------------------

    def resync(self, snapshot: Mapping[Hashable, str | None], now: float) -> None:
        """Take a full snapshot as the settled board (at start, after a reconnect)."""
        self.debouncer.reset(snapshot)
        self._lifted.clear()
        self._channel_values = dict(snapshot)
        self.physical = {site: self._site_value(site) for site in self.sensed}
        self._decide(now)

    def feed(self, event: SensorEvent) -> None:
        """A raw sensor change (on the loop thread). Acted on once it settles, in `tick`."""
        if event.value is None and self._channel_values.get(event.channel) is not None:
            self._lifted.setdefault(event.channel, event.timestamp)
        self.debouncer.feed(event)

    def next_deadline(self) -> float | None:
        deadline = self.debouncer.next_deadline()
        if deadline is None and self._lifted:
            # Only a swap faster than the debounce is waiting: decide when its lift would have
            # settled.
            deadline = min(self._lifted.values()) + self._window
        return deadline

    def tick(self, now: float) -> bool:
        """Take in the changes that have settled. Decide only when the whole board is quiet:
        two pieces put down at once are one change to correct, not two moves."""
        settled = self.debouncer.due(now)
        for event in settled:
            self._channel_values[event.channel] = event.value
            site = self.layout.site_of_channel.get(event.channel)
            if site is None:
                log.warning("sensor channel %r is in no site of layout %s", event.channel,
                            self.layout.name)
                continue
            self.physical[site] = self._site_value(site)
        if (settled or self._lifted) and not self.debouncer.pending():
            self._decide(now, self._swapped())
            return True
        return False

    def _swapped(self) -> list[str]:
        """Sites whose piece came off and went back on faster than the debounce (the board
        is quiet, so every lifted channel has either settled empty or is back)."""
        sites = {self.layout.site_of_channel.get(ch) for ch in self._lifted
                 if self._channel_values.get(ch) is not None}
        self._lifted.clear()
        return sorted(s for s in sites if s is not None and self.physical.get(s) is not None)

    def _site_value(self, site: str) -> str | None:
        # A site watched by several sensors holds a piece when any of them sees one.
        values = [self._channel_values.get(ch) for ch in self.layout.channels_of_site.get(site, ())]
        found = [v for v in values if v is not None]
        if not found:
            return None
        kinds = [v for v in found if v != PRESENT]
        return kinds[0] if kinds else PRESENT

    # --- entries the board cannot sense, and buttons ------------------------------------------

    def enter(self, site: str, kind: str, now: float) -> None:
        """A piece placed where no sensor sees it (Treeblox above the board): play the one legal
        move that puts `kind` on `site`. Raises games.IllegalMove if there is none."""
        state = self.state
        before = state.occupancy()
        found = None
        for move in candidate_moves(state, [site]):
            state.play(move)
            after = state.occupancy()
            state.undo()
            if changed_sites(before, after) == {site} and after.get(site) == kind:
                found = move
                break
        if found is None:
            raise games.IllegalMove(f"{kind} at {site}", "no legal move puts that piece there now")
        self._accept(found, now)
        self._decide(now)

    def takeback(self, now: float) -> str:
        """Take back the last move (the page's takeback; lifting the last piece does the same on
        the board). The pieces it put down then light as corrections until they are lifted.
        Returns the move taken back; raises games.IllegalMove when there is none."""
        if self.state.is_over():
            raise games.IllegalMove("takeback", "the game is over; start a new game instead")
        if not self.state.moves:
            raise games.IllegalMove("takeback", "no move to take back")
        self.journal.record_undo()
        move = self.state.undo()
        self._retracted = str(move)
        log.info("takeback: %s", move)
        self._decide(now)
        return str(move)

    def lift_entry(self, site: str, now: float) -> None:
        """The piece entered last on a site no sensor sees, lifted again: a takeback, as
        lifting the last piece off a sensed site is. Raises games.IllegalMove otherwise."""
        state = self.state
        if not self.config.takeback:
            raise games.IllegalMove(f"lift {site}", "takebacks are off (display.takeback)")
        if not state.moves or site in self.sensed:
            raise games.IllegalMove(f"lift {site}", "only the last piece entered can be taken back")
        before = state.occupancy()
        last = state.undo()
        after = state.occupancy()
        if site not in before or changed_sites(before, after) != {site}:
            state.play(last)
            raise games.IllegalMove(f"lift {site}", "only the last piece entered can be taken back")
        state.play(last)  # put back, to take it back the journalled way
        self.takeback(now)

    def press(self, name: str, now: float) -> None:
        """A named button: `end_turn` ends the turn (a pass with no placement), where the game
        has such a move."""
        if name != "end_turn" or self.state.is_over():
            return
        try:
            move = self.state.parse_move("end")
            self.state.copy().play(move)
        except games.IllegalMove as exc:
            log.info("end-turn button ignored: %s", exc.reason)
            return
        self._accept(move, now)
        self._decide(now)

    # --- deciding ---------------------------------------------------------------------------

    def _accept(self, move: Any, now: float) -> None:
        # Durable before the LEDs confirm it: a power cut after this line loses nothing.
        self.journal.record_move(str(move))
        self.state.play(move)
        log.info("move %d: %s", len(self.state.moves), move)
        if self.state.is_over():
            self.view.over_since = now
            summary = self.state.summary()
            self.journal.finish(summary)
            log.info("game over: %s", summary)

    def _decide(self, now: float, swapped: list[str] = ()) -> None:
        if swapped and not self.state.is_over():
            # A swap faster than the debounce (a seed out, a spore in): decide first on the
            # board as it was with those sites empty, and keep it only if that was a move
            # (an Arbos replacement); the board as it is then comes next, as usual.
            momentary = dict(self.physical)
            momentary.update(dict.fromkeys(swapped))
            verdict = reconcile(self.state, momentary, self.sensed, takeback=False)
            if verdict.action == "play":
                log.info("a piece swapped faster than the debounce at %s", ", ".join(swapped))
                self._accept(verdict.move, now)
        if self.state.is_over():
            # The game is decided; the players clear the board. An empty board starts the next.
            self.view.corrections = self.view.completions = []
            if all(self.physical.get(s) is None for s in self.sensed):
                self.new_game(now)
            return
        for _ in range(8):  # a play or undo can leave a remainder (a tree peg still to plant)
            verdict = reconcile(self.state, self.physical, self.sensed,
                                takeback=self.config.takeback)
            if verdict.action == "play" and str(verdict.move) == self._retracted:
                diff = differences(self.state.occupancy(), self.physical, self.sensed)
                self.view.corrections = sorted(diff.values(), key=lambda c: c.site)
                return
            if verdict.action != "correct":
                self._retracted = None
            if verdict.action == "play":
                self._accept(verdict.move, now)
                if self.state.is_over():
                    self.view.corrections = self.view.completions = []
                    return
            elif verdict.action == "undo":
                self.journal.record_undo()
                log.info("takeback: %s", self.state.undo())
            else:  # in sync, a move in progress, or a correction
                self.view.corrections = verdict.corrections
                self.view.completions = verdict.completions
                return

    # --- the turn's time limit ------------------------------------------------------------------

    def turn_left(self, now: float) -> float | None:
        """Seconds left in the turn, while a time limit applies and running out would be a pass
        (a game mid-action, such as an Arbos replacement's follow-ups, is never cut short)."""
        if self.turn_limit is None or self.state.is_over() or self._turn_of is None:
            return None
        if self._pass_move() is None:
            return None
        return max(0.0, self._turn_since + self.turn_limit - now)

    def _turn_clock(self, now: float) -> None:
        """Start the clock when a turn begins; a turn whose time ran out is a pass."""
        if self.turn_limit is None or self.state.is_over():
            self._turn_of = None
            return
        if self._turn_of != self.state.to_move:
            self._turn_of, self._turn_since = self.state.to_move, now
            return
        if now >= self._turn_since + self.turn_limit:
            move = self._pass_move()
            if move is not None:
                log.info("turn time limit: %s passes", self.state.to_move)
                self._accept(move, now)
                self._decide(now)
                self._turn_of, self._turn_since = self.state.to_move, now

    def _pass_move(self) -> Any:
        """The game's pass, if it is legal now; None otherwise."""
        state = self.state
        try:
            move = state.parse_move("pass")
            state.play(move)
        except games.IllegalMove:
            return None
        state.undo()
        return move

    # --- light --------------------------------------------------------------------------------

    def frame(self, now: float) -> tuple[dict[Hashable, tuple[int, int, int]], float | None]:
        left = self.turn_left(now)
        self.view.turn_left = left
        frame, wake = render(self.state, self.view, now)
        if left is not None:
            # Wake when the last 30 s begin, then often enough for the views' countdown.
            due = now + left - COUNTDOWN_S if left > COUNTDOWN_S else now + max(0.01, min(left, 0.25))
            wake = due if wake is None else min(wake, due)
        named = self.layout.named_leds
        if "turn" in named and "turn" not in frame:  # (a game's view may draw them itself)
            over = self.state.is_over()
            who = self.state.winner() if over else self.state.to_move
            frame["turn"] = self.config.colours[f"player{who}"] if who is not None else (64, 64, 64)
        for player in (0, 1):
            bar = named.get(f"score{player}")
            if bar:
                lit = min(len(bar), self.state.scores()[player])
                colour = self.config.colours[f"player{player}"]
                for i, led in enumerate(bar):
                    frame[led] = colour if i < lit else (0, 0, 0)
        return frame, wake

    def show(self, now: float) -> float | None:
        """Render and hand the frame to the strip (written only if it changed). Returns when
        the frame next changes by itself (a blink, an animation), or None."""
        self._turn_clock(now)
        frame, wake = self.frame(now)
        self.leds.show(frame)
        return wake

    def site_colours(self) -> dict[str, list[int]]:
        """What the strip shows now, by site and named LED group (the first LED of each)."""
        shown = self.leds.shown
        if shown is None:
            return {}
        out = {}
        for site, leds in list(self.layout.leds_of_site.items()) + list(self.layout.named_leds.items()):
            if leds:
                out[site] = list(shown[leds[0]])
        return out
