"""The seats not at this board that the board itself plays for: the computer's
(`players = ["human", "computer:LEVEL"]`, `ComputerSeat`), and the web seat's moves
(`players = ["human", "web"]`, `play_web`: a person on the page with no board). A remote
board's seat is the remote link's (board_driver/remote/).

Both play through `Referee.play_for_seat`, so a move of either is shown on the board for the
people there to put down (lit as "the other seat's move: make it", said), and a takeback at
the board against it takes back the player's move and the reply together.

The computer's search (`games.ai.best_move`) runs in a worker process, so the event loop (and the sensor
path behind it) never waits for it and never shares the interpreter lock with it. The loop
only submits a position (as JSON) and receives a move text. The seat:

- thinks only when it is its turn and the board agrees with the game (no corrections, no move
  half made), and plays only then: a move that comes back while someone is still correcting
  the board waits until the board agrees;
- drops an answer that no longer fits (a takeback, a new game, a resumed journal): the
  position it was asked about is compared with the game's, move for move;
- plays through `Referee.play_for_seat`, after which the board differs from the game and the
  correction machinery lights the pieces to put.

`poke()` is called on the loop after every change (the daemon calls it where it redraws).
"""

from __future__ import annotations

import dataclasses
import logging
import random
from concurrent.futures import BrokenExecutor, Executor, Future
from typing import Any, Callable

import games
import games.ai
from board_driver import views
from board_driver.views import words
from games.base import Reason

log = logging.getLogger("treeboard.seats")


def think(saved: str, level: games.ai.Level, seed: int,
          processes: int = 1) -> tuple[str, bool]:
    """In the worker: the move for the position saved as JSON at `level`, as text, and
    whether the wall-time cap cut the level's effort short (the board says so). With
    `processes` > 1 the search is spread over the worker and `processes - 1` helpers
    (`helpers`), the level's iterations in all."""
    state = games.load_state(saved)
    pondered = _pondering[1] if _pondering is not None else None
    for attempt in (1, 2):
        pool = helpers(processes - 1) if processes > 1 else None
        try:
            thought = games.ai.think_level(state, level, seed=seed, pool=pool,
                                           processes=processes, pondered=pondered)
            break
        except BrokenExecutor:
            # A helper died (killed, out of memory): its pool is broken for good, and kept it
            # would fail every search after while the worker itself lives on. New helpers,
            # the same search again (the same seeds and shares: the same move).
            if pool is None or attempt == 2:
                raise
            log.warning("a search helper process died: new helpers, the search again")
            _drop_helpers()
    return str(thought.move), thought.limited


def position_seed(base: int, saved: str) -> int:
    """The seed of the computer's search at the position saved as `saved`: fixed by the
    position and the seat's `base`, so that the worker can ponder a position with the seed
    the seat will ask with once it comes."""
    import zlib

    return (zlib.crc32(saved.encode()) ^ base) & ((1 << 30) - 1)


#: In the worker: (the position pondered from, its Ponder); one owner, the worker's thread.
_pondering: tuple[str, Any] | None = None


def ponder(saved: str, level: games.ai.Level, base: int, seat: int, seconds: float,
           processes: int = 1) -> bool:
    """In the worker, while a person at the board thinks: `seconds` more of the computer's
    searches (seat `seat`, at `level`) of the positions after the likely replies at the
    position `saved` (games/ai/ponder.py; with `processes` > 1, the shares `think` will
    spread over them); True while there is more to do."""
    global _pondering
    from games.ai.ponder import Ponder, likely_replies

    if _pondering is None or _pondering[0] != saved:
        state = games.load_state(saved)
        plan = games.ai.level_search(state, level, base)
        ahead = Ponder(processes)
        _pondering = (saved, ahead)
        if plan[0] != "search":
            return False   # the level glances (a beginner): nothing to think ahead
        for reply in likely_replies(state, plan[4], base):
            state.play(reply)
            if state.to_move == seat:   # (a reply after which the person moves again: no)
                ahead.start(state, level, position_seed(base, state.to_json()))
            state.undo()
    return _pondering[1].step(seconds)


