"""`treeboard trace FILE`: the board's whole pipeline, headless, on simulated hardware.

Each line of the file is a physical action (read by `actions.parse_action`, as the sim's typed
lines are):

    place SITE [KIND]   put a piece on a site (a classifying sensor needs its KIND; a site with
                        no sensor, such as a Treeblox cube above the board, is an entry)
    lift SITE           take the piece off
    tap SITE            a touch game (Game for the Trees): the wand tapped on a square
    hold SITE           the same, held (a hold only offers its move; a tap confirms it)
    press BUTTON        press and release a named button (Treeblox: end_turn)
    wait MS             let time pass (blinks, animations, nothing settles faster)
    resign [SEAT]       a seat played here resigns (default: the player to move, if played
                        here, else the one seat played here)
    draw [SEAT]         a seat played here offers a draw; `draw accept` / `draw refuse`
                        answers one (docs/board.md, "Ending and pausing a game")
    away                put the game away (a new game starts); `take up N` takes game N up
                        again; `waiting` lists the games put away
    # a comment         (blank lines too)

After each action, once the sensors have settled, one JSON line:
    {"action", "game": {the replay object}, "corrections": [sites], "leds": {site: [r, g, b]},
     "said": [what the action made the board say, as its voice says it]}
and in a timed game (`--time-control`, or Arbos's own 300 s a turn) `"clocks": [ms, ms]`, the
time left for players 0 and 1 (null for an untimed seat). A `wait` steps through the moment a
clock runs out, so a flag falls (or a turn passes) at its exact millisecond.

Actions go through the real gpiozero mock pins (and a matrix scan, an ADC read) and the
LED colours are read back from the recording PixelBuf strip: a trace is how bugs get
reported, and how the pipeline is tested end to end. Time is simulated: a trace of a whole
game runs in a fraction of a second and always gives the same output.

On a bridge layout (sensors on a microcontroller) the actions go to the firmware's own
controller, which scans (through the simulated shift-register chain where the layout has one)
and debounces them, and the host's own link hears its frames and sends the LED updates, on the
same simulated clock (firmware_bridge/lockstep.py); each line's LEDs are on the firmware's
strip before its record is printed.
"""

from __future__ import annotations

import dataclasses

import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Iterable, Iterator

import games
from board_driver.config import Config
from board_driver.referee.actions import ActionError, act, cut, describe_error, parse_action
from board_driver.referee.door import Door
from board_driver.referee.session import load_board_layout, open_session
from board_driver.views import words
from board_driver.views.narrate import Narrator


class TraceError(ActionError):
    """A line of a trace that is not an action, or one the board refused; names the line."""


class SimClock:
    """Simulated time: starts at 1000 s and moves only when told."""

    def __init__(self, start: float = 1000.0):
        self.now = start

    def __call__(self) -> float:
        return self.now


class TraceLines:
    """The lines of a trace file (``-``: standard input, first copied to a temporary file),
    decoded as UTF-8 and read anew each time they are iterated: `run_trace` checks every line,
    then plays them, holding one line at a time (a million-action trace runs in bounded
    memory). Iterating raises TraceError naming the file and the line of a byte that is not
    UTF-8; opening raises OSError when the file cannot be read."""

    def __init__(self, path: str, stdin=None):
        self.name = "<stdin>" if path == "-" else path
        if path == "-":
            self._file = tempfile.TemporaryFile()
            shutil.copyfileobj((stdin or sys.stdin).buffer, self._file)
        else:
            self._file = open(path, "rb")

    def __iter__(self) -> Iterator[str]:
        self._file.seek(0)
        for number, raw in enumerate(self._file, 1):
            try:
                yield raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as exc:
                raise TraceError(f"{self.name}: line {number}: not UTF-8 text "
                                 f"(byte 0x{raw[exc.start]:02x} at column {exc.start + 1})") from None

    def close(self) -> None:
        self._file.close()


def read_lines(path: str, stdin=None) -> TraceLines:
    """The lines of a trace file (``-``: standard input), as `TraceLines`."""
    return TraceLines(path, stdin)


