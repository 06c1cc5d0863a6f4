"""The referee: the one owner of the game in progress and of what the board should show.

Sensor events in, one frozen value out:  debounce -> channel-to-site -> reconcile -> journal ->
`moment(now)`, which the views draw (board_driver/moment.py, DESIGN.md "The seam").

Synchronous and clock-free (every call takes `now`), so the asyncio daemon, `treeboard trace`
and the tests drive exactly the same object; only who calls `tick` differs.

Deciding is one loop (`decide`): reconcile the board with the game; what that sets going (a
new game once the board is cleared, the menu applied or left) is carried out and the board
reconciled again; then the clocks, whose running out may pass a turn, which is decided again
in the same loop. No decision calls back into `decide`.

Its parts, each working through its public methods: the reading of the sensors (reading.py),
the moves made with pieces (pieces.py) and otherwise (hands.py), the clocks (timekeeper.py),
its decisions and the moments frozen from them (decisions.py), what a session changed
(kept.py), the games its players end or put away (endings.py), a player away (absence.py).
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Hashable, Mapping

import games
from board_driver import views
from board_driver.moment import Correction, Moment, Settings
from board_driver.referee import kept, setup
from board_driver.referee.absence import Absence
from board_driver.referee.clock import TimeControl
from board_driver.referee.decisions import Decisions, Moments
from board_driver.referee.endings import Endings, put_in_place
from board_driver.referee.hands import Hands
from board_driver.referee.kept import check_seats
from board_driver.referee.menu import Menu
from board_driver.referee.pieces import Pieces
from board_driver.referee.reading import BoardReading
from board_driver.referee.timekeeper import (CHECKPOINT_S, Clockwork, Timekeeper,
                                             default_controls)
from board_driver.referee.touch import TouchInput, is_touch_game
from board_driver.views.frame import compose
from hardware.base import SensorEvent

log = logging.getLogger("treeboard.referee")

__all__ = ["Referee", "CHECKPOINT_S", "site_colours"]


class Referee:
    def __init__(self, state: games.State, layout: Any, leds: Any, journal: Any, config: Any,
                 *, debounce_s: float | None = None):
        self.state = state
        self.layout = layout
        self.leds = leds
        self.journal = journal
        self.config = config      # read only: what a session changes is the referee's own
        # What the sensors say the board holds, settled (reading.py).
        self.reading = BoardReading(layout, layout.debounce_s if debounce_s is None
                                    else debounce_s)
        self.reading.watch(state.sites())
        # The players' clocks (timekeeper.py); `flagged` the seat whose time ran out (the game
        # is then over, lost by that seat).
        self.keeper = Timekeeper(default_controls(config, state.game), journal)
        self.clockwork = Clockwork(self)
        self.hands = Hands(self)   # entries, buttons, taps and the menu's answers
        self.pieces = Pieces(self)   # the pieces on the board against the game
        self.flagged: int | None = None
        # How the board draws: the config's colours, the hint mode in force (the page, sim, menu
        # change it: `set_hint_mode`; views.hint_mode: the config's as this game shows it).
        moves = views.hint_mode(state.game.name, config.moves)
        self.settings = Settings(colours=config.colours, moves=moves, blink_hz=config.blink_hz,
                                 winner_seconds=config.winner_seconds, takeback=config.takeback)
        # Who plays each seat: "human" at this board, "computer:LEVEL", or "remote" (another
        # board). Only a human seat's moves come in through the sensors. The referee's alone:
        # the config's `players` is where a board starts; `set_seats` changes them.
        self._seats: tuple[str, str] = check_seats(config.players or ("human", "human"))
        # Told of every change to the game, on the loop: ("move", move, origin) with origin
        # "board" or the seat's kind, ("undo", move, origin), ("new-game", None, origin).
        self.listeners: list[Callable[[str, Any, str], None]] = []
        # After a takeback the board did not make itself (agreed with a remote board, asked on
        # the page), its pieces still stand: nothing is played until they match the game again,
        # or the piece just taken back would be played straight back.
        self._hold = False
        # The moves (their numbers, 1 up) that were passes because the turn's time ran out.
        self.timed_out: set[int] = set()
        # Touch input (touch.py): a game whose position lives on the LEDs takes its moves from
        # taps, not from pieces; None for every piece game.
        self.touch = TouchInput() if is_touch_game(state) else None
        # The menu (menu.py): a mode in which the board is set up.
        self.menu = Menu(self.sensed, views.hint_modes(state.game.name))
        # What the referee decided the board shows besides the game (decisions.py), and the
        # frozen moments made of it and the game for the views.
        self.decided = Decisions()
        self.moments = Moments(self)
        self.game_number = 0   # which game of this board's life (the views tell a new one by it)
        self.endings = Endings(self)   # resigned, drawn, put away, taken up (endings.py)
        self.absence = Absence(self)   # a player away, the present one's choice (absence.py)
        self.setting_up: setup.SetUp | None = None   # a position being set up (setup.py)
        self.mode: Any = None   # a study or a puzzle (study.py, puzzle.py): one at a time

    # --- reading -----------------------------------------------------------------------------

    @property
    def seats(self) -> tuple[str, str]:
        return self._seats

    @property
    def sensed(self) -> list[str]:
        """The game's sites a sensor watches."""
        return self.reading.sensed

    @property
    def physical(self) -> dict[str, str | None]:
        """The settled reading of every sensed site (read only: the reading's)."""
        return self.reading.physical

    @property
    def debouncer(self):
        return self.reading.debouncer

    @property
    def corrections(self) -> list[Correction]:
        return list(self.decided.corrections)

    @property
    def completions(self) -> list[Correction]:
        return list(self.decided.completions)

    @property
    def to_make(self) -> frozenset:
        """The sites of the other seat's move still to be made on the board."""
        return self.decided.to_make

    @property
    def hints(self) -> dict[str, str]:
        return dict(self.decided.hints)

    @property
    def clocks(self):
        return self.keeper.clocks

    @property
    def controls(self) -> tuple[TimeControl, TimeControl]:
        return self.keeper.controls

    @property
    def holding(self) -> bool:
        """Whether the game waits for the board to be put right before anything is played
        (after a takeback without hands, or a new game, while old pieces still stand)."""
        return self._hold

    @property
    def over(self) -> bool:
        """Whether the game is over: by its rules, a clock that ran out, or its players."""
        return self.flagged is not None or self.endings.ended is not None or self.state.is_over()

    def at_board(self, player: int) -> bool:
        """Whether `player` plays here, through the sensors (not the computer, not a remote)."""
        return self._seats[player] == "human"

    def moment(self, now: float) -> Moment:
        """What the board is at `now`, frozen, for the views to draw (DESIGN.md, "The seam")."""
        return self.moments.at(now)

    # --- the game in progress ------------------------------------------------------------

    def new_game(self, now: float, options: dict[str, Any] | None = None,
                 origin: str = "board") -> None:
        """Start over (with other options of the same game, if given). Raises games.GameError
        for options the game refuses or whose sites this board has no sensor for."""
        self.begin(now, options, origin)
        self.decide(now)

    def begin(self, now: float, options: dict[str, Any] | None = None,
               origin: str = "board") -> None:
        """A new game in place of this one, not yet reconciled with the board."""
        game = self.state.game
        state = game.new_state(**({k: v for k, v in self.state.options().items()
                                   if k not in game.drawn_options} if options is None else options))
        unsensed = [s for s in state.sites() if s not in self.layout.channels_of_site]
        if options is not None and unsensed:
            raise games.BadOptions(f"layout {self.layout.name} has no sensor for {unsensed[0]}: "
                                   "that game does not fit this board")
        self.journal.start_game(state.game.name, state.options(), self._seats)
        self.adopt(state, now, origin)

    def adopt(self, state: games.State, now: float, origin: str) -> None:
        """`state` becomes the game on the board (a new game; a position set up: setup.py)."""
        put_in_place(self, state)   # (a new game ends a study or a puzzle)
        # A new game starts from an empty board: pieces of the old one still standing are to be
        # lifted, never read as the new game's first moves. (A touch board holds no pieces:
        # nothing to wait for, or the computer would never move again.)
        self._hold = self.touch is None
        self.keeper.start(now)
        self.decided.over_since, self.decided.end_owed = None, None
        log.info("new game of %s %s", self.state.game.name, self.state.options())
        self.tell("new-game", None, origin)

    def set_up(self, state: games.State, now: float, **how: Any) -> None:
        """A position comes to the board: the hands are led until the pieces match `state`,
        then play continues from it (setup.set_up says how)."""
        setup.set_up(self, state, now, **how)

    def set_hint_mode(self, mode: str, keep: bool = True) -> None:
        """What the board lights of the moves (display.moves: off, legal, safe, best)."""
        self.settings = self.settings.with_moves(mode)
        kept.keep(self, keep)   # (survives a restart: kept.py)

    def set_hints(self, hints: dict[str, str], reason: str | None = None,
                  move: str | None = None) -> None:
        """The computer's hints (site -> "best", "keeps" or "loses") for display.moves "best",
        why the best move (a sentence, or None) and its notation; `{}` clears them."""
        self.decided.hints = dict(hints)
        self.decided.hint_reason = reason if hints else None
        self.decided.hint_move = move if hints else None

    def set_seats(self, seats: Any, keep: bool = True) -> None:
        """Who plays each seat (the door, the menu, joining or leaving a remote game). Raises
        ValueError for seats not two of human, web, remote, computer:LEVEL fit for the game."""
        self._seats = check_seats(seats, self.state.game)
        kept.keep_seats(self, keep)   # (with the game's record, and across a restart: kept.py)

    def restore_kept(self, seats: tuple[str, str], moves: str, controls: Any) -> None:
        """Seats, hint mode and clock as a session last kept them (kept.restore)."""
        self._seats, self.settings = seats, self.settings.with_moves(moves)
        self.keeper.adopt(controls, this_game=not self.state.moves)

    # --- seats not at this board ---------------------------------------------------------------

    def play_for_seat(self, move: Any, now: float, origin: str) -> None:
        """A move of a seat not at this board (the computer, a remote board): Hands.for_seat."""
        self.hands.for_seat(move, now, origin)

    def tell(self, what: str, move: Any, origin: str) -> None:
        for listener in list(self.listeners):
            try:
                listener(what, move, origin)
            except Exception:  # a listener's failure must never cost the game a move
                log.exception("listener %r failed on %s", listener, what)

    # --- sensors ------------------------------------------------------------------------------

    def resync(self, snapshot: Mapping[Hashable, str | None], now: float) -> None:
        """Take a full snapshot as the settled board (at start, after a reconnect)."""
        self.reading.resync(snapshot)
        if self.touch is not None:
            self.touch.forget_touches()
        self.decide(now)

    def feed(self, event: SensorEvent) -> None:
        """A raw sensor change (on the loop thread). Acted on once it settles, in `tick`."""
        self.reading.feed(event)

    def next_deadline(self) -> float | None:
        return self.reading.next_deadline()

    def tick(self, now: float) -> bool:
        """Take in the changes that have settled. Decide only when the whole board is quiet:
        two pieces put down at once are one change to correct, not two moves."""
        reading = self.reading
        menu_due = (deadline := self.menu.deadline()) is not None and now >= deadline
        settled = 0
        for site in reading.settle(now):
            settled += 1
            if site is not None and self.touch is not None:
                self.hands.touched(site, now)
        if menu_due and self.menu.timed_out(now):
            log.info("menu: left by its timeout, nothing changed")
            self.hands.carry_out(self.hands.answer("leave", now), now)
            return True
        if self.touch is not None:
            reading.forget_lifts()  # (swaps faster than the debounce are a piece game's matter)
            return self._timed(now) or bool(settled)
        if (settled or reading.lifting or menu_due) and reading.quiet:
            self.decide(now, reading.swapped())
            return True
        return self._timed(now)

    # --- takebacks ------------------------------------------------------------------------------

    def takeback(self, now: float, origin: str = "page") -> str:
        """Take back the last move without the board's hands (Hands.takeback); returns it."""
        return self.hands.takeback(now, origin)

    def takeback_depth(self) -> int:
        """How many moves a takeback takes back now (Hands.takeback_depth)."""
        return self.hands.takeback_depth()

    def undo_moves(self, depth: int, origin: str) -> list[tuple[str, bool]]:
        """Take back `depth` moves (journal first); returns each (move, made at this board),
        last move first."""
        undone = []
        for _ in range(depth):
            self.journal.record_undo()
            move = self.state.undo()
            undone.append((str(move), self.at_board(self.state.to_move)))
            log.info("takeback (%s): %s", origin, move)
            self.tell("undo", move, origin)
        self.decided.to_make = frozenset()
        self.keeper.undone = True   # (no increment for a move taken back)
        return undone

    # --- entries, buttons, taps and the menu (hands.py) ----------------------------------------

    def enter(self, site: str, kind: str, now: float) -> None:
        """A piece placed where no sensor sees it (Treeblox above the board): the one legal move
        that puts `kind` on `site`. Raises games.IllegalMove if there is none."""
        self.hands.enter(site, kind, now)

    def lift_entry(self, site: str, now: float) -> None:
        """The piece entered last on a site no sensor sees, lifted again: a takeback."""
        self.hands.lift_entry(site, now)

    def press(self, name: str, now: float) -> None:
        """A named button: `end_turn` (a pass with no placement), `menu` (opens or leaves it)."""
        self.hands.press(name, now)

    def gesture(self, site: str, held: bool, now: float) -> None:
        """A tap (or, `held`, a hold) of a touch game's `site` made without the sensors."""
        self.hands.gesture(site, held, now)

    def hold_for_pieces(self) -> None:
        """Nothing is played until the board matches the game (a touch board has no pieces)."""
        self._hold = self.touch is None

    def clear_marks(self) -> None:
        """Nothing to correct or complete is shown (the menu holds the board, the game ended)."""
        self.decided.clear_marks()

    # --- deciding ---------------------------------------------------------------------------

    def accept(self, move: Any, now: float, origin: str = "board", seen: bool = False) -> None:
        # Played first, to know whether it ends the game (move and result: one transaction).
        # Durable before the LEDs confirm it, but a move `seen` (its pieces record it: after a
        # power cut the start adopts it; committer.py). A refused move leaves the game too.
        if origin == "board":
            self.decided.to_make = frozenset()   # the board moved on: nothing is owed any more
        self.state.play(move)
        summary = self.state.summary() if self.state.is_over() else None
        clocks = self.keeper.at_move(now)
        try:
            self.journal.record_move(str(move), summary, clocks, durable=not seen)
        except BaseException:
            self.state.undo()
            raise
        log.info("move %d: %s", len(self.state.moves), move)
        if summary is not None:
            self.decided.over_since = now
            log.info("game over: %s", summary)
        self.tell("move", move, origin)

    def decide(self, now: float, swapped: list[str] = ()) -> None:
        """Reconcile, carry out what that sets going and reconcile again; then the clocks,
        whose running out may pass a turn, decided again here. One loop, never a call back."""
        for _ in range(16):
            follow = self._reconcile(now, swapped)
            swapped = ()
            if follow is not None:
                follow(now)
                continue
            if self.clockwork.check(now) != "passed":
                return
        log.error("the board was decided 16 times over at %.3f; left as it is", now)

    def _timed(self, now: float) -> bool:
        """The clocks, from `tick`: a turn passed for its time is decided at once (a flag
        leaves the board as it is until the players clear it). Returns whether the game
        changed."""
        changed = self.clockwork.check(now)
        if changed == "passed":
            self.decide(now)
        return changed is not None

    def _reconcile(self, now: float, swapped: list[str] = ()) -> Callable[[float], None] | None:
        """The board against the game: play, take back or light what must change. Returns what
        this sets going (a new game, the menu applied or left), for `decide` to carry out."""
        if self.setting_up is not None and setup.guide(self):
            return None   # a position still being set up: nothing is played
        if self.touch is not None:
            # Nothing on the board to reconcile, and no piece to wait for (a new game or a
            # takeback holds a piece game until the board matches): taps are decided as they come.
            self._hold = False
            return None
        taken, follow = self.hands.menu_reading(now)
        if taken:
            return follow
        if swapped and not self.state.is_over():
            self.pieces.swapped(swapped, now)
        if self.over:
            # Decided (its last pieces to put light: Pieces.at_end); an empty board: the next.
            self.pieces.at_end(now)
            if all(self.physical.get(s) is None for s in self.sensed):
                return self.begin
            return None
        if self._hold:
            self._hold = self.pieces.put_right()
            return None
        if self.pieces.settle(now):
            self._hold = self.pieces.put_right()
        return None

    # --- the clocks (timekeeper.py; docs/board.md, "Clocks") ----------------------------------

    def can_play(self, seat: int) -> bool:
        """Whether `seat` can play now, so that its clock runs (Clockwork.can_play)."""
        return self.clockwork.can_play(seat)

    def set_controls(self, controls: tuple[TimeControl, TimeControl], now: float) -> None:
        """The time control of the next games; of this one too when no move is made yet."""
        this_game = not self.state.moves and not self.over
        self.keeper.set_controls(controls, now, this_game)
        kept.keep(self)   # (survives a restart: kept.py)
        if this_game:
            self._timed(now)

    def restore_clocks(self, saved: dict | None, now: float) -> None:
        """The clocks as the journal kept them (a restart): each resumes at what it showed
        when last kept, and the time the board was off is charged to nobody."""
        if saved is not None and self.keeper.restore(saved, now):
            self._timed(now)

    def restore_finished(self, saved: Any, now: float) -> None:
        """A game that ended before a restart: its clocks as they stopped, and a game lost on
        time stays lost (its board is shown until the players clear it)."""
        if saved.clocks is not None:
            self.keeper.restore_stopped(saved.clocks)
        flag = (saved.summary or {}).get("flag")
        if flag in (0, 1):
            self.flagged = flag
            self.decide(now)

    def told_clock(self, seat: int, seconds: float, now: float) -> None:
        """What another board says its seat's clock showed as it moved (remote play)."""
        self.keeper.clocks.set_left(seat, seconds, now)

    def flag_deadline(self) -> float | None:
        """When the running clock runs out (a `tick` then passes or flags), or None."""
        return self.keeper.clocks.deadline()

    def clock_deadline(self) -> float | None:
        """When `tick` is next due for the clocks and the menu: the running clock runs out,
        what it shows is next kept in the journal, the menu's timeout or its corners' hold."""
        found = [d for d in (self.keeper.deadline(), self.menu.deadline(),
                             self.absence.deadline()) if d is not None]
        return min(found) if found else None

    def pass_on_time(self, move: Any, seat: int, now: float) -> None:
        """`seat`'s turn ran out of time: the game's move for it (Arbos: `time`), played."""
        self.accept(move, now, "board" if self.at_board(seat) else  # (a web seat's: "web")
                    "web" if self.seats[seat] == "web" else "computer")
        self._hold = self.touch is None  # what it took off (Arbos: `time`) is lifted first
        # (said with its reason: "move 5: pass (the turn's time ran out)")
        self.timed_out = {i for i in self.timed_out if i < len(self.state.moves)}
        self.timed_out.add(len(self.state.moves))

    def flag(self, seat: int, now: float, origin: str = "board") -> None:
        """`seat`'s time ran out: the game is over, lost by `seat` (its board decides that for
        a remote seat and says so: `origin` "remote")."""
        if self.over:
            return
        self.keeper.flag(seat, now)
        self.flagged = seat
        summary = dict(self.state.summary(), over=True, winner=1 - seat, flag=seat)
        self.journal.finish(summary)
        self.decided.over_since = now
        self.clear_marks()
        log.info("time ran out for %s: the game is lost on time", seat)
        self.tell("flag", seat, origin)

    def clocks_left(self, now: float) -> list[float | None]:
        """Both clocks' seconds left at `now` (None: an untimed seat)."""
        return self.keeper.left(now)

    # --- light --------------------------------------------------------------------------------

    def frame(self, now: float, link: str | None = None, trouble: str | None = None,
              moment: Moment | None = None):
        """The LED frame at `now` and when it next changes by itself (views.frame composes
        it from the moment, `moment(now)` unless given; `link` is the remote link's state in
        words, None without one; `trouble` the supervisor's, when a part of the daemon is not
        up)."""
        return compose(moment or self.moment(now), self.layout, now, link, trouble)

    def show(self, now: float, link: str | None = None, trouble: str | None = None,
             moment: Moment | None = None) -> float | None:
        """Hand the frame to the strip (written only if it changed). Returns when the frame
        next changes by itself (a blink, an animation), or None. Draws only: time that runs
        out is `tick`'s."""
        frame, wake = self.frame(now, link, trouble, moment)
        self.leds.show(frame)
        return wake

    def site_colours(self) -> dict[str, list[int]]:
        """What the strip shows now, by site and named LED group (the first LED of each)."""
        return site_colours(self.leds.shown, self.layout)


def site_colours(shown: Any, layout: Any) -> dict[str, list[int]]:
    """A strip's frame (None: nothing shown yet) by site and named LED group: the first LED's."""
    if shown is None:
        return {}
    return {site: list(shown[leds[0]])
            for site, leds in [*layout.leds_of_site.items(), *layout.named_leds.items()] if leds}
