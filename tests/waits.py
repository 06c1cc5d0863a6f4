"""How long a test waits for what it started (a sim, a daemon, a broker, a browser, a worker
process, a thread): until it is ready, polled, with a deadline that stretches with the machine's
load. Never a fixed sleep, and never a deadline that fails a test because the machine is busy.

A deadline here only says when to stop waiting for something that is not coming; it claims
nothing about speed (a number we claim comes from `benchmarks/`). On a busy machine (two cores
at load 10, a Pi installing its updates just after boot) everything a test starts runs several
times slower, so every deadline is multiplied by `slowdown()`: `TREEBOARD_TEST_SLOWDOWN` when it
is set, otherwise the load per core, never below 1, read again each time a wait looks at its
deadline (the busiest it has been during the wait stretches it).

    from tests.waits import scaled, wait_for, until
    subprocess.run(cmd, timeout=scaled(60))
    wait_for(lambda: sim.ready(), 15, "the page to come up")      # in a thread
    await until(lambda: daemon.web is not None, 10, "the page")    # on a loop
"""

from __future__ import annotations

import asyncio
import os
import time
from typing import Any, Callable

#: Set to a number to stretch every deadline by that much (a slow board, an emulator).
SLOWDOWN = "TREEBOARD_TEST_SLOWDOWN"


def slowdown() -> float:
    """How many times slower than an idle machine this one runs now (1 at the least)."""
    forced = os.environ.get(SLOWDOWN)
    if forced:
        try:
            return max(1.0, float(forced))
        except ValueError:
            raise ValueError(f"{SLOWDOWN}: expected a number (how many times slower), "
                             f"got {forced!r}") from None
    try:
        load = os.getloadavg()[0]
    except OSError:   # no load average on this system
        return 1.0
    try:
        cores = len(os.sched_getaffinity(0))   # (the cores this process may run on)
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(1.0, load / cores)


def scaled(seconds: float) -> float:
    """A deadline of `seconds` on an idle machine, stretched for this one as it is now."""
    return seconds * slowdown()


def ms(seconds: float) -> float:
    """`scaled(seconds)` in milliseconds: Playwright's timeouts."""
    return scaled(seconds) * 1000


class Deadline:
    """`seconds` from now on an idle machine; on a busy one, stretched by the busiest the
    machine has been since (a wait that began on an idle machine still stretches, and one that
    began on a busy machine keeps what the load cost it)."""

    def __init__(self, seconds: float):
        self.seconds = seconds
        self.start = time.monotonic()
        self.factor = slowdown()

    def waited(self) -> float:
        return time.monotonic() - self.start

    def left(self) -> float:
        self.factor = max(self.factor, slowdown())
        return max(0.0, self.seconds * self.factor - self.waited())

    def passed(self) -> bool:
        return self.left() == 0.0

    def failure(self, what: Any) -> AssertionError:
        return AssertionError(f"timed out after {self.waited():.1f} s (the deadline: "
                              f"{self.seconds:g} s on an idle machine, x{self.factor:.1f} for "
                              f"its load) waiting for {what}")

    def look(self, condition: Callable[[], Any], what: Any = None) -> Any:
        """`condition()`'s value when it is true, None while there is time left; fails once
        the deadline has passed."""
        value = condition()
        if value:
            return value
        if self.passed():
            raise self.failure(what or condition)
        return None


def wait_for(condition: Callable[[], Any], timeout: float = 5.0, what: Any = None,
             interval: float = 0.005) -> Any:
    """Poll `condition` until it is true and return its value; fail once `timeout` seconds
    (scaled) have passed without it."""
    deadline = Deadline(timeout)
    while not (value := deadline.look(condition, what)):
        time.sleep(interval)
    return value


async def until(condition: Callable[[], Any], timeout: float = 10.0, what: Any = None,
                interval: float = 0.01) -> Any:
    """`wait_for` on an event loop: the loop runs on while the condition is polled."""
    deadline = Deadline(timeout)
    while not (value := deadline.look(condition, what)):
        await asyncio.sleep(interval)
    return value


async def within(awaitable, timeout: float, what: Any = None):
    """`asyncio.wait_for` with a scaled deadline, whose failure says what it waited for."""
    deadline = Deadline(timeout)
    try:
        return await asyncio.wait_for(awaitable, scaled(timeout))
    except asyncio.TimeoutError:
        raise deadline.failure(what or awaitable) from None