class Tracer:
    """A simulated board driven by actions; `step` returns the JSON-able record of one."""

    def __init__(self, config: Config, *, new_game: bool = True):
        # new_game=False resumes the journal's game (a restart after a power cut, in tests).
        self.clock = SimClock()
        self._tmp = None
        words.use(config.language)   # what the board says: the config's or --language
        if load_board_layout(config).bridge is not None:
            # The firmware and the host link in lockstep on self.clock, not on a pty in real time.
            from firmware_bridge.board import LOCKSTEP

            config = dataclasses.replace(config, backend="bridge", bridge_port=LOCKSTEP)
        temporary = config.journal == ":temporary:"
        if temporary:
            self._tmp = tempfile.TemporaryDirectory(prefix="treeboard-trace-")
            config = dataclasses.replace(config,
                                         journal=str(Path(self._tmp.name) / "journal.sqlite"))
        self.session = open_session(config, clock=self.clock, autoscan=False, new_game=new_game)
        if temporary:
            # A journal deleted when the trace ends needs no fsync per move (which was most of
            # a long trace's time).
            self.session.journal.durable(False)
        self.referee = self.session.referee
        self.door = Door(self.session, self.clock)   # how the actions reach the game
        self.board = self.session.hardware.board
        self.session.hardware.source.start(self.referee.feed)
        for name, button in self.session.hardware.buttons.items():
            button.when_pressed = lambda _b=None, n=name: self.door.button(n)
        self.referee.show(self.clock())
        self.narrator = Narrator()   # what each action makes the board say
        self.narrator.start(self.referee.moment(self.clock()))

    def close(self) -> None:
        self.session.close()
        if self._tmp is not None:
            self._tmp.cleanup()

    def settle(self) -> None:
        """Scan until the sensors report nothing new and every change has settled."""
        self.board.scan_once()
        while (deadline := self.referee.next_deadline()) is not None:
            self._advance(max(self.clock.now, deadline) + 0.0005)
            self.board.scan_once()
            self.referee.tick(self.clock.now)

    def run_until(self, when: float) -> None:
        """Simulated time passes to `when` as a hand's timing needs it: the referee decides
        each change that settles on the way, at its own moment (a bridge board's firmware
        scans through it). The misplay tests put pieces down and lift them between calls."""
        while (due := self.referee.next_deadline()) is not None and due < when:
            self._advance(max(self.clock.now, due) + 0.0005)   # (as settle steps)
            self.referee.tick(self.clock.now)
        self._advance(when)

    def _advance(self, t: float) -> None:
        """Simulated time passes to `t`; a bridge board's firmware and link run through it."""
        run = getattr(self.board, "run_until", None)
        if run is not None:
            run(t)
        self.clock.now = max(self.clock.now, t)

    def moment(self):
        """The referee's moment now (what the board shows, frozen)."""
        return self.referee.moment(self.clock.now)

    def step(self, verb: str, args: list[str]) -> dict:
        ref = self.referee
        if verb == "wait":
            end = self.clock.now + float(args[0]) / 1000
            # Blinks and animations are functions of the time alone, so a wait draws only its
            # last frame (drawing each blink of an hour's wait cost minutes and gigabytes).
            # What can change the game on the way is a sensor change settling: step to those.
            # And a clock that runs out on the way: the pass or the flag at its very moment.
            last = None
            while (deadline := _earliest(ref.next_deadline(), ref.flag_deadline(),
                                         ref.menu.deadline())) is not None \
                    and deadline <= end:
                if deadline == last:   # nothing came of it: never step in place
                    deadline += 1e-6
                last = deadline
                self._advance(deadline)
                self.board.scan_once()
                ref.tick(self.clock.now)
                if self.clock.now >= end:
                    break
            self._advance(end)
        else:
            act(self.door, verb, args)
        self.settle()
        ref.tick(self.clock.now)   # a turn whose time ran out (the wait's end) is a pass
        moment = ref.moment(self.clock.now)   # what the LEDs, the words and the record show
        ref.show(self.clock.now, moment=moment)
        flush = getattr(self.board, "flush", None)
        if flush is not None:
            flush()  # a bridge: the frame on the firmware's strip, as the record says
        record = {
            "action": " ".join([verb, *args]),
            "game": ref.state.summary(),
            "corrections": [c.site for c in ref.corrections],
            "leds": ref.site_colours(),
            # (and the clocks' warnings and flag, which the daemon says too)
            "said": [said.spoken for said in self.narrator(moment) + self.narrator.clock(moment)
                     + self.narrator.hint(moment) + self.narrator.menu(moment)
                     + self.narrator.ending(moment)],
        }
        if moment.menu is not None:
            record["menu"] = dict(moment.menu.chosen)   # the menu is open: what is chosen
        if ref.clocks.timed:
            record["clocks"] = ref.clocks.left_ms(self.clock.now)
            if ref.flagged is not None:
                record["flag"] = ref.flagged
        if ref.endings.ended is not None:
            record["ended"] = dict(ref.endings.ended)   # resigned, or a draw agreed
        return record


def _earliest(*times: float | None) -> float | None:
    found = [t for t in times if t is not None]
    return min(found) if found else None


def run_trace(lines: Iterable[str], config: Config, source: str = "<trace>") -> Iterator[dict]:
    """Parse every line first (a bad trace fails before anything runs), then play them:
    `lines` is iterated twice (a list, or `TraceLines` reading its file again), and only one
    line is held at a time.

    A TraceError names `source` (the trace's file) and the line."""
    for number, line in enumerate(lines, 1):
        try:
            parse_action(line)
        except ActionError as exc:
            raise TraceError(f"{source}: line {number}: {exc}") from None
    tracer = Tracer(config)
    try:
        for number, line in enumerate(lines, 1):
            action = parse_action(line)
            if action is None:
                continue
            verb, args = action
            try:
                yield tracer.step(verb, args)
            except (games.IllegalMove, ValueError, KeyError) as exc:
                # The action itself goes in the message: "no legal move puts that piece there"
                # alone loses which piece and where.
                action = cut(" ".join([verb, *args]), 80)
                raise TraceError(f"{source}: line {number} ({action}): {describe_error(exc)}") from exc
    finally:
        tracer.close()


def print_trace(lines: Iterable[str], config: Config, source: str = "<trace>",
                speech=None) -> None:
    """Print each record; `speech` (the daemon's Speech, writing WAVs) says what it said."""
    for record in run_trace(lines, config, source):
        if speech is not None:
            speech.say(record["said"])
            speech.flush()
        print(json.dumps(record, ensure_ascii=False), flush=True)
