"""The daemon: one asyncio loop owns all state.

Hardware threads (gpiozero callbacks, a matrix scan thread, the serial reader) only hand
events over with `call_soon_threadsafe`; the loop debounces, referees, journals and lights.
Nothing slow runs on the loop: a move made with pieces is handed to the journal's writer
thread and lit at once (the pieces record it; its commit follows, referee/committer.py); any
other record waits for its commit (an fsync: tens of ms on an SD card) before it is shown.
A frame is computed only when something changed or a blink is due.
"""

from __future__ import annotations

import asyncio
import logging
import signal
from concurrent.futures import BrokenExecutor, Future
from typing import Any, Callable

from board_driver.config import Config, voice_from_page, voice_settings
from board_driver.daemon.notify import Notifier, keep_watchdog
from board_driver.daemon.remote_part import RemotePart
from board_driver.daemon.supervisor import DOWN, Part, Supervisor, journal_part
from board_driver.daemon.speech import SpeechError, open_speech
from board_driver.daemon.update_part import watch_update
from board_driver.referee import kept
from board_driver.referee.door import Door
from board_driver.referee.session import Session, open_session
from board_driver.views import words
from board_driver.views.narrate import Narrator, last_moves
from hardware.base import DIED, Problem, SensorEvent, kind_of

log = logging.getLogger("treeboard.daemon")


