"""The referee: the one owner of the game in progress and of what the board should show.

Sensor events in, LED frames out:  debounce -> channel-to-site -> reconcile -> journal -> render.

Synchronous and clock-free (every call takes `now`), so the asyncio daemon, `treeboard trace`
and the tests drive exactly the same object; only who calls `tick` differs.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Hashable, Mapping

import games
from board_driver import views
from board_driver.referee.clock import (NONE, ClockError, Clocks, TimeControl, control_text,
                                        parse_time_control, per_move)
from board_driver.referee.menu import Menu, current_choices, seats_of
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

#: While a clock runs, the journal keeps what it shows this often (and at every move and stop):
#: after a power cut the clock resumes at most this much above what it showed at the cut.
CHECKPOINT_S = 5.0


def default_controls(config: Any, game: Any) -> tuple[TimeControl, TimeControl]:
    """The time control a board starts with: the config's `time_control`, else its
    `turn_seconds` (a limit per turn; 0: none), else the game's own turn limit (Arbos: 300 s
    a turn), else none."""
    controls = getattr(config, "time_control", None)
    if controls is not None:
        return tuple(controls)  # type: ignore[return-value]
    seconds = config.turn_seconds if config.turn_seconds is not None else game.turn_seconds
    control = per_move(seconds) if seconds else NONE
    return (control, control)


def takeback_words(game_name: str, undone: list[tuple[str, bool]]) -> str:
    """What a takeback took back, in words: "h1.0", or against the computer "h1.0 and the
    computer's reply v1.2" (`undone` as `Referee._undo` returns it, last move first; each move
    as a screen shows it, `views.show_move`)."""
    mine = [views.show_move(game_name, m) for m, here in undone if here]
    reply = [views.show_move(game_name, m) for m, here in undone if not here]
    if not reply or not mine:
        return tr(" and ").join(reversed(mine or reply))
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
        # The players' clocks (board_driver/referee/clock.py): `controls` for the next game,
        # `clocks` of the game in progress; `flagged` the seat whose time ran out (the game is
        # then over, lost by that seat).
        self.controls = default_controls(config, state.game)
        self.clocks = Clocks(self.controls)
        self.flagged: int | None = None
        self._checkpoint_at: float | None = None
        self._undone = False   # the last change was a takeback (no increment for it)
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
        # The menu (board_driver/referee/menu.py): a mode in which the board is set up.
        self.menu = Menu(self.sensed, views.hint_modes(state.game.name))

    # --- the game in progress ------------------------------------------------------------

    @property
    def corrections(self) -> list[Correction]:
        return self.view.corrections

    @property
    def holding(self) -> bool:
        """Whether the game waits for the board to be put right before anything is played
        (after a takeback without hands, or a new game, while old pieces still stand)."""
        return self._hold

    @property
    def over(self) -> bool:
        """Whether the game is over: decided by its rules, or by a clock that ran out."""
        return self.flagged is not None or self.state.is_over()

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
        self.clocks = Clocks(self.controls)
        self.flagged = None
        self._checkpoint_at = None
        self.menu = Menu(self.sensed, views.hint_modes(state.game.name))
        # A new game starts from an empty board: pieces of the old one still standing are to be
        # lifted, never read as the new game's first moves. (A touch board holds no pieces:
        # nothing to wait for, or the computer would never move again.)
        self._hold = self.touch is None
        self.journal.start_game(self.state.game.name, self.state.options())
        if self.clocks.timed:
            self.journal.save_clocks(self.clocks.to_json(now))
        self.view.over_since = None
        log.info("new game of %s %s", self.state.game.name, self.state.options())
        self._tell("new-game", None, origin)
        self._decide(now)

    def set_moves(self, mode: str) -> None:
        """What the board lights of the moves (display.moves: off, legal, safe, best)."""
        self.view.moves = mode

    def set_hints(self, hints: dict[str, str], reason: str | None = None,
                  move: str | None = None) -> None:
        """The computer's hints for the position (site -> "best", "keeps" or "loses"), shown
        while display.moves is "best", why the best move (a sentence, or None) and its
        notation; `{}` clears them."""
        self.view.hints = hints
        self.view.hint_reason = reason if hints else None
        self.view.hint_move = move if hints else None

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
        if self.over:
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
        menu_due = (deadline := self.menu.deadline()) is not None and now >= deadline
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
        if menu_due and self.menu.timed_out(now):
            log.info("menu: left by its timeout, nothing changed")
            self._menu_leave(now)
            return True
        if self.touch is not None:
            self._lifted.clear()  # (swaps faster than the debounce are a piece game's matter)
            return self._clock(now) or bool(settled)
        if (settled or self._lifted or menu_due) and not self.debouncer.pending():
            self._decide(now, self._swapped())
            return True
        return self._clock(now)

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
        if self.flagged is not None:
            raise games.IllegalMove(f"{kind} at {site}", Reason("the game is over: time ran out"))
        self._accept(found, now)
        self._decide(now)

    def takeback(self, now: float, origin: str = "page") -> str:
        """Take back the last move without the board's hands (the page's takeback, or one
        agreed with a remote board; lifting the last piece does the same on the board). The
        pieces it put down then light as corrections, and nothing is played until they are
        lifted. Returns the move taken back; raises games.IllegalMove when there is none."""
        if self.over:
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
        return takeback_words(self.state.game.name, undone)

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
        self._undone = True   # (no increment for a move taken back)
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
        has such a move; `menu` opens the menu (between games) or leaves it."""
        if name == "menu":   # a layout's menu button: opens the menu between games, or leaves it
            if self.menu.open:
                self._menu_leave(now)
            elif self.menu.available and "remote" not in self.seats \
                    and (not self.state.moves or self.over):
                self._menu_enter(now, by_button=True)
            return
        if name != "end_turn" or self.over or not self.at_board(self.state.to_move):
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
        if self.menu.open:   # a tap in the menu chooses
            if self.menu.choose(site, now) == "apply":
                self._menu_apply(now)
            return
        self._gestured(self.touch.gesture(site, held, now, self.state, over=self.over), now)

    def _touched(self, site: str, now: float) -> None:
        on = self.physical[site] is not None
        menu = self.menu
        if menu.available and menu.corners is not None and site in menu.corners and on \
                and all(self.physical.get(c) is not None for c in menu.corners):
            # Both corners touched at once (a wand touches one square at a time): the menu
            # opens, or, open, leaves without change.
            self.touch.forget_touches()
            if menu.open:
                self._menu_leave(now)
            elif "remote" not in self.seats and (not self.state.moves or self.over):
                self._menu_enter(now)   # (between games: mid-game it would abandon one)
            return
        if menu.open:
            if not on and menu.choose(site, now) == "apply":
                self._menu_apply(now)
            return
        self._gestured(self.touch.sensor(site, on, now, self.state, over=self.over), now)

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
        clocks = None
        if self.clocks.timed:
            # The clocks as they stand when the move is made (its mover's time charged, its
            # increment not yet given): a restart after it resumes from here.
            self.clocks.stop(now)
            clocks = self.clocks.to_json(now)
        try:
            self.journal.record_move(str(move), finish=summary, clocks=clocks)
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
        self._clock(now)

    def _reconcile(self, now: float, swapped: list[str] = ()) -> None:
        if self.touch is not None:
            # Nothing on the board to reconcile, and no piece to wait for (a new game or a
            # takeback holds a piece game until the board matches): taps are decided as they come.
            self._hold = False
            return
        if self._menu_pieces(now):
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
        if self.over:
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

    # --- the clocks (board_driver/referee/clock.py; docs/board.md, "Clocks") ------------------

    def can_play(self, seat: int) -> bool:
        """Whether `seat` can play now, so that its clock runs: not while the board must be
        put right after the other side's move (the computer's or the other board's pieces not
        yet put down) or before the game (a new game's or a takeback's pieces still to lift);
        the computer, only while the board agrees with the game (it thinks only then)."""
        if self.over or self._hold or self.view.to_make or self.menu.open:
            return False
        if self.seats[seat].startswith("computer"):
            return not self.view.corrections and not self.view.completions
        return True

    def set_controls(self, controls: tuple[TimeControl, TimeControl], now: float) -> None:
        """The time control of the next games; of this one too when no move is made yet."""
        self.controls = (controls[0], controls[1])
        if not self.state.moves and not self.over:
            self.clocks = Clocks(self.controls)
            self._checkpoint_at = None
            self.journal.save_clocks(self.clocks.to_json(now))
            self._clock(now)

    def restore_clocks(self, saved: dict | None, now: float) -> None:
        """The clocks as the journal kept them (a restart): each resumes at what it showed
        when last kept, and the time the board was off is charged to nobody. A saved form this
        board cannot read is logged, and the clocks start afresh."""
        if saved is None:
            return
        try:
            self.clocks = Clocks.from_json(saved, f"journal {self.journal.path}")
        except ClockError as exc:
            log.error("%s; the clocks start afresh", exc)
            return
        self._checkpoint_at = None
        log.info("clocks resumed: %s", self.clocks.left_ms(now))
        self._clock(now)

    def restore_finished(self, saved: Any, now: float) -> None:
        """A game that ended before a restart: its clocks as they stopped, and a game lost on
        time stays lost (its board is shown until the players clear it)."""
        if saved.clocks is not None:
            try:
                self.clocks = Clocks.from_json(saved.clocks, f"journal {self.journal.path}")
            except ClockError as exc:
                log.error("%s", exc)
        flag = (saved.summary or {}).get("flag")
        if flag in (0, 1):
            self.flagged = flag
            self._reconcile(now)

    def told_clock(self, seat: int, seconds: float, now: float) -> None:
        """What another board says its seat's clock showed as it moved (remote play)."""
        self.clocks.set_left(seat, seconds, now)

    # --- the menu (board_driver/referee/menu.py; docs/board.md, "The menu") -------------------

    def menu_deadline(self) -> float | None:
        """When the menu leaves by itself, or opens (both corner pieces held): None if neither."""
        return self.menu.deadline()

    def _menu_pieces(self, now: float) -> bool:
        """A piece board: the menu's gesture and, once open, its choices. Returns whether the
        menu took the board's reading (nothing is played then)."""
        menu = self.menu
        if menu.open:
            occupied = {site for site in self.sensed if self.physical.get(site) is not None}
            what = menu.pieces(occupied, now)
            if what == "apply":
                self._menu_apply(now)
            elif what == "leave":
                log.info("menu: left (the corner pieces lifted), nothing changed")
                self._menu_leave(now)
            return True
        moves = self.state.moves
        if (not menu.available or self.over or self._hold or "remote" in self.seats
                or menu.corners is None or len(moves) > 2):
            if menu.corner_at or menu.pair_at is not None:
                menu.corner_at, menu.pair_at = {}, None
            return False   # (in play: no cost beyond this test)
        occupied = {site for site in self.sensed if self.physical.get(site) is not None}
        expected = {s for s, v in self.state.occupancy().items() if v is not None}
        if not expected <= set(menu.corners) or not menu.gesture(occupied, now):
            return False   # (play goes on as usual meanwhile)
        if moves:
            # The corner pieces were legal moves, played at once: the gesture takes them back.
            self._undo(len(moves), "menu")
        self._menu_enter(now)
        return True

    def _menu_enter(self, now: float, by_button: bool = False) -> None:
        text = control_text(self.controls)
        occupied = {s for s in self.sensed if self.physical.get(s) is not None}
        self.menu.enter(now, current_choices(self.seats, text, self.view.moves), occupied,
                        by_button)
        self.view.corrections = self.view.completions = []
        log.info("menu opened")
        self._tell("menu-open", None, "board")
        self._clock(now)

    def _menu_leave(self, now: float) -> None:
        self.menu.close()
        self._hold = self.touch is None   # the menu's pieces come off before play goes on
        self._tell("menu-closed", None, "board")
        self._decide(now)

    def _menu_apply(self, now: float) -> None:
        """The menu's choices: who plays, the computer's level, the clock, the hints; then a
        new game (the menu's pieces are lifted first, as a new game's are)."""
        chosen = self.menu.chosen
        self.menu.close()
        self.seats = seats_of(chosen.get("seats", "people"), chosen.get("level", "medium"))
        if chosen.get("clock") is not None:
            self.controls = parse_time_control(chosen["clock"])
        if chosen.get("hints") is not None:
            self.view.moves = chosen["hints"]
        log.info("menu applied: seats %s, clock %s, hints %s", self.seats,
                 control_text(self.controls), self.view.moves)
        self._tell("menu-applied", dict(chosen), "board")
        self.new_game(now, origin="menu")

    def flag_deadline(self) -> float | None:
        """When the running clock runs out (a `tick` then passes or flags), or None."""
        return self.clocks.deadline()

    def clock_deadline(self) -> float | None:
        """When `tick` is next due for the clocks and the menu: the running clock runs out,
        what it shows is next kept in the journal, the menu's timeout or its corners' hold."""
        found = [d for d in (self.flag_deadline(), self._checkpoint_at, self.menu_deadline())
                 if d is not None]
        return min(found) if found else None

    def _clock(self, now: float) -> bool:
        """Keep the clocks with the game: a new turn, running only while its player can play,
        kept in the journal; a clock that ran out passes or loses. Called after every decision
        and by `tick`; returns whether it changed the game."""
        clocks = self.clocks
        if not clocks.timed:
            return False
        was_running = clocks.running is not None
        if self.over:
            clocks.stop(now)
            self._keep(now, was_running)
            return False
        seat = self.state.to_move
        if clocks.turn_of != seat:
            clocks.new_turn(seat, now, after_move=not self._undone)
        self._undone = False
        control = clocks.controls[seat]
        # A game with its own turn rule (Arbos) times no phase with no move for a turn out of
        # time (its setup): a per-turn clock does not run there.
        untimed_now = (control.per_move_s is not None and self.state.game.turn_seconds is not None
                       and self.state.timeout_move() is None)
        clocks.run(seat if self.can_play(seat) and not untimed_now else None, now)
        left = clocks.left(seat, now)
        if left is None or left > 0:
            self._keep(now, was_running)
            return False
        if self.seats[seat] == "remote":
            # A remote seat's clock is its own board's: that board says when it ran out.
            clocks.stop(now)
            self._keep(now, was_running)
            return False
        if clocks.controls[seat].per_move_s is not None:
            move = self._pass_move()
            if move is not None:
                log.info("turn time limit: %s plays %s", seat, move)
                self._accept(move, now, "board" if self.at_board(seat) else "computer")
                self._hold = self.touch is None  # what it took off (Arbos: `time`) is lifted first
                # (said with its reason: "move 5: pass (the turn's time ran out)")
                self.timed_out = {i for i in self.timed_out if i < len(self.state.moves)}
                self.timed_out.add(len(self.state.moves))
                self._decide(now)   # (which starts the next player's clock)
                return True
            if self.state.timeout_move() is not None:
                # The game's move for a turn out of time is not legal now: its clock stays at 0
                # until it is, or the action under way ends the turn.
                clocks.stop(now)
                self._keep(now, was_running)
                return False
        self.flag(seat, now)
        return True

    def _keep(self, now: float, was_running: bool) -> None:
        """The clocks into the journal: every CHECKPOINT_S while one runs, and when it stops."""
        running = self.clocks.running is not None
        if self.over:   # (the finishing move or the flag kept them, with the result)
            self._checkpoint_at = None
            return
        if running and self._checkpoint_at is None:
            self._checkpoint_at = now + CHECKPOINT_S
            return
        if (running and now >= self._checkpoint_at) or (was_running and not running):
            self.journal.save_clocks(self.clocks.to_json(now))
            self._checkpoint_at = now + CHECKPOINT_S if running else None

    def flag(self, seat: int, now: float, origin: str = "board") -> None:
        """`seat`'s time ran out: the game is over, lost by `seat` (its board decides that for
        a remote seat and says so: `origin` "remote")."""
        if self.over:
            return
        self.clocks.stop(now)
        self.clocks.set_left(seat, 0.0, now)
        self.flagged = seat
        summary = dict(self.state.summary(), over=True, winner=1 - seat, flag=seat)
        self.journal.save_clocks(self.clocks.to_json(now))
        self._checkpoint_at = None
        self.journal.finish(summary)
        self.view.over_since = now
        self.view.corrections = self.view.completions = []
        log.info("time ran out for %s: the game is lost on time", seat)
        self._tell("flag", seat, origin)

    def clocks_left(self, now: float) -> list[float | None]:
        """Both clocks' seconds left at `now` (None: an untimed seat)."""
        return [self.clocks.left(seat, now) for seat in (0, 1)]

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
        clocks = self.clocks
        self.view.clocks = self.clocks_left(now) if clocks.timed else None
        self.view.clock_running = clocks.running
        self.view.flagged = self.flagged
        self.view.turn_left = (clocks.left(clocks.running, now)
                               if clocks.running is not None else None)
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
