"""The players' clocks: time controls as chess players write them, and the two clocks of a game.

Pure and clock-injected like the referee (every call takes `now`); the referee owns the one
`Clocks` of the game in progress and decides when each runs (docs/board.md, "Clocks").

A time control, for one seat:

    none        no clock (the default of every game but Arbos)
    10          sudden death: 10 minutes for the whole game (decimals allowed: 0.5, 1.5)
    5+3         Fischer: 5 minutes, and 3 seconds added after each of the player's turns
    30s/move    a limit per turn: 30 seconds, afresh each turn, nothing carried over

Two controls separated by a comma give each seat its own (a handicap): `10,3+2` is 10 minutes
for the first player, 3 minutes plus 2 seconds a turn for the second. One control is both
seats'.

What running out means is the referee's: a bank (sudden death, Fischer) that runs out loses
the game; a per-turn limit that runs out is the game's pass where the game has one and it is
legal then (Arbos), and loses the game otherwise.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Sequence

from treeboard.exc import TreeboardError

#: The whole grammar, as a person reads it; every refusal quotes it.
GRAMMAR = ("none, minutes (10), minutes+seconds (5+3) or seconds a turn (30s/move); "
           "two of these separated by a comma give each seat its own (10,3+2)")

MAX_MINUTES = 600.0
EPSILON_S = 1e-6
MAX_INCREMENT_S = 600.0
MAX_PER_MOVE_S = 86_400.0

_NUMBER = r"(\d+(?:\.\d+)?|\.\d+)"
_BANK = re.compile(rf"^{_NUMBER}(?:\+{_NUMBER})?$")
_PER_MOVE = re.compile(rf"^{_NUMBER}\s*s?\s*/\s*move$")


class ClockError(TreeboardError, ValueError):
    """A time control that cannot be read; the message quotes it and says what was expected."""


@dataclass(frozen=True)
class TimeControl:
    """One seat's time control. `bank_s`: the game's time (None: no bank); `increment_s`:
    added after each of the player's turns; `per_move_s`: a limit per turn (None: none)."""

    bank_s: float | None = None
    increment_s: float = 0.0
    per_move_s: float | None = None

    @property
    def timed(self) -> bool:
        return self.bank_s is not None or self.per_move_s is not None

    @property
    def start_s(self) -> float | None:
        """What the clock shows at the game's start."""
        return self.bank_s if self.bank_s is not None else self.per_move_s

    def __str__(self) -> str:
        if self.per_move_s is not None:
            return f"{_num(self.per_move_s)}s/move"
        if self.bank_s is None:
            return "none"
        text = _num(self.bank_s / 60)
        return f"{text}+{_num(self.increment_s)}" if self.increment_s else text


NONE = TimeControl()


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def per_move(seconds: float) -> TimeControl:
    return TimeControl(per_move_s=float(seconds))


def parse_one(text: str) -> TimeControl:
    """One seat's control. Raises ClockError quoting `text`."""
    raw = text
    text = text.strip().lower()
    if text in ("none", "-", "0", ""):
        return NONE
    if (m := _PER_MOVE.match(text)) is not None:
        seconds = float(m.group(1))
        if not 1 <= seconds <= MAX_PER_MOVE_S:
            raise ClockError(f"time control {raw!r}: a turn's limit is 1 to {MAX_PER_MOVE_S:g} "
                             "seconds")
        return per_move(seconds)
    if (m := _BANK.match(text)) is not None:
        minutes = float(m.group(1))
        increment = float(m.group(2)) if m.group(2) is not None else 0.0
        if not 0 < minutes <= MAX_MINUTES:
            raise ClockError(f"time control {raw!r}: the minutes are above 0 and at most "
                             f"{MAX_MINUTES:g}")
        if not 0 <= increment <= MAX_INCREMENT_S:
            raise ClockError(f"time control {raw!r}: the seconds added a turn are 0 to "
                             f"{MAX_INCREMENT_S:g}")
        return TimeControl(bank_s=minutes * 60, increment_s=increment)
    raise ClockError(f"time control {raw[:40]!r}: expected {GRAMMAR}")


def parse_time_control(text: str) -> tuple[TimeControl, TimeControl]:
    """Both seats' controls from what a person wrote (`10`, `5+3`, `30s/move`, `10,3+2`).
    Raises ClockError quoting the text and the grammar."""
    if not isinstance(text, str):
        raise ClockError(f"time control {text!r}: expected text: {GRAMMAR}")
    parts = text.split(",")
    if len(parts) > 2:
        raise ClockError(f"time control {text[:40]!r}: at most two controls (one a seat); "
                         f"expected {GRAMMAR}")
    controls = [parse_one(p) for p in parts]
    return (controls[0], controls[-1])


def control_text(controls: Sequence[TimeControl]) -> str:
    """How the controls are written back (`parse_time_control` reads it again)."""
    a, b = (str(c) for c in controls)
    return a if a == b else f"{a},{b}"


