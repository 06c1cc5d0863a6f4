"""Typed hands for `selftest --sim` and `map --sim`: the maker types the sim's actions (`place
h0.0`, `lift h0.0`, `place a1 dark-leaf`, `press end_turn`, `wait 500`; read by the one parser,
board_driver/referee/actions.py's `parse_action`) and they move the simulated pieces, so the
tools can be rehearsed before a board exists, or driven from a file:

    printf 'place h0.0\\nlift h0.0\\n' | treeboard map --sim --output my.toml

A reader thread takes the lines as they come (a terminal, or a pipe read at once); the tool's
polls take one action at a time, each after the tool has seen the one before settle (the
layout's debounce and a little more, then one more poll), so a piped script is done as if typed
by hand, however late the polls come. When the input ends and
every action is done, the tool stops (`maker.HandsStopped`), as on Ctrl-C: map writes nothing
unless every site was done.
"""

from __future__ import annotations

import queue
import sys
import threading
from typing import TextIO

from board_driver.cli.maker import HandsStopped, Step
from board_driver.referee.actions import ActionError, parse_action

#: After an action, the next waits the layout's debounce and this much more.
SETTLE_EXTRA_S = 0.05
#: The phases in which the hands act (not while selftest asks for an empty board).
ACTING = ("listen", "place", "lift")
HINT = ("type the sim's actions to move the simulated pieces: place SITE [KIND], lift SITE, "
        "press BUTTON, wait MS; end of input (Ctrl-D) stops")
_END = object()


class TypedHands:
    """The `hands` hook of selftest and map, fed by lines of text (`lines`: a file, or any
    iterable of lines) on a thread of its own; refusals go to `err`, and with `echo` each
    action done is said on `out` (for input that is not typed at a terminal)."""

    def __init__(self, lines, *, out: TextIO | None = None, err: TextIO | None = None,
                 echo: bool = False):
        self.out, self.err, self.echo = out or sys.stdout, err or sys.stderr, echo
        self._lines: queue.Queue = queue.Queue()
        self._next_at: float | None = None
        self._ended = False
        threading.Thread(target=self._read, args=(lines,), name="typed-hands", daemon=True).start()

    def _read(self, lines) -> None:
        try:
            for line in lines:
                self._lines.put(line)
        except (OSError, ValueError):   # no input to read (closed, or none given)
            pass
        finally:
            self._lines.put(_END)

    def __call__(self, step: Step) -> None:
        if step.phase not in ACTING:
            return
        if self._next_at is not None:
            # The last action settles by `_next_at`; the tool's poll that reaches it takes the
            # change (the hands act before its scan), and the next action waits for the poll
            # after: a stalled loop must not do two actions between two of the tool's looks.
            if step.now >= self._next_at - 1e-9:
                self._next_at = None
            return
        while True:
            if self._ended:
                raise HandsStopped("the typed actions ended")
            try:
                line = self._lines.get_nowait()
            except queue.Empty:
                return
            if line is _END:
                self._ended = True
                continue
            if self._do(line, step):
                return

    def _do(self, line: str, step: Step) -> bool:
        """Do one line's action; False when the line did nothing (blank, or refused)."""
        board = step.hardware.board
        try:
            action = parse_action(line)
            if action is None:
                return False
            verb, args = action
            if verb == "wait":
                self._next_at = step.now + float(args[0]) / 1000
            elif verb == "place":
                board.place(args[0], args[1] if len(args) > 1 else None)
            elif verb == "lift":
                board.lift(args[0])
            elif verb == "press":
                board.press(args[0])
                board.release(args[0])
            else:
                raise ActionError(f"{verb} is a touch game's gesture on the sim; here say place "
                                  f"and lift")
        except (ActionError, ValueError, KeyError) as exc:
            message = exc.args[0] if exc.args else type(exc).__name__
            print(f"  {line.strip()}: {message}", file=self.err, flush=True)
            return False
        if self.echo:
            print(f"> {action}", file=self.out, flush=True)
        if verb != "wait":
            self._next_at = step.now + board.layout.debounce_s + SETTLE_EXTRA_S
        return True


def typed_hands(stream: TextIO | None = None, *, out: TextIO | None = None,
                err: TextIO | None = None) -> TypedHands:
    """Hands from `stream` (stdin by default), echoing the actions when it is no terminal, and
    the hint said first."""
    stream = stream if stream is not None else sys.stdin
    out = out or sys.stdout
    try:
        tty = stream.isatty()
    except (OSError, ValueError, AttributeError):
        tty = False
    print(HINT, file=out, flush=True)
    return TypedHands(stream, out=out, err=err, echo=not tty)