#: In the worker: its helper processes (started at the first search that wants them) and
#: how many; one owner, the worker's one thread.
_helpers: tuple[Executor, int] | None = None


def helpers(count: int) -> Executor:
    """In the worker: `count` helper processes for a search spread over several cores, at the
    lowest priority as the worker itself; kept for the worker's life (a new count: new ones)."""
    global _helpers
    if _helpers is None or _helpers[1] != count:
        _drop_helpers()
        _helpers = (_spawned_pool(count), count)
    return _helpers[0]


def _drop_helpers() -> None:
    """In the worker: forget its helpers (a broken pool); the next search starts new ones."""
    global _helpers
    if _helpers is not None:
        _helpers[0].shutdown(wait=False, cancel_futures=True)
        _helpers = None


def hints(saved: str, seconds: float) -> dict[str, str]:
    """In the worker: site -> "best" for the best moves' sites; with an exact value (Tree
    Planting), every other free site -> "keeps" (the mover's result: win, draw or loss, stays
    what it is) or "loses"."""
    return advice(saved, seconds)[0]


def advice(saved: str, seconds: float,
           language: str = "en") -> tuple[dict[str, str], str | None, str | None]:
    """In the worker: `hints`, why the best move, in the words of the game's view
    (`views.hint_reason`: from the position's shape, not a second search), in the board's
    `language` (the worker is another process: it does not share the board's), and the best
    move's notation (the voice says it as a person does)."""
    state = games.load_state(saved)
    rows = games.ai.analyse(state, seconds=seconds)
    if not rows:
        return {}, None, None
    with words.speaking(language):
        return (_sites(state, rows), views.hint_reason(state, rows[0].move),
                str(rows[0].move))


def draw_is_level(saved: str, seconds: float) -> bool:
    """In the worker: whether the computer's search says the position saved as JSON is level,
    so that it accepts a draw offered to it (endings.is_level: an exact value of 0, or a mean
    reward within DRAW_LEVEL of 0.5; either holds alike for both players, so whose turn it is
    does not matter)."""
    from board_driver.referee.endings import is_level

    rows = games.ai.analyse(games.load_state(saved), seconds=seconds)
    return bool(rows) and is_level(rows[0].value, rows[0].exact)


def _sites(state, rows) -> dict[str, str]:
    before = state.occupancy()
    sites = set(state.sites())

    def sites_of(move) -> list[str]:
        state.play(move)
        after = state.occupancy()
        state.undo()
        return sorted(s for s in before.keys() | after.keys()
                      if before.get(s) != after.get(s) and s in sites)

    top = rows[0]
    out: dict[str, str] = {}
    if top.exact:
        result = (top.value > 0) - (top.value < 0)
        for r in rows:
            what = ("best" if r.value == top.value
                    else "keeps" if (r.value > 0) - (r.value < 0) == result else "loses")
            # The groove itself (a planted hole follows it): the site the move is made at.
            changed = sites_of(r.move)
            made = [site for site in changed if r.move in state.moves_at(site)]
            for site in (made or changed)[:1]:
                out.setdefault(site, what)
    else:
        for site in sites_of(top.move):
            out[site] = "best"
    return out


#: A slice of pondering in the worker: what a search or hint asked meanwhile may wait.
PONDER_SLICE_S = 0.25

#: In a timed game the computer keeps this much of its clock in hand, never thinking into it:
#: the round trip to its worker (the position as JSON, the answer back through the loop) and
#: a slow, busy Pi's scheduling take from it (benchmarks/clock_budget.py measures the trip).
RESERVE_S = 1.0
#: A bank (sudden death, Fischer) is spread over this many more turns, whatever is left.
TURNS_TO_GO = 20
#: The shortest think: even a clock almost out gets an answer (the search's first playouts).
LEAST_S = 0.02


def think_seconds(level_seconds: float, control: Any, left: float | None) -> float:
    """How long the computer thinks when its clock shows `left` seconds under `control` (a
    clock.TimeControl): its level's time, but never more than its share of the clock, and
    always RESERVE_S short of running out. `left` None: an untimed seat, the level's time."""
    if left is None:
        return level_seconds
    usable = max(0.0, left - RESERVE_S)
    if control.per_move_s is not None:
        share = usable / 2                     # half the turn, the rest is spare
    else:
        share = usable / TURNS_TO_GO + 0.8 * control.increment_s
        share = min(share, usable / 2)         # the increment comes only after the move
    return max(LEAST_S, min(level_seconds, share))


