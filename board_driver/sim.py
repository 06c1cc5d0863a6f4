"""`treeboard sim`: the daemon on simulated hardware, played from the terminal.

The daemon is the real one (asyncio loop, debounce on a real clock, matrix scan thread on
gpiozero mock pins, the recording NeoPixel strip); you are the hands. Type actions as in a
trace file (`place h0.0`, `lift h0.0`, `press end_turn`, `place b2+1 dark-leaf`), `help`, or
`quit`. The board is drawn with the LED colours after every change.
"""

from __future__ import annotations

import asyncio
import sys
import threading
from typing import TextIO

from board_driver.config import Config
from board_driver.daemon import Daemon
from board_driver.session import Session
from board_driver.trace import act, parse_action
from board_driver import views

HELP = "actions: place SITE [KIND] | lift SITE | press BUTTON | show | help | quit"


def game_help(game_name: str) -> str:
    """The actions, then the game's own help (its sites and entries), from its view module."""
    own = getattr(views.view_of(game_name), "HELP", "")
    return f"{HELP}\n{own}" if own else HELP


class Terminal:
    """Draws the board when the game or the corrections change (not on every blink)."""

    def __init__(self, out: TextIO):
        self.out = out
        self.paint = views.Paint.for_stream(out)  # no colour codes into a pipe or a file
        self._last = None

    def __call__(self, session: Session) -> None:
        ref = session.referee
        key = (ref.state.to_json(), tuple(ref.corrections), tuple(ref.view.completions))
        if key == self._last:
            return
        self._last = key
        self.draw(session)

    def draw(self, session: Session) -> None:
        ref = session.referee
        state = ref.state
        body = views.terminal(state, ref.view, self.paint)
        paint = self.paint
        names = views.players(state.game.name)
        a, b = state.scores()
        colours = session.config.colours
        winner = state.winner()
        status = (f"game over: {a}:{b}, " + ("a draw" if winner is None else
                  paint(colours[f"player{winner}"], f"{names[winner]} wins", bold=True))
                  + " — clear the board for a new game") if state.is_over() else \
            (f"score {a}:{b}, " + paint(colours[f"player{state.to_move}"], names[state.to_move],
                                        bold=True) + " to move")
        print(f"\n{body}\n{status}", file=self.out)
        for fix in views.corrections_in_words(state, ref.view):
            print(f"  correct {fix['site']}: {fix['do']}", file=self.out)
        self.out.flush()


def run_sim(config: Config, *, new_game: bool = False, stdin: TextIO = sys.stdin,
            out: TextIO = sys.stdout) -> int:
    terminal = Terminal(out)
    daemon = Daemon(config, new_game=new_game, on_frame=terminal)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        runner = asyncio.ensure_future(daemon.run())
        while daemon.session is None and not runner.done():
            await asyncio.sleep(0.01)
        if runner.done():
            runner.result()  # raises what went wrong at start
            return
        print(game_help(daemon.session.referee.state.game.name), file=out)
        terminal.draw(daemon.session)
        lines: asyncio.Queue = asyncio.Queue()
        interactive = hasattr(stdin, "isatty") and stdin.isatty()

        def read() -> None:  # a thread: input() would block the loop
            for line in stdin:
                loop.call_soon_threadsafe(lines.put_nowait, line)
            loop.call_soon_threadsafe(lines.put_nowait, None)

        threading.Thread(target=read, daemon=True).start()
        while not runner.done():
            line = await lines.get()
            if line is None or line.strip().lower() in ("quit", "exit"):
                await asyncio.sleep(0.2)  # let the last action settle and show
                break
            word = line.strip().lower()
            if word in ("help", "?"):
                print(game_help(daemon.session.referee.state.game.name), file=out)
                continue
            if word == "show":
                terminal.draw(daemon.session)
                continue
            try:
                action = parse_action(line)
                if action is None:
                    continue
                verb, args = action
                if verb == "wait":
                    await asyncio.sleep(float(args[0]) / 1000)
                else:
                    act(daemon.session, verb, args, loop.time())
                    daemon._show()  # an entry changes the game without a sensor event
                if not interactive:
                    # Piped actions arrive faster than hands: let each settle, as a person's would.
                    await asyncio.sleep(daemon.session.referee.debouncer.window_s + 0.08)
            except Exception as exc:  # a typo must not end the game
                print(f"  ? {str(exc).replace('line 0: ', '')}", file=out)
        daemon.stop()
        await runner

    asyncio.run(main())
    return 0
