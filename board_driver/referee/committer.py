"""The journal's writer: one thread that owns the journal's SQLite connection and runs every
write and read on it, in the order they were handed in.

Why a thread: a commit with `synchronous=FULL` waits for an fsync, a fraction of a millisecond
on this machine's disk but several to tens of milliseconds on a Pi's microSD card, with spikes
past 100 ms. A move made with pieces on the board is itself recorded by the pieces (after a
power cut the referee adopts what the sensors show, as at any start: session.open_session's
resync), so the LEDs may confirm it while its commit is still under way (`post`). Everything
else waits for its commit before it is shown or acknowledged (`call`): a move of the computer,
a remote board or the page, a takeback, a new game, a setting.

One owner: after `start`, only the writer thread touches the connection. The queue is FIFO, so
a record posted before a call is on disk before that call returns (a durable barrier for
everything before it), and a read sees every write handed in before it. The queue is bounded:
a storage slower than the moves for long blocks the poster (the board slows down to the card's
pace) rather than holding an unbounded list of moves in memory or dropping one.

A job that raises hands its exception to whoever called (`call`); a posted job that fails is
logged (the move stays on the board and in the game; the pieces still record it) and counted
in `failed`. The thread survives every job's exception, so it dies only with the process.
"""

from __future__ import annotations

import atexit
import logging
import queue
import threading
from concurrent.futures import Future
from typing import Any, Callable

from treeboard.exc import TreeboardError

log = logging.getLogger("treeboard.journal")

#: How many records may wait for the card at once before a poster waits (a move a second for
#: a minute and a half of a card that stopped answering: far more than a spike).
QUEUE_BOUND = 100

_STOP = object()


class Unwritten(TreeboardError, RuntimeError):
    """A record posted ahead of its commit could not be written, and still cannot (raised to
    whoever hands in the next record; committer.py). The journal wraps it in JournalError."""


class Committer:
    def __init__(self, name: str, bound: int = QUEUE_BOUND):
        self._jobs: queue.Queue = queue.Queue(maxsize=bound)
        self._thread = threading.Thread(target=self._run, name=f"journal {name}", daemon=True)
        # A posted record whose commit failed, tried again before each later job (the
        # writer's alone): nothing later is written until it is, so the journal never holds a
        # move after a gap. `unwritten` (read from any thread) says whether one waits.
        self._failed_job: Callable[[], Any] | None = None
        self.unwritten: str | None = None   # why, while a posted record is not written
        self.failed = 0                     # posted records that failed (logged)

    def start(self) -> None:
        self._thread.start()
        # A process that ends without closing its journal still writes what it posted
        # (atexit runs before the interpreter stops its daemon threads).
        atexit.register(self.stop)

    @property
    def pending(self) -> int:
        """How many jobs wait for the writer (approximate: another thread may add one)."""
        return self._jobs.qsize()

    def is_writer(self) -> bool:
        """Whether this is the writer thread (a job calling back into the journal)."""
        return threading.current_thread() is self._thread

    def call(self, job: Callable[[], Any]) -> Any:
        """Run `job` on the writer after everything handed in before it; return its result (or
        raise its exception) once it has run: its commit, and every earlier one, is on disk.
        Raises Unwritten, and runs nothing, while a posted record still cannot be written."""
        if self.is_writer():
            return job()   # (a job that calls back into the journal: already in order)
        future: Future = Future()
        self._jobs.put((job, future))
        return future.result()

    def post(self, job: Callable[[], Any]) -> threading.Event:
        """Hand `job` to the writer and return at once; it runs after everything handed in
        before it. Blocks only while QUEUE_BOUND jobs already wait. Returns an event set once
        the job has run (or failed: then `unwritten` says why, and it is tried again first
        thing before every later job)."""
        done = threading.Event()
        self._jobs.put((job, done))
        return done

    def flush(self) -> None:
        """Wait until everything handed in so far has run (and so is on disk)."""
        self.call(lambda: None)

    def stop(self) -> None:
        """Run what is queued, then end the thread (idempotent)."""
        atexit.unregister(self.stop)
        if self._thread.is_alive():
            self._jobs.put((_STOP, None))   # (after every job queued: FIFO)
            self._thread.join()

    def _run(self) -> None:
        while True:
            job, done = self._jobs.get()
            if job is _STOP:
                return
            try:
                if self._failed_job is not None:
                    self._failed_job()   # the gap first: raises while it cannot be written
                    self._failed_job, self.unwritten = None, None
                    log.warning("journal: the record that had failed is written now")
                result = job()
            except BaseException as exc:  # (the thread must outlive any job)
                if isinstance(done, Future):
                    done.set_exception(Unwritten(self.unwritten) if self._failed_job is not None
                                       and self.unwritten else exc)
                elif done is not None:
                    if self._failed_job is None:
                        self._failed_job = job
                        self.unwritten = f"{type(exc).__name__}: {exc}"
                        self.failed += 1
                        log.error("journal: a move lit ahead of its commit could not be "
                                  "written (%s); the pieces on the board still hold it, it is "
                                  "tried again before the next record, and a restart adopts "
                                  "it from the sensors", self.unwritten)
                    done.set()
                continue
            if isinstance(done, Future):
                done.set_result(result)
            elif done is not None:
                done.set()
