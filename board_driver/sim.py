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

HELP = """actions: place SITE [KIND] | lift SITE | press BUTTON | show | help | quit
Tree Planting sites: grooves h{row}.{col} (top of a square), v{row}.{col} (left of it),
holes t{row}.{col}; put a rod in a groove, then plant the tree peg of a square you close."""


def _ansi(colour, text: str) -> str:
    r, g, b = colour
    if (r, g, b) == (0, 0, 0):
        return f"\x1b[38;2;70;70;70m{text}\x1b[0m"
    return f"\x1b[38;2;{r};{g};{b}m{text}\x1b[0m"


def draw_tree_planting(session: Session, frame) -> str:
    state = session.referee.state
    board = state.board
    cells = set(board.cells)
    lines = []
    for r in range(board.rows + 1):
        top = ""
        for c in range(board.cols):
            name = f"h{r}.{c}"
            seg = "   "
            if name in board.groove:
                seg = _ansi(frame.get(name, (0, 0, 0)), "━━━" if state.drawn(name) else "···")
            top += "+" + seg
        lines.append(top + "+")
        if r == board.rows:
            break
        mid = ""
        for c in range(board.cols + 1):
            name = f"v{r}.{c}"
            bar = " "
            if name in board.groove:
                bar = _ansi(frame.get(name, (0, 0, 0)), "┃" if state.drawn(name) else ":")
            hole = ""
            if c < board.cols:
                if (r, c) in cells:
                    i = board.square_index[(r, c)]
                    glyph = "♣" if state.owner(i) is not None else "·"
                    hole = " " + _ansi(frame.get(f"t{r}.{c}", (0, 0, 0)), glyph) + " "
                else:
                    hole = "   "
            mid += bar + hole
        lines.append(mid)
    return "\n".join(lines)


class Terminal:
    """Draws the board when the game or the corrections change (not on every blink)."""

    def __init__(self, out: TextIO):
        self.out = out
        self._last = None

    def __call__(self, session: Session) -> None:
        ref = session.referee
        key = (ref.state.to_json(), tuple(ref.corrections))
        if key == self._last:
            return
        self._last = key
        self.draw(session)

    def draw(self, session: Session) -> None:
        ref = session.referee
        state = ref.state
        # Draw with the blinking pieces in their "on" phase, so they show.
        frame, _ = ref.frame(0.0)
        if state.game.name == "tree-planting":
            body = draw_tree_planting(session, frame)
        else:
            body = "\n".join(f"  {site}: {kind}" for site, kind in sorted(state.occupancy().items()))
        a, b = state.scores()
        colours = session.config.colours
        status = (f"game over: {a}:{b}, " + ("a draw" if state.winner() is None else
                  _ansi(colours[f"player{state.winner()}"], f"player {state.winner()} wins"))
                  + " — clear the board for a new game") if state.is_over() else \
            (f"score {a}:{b}, " + _ansi(colours[f"player{state.to_move}"], f"player {state.to_move}")
             + " to move")
        print(f"\n{body}\n{status}", file=self.out)
        for c in ref.corrections:
            need = "remove the piece" if c.want is None else f"put {c.want} here"
            print(f"  correct {c.site}: {need}", file=self.out)
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
        print(HELP, file=out)
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
                print(HELP, file=out)
                continue
            if word == "show":
                terminal.draw(daemon.session)
                continue
            try:
                action = parse_action(line, 0)
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
