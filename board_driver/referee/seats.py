"""The computer's seat: `players = ["human", "computer:LEVEL"]`.

The search (`games.ai.best_move`) runs in a worker process, so the event loop (and the sensor
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

import logging
import random
from concurrent.futures import Executor, Future
from typing import Any, Callable

import games
import games.ai

log = logging.getLogger("treeboard.seats")


def think(saved: str, seconds: float, noise: float, seed: int) -> str:
    """In the worker: the move for the position saved as JSON, as text."""
    state = games.load_state(saved)
    return str(games.ai.best_move(state, seconds=seconds, seed=seed, noise=noise))


def hints(saved: str, seconds: float) -> dict[str, str]:
    """In the worker: site -> "best" for the best moves' sites; with an exact value (Tree
    Planting), every other free site -> "keeps" (the mover's result: win, draw or loss, stays
    what it is) or "loses"."""
    state = games.load_state(saved)
    rows = games.ai.analyse(state, seconds=seconds)
    if not rows:
        return {}
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
            for site in sites_of(r.move)[:1]:  # the groove (a planted hole follows it)
                out.setdefault(site, what)
    else:
        for site in sites_of(top.move):
            out[site] = "best"
    return out


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
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_lower_priority)


class ComputerSeat:
    def __init__(self, referee: Any, levels: dict[int, games.ai.Level], *,
                 submit: Callable[..., Future], call_soon: Callable[..., Any],
                 clock: Callable[[], float], after_change: Callable[[], None] = lambda: None,
                 seed: int | None = None, hint_seconds: float = 1.0):
        """`submit(fn, *args)` runs `fn` in the worker and returns a Future; `call_soon(fn)`
        runs `fn` on the loop thread (the Future's callback comes from another thread)."""
        self.referee = referee
        self.levels = levels
        self.submit = submit
        self.call_soon = call_soon
        self.clock = clock
        self.after_change = after_change
        self.rng = random.Random(seed)
        self.hint_seconds = hint_seconds
        self._hinted: tuple[str, ...] | None = None  # the history the shown hints belong to
        self._hint_asked: tuple[str, ...] | None = None
        self._asked: tuple[str, ...] | None = None  # the history the pending search was given
        self._ready: tuple[tuple[str, ...], str] | None = None  # (history, move) to play
        self.thinking = False

    def _history(self) -> tuple[str, ...]:
        state = self.referee.state
        return (state.game.name, repr(sorted(state.options().items())),
                *(str(m) for m in state.moves))

    def _board_agrees(self) -> bool:
        view = self.referee.view
        return not view.corrections and not view.completions \
            and not self.referee.holding

    def _our_turn(self) -> int | None:
        state = self.referee.state
        if state.is_over() or state.to_move not in self.levels:
            return None
        return state.to_move

    def poke(self) -> None:
        """On the loop: play a ready move, or start thinking, if the game and board allow;
        and keep the hints of display.moves = "best" up to date."""
        self._hint_poke()
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
        if seat is None or not self._board_agrees():
            return
        if self.thinking and self._asked == history:
            return
        level = self.levels[seat]
        self._asked = history
        self.thinking = True
        log.info("computer (seat %d, %s) thinks for %.1f s", seat, level.name, level.seconds)
        future = self.submit(think, self.referee.state.to_json(), level.seconds, level.noise,
                             self.rng.randrange(1 << 30))
        future.add_done_callback(lambda f, h=history: self.call_soon(self._answer, f, h))

    def _fresh(self, future: Future, history: tuple[str, ...], what: str) -> Any:
        """A worker's answer if it came back and still fits the game; None otherwise."""
        if future.cancelled():
            return None  # the daemon is stopping: its worker was shut down, nothing failed
        try:
            answer = future.result()
        except Exception:
            log.exception("the %s failed", what)
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
        move = self._fresh(future, history, "computer's search")
        if move is None:
            self.poke()
            return
        self._ready = (history, move)
        self.poke()

    def _hint_poke(self) -> None:
        """Hints (display.moves = "best"): for a player at this board, whose turn it is."""
        referee = self.referee
        view = referee.view
        history = self._history()
        if self._hinted != history:
            if view.hints:
                referee.set_hints({})
                self.after_change()
            self._hinted = None
        state = referee.state
        if (view.moves != "best" or state.is_over()
                or not referee.at_board(state.to_move) or not self._board_agrees()
                or self._hint_asked == history):
            return
        self._hint_asked = history
        future = self.submit(hints, state.to_json(), self.hint_seconds)
        future.add_done_callback(lambda f, h=history: self.call_soon(self._hint_answer, f, h))

    def _hint_answer(self, future: Future, history: tuple[str, ...]) -> None:
        found = self._fresh(future, history, "hint search")
        if found is None:
            return  # failed, or the game moved on (poke asks again)
        self.referee.set_hints(found)
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