class Clocks:
    """The two clocks of a game. At most one runs, from `since`; what it has used is charged
    when it stops (`stop`) or the turn changes (`new_turn`), so `left` is exact at any `now`
    without a write in between."""

    def __init__(self, controls: Sequence[TimeControl]):
        self.controls: tuple[TimeControl, TimeControl] = (controls[0], controls[1])
        self._left: list[float | None] = [c.start_s for c in self.controls]
        self.turn_of: int | None = None   # whose turn the clocks follow (None: no turn yet)
        self.running: int | None = None   # the seat whose clock runs now
        self._since = 0.0
        # The seat whose clock the present player paused while it is away (referee/absence.py):
        # it does not run until that player returns. Kept with the clocks: a restart keeps it.
        self.paused_for: int | None = None

    @property
    def timed(self) -> bool:
        return any(c.timed for c in self.controls)

    def left(self, seat: int, now: float) -> float | None:
        """Seconds left on `seat`'s clock at `now` (never below 0); None: no clock."""
        value = self._left[seat]
        if value is None:
            return None
        if self.running == seat:
            value -= max(0.0, now - self._since)
        # (at its deadline, since + left - since can come out a hair above 0 in floating point:
        # a microsecond is time up)
        return value if value > EPSILON_S else 0.0

    def left_ms(self, now: float) -> list[int | None]:
        """Both clocks in whole milliseconds (None: untimed seat); what `trace` prints."""
        out = []
        for seat in (0, 1):
            value = self.left(seat, now)
            out.append(None if value is None else int(math.floor(value * 1000 + 1e-6)))
        return out

    def stop(self, now: float) -> None:
        """Charge the running clock and stop it."""
        if self.running is not None and self._left[self.running] is not None:
            self._left[self.running] = self.left(self.running, now)
        self.running = None

    def run(self, seat: int | None, now: float) -> None:
        """Run `seat`'s clock from `now` (None: none runs); the one running before is charged."""
        if seat == self.running:
            return
        self.stop(now)
        if seat is not None and self._left[seat] is not None:
            self.running, self._since = seat, now

    def new_turn(self, seat: int, now: float, *, after_move: bool = True) -> None:
        """`seat`'s turn begins (the clocks stay stopped until `run`). The player whose turn
        ended gets its increment (not after a takeback: `after_move` False), or its per-turn
        limit back whole; `seat`'s per-turn limit starts afresh."""
        self.stop(now)
        ended = self.turn_of
        if ended is not None and ended != seat:
            control = self.controls[ended]
            if control.per_move_s is not None:
                self._left[ended] = control.per_move_s   # shown full while the other plays
            elif after_move and control.increment_s and self._left[ended] is not None:
                self._left[ended] += control.increment_s
        limit = self.controls[seat].per_move_s
        if limit is not None:
            self._left[seat] = limit
        self.turn_of = seat

    def deadline(self) -> float | None:
        """When the running clock reaches 0 (None: none runs)."""
        if self.running is None or self._left[self.running] is None:
            return None
        return self._since + self._left[self.running]

    def set_left(self, seat: int, seconds: float, now: float) -> None:
        """What another board says `seat`'s clock shows (remote play: the mover's board owns
        its clock)."""
        if self._left[seat] is None:
            return
        running = self.running == seat
        self.stop(now)
        self._left[seat] = max(0.0, float(seconds))
        if running:
            self.run(seat, now)

    # --- the journal's form -----------------------------------------------------------------

    def to_json(self, now: float) -> dict[str, Any]:
        out = {"control": control_text(self.controls), "left_ms": self.left_ms(now),
               "turn_of": self.turn_of}
        if self.paused_for is not None:
            out["paused_for"] = self.paused_for
        return out

    @classmethod
    def from_json(cls, data: Any, where: str = "journal") -> Clocks:
        """The clocks as saved (`to_json`), stopped. Raises ClockError naming `where`."""
        if not isinstance(data, dict) or not isinstance(data.get("left_ms"), list) \
                or len(data["left_ms"]) != 2:
            raise ClockError(f"{where}: clocks: expected an object with control, left_ms "
                             f"[ms, ms] and turn_of; got {str(data)[:80]}")
        clocks = cls(parse_time_control(data.get("control", "none")))
        for seat, ms in enumerate(data["left_ms"]):
            if clocks._left[seat] is None:
                continue
            if not isinstance(ms, (int, float)) or isinstance(ms, bool) or ms < 0:
                raise ClockError(f"{where}: clocks: left_ms[{seat}]: expected milliseconds "
                                 f"of 0 or more; got {ms!r}")
            clocks._left[seat] = ms / 1000
        turn = data.get("turn_of")
        clocks.turn_of = turn if turn in (0, 1) else None
        paused = data.get("paused_for")
        clocks.paused_for = paused if paused in (0, 1) and not isinstance(paused, bool) else None
        return clocks