def computer_seats(players: tuple[str, ...]) -> dict[int, games.ai.Level]:
    """Seat -> level for every "computer" or "computer:LEVEL" seat. Raises ValueError naming
    a level it does not know."""
    out = {}
    for seat, who in enumerate(players):
        if who == "computer":
            out[seat] = games.ai.LEVELS["medium"]
        elif who.startswith("computer:"):
            out[seat] = games.ai.level(who.split(":", 1)[1])
    return out


def _lower_priority() -> None:
    # In the worker: the scheduler serves the daemon first whenever both want a core, so the
    # search takes only what the sensor path leaves over.
    import os
    import signal

    # Ctrl-C in a terminal reaches the whole process group: the daemon stops the worker
    # itself, so the worker must not die of it mid-search with a KeyboardInterrupt traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.nice(19)


def worker_pool() -> Executor:
    """One worker process, started by spawning (the daemon has threads: forking it is unsafe),
    at the lowest scheduling priority."""
    return _spawned_pool(1)


def _spawned_pool(count: int) -> Executor:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=count, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_lower_priority)


class ComputerSeat:
    def __init__(self, referee: Any, levels: dict[int, games.ai.Level], *,
                 submit: Callable[..., Future], call_soon: Callable[..., Any],
                 clock: Callable[[], float], after_change: Callable[[], None] = lambda: None,
                 seed: int | None = None, hint_seconds: float = 1.0, processes: int = 1,
                 think_ahead: bool = True):
        """`submit(fn, *args)` runs `fn` in the worker and returns a Future; `call_soon(fn)`
        runs `fn` on the loop thread (the Future's callback comes from another thread).
        `processes`: how many processes a search may use (the config's
        `computer_processes`). `think_ahead`: ponder while a person at the board thinks."""
        self.processes = processes
        self.think_ahead = think_ahead
        self._ponder_busy = False   # a slice of pondering is in the worker
        self._pondered: tuple[str, ...] | None = None   # the history pondered enough
        self.referee = referee
        self.levels = levels
        self.submit = submit
        self.call_soon = call_soon
        self.clock = clock
        self.after_change = after_change
        self.rng = random.Random(seed)
        self.base = self.rng.randrange(1 << 30)   # the searches' seeds (position_seed)
        self.hint_seconds = hint_seconds
        self._hinted: tuple[str, ...] | None = None  # the history the shown hints belong to
        self._hint_asked: tuple[str, ...] | None = None
        self._asked: tuple[str, ...] | None = None  # the history the pending search was given
        self._ready: tuple[tuple[str, ...], str] | None = None  # (history, move) to play
        # The history whose search failed (the worker died): not asked again until `retry()`
        # (the daemon's supervisor calls it with a new worker), or the game moves on.
        self._failed: tuple[str, ...] | None = None
        self.thinking = False
        self._draw_asked: tuple[str, ...] | None = None   # the offer its search looks at

    def _history(self) -> tuple[str, ...]:
        state = self.referee.state
        return (state.game.name, repr(sorted(state.options().items())),
                *(str(m) for m in state.moves))

    def _board_agrees(self) -> bool:
        referee = self.referee
        return not referee.corrections and not referee.completions \
            and not referee.holding and not referee.menu.open   # (being set up)

    def _our_turn(self) -> int | None:
        state = self.referee.state
        if self.referee.over or state.to_move not in self.levels:
            return None
        return state.to_move

    def poke(self) -> None:
        """On the loop: play a ready move, or start thinking, if the game and board allow;
        and keep the hints of display.moves = "best" up to date."""
        self._hint_poke()
        if self._draw_poke():
            return   # (a draw offered to it is answered before it plays on)
        seat = self._our_turn()
        history = self._history()
        if self._ready is not None:
            ready_for, move = self._ready
            if ready_for != history or seat is None:
                self._ready = None  # the game moved on without it
            elif self._board_agrees():
                self._ready = None
                self._play(move)
                return
            else:
                return  # wait for the board to agree
        if seat is None:
            self._ponder_poke(history)
        if seat is None or not self._board_agrees():
            return
        if (self.thinking and self._asked == history) or self._failed == history:
            return
        level = self.levels[seat]
        self._asked = history
        self.thinking = True
        # In a timed game the wall-time cap comes from its own clock (think_seconds).
        clocks = self.referee.clocks
        level = dataclasses.replace(level, seconds=think_seconds(
            level.seconds, clocks.controls[seat], clocks.left(seat, self.clock())))
        log.info("computer (seat %d, %s) thinks: %s iterations, %.2f s at most", seat,
                 level.name, level.iterations or "as many", level.seconds)
        saved = self.referee.state.to_json()
        future = self.submit(think, saved, level, position_seed(self.base, saved),
                             self.processes)
        future.add_done_callback(lambda f, h=history: self.call_soon(self._answer, f, h))

    def _draw_offer(self) -> tuple[str, ...] | None:
        """The draw offered to the computer now, as the game's history and the offering seat
        (None: none is)."""
        endings = self.referee.endings
        if endings.asked() != "computer" or 1 - endings.offer not in self.levels:
            return None
        return (*self._history(), "draw", str(endings.offer))

    def _draw_poke(self) -> bool:
        """A draw offered to the computer: its search, in the worker, says whether the game is
        level (it accepts then, refuses otherwise). Returns whether an offer waits for it."""
        offer = self._draw_offer()
        if offer is None:
            return False
        if self._draw_asked != offer:
            self._draw_asked = offer
            from board_driver.referee.endings import DRAW_SECONDS

            future = self.submit(draw_is_level, self.referee.state.to_json(), DRAW_SECONDS)
            future.add_done_callback(lambda f, o=offer: self.call_soon(self._draw_answer, f, o))
        return True

    def _draw_answer(self, future: Future, offer: tuple[str, ...]) -> None:
        """On the loop: the search on a draw offer came back; answered if the offer stands."""
        if future.cancelled() or offer != self._draw_offer():
            return
        try:
            level = future.result()
        except Exception:
            log.exception("the search on a draw offer failed: the computer refuses it")
            level = False
        self.referee.endings.answer(level, self.clock(), "computer")
        log.info("computer %s the draw", "accepts" if level else "refuses")
        self.after_change()
        self.poke()

    def _ponder_poke(self, history: tuple[str, ...]) -> None:
        """A person at the board to move against one computer seat: the worker thinks ahead
        (`ponder`) in slices of PONDER_SLICE_S, so that a search or hint asked meanwhile
        waits one slice at most, until its searches are done or the game moves on."""
        referee, state = self.referee, self.referee.state
        if (not self.think_ahead or self._ponder_busy or self._pondered == history
                or len(self.levels) != 1
                or referee.over or not referee.at_board(state.to_move)
                or not self._board_agrees()):
            return
        seat, level = next(iter(self.levels.items()))
        self._ponder_busy = True
        future = self.submit(ponder, state.to_json(), level, self.base, seat, PONDER_SLICE_S,
                             self.processes)
        future.add_done_callback(lambda f, h=history: self.call_soon(self._ponder_answer, f, h))

    def _ponder_answer(self, future: Future, history: tuple[str, ...]) -> None:
        self._ponder_busy = False
        if future.cancelled():
            return
        more = self._fresh(future, history, "pondering")
        if not more:   # done, failed, or the game moved on (then poke ponders the new one)
            self._pondered = history
        self.poke()

    def retry(self) -> None:
        """On the loop: a new worker took over from one that died: ask again what the old one
        never answered (the computer's move, the hints)."""
        self._failed = None
        self._asked = self._hint_asked = None
        self.thinking = False
        self.poke()

    def _fresh(self, future: Future, history: tuple[str, ...], what: str) -> Any:
        """A worker's answer if it came back and still fits the game; None otherwise."""
        if future.cancelled():
            return None  # the daemon is stopping: its worker was shut down, nothing failed
        try:
            answer = future.result()
        except Exception as exc:
            if isinstance(exc, BrokenExecutor):  # the worker died: the daemon restarts it
                log.warning("the %s failed: the worker died (%s)", what, exc)
            else:
                log.exception("the %s failed", what)
            if what == "computer's search":
                self._failed = history
            return None
        if history != self._history():
            log.info("%s answer %r dropped: the game moved on", what, answer)
            return None
        return answer

    def _answer(self, future: Future, history: tuple[str, ...]) -> None:
        """On the loop: a search came back."""
        if history == self._asked:
            self.thinking = False
        if future.cancelled():
            return  # the daemon is stopping: ask nothing more of its worker
        answer = self._fresh(future, history, "computer's search")
        if answer is None:
            self.poke()
            return
        move, limited = answer
        self._note_limited(limited)
        self._ready = (history, move)
        self.poke()

    def _note_limited(self, limited: bool) -> None:
        """Keep which computer seat's last search the cap cut short, at which level (the
        referee's decided `limited`, which the Moment carries: "computer (hard, limited by time)").
        Called for a fresh answer: the seat to move is the one that asked."""
        seat = self.referee.state.to_move
        if seat not in self.levels:
            return
        level = self.levels[seat].name
        was = dict(self.referee.decided.limited)
        if limited:
            if was.get(seat) == level:
                return
            was[seat] = level
            log.warning("computer (seat %d, %s) was cut short by its time cap: it plays "
                        "weaker than its level here", seat, level)
        elif was.pop(seat, None) is None:
            return
        self.referee.decided.limited = was
        self.after_change()

    def _hint_poke(self) -> None:
        """Hints (display.moves = "best"): for a player at this board, whose turn it is."""
        referee = self.referee
        history = self._history()
        if self._hinted != history:
            if referee.hints:
                referee.set_hints({})
                self.after_change()
            self._hinted = None
        state = referee.state
        if (referee.settings.moves != "best" or referee.over
                or not referee.at_board(state.to_move) or not self._board_agrees()
                or self._hint_asked == history):
            return
        self._hint_asked = history
        future = self.submit(advice, state.to_json(), self.hint_seconds, words.language())
        future.add_done_callback(lambda f, h=history: self.call_soon(self._hint_answer, f, h))

    def _hint_answer(self, future: Future, history: tuple[str, ...]) -> None:
        found = self._fresh(future, history, "hint search")
        if found is None:
            return  # failed, or the game moved on (poke asks again)
        sites, reason, move = found
        self.referee.set_hints(sites, reason, move)
        self._hinted = history
        self.after_change()

    def _play(self, move: str) -> None:
        try:
            # (the referee marks what the move changed as the computer's move to make)
            self.referee.play_for_seat(move, self.clock(), "computer")
        except games.IllegalMove as exc:
            log.error("computer's move %s refused: %s", move, exc.reason)
            return
        log.info("computer plays %s", move)
        self.after_change()


def play_web(referee: Any, text: str, now: float) -> None:
    """A web seat's move, made on the page (`Door.play`, POST /api/play): `text` in the game's
    notation, played through `Referee.play_for_seat` as the computer's is. Raises
    games.IllegalMove with a reason a player reads, and changes nothing, when it is not a web
    seat's turn, the board is being set up or put right, or the rules refuse the move."""
    state = referee.state
    if referee.over:
        raise games.IllegalMove(text, Reason("the game is over"))
    if referee.seats[state.to_move] != "web":
        who = referee.seats[state.to_move].split(":", 1)[0]
        raise games.IllegalMove(text, Reason(
            "it is not the web seat's turn: {player} plays now ({where})",
            player=views.players(state.game.name)[state.to_move],
            where={"human": Reason("at the board"), "computer": Reason("the computer"),
                   "remote": Reason("on the other board")}.get(who, who)))
    if referee.menu.open:
        raise games.IllegalMove(text, Reason("the board's menu is open: wait until it is closed"))
    if referee.holding:
        raise games.IllegalMove(text, Reason("the board is being put right: wait until its "
                                             "pieces match the game"))
    referee.play_for_seat(state.parse_move(text), now, "web")
