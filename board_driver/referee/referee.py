"""The referee: the one owner of the game in progress and of what the board should show.

Sensor events in, LED frames out:  debounce -> channel-to-site -> reconcile -> journal -> render.

Synchronous and clock-free (every call takes `now`), so the asyncio daemon, `treeboard trace`
and the tests drive exactly the same object; only who calls `tick` differs.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Hashable, Mapping

import games
from games.base import Reason
from board_driver.referee.reconcile import (Correction, candidate_moves, changed_sites, differences,
                                    reconcile)
from board_driver.referee.touch import TouchInput, is_touch_game
from board_driver.views import View
from board_driver.views.frame import compose
from board_driver.views.words import tr
from hardware.base import PRESENT, SensorEvent
from hardware.debounce import Debouncer

log = logging.getLogger("treeboard.referee")


def takeback_words(undone: list[tuple[str, bool]]) -> str:
    """What a takeback took back, in words: "h1.0", or against the computer "h1.0 and the
    computer's reply v1.2" (`undone` as `Referee._undo` returns it, last move first)."""
    mine = [m for m, here in undone if here]
    reply = [m for m, here in undone if not here]
    if not reply or not mine:
        return tr(" and ").join(m for m, _ in reversed(undone))
    return tr("{moves} and the computer's reply {reply}").format(
        moves=tr(" and ").join(reversed(mine)), reply=" ".join(reversed(reply)))


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
            state.game.turn_seconds
        self.turn_limit: float | None = limit or None
        self._turn_of: int | None = None
        self._turn_since = 0.0
        self.physical: dict[str, str | None] = {}   # settled reading of every sensed site
        self._channel_values: dict[Hashable, str | None] = {}
        self.view = View(colours=config.colours, moves=config.moves, blink_hz=config.blink_hz,
                         winner_seconds=config.winner_seconds)
        self.sensed = [s for s in state.sites() if s in layout.channels_of_site]
        # Who plays each seat: "human" at this board, "computer:LEVEL", or "remote" (another
        # board). Only a human seat's moves come in through the sensors. The referee owns them
        # (the config's `players` is where a board starts; the door changes them).
        self.seats: tuple[str, str] = tuple(getattr(config, "players", None) or ("human", "human"))
        # Told of every change to the game, on the loop: ("move", move, origin) with origin
        # "board" or the seat's kind, ("undo", move, origin), ("new-game", None, origin).
        self.listeners: list[Callable[[str, Any, str], None]] = []
        # After a takeback the board did not make itself (agreed with a remote board, asked on
        # the page), its pieces still stand: nothing is played until they match the game again,
        # or the piece just taken back would be played straight back.
        self._hold = False
        # The moves (their numbers, 1 up) that were passes because the turn's time ran out.
        self.timed_out: set[int] = set()
        # Touch input (board_driver/referee/touch.py): a game whose position lives on the LEDs takes
        # its moves from taps, not from pieces; None for every piece game.
        self.touch = TouchInput() if is_touch_game(state) else None

    # --- the game in progress ------------------------------------------------------------

    @property
    def corrections(self) -> list[Correction]:
        return self.view.corrections

    @property
    def holding(self) -> bool:
        """Whether the game waits for the board to be put right before anything is played
        (after a takeback without hands, or a new game, while old pieces still stand)."""
        return self._hold

    def new_game(self, now: float, options: dict[str, Any] | None = None,
                 origin: str = "board") -> None:
        """Start over (with other options of the same game, if given). Raises games.GameError
        for options the game refuses or whose sites this board has no sensor for."""
        game = self.state.game
        state = game.new_state(**({k: v for k, v in self.state.options().items()
                                   if k not in game.drawn_options} if options is None else options))
        unsensed = [s for s in state.sites() if s not in self.layout.channels_of_site]
        if options is not None and unsensed:
            raise games.BadOptions(f"layout {self.layout.name} has no sensor for {unsensed[0]}: "
                                   "that game does not fit this board")
        self.state = state
        self.timed_out = set()
        self.sensed = [s for s in state.sites() if s in self.layout.channels_of_site]
        # A new game starts from an empty board: pieces of the old one still standing are to be
        # lifted, never read as the new game's first moves. (A touch board holds no pieces:
        # nothing to wait for, or the computer would never move again.)
        self._hold = self.touch is None
        self.journal.start_game(self.state.game.name, self.state.options())
        self.view.over_since = None
        log.info("new game of %s %s", self.state.game.name, self.state.options())
        self._tell("new-game", None, origin)
        self._decide(now)

    def set_moves(self, mode: str) -> None:
        """What the board lights of the moves (display.moves: off, legal, safe, best)."""
        self.view.moves = mode

    def set_hints(self, hints: dict[str, str], reason: str | None = None) -> None:
        """The computer's hints for the position (site -> "best", "keeps" or "loses"), shown
        while display.moves is "best", and why the best move (a sentence, or None); `{}`
        clears them."""
        self.view.hints = hints
        self.view.hint_reason = reason if hints else None

    # --- seats ------------------------------------------------------------------------------

    def at_board(self, player: int) -> bool:
        """Whether `player` plays here, through the sensors (not the computer, not a remote)."""
        return self.seats[player] == "human"

    def play_for_seat(self, move: Any, now: float, origin: str) -> None:
        """A move of a seat not at this board (the computer, a remote board). It is played in
        the game at once; the board then differs from the game, and the correction machinery
        lights the pieces to put. Raises games.IllegalMove and changes nothing if it is this
        board's turn or the move is not legal."""
        state = self.state
        if state.is_over():
            raise games.IllegalMove(move, Reason("the game is over"))
        if self.at_board(state.to_move):
            raise games.IllegalMove(move, Reason("it is this board's turn, not the other seat's"))
        if isinstance(move, str):
            move = state.parse_move(move)
        state.copy().play(move)   # raises IllegalMove before anything is recorded
        before = state.occupancy()
        self._accept(move, now, origin)
        after = self.state.occupancy()
        # What the move changed is the other seat's move to make on this board, shown as an
        # invitation ("the computer's move: make it"), not as a mistake; moves in a row add up.
        self.view.to_make |= {s for s in before.keys() | after.keys()
                              if before.get(s) != after.get(s)}
        self.view.to_make_by = origin
        self._decide(now)

    def _owed(self, move: Any) -> bool:
        """Whether `move` changes a site where the other seat's move still owes its piece
        (`view.to_make`): the site reads as it does because the piece is not put yet."""
        if not self.view.to_make:
            return False
        state = self.state
        before = state.occupancy()
        state.play(move)
        after = state.occupancy()
        state.undo()
        return any(before.get(s) != after.get(s) for s in self.view.to_make)

    def _tell(self, what: str, move: Any, origin: str) -> None:
        for listener in list(self.listeners):
            try:
                listener(what, move, origin)
            except Exception:  # a listener's failure must never cost the game a move
                log.exception("listener %r failed on %s", listener, what)

    # --- sensors ------------------------------------------------------------------------------

    def resync(self, snapshot: Mapping[Hashable, str | None], now: float) -> None:
        """Take a full snapshot as the settled board (at start, after a reconnect)."""
        self.debouncer.reset(snapshot)
        self._lifted.clear()
        self._channel_values = dict(snapshot)
        self.physical = {site: self._site_value(site) for site in self.sensed}
        if self.touch is not None:
            self.touch.forget_touches()
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
            if self.touch is not None:
                self._touched(site, now)
        if self.touch is not None:
            self._lifted.clear()  # (swaps faster than the debounce are a piece game's matter)
            return self._turn_clock(now) or bool(settled)
        if (settled or self._lifted) and not self.debouncer.pending():
            self._decide(now, self._swapped())
            return True
        return self._turn_clock(now)

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
            raise games.IllegalMove(f"{kind} at {site}",
                                    Reason("no legal move puts that piece there now"))
        if not self.at_board(state.to_move):
            raise games.IllegalMove(f"{kind} at {site}", Reason("it is the other seat's turn"))
        self._accept(found, now)
        self._decide(now)

    def takeback(self, now: float, origin: str = "page") -> str:
        """Take back the last move without the board's hands (the page's takeback, or one
        agreed with a remote board; lifting the last piece does the same on the board). The
        pieces it put down then light as corrections, and nothing is played until they are
        lifted. Returns the move taken back; raises games.IllegalMove when there is none."""
        if self.state.is_over():
            raise games.IllegalMove("takeback", Reason("the game is over; start a new game "
                                                       "instead"))
        if not self.state.moves:
            raise games.IllegalMove("takeback", Reason("no move to take back"))
        depth = self.takeback_depth()
        if depth == 0:
            raise games.IllegalMove("takeback", Reason("no move of this board's to take back: "
                                                       "the computer's move stands"))
        undone = self._undo(depth, origin)
        self._hold = self.touch is None   # (a touch board has no pieces to lift)
        self._decide(now)
        return takeback_words(undone)

    def takeback_depth(self) -> int:
        """How many moves a takeback takes back. Against the computer, a player's move and the
        computer's reply after it go together (taking back the reply alone, the computer would
        play it again at once); otherwise the last move."""
        state = self.state
        here = [self.at_board(p) for p in (0, 1)]
        if "remote" in self.seats or all(here) or not any(here):
            return 1
        probe, depth = state.copy(), 0
        while probe.moves:
            probe.undo()
            depth += 1
            if self.at_board(probe.to_move):   # the player's move: it goes too, and no more
                return depth
        # Only the computer's moves so far (it moved first): none is the players' to take back,
        # and its move not yet made on the board is an invitation, never a piece lifted.
        return 0

    def _undo(self, depth: int, origin: str) -> list[tuple[str, bool]]:
        """Take back `depth` moves (journal first); returns each (move, made at this board),
        last move first."""
        undone = []
        for _ in range(depth):
            self.journal.record_undo()
            move = self.state.undo()
            undone.append((str(move), self.at_board(self.state.to_move)))
            log.info("takeback (%s): %s", origin, move)
            self._tell("undo", move, origin)
        self.view.to_make = frozenset()
        return undone

    def lift_entry(self, site: str, now: float) -> None:
        """The piece entered last on a site no sensor sees, lifted again: a takeback, as
        lifting the last piece off a sensed site is. Raises games.IllegalMove otherwise."""
        state = self.state
        if not self.config.takeback:
            raise games.IllegalMove(f"lift {site}", Reason("takebacks are off (display.takeback)"))
        before = state.occupancy()
        if site not in self.sensed and site not in before:
            raise games.IllegalMove(f"lift {site}", Reason("nothing to lift at {site}", site=site))
        if not state.moves or site in self.sensed:
            raise games.IllegalMove(f"lift {site}", Reason("only the last piece entered can be "
                                                       "taken back"))
        last = state.undo()
        after = state.occupancy()
        if site not in before or changed_sites(before, after) != {site}:
            state.play(last)
            raise games.IllegalMove(f"lift {site}", Reason("only the last piece entered can be "
                                                       "taken back"))
        state.play(last)  # put back, to take it back the journalled way
        self.takeback(now)

    def press(self, name: str, now: float) -> None:
        """A named button: `end_turn` ends the turn (a pass with no placement), where the game
        has such a move."""
        if name != "end_turn" or self.state.is_over() or not self.at_board(self.state.to_move):
            return
        move = self.state.end_turn_move()
        if move is None:
            log.info("end-turn button ignored: the game has no end-turn move")
            return
        try:
            self.state.copy().play(move)
        except games.IllegalMove as exc:
            log.info("end-turn button ignored: %s", exc.reason)
            return
        self._accept(move, now)
        self._decide(now)

    # --- touch input (games with input_mode "touch") -----------------------------------------

    def gesture(self, site: str, held: bool, now: float) -> None:
        """A tap (or, `held`, a hold) of `site` made without the sensors (the sim's `tap` and
        `hold`): the same as the wand's, whatever the time between the typed lines. Raises
        games.IllegalMove in a game that takes no taps, or for a site not on the board."""
        if self.touch is None:
            raise games.IllegalMove(f"tap {site}", Reason("this game's moves are made with "
                                                          "pieces, not taps: place and lift "
                                                          "them"))
        if site not in self.state.sites():
            raise games.IllegalMove(f"tap {site}", Reason("{site} is no square of this board",
                                                          site=site))
        self._gestured(self.touch.gesture(site, held, now, self.state), now)

    def _touched(self, site: str, now: float) -> None:
        self._gestured(self.touch.sensor(site, self.physical[site] is not None, now,
                                         self.state), now)

    def _gestured(self, what: Any, now: float) -> None:
        if what == "new-game":
            self.new_game(now)
        elif what is not None:
            if self.at_board(self.state.to_move):  # not the computer's or a remote board's turn
                self._accept(what, now)
            self.touch.reset()

    # --- deciding ---------------------------------------------------------------------------

    def _accept(self, move: Any, now: float, origin: str = "board") -> None:
        # Played first, to know whether it ends the game: the finishing move and the result
        # go to the journal in one transaction. Durable before the LEDs confirm it; a journal
        # that refuses the move takes it back out of the game too.
        if origin == "board":
            self.view.to_make = frozenset()   # the board moved on: nothing is owed any more
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
        self._tell("move", move, origin)

    def _decide(self, now: float, swapped: list[str] = ()) -> None:
        self._reconcile(now, swapped)
        self._turn_clock(now)

    def _reconcile(self, now: float, swapped: list[str] = ()) -> None:
        if self.touch is not None:
            # Nothing on the board to reconcile, and no piece to wait for (a new game or a
            # takeback holds a piece game until the board matches): taps are decided as they come.
            self._hold = False
            return
        if swapped and not self.state.is_over():
            # A swap faster than the debounce (a seed out, a spore in): decide first on the
            # board as it was with those sites empty, and keep it only if that was a move
            # (an Arbos replacement); the board as it is then comes next, as usual.
            momentary = dict(self.physical)
            momentary.update(dict.fromkeys(swapped))
            verdict = reconcile(self.state, momentary, self.sensed, takeback=False)
            if verdict.action == "play" and self.at_board(self.state.to_move):
                log.info("a piece swapped faster than the debounce at %s", ", ".join(swapped))
                self._accept(verdict.move, now)
        if self.state.is_over():
            # The game is decided; the players clear the board. An empty board starts the next.
            self.view.corrections = self.view.completions = []
            if all(self.physical.get(s) is None for s in self.sensed):
                self.new_game(now)
            return
        if self._hold:
            diff = differences(self.state.occupancy(), self.physical, self.sensed)
            self.view.corrections = sorted(diff.values(), key=lambda c: c.site)
            self.view.completions = []
            self._hold = bool(diff)
            return
        for _ in range(8):  # a play or undo can leave a remainder (a tree peg still to plant)
            # A takeback by lifting is for a game played at this board, alone or against the
            # computer (lifting one's own last piece takes back the computer's reply with it); a
            # remote board's move is not the players' to lift (a remote takeback is asked).
            takeback = self.config.takeback and "remote" not in self.seats
            depth = self.takeback_depth() if takeback and self.state.moves else 1
            if depth == 0:
                takeback, depth = False, 1
            verdict = reconcile(self.state, self.physical, self.sensed, takeback=takeback,
                                depth=depth)
            if verdict.action == "play" and self.at_board(self.state.to_move) \
                    and not self._owed(verdict.move):
                self._accept(verdict.move, now)
                if self.state.is_over():
                    self.view.corrections = self.view.completions = []
                    return
            elif verdict.action == "undo":
                self._undo(depth, "board")
                if depth > 1:
                    # The computer's reply may still stand on the board: it is to be lifted,
                    # never read as the player's next move.
                    self._hold = True
                    diff = differences(self.state.occupancy(), self.physical, self.sensed)
                    self.view.corrections = sorted(diff.values(), key=lambda c: c.site)
                    self.view.completions = []
                    self._hold = bool(diff)
                    return
            elif verdict.action == "play":
                # The other seat's turn: a piece put for it is a mistake to correct. Or a move
                # read where the other seat's move still owes its piece (the computer's or the
                # remote board's Arbos seed not yet put would read as the player lifting it):
                # the piece is to be put first.
                self.view.corrections = sorted(
                    differences(self.state.occupancy(), self.physical, self.sensed).values(),
                    key=lambda c: c.site)
                self.view.completions = []
                return
            else:  # in sync, a move in progress, or a correction
                self.view.corrections = verdict.corrections
                self.view.completions = verdict.completions
                expected = self.state.occupancy()
                self.view.lifted = frozenset(
                    s for s in self.sensed if verdict.action == "in-progress"
                    and expected.get(s) is not None and self.physical.get(s) is None)
                if verdict.action == "in-sync":
                    self.view.to_make = frozenset()   # the other seat's move is made
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

    def turn_deadline(self) -> float | None:
        """When the running turn's time is up (a `tick` then passes for the player), or None."""
        if self.turn_limit is None or self._turn_of is None:
            return None
        return self._turn_since + self.turn_limit

    def _turn_clock(self, now: float) -> bool:
        """Start the clock when a turn begins; a turn whose time ran out is a pass. Called after
        every decision and by `tick`; returns whether it played."""
        if self.turn_limit is None or self.state.is_over() or not self.at_board(self.state.to_move):
            # (the other board keeps its own clock for a remote seat; the computer is quick)
            self._turn_of = None
            return False
        if self._turn_of != self.state.to_move:
            self._turn_of, self._turn_since = self.state.to_move, now
            return False
        if now >= self._turn_since + self.turn_limit:
            move = self._pass_move()
            if move is not None:
                log.info("turn time limit: %s plays %s", self.state.to_move, move)
                self._turn_of, self._turn_since = None, now
                self._accept(move, now)
                self._hold = self.touch is None  # what it took off (Arbos: `time`) is lifted first
                # (said with its reason: "move 5: pass (the turn's time ran out)")
                self.timed_out = {i for i in self.timed_out if i < len(self.state.moves)}
                self.timed_out.add(len(self.state.moves))
                self._decide(now)   # (which starts the next player's clock)
                return True
        return False

    def _pass_move(self) -> Any:
        """The game's move for a turn whose time ran out, if it is legal now; None otherwise."""
        state = self.state
        move = state.timeout_move()
        if move is None:
            return None
        try:
            state.play(move)
        except games.IllegalMove:
            return None
        state.undo()
        return move

    # --- light --------------------------------------------------------------------------------

    def frame(self, now: float, link: str | None = None, trouble: str | None = None):
        """The LED frame at `now` and when it next changes by itself (views.frame composes
        it; `link` is the remote link's state in words, None without one; `trouble` the
        supervisor's, when a part of the daemon is not up)."""
        self.view.turn_left = self.turn_left(now)
        return compose(self, now, link, trouble)

    def show(self, now: float, link: str | None = None, trouble: str | None = None) -> float | None:
        """Hand the frame to the strip (written only if it changed). Returns when the frame
        next changes by itself (a blink, an animation), or None. Draws only: time that runs
        out is `tick`'s."""
        frame, wake = self.frame(now, link, trouble)
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