class Daemon:
    def __init__(self, config: Config, *, notifier: Notifier | None = None, new_game: bool = False,
                 on_frame: Callable[[Session, Any], None] | None = None, web: bool = False,
                 supervision: dict[str, Any] | None = None):
        """`supervision`: the supervisor's timings (backoff_initial, backoff_max,
        give_up_after), for tests that kill parts faster than a board would see."""
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
        # The link to another board, while a seat is played there (daemon/remote_part.py).
        self.remote_part = RemotePart(self)
        self.computer = None  # the ComputerSeat, when the computer plays a seat
        self._pool = None     # its worker process
        self._worker_problem: str | None = None  # why the worker died (set from any thread)
        self._web_problem: str | None = None     # why the page is not served
        self._web_starting: asyncio.Future | None = None
        self.supervisor = Supervisor(lambda: self.loop.time(), on_change=self._parts_changed,
                                     **(supervision or {}))
        self._supervise_handle: asyncio.TimerHandle | None = None
        self._withheld: str | None = None  # why the watchdog ping is withheld, once logged
        self.speech = None    # the voice (daemon/speech.py), when [voice] is enabled
        self._voice_missing: Problem | None = None   # why it could not open (espeak-ng missing)
        # The voice's settings: the config's [voice], or what the page changed of it (kept in
        # the journal: `kept.voice`). The daemon's alone; `set_voice` replaces it whole.
        self.voice = config.voice
        self._narrator = Narrator()  # what changed, in the sentences the voice says

    # --- running ------------------------------------------------------------------------------

    async def run(self) -> None:
        self.loop = loop = asyncio.get_running_loop()
        words.use(self.config.language)
        self.session = session = open_session(self.config, clock=loop.time, new_game=self.new_game)
        self._narrator.start(session.referee.moment(loop.time()))
        self.voice = kept.voice(self.config, session.journal)
        self._start_speech()
        self.door = Door(session, loop.time, after_change=self.show)
        self.door.host = self
        session.referee.listeners.append(self._referee_told)
        try:
            source = session.hardware.source
            source.start(self._from_thread)
            self.supervisor.add(Part("bridge" if self.config.backend == "bridge" else "sensors",
                                     check=source.health, restart=source.revive, critical=True))
            self.supervisor.add(journal_part(session.journal))   # (a commit that cannot be made)
            for name, button in session.hardware.buttons.items():
                button.when_pressed = lambda _d=None, n=name: loop.call_soon_threadsafe(self._press, n)
            # Events may have raced the start: take a fresh snapshot now that we listen.
            session.referee.resync(session.hardware.source.snapshot(), loop.time())
            self.show()
            for sig in (signal.SIGTERM, signal.SIGINT):
                try:
                    loop.add_signal_handler(sig, self.stop)
                except (NotImplementedError, RuntimeError):  # not the main thread (tests)
                    pass
            self.remote_part.start(session)
            self._start_computer(session)
            if self.web_enabled:
                self.supervisor.add(Part("page", check=self._page_problem,
                                         restart=self._restart_web))
                await self._start_web()
            self._supervise()
            self.started.set()
            self.update_watch = asyncio.ensure_future(watch_update(self))   # (update_part.py)
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
            await self.remote_part.stop()
        finally:
            self.notifier.stopping()
            if self._supervise_handle is not None:
                self._supervise_handle.cancel()
            if self._web_starting is not None:
                self._web_starting.cancel()
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
        """The voice, when [voice] is enabled (or --voice-dir), a part the supervisor owns: a
        board without espeak-ng referees on with its voice down (logged once, shown on the LEDs
        and the page like any part down), and tries again now and then."""
        if not self.voice.enabled or "voice" in self.supervisor.parts:
            return
        part = Part("voice", check=self._voice_problem, restart=self._open_voice)
        try:
            self._open_voice()
        except SpeechError:
            part.state, part.why = DOWN, self._voice_missing
        self.supervisor.add(part)

    def _open_voice(self) -> None:
        """Start the voice's worker, opening the engine first if it never opened (SpeechError
        while espeak-ng is missing). A voice that opens late says what happens from then on,
        not every move since the board started."""
        if self.speech is None:
            try:
                self.speech = open_speech(self.voice, self.config.language)
            except SpeechError as exc:
                self._voice_missing = Problem(str(exc), exc.kind)
                raise
            self._voice_missing = None
            moment = self.session.referee.moment(self.loop.time())
            self._narrator.start(moment)
            self._narrator(moment)
        self.speech.start()

    def _voice_problem(self) -> str | None:
        if self.speech is None:
            return self._voice_missing
        health = self.speech.health
        return Problem(health.removeprefix("down: "), kind_of(health)) \
            if health.startswith("down") else None

    def say(self, sentences) -> None:
        """Say sentences aloud (plain strings, already in the board's language, or narrator
        items): the hook for whatever has news for the players (a clock's warning, `repeat`).
        Never blocks; nothing happens when the voice is off."""
        if self.speech is not None and self.voice.enabled:
            self.speech.say([sentences] if isinstance(sentences, str) else sentences)

    # --- the voice's settings (the page, through the door) ---------------------------------------

    def voice_settings(self) -> dict:
        """The voice's settings as the page shows them, and whether it speaks now."""
        health = self.speech.health if self.speech is not None else (
            "off" if not self.voice.enabled else f"down: {self._voice_missing or 'not started'}")
        return {**voice_settings(self.voice), "health": health,
                "board_language": self.config.language}

    def set_voice(self, data: dict) -> None:
        """The page's changes to the voice (ConfigError naming the field; nothing changes
        then): kept in the journal first, then applied from the next sentence."""
        voice = voice_from_page(data, self.voice)
        self.session.journal.save_setting("voice", {"base": voice_settings(self.config.voice),
                                                    "values": voice_settings(voice)})
        self.voice = voice
        if self.speech is not None:
            self.speech.configure(voice, voice.language or self.config.language)
        elif voice.enabled:
            self._start_speech()   # (from now: not every move since the board started)
        else:
            self.supervisor.remove("voice")   # (one that never opened: no longer wanted)

    @property
    def remote(self):
        """The RemoteLink, while a seat is played from another board; else None."""
        return self.remote_part.link

    def join_remote(self, table: dict, seat: int | None) -> None:
        """Join a remote game from the page (RemotePart.join)."""
        self.remote_part.join(table, seat)

    async def leave_remote(self) -> None:
        """Leave the remote game (the page): both seats are played here again."""
        await self.remote_part.leave()

    def _start_computer(self, session: Session) -> None:
        from board_driver.referee.seats import computer_seats

        try:
            levels = computer_seats(session.referee.seats)
        except ValueError as exc:
            from board_driver.config import ConfigError
            raise ConfigError(self.config.path, "players",
                              str(exc).split("expected ", 1)[-1]) from None
        if not levels and self.config.moves != "best":
            return  # no computer seat, no hints: no worker (until the page asks for hints)
        self._ensure_computer(levels).poke()

    def in_worker(self, fn, *args) -> asyncio.Future:
        """`fn(*args)` in the computer's worker process (started now if not yet), awaitable on
        the loop: for searches the page asks for (a game review), off the loop and the GIL."""
        return asyncio.wrap_future(self._submit(fn, *args))

    def _worker(self):
        """The computer's worker pool, started (and put under supervision) at first need."""
        if self._pool is None:
            from board_driver.referee.seats import worker_pool

            self._pool = worker_pool()
            if "computer" not in self.supervisor.parts:
                self.supervisor.add(Part("computer", check=lambda: self._worker_problem,
                                         restart=self._restart_worker))
        return self._pool

    def _submit(self, fn, *args) -> Future:
        """`fn(*args)` in the worker. A dead worker (the OOM killer) gives a Future that failed
        with BrokenExecutor, never an exception here (this runs inside every redraw), and the
        supervisor is told: it starts a new worker and the computer asks again."""
        try:
            future = self._worker().submit(fn, *args)
        except (BrokenExecutor, RuntimeError) as exc:  # (RuntimeError: shut down)
            self._worker_died(exc)
            future = Future()
            future.set_exception(exc if isinstance(exc, BrokenExecutor) else BrokenExecutor(str(exc)))
            return future
        future.add_done_callback(self._check_worker)
        return future

    def _check_worker(self, future: Future) -> None:
        # (the executor's thread)
        if not future.cancelled() and isinstance(future.exception(), BrokenExecutor):
            self._worker_died(future.exception())

    def _worker_died(self, exc: BaseException) -> None:
        # Any thread: one attribute store, and the supervisor looks at once.
        self._worker_problem = Problem(f"its process died ({exc})", DIED)
        try:
            self.loop.call_soon_threadsafe(self._supervise)
        except RuntimeError:  # the loop is closed
            pass

    def _restart_worker(self) -> None:
        from board_driver.referee.seats import worker_pool

        old, self._pool = self._pool, worker_pool()
        if old is not None:
            old.shutdown(wait=False, cancel_futures=True)
        self._worker_problem = None
        if self.computer is not None:
            self.loop.call_soon(self.computer.retry)

    def _ensure_computer(self, levels: dict | None = None):
        """The computer's seat (for `levels`; none yet: hints), started when first needed."""
        if self.computer is None:
            from board_driver.referee.seats import ComputerSeat

            self.computer = ComputerSeat(self.session.referee, levels or {}, submit=self._submit,
                                         call_soon=self._from_worker, clock=self.loop.time,
                                         after_change=self.show,
                                         processes=self.config.search_processes())
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

    def _referee_told(self, what: str, _what: object, _origin: str) -> None:
        """The board's menu applied its choices: the computer's seat and hints follow."""
        if what in ("menu-applied", "taken-up"):
            self.seats_changed()
            if self.session.referee.settings.moves == "best":
                self.want_hints()

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
            # The board referees without its page (better than no board at all); the
            # supervisor logs this once and tries again with backoff (the port may free up).
            self._web_problem = (f"not served on {self.config.web_listen}:{self.config.web_port}: "
                                 f"{exc.strerror or exc} (another port: web.port in the config, "
                                 "or --web-port)")
            await web.stop()
            return
        self._web_problem = None
        self.web = web
        self._supervise()

    def _page_problem(self) -> str | None:
        if self.web is not None:
            problem = self.web.problem()
            return Problem(problem, DIED) if problem else None
        return self._web_problem or ("starting" if self._web_starting is not None else None)

    def _restart_web(self) -> None:
        if self._web_starting is not None and not self._web_starting.done():
            return  # a start is under way
        self._web_starting = asyncio.ensure_future(self._restart_web_now())

    async def _restart_web_now(self) -> None:
        web, self.web = self.web, None
        try:
            if web is not None:
                await web.stop()  # what is left of a server whose socket closed under it
            await self._start_web()
        except Exception as exc:  # (not a busy port, which _start_web says itself)
            self._web_problem = f"could not start: {type(exc).__name__}: {exc}"

    # --- the supervisor -------------------------------------------------------------------------

    def _supervise(self) -> None:
        """On the loop: the supervisor looks at every part (and restarts what is due); booked
        again when it next needs to look."""
        if self._supervise_handle is not None:
            self._supervise_handle.cancel()
        when = min(self.supervisor.poll(), self.loop.time() + 0.25)
        self._supervise_handle = self.loop.call_at(when, self._supervise)

    def _parts_changed(self) -> None:
        """A part changed state (logged by the supervisor): the board shows it, the page hears,
        systemd's status line says it."""
        words = self.supervisor.down_details()
        self.notifier.status(words or "every part is up")
        self.show()

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
        with words.speaking(self.voice.language or self.config.language):
            said = last_moves(self.session.referee.moment(self.loop.time()),
                              self.voice.repeat_moves)
        self.say(said)
        return [s.text for s in said]

    def _schedule_tick(self) -> None:
        referee = self.session.referee
        deadlines = [d for d in (referee.next_deadline(), referee.clock_deadline())
                     if d is not None]
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
            self.show()
        self._schedule_tick()

    def show(self) -> None:
        if self.computer is not None:
            self.computer.poke()  # after every change: its turn, with the board agreeing?
        now = self.loop.time()
        link = self.remote.shown_status if self.remote is not None else None
        referee = self.session.referee
        moment = referee.moment(now)   # one value: the LEDs, the voice and the sim draw it
        wake = referee.show(now, link, self.supervisor.troubled(), moment)
        if self.speech is not None:
            # (in the voice's language, by default the board's)
            with words.speaking(self.voice.language or self.config.language):
                said = self._narrator(moment)
                if self.remote is not None:
                    said += self._narrator.link(self.remote.summary())
                said += self._narrator.clock(moment)   # 1 minute, 10 seconds, flag
                # why the hinted move; a computer its time cap cut short
                said += self._narrator.hint(moment) + self._narrator.limited(moment)
                said += self._narrator.menu(moment)    # the menu's choices
                said += self._narrator.ending(moment)  # resigned, a draw, put away
            if said and self.voice.enabled:
                self.speech.say(said)
        if self.on_frame is not None:
            self.on_frame(self.session, moment)
        if self.web is not None:
            self.web.frame_shown()
        if self._show_handle is not None:
            self._show_handle.cancel()
            self._show_handle = None
        if wake is not None:
            self._show_handle = self.loop.call_at(wake, self.show)
        self._schedule_tick()   # (a clock may have started)

    # --- systemd watchdog -----------------------------------------------------------------------

    def healthy(self) -> bool:
        """Whether to send WATCHDOG=1. Asked on the loop, so a stalled loop sends nothing; a loop
        that is alive but no longer keeping its appointments (a sensor tick overdue by over a
        second) is not healthy either, nor is a board whose sensors stay down (the supervisor
        restarted their scan thread, callbacks or bridge link, and that did not bring them
        back): then systemd should restart us. The computer, the page and the remote link do
        not count: the board referees without them."""
        handle = self._tick_handle
        if handle is not None and self.loop.time() - handle.when() > 1.0:
            log.error("sensor processing is %.1f s late; withholding the watchdog ping",
                      self.loop.time() - handle.when())
            return False
        if not self.supervisor.watchdog_ok():
            why = self.supervisor.down_details()
            if why != self._withheld:  # once per change, not once per ping
                log.error("%s; withholding the watchdog ping", why)
                self._withheld = why
            return False
        if self._withheld is not None:
            log.warning("the board can referee again; the watchdog ping resumes")
            self._withheld = None
        return True


def run_daemon(config: Config, **kwargs) -> None:
    asyncio.run(Daemon(config, **kwargs).run())
