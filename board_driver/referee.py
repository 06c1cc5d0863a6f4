"""The referee: the one owner of the game in progress and of what the board should show.

Sensor events in, LED frames out:  debounce -> channel-to-site -> reconcile -> journal -> render.

Synchronous and clock-free (every call takes `now`), so the asyncio daemon, `treeboard trace`
and the tests drive exactly the same object; only who calls `tick` differs.
"""

from __future__ import annotations

import logging
from typing import Any, Hashable, Mapping

import games
from board_driver.reconcile import Correction, candidate_moves, changed_sites, reconcile
from board_driver.views import View, render
from hardware.base import PRESENT, SensorEvent
from hardware.debounce import Debouncer

log = logging.getLogger("treeboard.referee")


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
        self.physical: dict[str, str | None] = {}   # settled reading of every sensed site
        self._channel_values: dict[Hashable, str | None] = {}
        self.view = View(colours=config.colours, moves=config.moves, blink_hz=config.blink_hz,
                         winner_seconds=config.winner_seconds)
        self.sensed = [s for s in state.sites() if s in layout.channels_of_site]

    # --- the game in progress ------------------------------------------------------------

    @property
    def corrections(self) -> list[Correction]:
        return self.view.corrections

    def new_game(self, now: float) -> None:
        self.state = self.state.game.new_state(**self.state.options())
        self.journal.start_game(self.state.game.name, self.state.options())
        self.view.over_since = None
        log.info("new game of %s %s", self.state.game.name, self.state.options())
        self._decide(now)

    # --- sensors ------------------------------------------------------------------------------

    def resync(self, snapshot: Mapping[Hashable, str | None], now: float) -> None:
        """Take a full snapshot as the settled board (at start, after a reconnect)."""
        self.debouncer.reset(snapshot)
        self._channel_values = dict(snapshot)
        self.physical = {site: self._site_value(site) for site in self.sensed}
        self._decide(now)

    def feed(self, event: SensorEvent) -> None:
        """A raw sensor change (on the loop thread). Acted on once it settles, in `tick`."""
        self.debouncer.feed(event)

    def next_deadline(self) -> float | None:
        return self.debouncer.next_deadline()

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
        if settled and not self.debouncer.pending():
            self._decide(now)
            return True
        return False

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
        # Played first, to know whether it ends the game: the finishing move and the result
        # go to the journal in one transaction. Durable before the LEDs confirm it; a journal
        # that refuses the move takes it back out of the game too.
        self.state.play(move)
        summary = self.state.summary() if self.state.is_over() else None
        try:
            self.journal.record_move(str(move), finish=summary)
        except BaseException:
            self.state.undo()
            raise
        log.info("move %d: %s", len(self.state.moves), move)
        if summary is not None:
            self.view.over_since = now
            log.info("game over: %s", summary)

    def _decide(self, now: float) -> None:
        if self.state.is_over():
            # The game is decided; the players clear the board. An empty board starts the next.
            self.view.corrections = []
            if all(self.physical.get(s) is None for s in self.sensed):
                self.new_game(now)
            return
        for _ in range(8):  # a play or undo can leave a remainder (a tree peg still to plant)
            verdict = reconcile(self.state, self.physical, self.sensed,
                                takeback=self.config.takeback)
            if verdict.action == "play":
                self._accept(verdict.move, now)
                if self.state.is_over():
                    self.view.corrections = []
                    return
            elif verdict.action == "undo":
                self.journal.record_undo()
                log.info("takeback: %s", self.state.undo())
            else:
                self.view.corrections = verdict.corrections
                return

    # --- light --------------------------------------------------------------------------------

    def frame(self, now: float) -> tuple[dict[Hashable, tuple[int, int, int]], float | None]:
        frame, wake = render(self.state, self.view, now)
        named = self.layout.named_leds
        if "turn" in named:
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
