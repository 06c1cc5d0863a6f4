"""The daemon: one asyncio loop owns all state.

Hardware threads (gpiozero callbacks, a matrix scan thread, the serial reader) only hand
events over with `call_soon_threadsafe`; the loop debounces, referees, journals and lights.
Nothing slow runs on the loop: a journal write is one SQLite commit (an fsync, ~ms), and a
frame is computed only when something changed or a blink is due.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import signal
from typing import Callable

import games
from board_driver.config import Config
from board_driver.daemon.notify import Notifier, keep_watchdog
from board_driver.daemon.speech import SpeechError, open_speech
from board_driver.referee.door import Door
from board_driver.referee.session import Session, open_session
from board_driver.views import words
from board_driver.views.narrate import Narrator, last_moves
from hardware.base import SensorEvent

log = logging.getLogger("treeboard.daemon")


class Daemon:
    def __init__(self, config: Config, *, notifier: Notifier | None = None, new_game: bool = False,
                 on_frame: Callable[[Session], None] | None = None, web: bool = False):
        self.config = config
        self.notifier = notifier or Notifier.from_environment()
        self.new_game = new_game
        self.on_frame = on_frame  # the terminal view of `treeboard sim`
        self.web_enabled = web    # the companion page (config web.*)
        self.web = None
        self.session: Session | None = None
        self.door: Door | None = None   # how the page, the sim and remote play act on the board
        self.loop: asyncio.AbstractEventLoop | None = None
        self._tick_handle: asyncio.TimerHandle | None = None
        self._show_handle: asyncio.TimerHandle | None = None
        self._stop = asyncio.Event()
        self.started = asyncio.Event()  # set once the board runs (and its page, if any, serves)
        self.events = 0
        self.remote = None   # the RemoteLink, when a seat is played from another board
        self._link_task: asyncio.Future | None = None
        self.computer = None  # the ComputerSeat, when the computer plays a seat
        self._pool = None     # its worker process
        self.speech = None    # the voice (daemon/speech.py), when [voice] is enabled
        self._narrator = Narrator()  # what changed, in the sentences the voice says

    # --- running ------------------------------------------------------------------------------

    async def run(self) -> None:
        self.loop = loop = asyncio.get_running_loop()
        words.use(self.config.language)
        self.session = session = open_session(self.config, clock=loop.time, new_game=self.new_game)
        self._narrator.start(session.referee)
        self._start_speech()
        self.door = Door(session, loop.time, after_change=self._show)
        self.door.host = self
        try:
            session.hardware.source.start(self._from_thread)
            for name, button in session.hardware.buttons.items():
                button.when_pressed = lambda _d=None, n=name: loop.call_soon_threadsafe(self._press, n)
            # Events may have raced the start: take a fresh snapshot now that we listen.
            session.referee.resync(session.hardware.source.snapshot(), loop.time())
            self._show()
            for sig in (signal.SIGTERM, signal.SIGINT):
                try:
                    loop.add_signal_handler(sig, self.stop)
                except (NotImplementedError, RuntimeError):  # not the main thread (tests)
                    pass
            self._start_remote(session)
            self._start_computer(session)
            if self.web_enabled:
                await self._start_web()
            self.started.set()
            state = session.referee.state
            self.notifier.ready(status=f"{state.game.name} on {session.layout.name}: "
                                       f"move {len(state.moves) + 1}")
            watchdog = None
            if self.notifier.watchdog_interval():
                watchdog = asyncio.ensure_future(keep_watchdog(self.notifier, self.healthy))
            log.info("board ready: %s, layout %s, backend %s", state.game.name,
                     session.layout.name, self.config.backend)
            await self._stop.wait()
            if watchdog is not None:
                watchdog.cancel()
            await self._stop_remote()
        finally:
            self.notifier.stopping()
            if self._pool is not None:
                self._pool.shutdown(wait=False, cancel_futures=True)
            self.notifier.close()  # its socket; a later send would open another
            if self.web is not None:
                await self.web.stop()
            for handle in (self._tick_handle, self._show_handle):
                if handle is not None:
                    handle.cancel()
            if self.speech is not None:
                await self.loop.run_in_executor(None, self.speech.stop)
            session.close()

    def _start_speech(self) -> None:
        """The voice, when [voice] is enabled (or --voice-dir): a board without espeak-ng
        referees on, and says why in the log."""
        if not self.config.voice.enabled:
            return
        try:
            self.speech = open_speech(self.config.voice, self.config.language)
        except SpeechError as exc:
            log.error("the board will not speak: %s", exc)
            return
        self.speech.start()

    def say(self, sentences) -> None:
        """Say sentences aloud (plain strings, already in the board's language, or narrator
        items): the hook for whatever has news for the players (a clock's warning, `repeat`).
        Never blocks; nothing happens when the voice is off."""
        if self.speech is not None:
            self.speech.say([sentences] if isinstance(sentences, str) else sentences)

    def _start_remote(self, session: Session) -> None:
        from board_driver.remote.link import load_join, settings_from_config

        if "remote" not in session.referee.seats:
            joined = load_join(self.config)   # a remote game joined on the page, before a restart
            if joined is None:
                return
            self.config.remote, session.referee.seats = joined
        self._link(settings_from_config(self.config, session.referee.seats))

    def _link(self, settings) -> None:
        from board_driver.remote.link import RemoteLink

        self.remote = RemoteLink(settings, self.session.referee, self.loop.time)
        self.remote.after_change = self._show
        self._link_task = asyncio.ensure_future(self.remote.run())

    async def _stop_remote(self) -> None:
        task, self._link_task = self._link_task, None
        if task is not None:
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                pass
        if self.remote is not None:
            self.remote.detach()
            self.remote = None

    def join_remote(self, table: dict, seat: int | None) -> None:
        """Join a remote game from the page: `table` as the config's [remote] would hold it,
        `seat` the seat played here (None: watch). A game in progress here is closed first:
        a remote game starts from its first move on both boards. Kept beside the journal, so
        the board is still in the game after a restart. Raises ConfigError naming what is wrong."""
        from board_driver.remote.link import save_join, settings_from_config

        if self.remote is not None:
            raise games.IllegalMove("join", "this board is in a remote game already; leave it first")
        referee = self.session.referee
        if any(p.startswith("computer") for p in referee.seats):
            raise games.IllegalMove("join", "the computer plays a seat here; give both seats to "
                                            "people before joining a remote game")
        players = ["remote", "remote"]
        if seat is not None:
            players[seat] = "human"
        trial = dataclasses.replace(self.config, remote=table)
        settings = settings_from_config(trial, tuple(players))  # the broker, game id and secret
        save_join(self.config, table, tuple(players))
        self.config.remote = table
        referee.seats = tuple(players)
        if referee.state.moves:
            referee.new_game(self.loop.time(), origin="remote-join")
        self._link(settings)

    async def leave_remote(self) -> None:
        """Leave the remote game (the page): both seats are played here again."""
        from board_driver.remote.link import forget_join

        if self.remote is None:
            raise games.IllegalMove("leave", "this board is in no remote game")
        await self._stop_remote()
        forget_join(self.config)
        self.config.remote = None
        self.session.referee.seats = ("human", "human")

    def _start_computer(self, session: Session) -> None:
        from board_driver.referee.seats import ComputerSeat, computer_seats, worker_pool

        try:
            levels = computer_seats(session.referee.seats)
        except ValueError as exc:
            from board_driver.config import ConfigError
            raise ConfigError(self.config.path, "players",
                              str(exc).split("expected ", 1)[-1]) from None
        if not levels and self.config.moves != "best":
            return  # no computer seat, no hints: no worker (until the page asks for hints)
        self._pool = worker_pool()
        self.computer = ComputerSeat(session.referee, levels, submit=self._pool.submit,
                                     call_soon=self._from_worker,
                                     clock=self.loop.time, after_change=self._show)
        self.computer.poke()

    def in_worker(self, fn, *args) -> asyncio.Future:
        """`fn(*args)` in the computer's worker process (started now if not yet), awaitable on
        the loop: for searches the page asks for (a game review), off the loop and the GIL."""
        if self._pool is None:
            from board_driver.referee.seats import worker_pool

            self._pool = worker_pool()
        return asyncio.wrap_future(self._pool.submit(fn, *args))

    def _ensure_computer(self):
        """The computer's seat object and its worker, started now if nothing needed it before."""
        if self.computer is None:
            from board_driver.referee.seats import ComputerSeat, worker_pool

            if self._pool is None:
                self._pool = worker_pool()
            self.computer = ComputerSeat(self.session.referee, {}, submit=self._pool.submit,
                                         call_soon=self._from_worker,
                                         clock=self.loop.time, after_change=self._show)
        return self.computer

    def want_hints(self) -> None:
        """The hint mode became "best" (on the page): the computer's worker searches for them,
        started now if no computer seat needed it before."""
        self._ensure_computer().poke()

    def seats_changed(self) -> None:
        """The door changed who plays a seat: the computer's levels follow (it thinks at the
        next redraw if it is its turn, with the board agreeing)."""
        from board_driver.referee.seats import computer_seats

        computers = computer_seats(self.session.referee.seats)
        if computers or self.computer is not None:
            self._ensure_computer().levels = computers

    def _from_worker(self, fn, *args) -> None:
        """A worker's answer, onto the loop; one that lands after the loop closed (the sim quit
        while the computer thought) is dropped, not a traceback from the executor's thread."""
        try:
            self.loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:  # the loop is closed
            pass

    def stop(self) -> None:
        self._stop.set()

    async def _start_web(self) -> None:
        from board_driver.web import WebServer

        web = WebServer(self.door, listen=self.config.web_listen, port=self.config.web_port,
                        token=self.config.web_token)
        try:
            await web.start()
        except OSError as exc:
            # The board referees without its page: better than no board at all.
            log.error("companion page not started on %s:%d: %s (another port: web.port in the "
                      "config, or --web-port)", self.config.web_listen, self.config.web_port,
                      exc.strerror or exc)
            return
        self.web = web

    # --- events (threads hand over; the loop does the work) --------------------------------

    def _from_thread(self, event: SensorEvent) -> None:
        # Any thread. Never blocks: a slow loop queues callbacks, the sensor thread moves on.
        self.loop.call_soon_threadsafe(self._on_event, event)

    def _on_event(self, event: SensorEvent) -> None:
        self.events += 1
        self.session.referee.feed(event)
        self._schedule_tick()

    def _press(self, name: str) -> None:
        if name == "repeat":   # a layout's "say it again" button: no move, the voice's alone
            self.repeat()
            return
        self.door.button(name)

    def repeat(self) -> list[str]:
        """Say it again: the last moves ([voice] repeat_moves), whose turn, the score; returns
        the sentences as the page shows them."""
        said = last_moves(self.session.referee, self.config.voice.repeat_moves)
        self.say(said)
        return [s.text for s in said]

    def _schedule_tick(self) -> None:
        referee = self.session.referee
        deadlines = [d for d in (referee.next_deadline(), referee.turn_deadline()) if d is not None]
        if not deadlines:
            return
        deadline = min(deadlines)
        if self._tick_handle is not None:
            if self._tick_handle.when() <= deadline:
                return  # an earlier tick is booked; it reschedules what is still pending
            self._tick_handle.cancel()
        self._tick_handle = self.loop.call_at(deadline, self._tick)

    def _tick(self) -> None:
        self._tick_handle = None
        if self.session.referee.tick(self.loop.time()):
            self._show()
        self._schedule_tick()

    def _show(self) -> None:
        if self.computer is not None:
            self.computer.poke()  # after every change: its turn, with the board agreeing?
        now = self.loop.time()
        link = self.remote.shown_status if self.remote is not None else None
        wake = self.session.referee.show(now, link)
        if self.speech is not None:
            said = self._narrator(self.session.referee)
            if self.remote is not None:
                said += self._narrator.link(self.remote.summary())
            if said:
                self.speech.say(said)
        if self.on_frame is not None:
            self.on_frame(self.session)
        if self.web is not None:
            self.web.frame_shown()
        if self._show_handle is not None:
            self._show_handle.cancel()
            self._show_handle = None
        if wake is not None:
            self._show_handle = self.loop.call_at(wake, self._show)
        self._schedule_tick()   # (a turn's clock may have started)

    # --- systemd watchdog -----------------------------------------------------------------------

    def healthy(self) -> bool:
        """Whether to send WATCHDOG=1. Asked on the loop, so a stalled loop sends nothing; a loop
        that is alive but no longer keeping its appointments (a sensor tick overdue by over a
        second) is not healthy either, nor is a sensor source that stopped reporting (its scan
        thread died or stalled, its reader thread is gone): systemd should restart us."""
        handle = self._tick_handle
        if handle is not None and self.loop.time() - handle.when() > 1.0:
            log.error("sensor processing is %.1f s late; withholding the watchdog ping",
                      self.loop.time() - handle.when())
            return False
        source = self.session.hardware.source if self.session is not None else None
        if source is not None:
            try:
                problem = source.health()
            except Exception as exc:  # a source that cannot even say is not healthy either
                problem = f"{type(source).__name__}: health check failed ({exc!r})"
            if problem is not None:
                log.error("%s; withholding the watchdog ping", problem)
                return False
        return True


def run_daemon(config: Config, **kwargs) -> None:
    asyncio.run(Daemon(config, **kwargs).run())
