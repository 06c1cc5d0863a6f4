"""The supervisor: one mechanism owning every part of the daemon that can die.

A part is anything with a thread, a process or a connection of its own: the sensor source (its
scan thread, gpiozero's edge callbacks, or the bridge's link thread), the computer's worker
process, the remote link's task, the page's server. Each is given to the supervisor as a
`Part`: a `check()` that says why it is not working (None while it works) and a `restart()`.

The supervisor polls every part on the daemon's loop (`poll`, a few times a second), and also
hears of a death the moment someone meets it (`report`, e.g. a `BrokenProcessPool` from the
computer's worker). Each part is in one state:

- **up**: it works;
- **restarting**: it stopped working; it is restarted at once, then again with a growing
  backoff (`backoff_initial` doubling up to `backoff_max`) while it stays broken;
- **down**: `give_up_after` restarts did not bring it back (or it cannot be restarted: a
  config that names a missing file), or it was down from the start (a part `add`ed down: the
  voice with espeak-ng missing). It is still retried every `backoff_max` seconds, since a
  cable may come back.

Every change of state is logged once (not once per poll), and `on_change` is told, so the
daemon redraws: the LEDs show a part that is not up (`views.frame`), the page's JSON carries
`summary()`. The watchdog is withheld (`watchdog_ok`) only while a *critical* part (one the
board cannot referee without: its sensors) is down.

Synchronous, on the loop, with an injected clock: tests drive it step by step.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any, Callable

from board_driver.views.words import N_, tr
from hardware.base import DIED, INCOMPATIBLE, MISSING, SILENT, Problem, kind_of

log = logging.getLogger("treeboard.supervisor")

UP, RESTARTING, DOWN = "up", "restarting", "down"
#: The parts and their states as the page names them (`down_words`).
PART_WORDS = {"sensors": N_("sensors"), "bridge": N_("bridge"), "page": N_("page"),
              "voice": N_("voice"), "remote link": N_("remote link"),
              "computer": N_("computer"), "update": N_("update"), "journal": N_("journal")}
STATE_WORDS = {UP: N_("up"), RESTARTING: N_("restarting"), DOWN: N_("down")}
#: A part's trouble in a few words, where its check knows what kind it is (`hardware.base.
#: Problem`): what the board and the page's line say. The check's own sentence (the program's
#: English, with its details) stays in the log and in the page's details (`summary()`'s why).
TROUBLE_WORDS = {MISSING: N_("device missing"), SILENT: N_("no answer"),
                 DIED: N_("stopped working"), INCOMPATIBLE: N_("firmware to update")}


def journal_part(journal: Any) -> "Part":
    """The journal's writer as a part: down while a move lit ahead of its commit cannot be
    written (a full or failing card: `Journal.unwritten`), so the board says so rather than
    play on with a journal that keeps nothing; its restart tries the write again (`flush`
    raises while it still cannot be written). Not critical: the pieces still hold the game."""
    return Part("journal", check=lambda: journal.unwritten, restart=journal.flush)


@dataclass
class Part:
    """One part the supervisor owns. `check()` returns why it does not work (None: it works);
    `restart()` tries to bring it back (raising says why it could not, and counts as a failed
    restart). `critical`: the board cannot referee without it."""
    name: str
    check: Callable[[], str | None]
    restart: Callable[[], Any]
    critical: bool = False
    state: str = UP
    why: str | None = None
    since: float = 0.0          # when it entered its state
    restarts: int = 0           # restarts since it last worked
    total_restarts: int = 0     # restarts since the daemon started
    next_try: float | None = None
    reported: str | None = field(default=None, repr=False)  # a death someone met, till polled

    def summary(self, now: float) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "state": self.state,
                               "critical": self.critical, "since_s": round(now - self.since, 1),
                               "restarts": self.total_restarts}
        if self.why is not None:
            out["why"] = str(self.why)
            out["trouble"] = kind_of(self.why)   # (TROUBLE_WORDS' key, or None)
        return out


class Supervisor:
    def __init__(self, clock: Callable[[], float], *, on_change: Callable[[], None] = lambda: None,
                 backoff_initial: float = 0.5, backoff_max: float = 30.0, give_up_after: int = 4):
        self.clock = clock
        self.on_change = on_change
        self.backoff_initial = backoff_initial
        self.backoff_max = backoff_max
        self.give_up_after = give_up_after
        self.parts: dict[str, Part] = {}

    def add(self, part: Part) -> Part:
        """Watch `part` (shown from the daemon's next redraw). One added DOWN (with its `why`)
        could not even start: logged once, and tried again as a part that restarts did not
        bring back is."""
        if part.name in self.parts:
            raise ValueError(f"a part named {part.name!r} is supervised already")
        part.since = self.clock()
        self.parts[part.name] = part
        if part.state == DOWN:
            log.error("%s is down: %s (still trying every %g s)", part.name, part.why,
                      self.backoff_max)
            part.restarts = self.give_up_after
            part.next_try = part.since + self.backoff_max
        return part

    def remove(self, name: str) -> None:
        """A part that is no longer wanted (the remote game was left): no longer watched."""
        if self.parts.pop(name, None) is not None:
            self.on_change()

    def report(self, name: str, why: str) -> None:
        """Someone met the part dead (any thread: only a single attribute store). The next
        `poll` restarts it, even if its `check` cannot tell."""
        part = self.parts.get(name)
        if part is not None:
            part.reported = why

    # --- on the loop

    def poll(self) -> float:
        """Check every part, restart what is due. Returns the next time a restart is due (or
        in a second, to look again)."""
        now = self.clock()
        changed = False
        for part in list(self.parts.values()):
            changed |= self._poll_part(part, now)
        if changed:
            self.on_change()
        due = [p.next_try for p in self.parts.values() if p.state != UP and p.next_try is not None]
        return min([now + 1.0, *due])

    def _poll_part(self, part: Part, now: float) -> bool:
        reported, part.reported = part.reported, None
        try:
            problem = part.check()
        except Exception as exc:  # a check that cannot even say is a problem of its own
            problem = f"its health check failed ({type(exc).__name__}: {exc})"
        if problem is None and reported is not None and part.state == UP:
            problem = reported
        if problem is None:
            if part.state == UP:
                return False
            log.warning("%s is up again (after %d restart%s, %.1f s)", part.name, part.restarts,
                        "" if part.restarts == 1 else "s", now - part.since)
            self._enter(part, UP, None, now)
            part.restarts = 0
            part.next_try = None
            return True
        changed = False
        if part.state == UP:
            log.error("%s stopped: %s; restarting it", part.name, problem)
            self._enter(part, RESTARTING, problem, now)
            part.next_try = now
            changed = True
        elif problem != part.why and part.state == RESTARTING:
            part.why = problem  # (what it says now; logged when it changes state)
            changed = True
        if part.next_try is not None and now >= part.next_try:
            if part.state == RESTARTING and part.restarts >= self.give_up_after:
                log.error("%s is down: %s (%d restarts did not bring it back; still trying "
                          "every %g s)", part.name, problem, part.restarts, self.backoff_max)
                self._enter(part, DOWN, problem, now)
                changed = True
            part.restarts += 1
            part.total_restarts += 1
            try:
                part.restart()
            except Exception as exc:
                why = Problem(f"{problem}; restart failed: {type(exc).__name__}: {exc}",
                              kind_of(problem))
                log.debug("%s: %s", part.name, why)
                if why != part.why:
                    part.why = why
                    changed = True
            delay = self.backoff_initial * 2 ** (part.restarts - 1)
            part.next_try = now + min(delay, self.backoff_max)
        return changed

    @staticmethod
    def _enter(part: Part, state: str, why: str | None, now: float) -> None:
        part.state, part.why, part.since = state, why, now

    # --- what the others read

    def troubled(self) -> str | None:
        """"critical" when a part the board cannot referee without is not up, "part" when
        another part is not up, None when every part works: what the LEDs show."""
        states = [p for p in self.parts.values() if p.state != UP]
        if not states:
            return None
        return "critical" if any(p.critical for p in states) else "part"

    def watchdog_ok(self) -> bool:
        """False while a part the board cannot referee without is down (restarts did not help):
        then systemd restarting the whole daemon is the next thing to try."""
        return not any(p.critical and p.state == DOWN for p in self.parts.values())

    def summary(self) -> list[dict[str, Any]]:
        """Every part: name, state, why (when not up), critical, restarts so far, and how long
        ago (seconds) it entered its state."""
        now = self.clock()
        return [p.summary(now) for p in self.parts.values()]

    def down_words(self) -> str | None:
        """One sentence for a person, in the reader's language: what does not work, and why in
        a few words where the part knows ("sensors restarting: no answer"; None: everything
        works). The program's own reason stays in the log and `summary()` (the page's
        details)."""
        bad = [p for p in self.parts.values() if p.state != UP]
        if not bad:
            return None

        def said(p: Part) -> str:
            part = tr(PART_WORDS.get(p.name, p.name))
            state = tr(STATE_WORDS.get(p.state, p.state))
            trouble = TROUBLE_WORDS.get(kind_of(p.why))
            if trouble is None:
                return tr("{part} {state}").format(part=part, state=state)
            return tr("{part} {state}: {why}").format(part=part, state=state, why=tr(trouble))

        return tr("; ").join(said(p) for p in bad)

    def down_details(self) -> str | None:
        """The same for the log and systemd's status line: in English, with each part's own
        reason ("computer down: its process died (...)"; None: everything works)."""
        bad = [p for p in self.parts.values() if p.state != UP]
        return "; ".join(f"{p.name} {p.state}: {p.why}" for p in bad) if bad else None
