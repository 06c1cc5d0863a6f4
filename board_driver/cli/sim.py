"""`treeboard sim`: the daemon on simulated hardware, played from the terminal.

The daemon is the real one (asyncio loop, debounce on a real clock, matrix scan thread on
gpiozero mock pins, the recording NeoPixel strip); you are the hands. Type actions as in a
trace file (`place h0.0`, `lift h0.0`, `press end_turn`, `place b2+1 dark-leaf`, and in a touch
game `tap c3` and `hold c3`, gestures whatever the pace of typing), or `clear` (lift every
piece), `new` (start a new game), `takeback`, `repeat` (say it again: the last moves, whose
turn, the score), `show`, `legend` (the board's colours, from the views' one legend), `help`,
`quit`; and `resign`, `draw`, `draw accept|refuse`, `away`, `waiting`, `take up N` (ending and
pausing a game: docs/board.md), `absent pause|wait|claim|draw` (the player to move is away). After each change the
sim says what happened in words (a move, a takeback, what is not a move and why) and draws
the board with the LED colours. Ctrl-C ends it at once.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
import time
from typing import Awaitable, Callable, NamedTuple, TextIO

from board_driver.config import Config
from board_driver.daemon.loop import Daemon
from board_driver.referee.session import Session
from board_driver.referee.actions import (UnknownAction, act, check_arguments, describe_error,
                                          parse_action, split_line)
from board_driver import views
from board_driver.cli import sim_lobby
from board_driver.views.base import piece_name
from board_driver.views.ending import ended_words
from board_driver.views.narrate import Narrator, last_moves
from board_driver.views.words import N_, ngettext, reason, tr
from hardware.base import PRESENT

HELP = N_("actions: place SITE [KIND] | lift SITE | press BUTTON | wait MS | clear (lift every "
          "piece) | new (start a new game) | takeback | accept | refuse (the other board's "
          "takeback request, in a remote game) | repeat (the last moves, whose turn, the score) "
          "| show | legend | help | quit")
#: The same, for a game played by touch (no pieces: taps and holds).
TOUCH_HELP = N_("actions: tap SQ | hold SQ (a tap or a hold however slowly you type; place SQ "
                "and lift SQ time the wand for real) | takeback | accept | refuse (the other "
                "board's takeback request, in a remote game) | new (start a new game) | repeat "
                "(the last moves, whose turn, the score) | show | legend | help | quit")
#: The players' clocks, set from the sim.
CLOCK_HELP = N_("clock TC: the clocks (none, 10, 5+3, 30s/move, 10,3+2), now or from the next "
                "game")
#: Ending and pausing a game (board_driver/referee/endings.py).
ENDINGS_HELP = N_("resign [SEAT] | draw [SEAT] (offer a draw) | draw accept | draw refuse | away "
                  "(put the game away) | waiting (the games put away) | take up N | absent "
                  "pause|wait|claim|draw (the player to move is away: your choice)")
#: The modes that bring a position to the board (docs/study.md).
POSITIONS_HELP = N_("positions: setup MOVES (set up the position they make) | puzzle [N] | study "
                    "ID (a journal game) | forward [N] | back [N] | branch [SEAT] (play on from "
                    "the study)")
#: The other seat's move to put down, by whose it is (Moment.to_make_by; "guest": the remote
#: seat played in a browser).
MAKE_MOVE = {"computer": N_("make the computer's move at {site}: {do}"),
             "remote": N_("make the other board's move at {site}: {do}"),
             "guest": N_("make the move of the player in the browser at {site}: {do}"),
             "web": N_("make the web seat's move at {site}: {do}")}
#: A web seat's move typed in the sim, as the page makes it (board_driver/web/play.py).
WEB_HELP = N_("web MOVE: the move of a seat played on the page (players human web), as the page "
              "makes it")
LOBBY_HELP = N_("the family's lobby: lobby lists the games the family's boards offer; "
                "join GAME plays one")
REMOTE_HELP = N_("remote game: takeback asks the other board (or the player in the browser); accept | "
                 "refuse answers its request")
#: The exit status of a sim ended with Ctrl-C (128 + SIGINT), as a shell reports it.
EXIT_INTERRUPTED = 130


def legend_lines(moment, paint) -> list[str]:
    """The board's colours and what they mean, from the one legend the page shows too."""
    lines = [tr("the LEDs (type legend to see this again):")]
    for entry in views.legend(moment.state, moment):
        colour = entry["colour"]
        swatch = paint(tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5)), "██") if colour \
            else "  "
        lines.append(f"  {swatch} {entry['label']}: {entry['means']}")
    return lines


def game_help(game_name: str) -> str:
    """The actions, then the game's own help (its sites and entries), from its view module."""
    import games

    own = views.game_help(game_name)
    touch = games.get_game(game_name).input_mode == "touch"
    actions = (tr(TOUCH_HELP) if touch else tr(HELP)) + "\n" + tr(CLOCK_HELP) + "\n" + \
        tr(ENDINGS_HELP) + "\n" + tr(POSITIONS_HELP) + "\n" + tr(WEB_HELP)
    return f"{actions}\n{own}" if own else actions


class Terminal:
    """Draws the board when the game or the corrections change (not on every blink)."""

    def __init__(self, out: TextIO, speak=None, clock=time.monotonic):
        self.out = out
        self.clock = clock  # the referee's clock (the daemon's loop time is monotonic)
        self.speak = speak  # the daemon's voice (`Daemon.say`), once it runs; None: silent
        self.paint = views.Paint.for_stream(out)  # no colour codes into a pipe or a file
        self._last = None
        self._started = False  # `start` has seen the game
        self._narrator = Narrator()  # what changed, in words (views/narrate.py)
        self.link_of: Callable[[], object] = lambda: None   # the daemon's RemoteLink, if any
        self._link_said: dict | None = None
        self._warned: dict[tuple, set[float]] = {}   # the clock warnings said this turn

    def __call__(self, session: Session, moment=None) -> None:
        moment = moment or self.moment(session.referee)
        key = self._key(moment)
        if self.link is not None:
            self.narrate_link()
        self.clock_warnings(moment)
        if self._started:
            for said in self._narrator.hint(moment) + self._narrator.ending(moment):
                self.say(said.text)   # the hint's reason, a resignation, a draw: once
        if key == self._last or not self._started:
            return  # unchanged, or before `start` (run_sim draws the first board itself)
        before = self._last or (None,) * 6
        drawn = key[:3] != before[:3]
        self._last = key
        menu = self._narrator.menu(moment)   # opened, a choice, or what it applied as it closed
        if moment.menu is None:
            self.say_all(menu)
        self.narrate(moment)
        if drawn:
            self.draw(session, moment)
        if key[3] is not None and key[3] != before[3]:
            # a touch game's selection, or what a tap that made no move did
            # (board_driver/referee/touch.py)
            words, _ = key[3]
            if words:
                self.say(words)
        if moment.menu is not None:
            self.say_all(menu)
        if key[4] is not None and key[4] != before[4]:
            self.say(views.flag_words(moment.state.game.name, key[4]))

    def moment(self, ref):
        """The referee's moment now."""
        return ref.moment(self.clock())

    def is_current(self, ref) -> bool:
        """Whether what this terminal last said and drew is the referee's game as it is now."""
        return self._last == self._key(self.moment(ref))

    @staticmethod
    def _key(moment) -> tuple:
        # What the drawing shows: the game, the corrections, a move's steps still to make;
        # and a touch game's selection, said in words.
        touch = moment.touch
        if touch is None:
            said = None
        else:
            note = touch.note_key
            said = (touch.words or touch.note, note if touch.selected is None else None)
        # (the hints of --moves best arrive from the worker after the board was drawn: a
        # redraw then shows them)
        hints = tuple(sorted(moment.hints.items())) if moment.settings.moves == "best" else ()
        # ...and the flag of a clock run out, and the menu while it is open.
        # (a game its players ended: drawn again, its status line says how)
        ended = moment.ending is not None and moment.ending.over
        return ((moment.state.to_json(), hints, ended), (moment.corrections, moment.waiting),
                moment.completions, said, moment.flagged,
                tuple(sorted(moment.menu.chosen.items())) if moment.menu is not None else None)

    def clock_warnings(self, moment) -> None:
        """Say when the running clock passes one minute and ten seconds left (once a turn)."""
        seat, left = moment.clock_running, moment.turn_left
        if seat is None or left is None:
            return
        turn = (moment.game, len(moment.state.moves), seat)
        said = self._warned.get(turn, set())
        if len(self._warned) > 4:   # (only the turn in progress matters)
            self._warned = {turn: said}
        for mark in views.CLOCK_WARNINGS:
            if left <= mark and mark not in said and left > mark - 5:
                said.add(mark)
                self._warned[turn] = said
                self.say(views.clock_warning_words(moment.state.game.name, seat, mark))
                break

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def say_all(self, said) -> None:
        for item in said:
            self.say(item.text)

    def start(self, session: Session) -> None:
        """Remember the game as it starts; say so if it was resumed from the journal."""
        moment = self.moment(session.referee)
        self._started = True
        self._last = self._key(moment)
        for said in self._narrator.start(moment):
            self.say(tr("{resumed} (journal {journal}); `new` starts another").format(
                resumed=said.text, journal=session.config.journal))

    def narrate(self, moment) -> None:
        """Say in words what changed since the last frame: moves, takebacks, a new game, and
        any piece that is no move, with the reason the rules give."""
        # (the drawing's status line says the score and the end, and its lines below the board
        # a new game's pieces to lift)
        shown = views.leftovers_words(moment)
        for said in self._narrator(moment):
            if said.kind not in ("score", "end") and said.text != shown:
                self.say(said.text)

    def repeat(self, session: Session, count: int = 3) -> None:
        """Say it again: the last moves, whose turn, the score (and to the voice, if any)."""
        said = last_moves(self.moment(session.referee), count)
        for item in said:
            self.say(item.text)
        if self.speak is not None:
            self.speak([item.spoken for item in said])

    @property
    def link(self):
        """The remote game's link as it is now (joined or replaced since the sim began)."""
        return self.link_of()

    def narrate_link(self) -> None:
        """A remote game: say when the link to the other board changes, and its requests."""
        for said in self._narrator.link(self.link.summary()):
            self.say(said.text)

    def draw(self, session: Session, moment=None) -> None:
        moment = moment or self.moment(session.referee)
        state = moment.state
        if moment.menu is not None:   # the menu holds the board: its sites, not the game
            print("\n" + "\n".join(views.menu_lines(state.game.name, moment.menu)),
                  file=self.out, flush=True)
            return
        body = views.terminal(state, moment.shown(), self.paint)  # as the LEDs: hints for a player here
        status = status_line(moment, self.paint, session.config.colours)
        if moment.clocks is not None:
            status += "; " + views.clocks_words(state.game.name, moment.clocks,
                                                moment.clock_running)
        if self.link is not None:
            # a remote game: the link's state in the board's header, not a log line a retry
            link = self.link.summary()["status"]   # a LINK_WORDS state (views/narrate.py)
            status += tr(" — other board: {status}").format(status=reason(link))
        print(f"\n{body}\n{status}", file=self.out)
        by = moment.to_make_by
        if by == "remote" and self.link is not None and self.link.summary().get("guest"):
            by = "guest"   # (the remote seat played in a browser: remote/guest.py)
        left = views.leftovers_words(moment)
        for fix in [] if left else views.corrections_in_words(state, moment):
            # The other seat's move is an invitation, not a mistake: say so in other words.
            line = (tr(MAKE_MOVE.get(by, MAKE_MOVE["computer"])) if fix["move"] else
                    "{site}: {do}" if fix["waiting"] else
                    tr("correct {site}: {do}")).format(site=fix["site"], do=fix["do"])
            print(f"  {line}", file=self.out)
        if left:   # a new game's board, the last game's pieces (or the menu's) on it
            print(f"  {left}", file=self.out)
        self.out.flush()


def status_line(moment, paint, colours) -> str:
    """The line under the board: the score (what the game's numbers count: Fangqi's counters
    left) and whose turn, or the result once the last move's pieces are down."""
    state = moment.state
    names = views.players(state.game.name)
    a, b = state.scores()
    score = views.score_name(state.game.name)
    ended = ended_words(state.game.name, moment.ending)
    if ended is not None:   # resigned, or a draw agreed (views/ending.py)
        return tr("game over: {result}").format(result=ended) + (
            tr(" — hold any square for a new game") if moment.touch is not None else
            tr(" — clear the board for a new game"))
    if not state.is_over():
        return (tr("{score} {a}:{b}, ").format(score=score, a=a, b=b) + tr("{player} to move")
                .format(player=paint(colours[f"player{state.to_move}"], names[state.to_move],
                                     bold=True)))
    if any(c.want is not None and c.have is None for c in moment.corrections):
        return tr("{score} {a}:{b}; the last move is still to put on the board").format(
            score=score, a=a, b=b)
    winner = state.winner()
    return (tr("game over: {a}:{b}, ").format(a=a, b=b)
            + (tr("a draw") if winner is None else paint(
                colours[f"player{winner}"], tr("{player} wins").format(player=names[winner]),
                bold=True))
            + (tr(" — hold any square for a new game") if moment.touch is not None else
               tr(" — clear the board for a new game")))


def pieces_on_board(session: Session) -> list[str]:
    """The sensed sites that hold a piece now (the settled reading)."""
    return [site for site, value in session.referee.physical.items() if value is not None]


def refusal(session: Session, verb: str, args: list[str]) -> str | None:
    """What is wrong with a place or lift before the hands try it: a piece on a full site, a
    lift of an empty one (the sensors would not even notice)."""
    if verb not in ("place", "lift") or args[0] not in session.layout.channels_of_site:
        return None
    site = args[0]
    have = session.referee.physical.get(site)
    if verb == "place" and have is not None:
        state = session.referee.state
        # A presence sensor says only "a piece"; the game knows what belongs there.
        kind = state.occupancy().get(site, have) if have == PRESENT else have
        return tr("not a move: {piece} at {site} already").format(
            piece=piece_name(kind, views.players(state.game.name)), site=site)
    if verb == "lift" and have is None:
        return tr("not a move: nothing to lift at {site}").format(site=site)
    return None


def clear_board(session: Session) -> int:
    """Lift every piece off the (simulated) board; returns how many."""
    board = session.hardware.board
    lifted = pieces_on_board(session)
    for site in lifted:
        board.lift(site)
    return len(lifted)


#: How long a piped action may take to show in the settled reading before the next goes ahead.
PIPED_SETTLE_LIMIT_S = 3.0


async def _until(condition, limit: float, then: float = 0.02) -> None:
    """Wait until condition() holds (None: nothing to wait for), at most `limit` seconds, and
    `then` seconds more (the frame and its words follow the settled reading)."""
    if condition is None:
        return
    deadline = asyncio.get_running_loop().time() + limit
    while not condition() and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.01)
    await asyncio.sleep(then)


def all_said(session: Session, terminal: Terminal, shown) -> bool:
    """Whether the last action has settled and been said: its change in the settled reading
    (`shown`, None when it has none to wait for), no sensor change still settling, and the
    terminal's words and drawing for the game as it is now (what `quit` waits for)."""
    ref = session.referee
    return ((shown is None or shown()) and ref.next_deadline() is None
            and terminal.is_current(ref))


class Typed:
    """What each typed line does: one of the sim's own commands (`COMMANDS`, a table of
    handlers), or a physical action read by the same parser as trace's lines and done with the
    same hands (board_driver/referee/actions.py)."""

    def __init__(self, daemon: Daemon, terminal: Terminal, config: Config, interactive: bool):
        self.session, self.door = daemon.session, daemon.door
        self.terminal = terminal
        self.config = config
        self.interactive = interactive   # typed (or pasted) at a terminal, not piped
        self.last_shown = None   # the last action's change, for `quit` to wait for
        self.over = False        # quit: the sim ends

    async def line(self, line: str) -> None:
        """Do one typed line. A refusal is said, never raised: a typo must not end the game."""
        try:
            split = split_line(line)
            if split is None:
                return   # a blank or comment line
            verb, args = split
            command = COMMANDS.get(verb)
            if command is None or command.acts:
                self.last_shown = None   # (until this line has acted)
            if command is None:
                await self.action(line)
            else:
                check_arguments(verb, args, *command.takes)
                await command.run(self, verb, args)
        except Exception as exc:
            self.terminal.say(f"  ? {describe_error(exc)}")

    async def action(self, line: str) -> None:
        """A physical action (place, lift, tap, hold, press, wait), as trace reads it."""
        try:
            verb, args = parse_action(line)
        except UnknownAction as exc:
            # The trace's own message lists only its actions; the sim has more.
            self.terminal.say(tr("  ? unknown command {word!r}; type help for the "
                                 "commands").format(word=exc.verb))
            return
        session = self.session
        refused = refusal(session, verb, args)
        if refused:
            self.terminal.say(refused)
            return
        shown = None  # what the settled reading must show once the action took effect
        if verb == "wait":
            await asyncio.sleep(float(args[0]) / 1000)
        else:
            said = act(self.door, verb, args)   # (an entry relights the board itself)
            if said:
                self.terminal.say(said)   # (the games put away)
            if verb in ("place", "lift") and args[0] in session.referee.sensed:
                site, present = args[0], verb == "place"
                shown = lambda: (session.referee.physical.get(site)  # noqa: E731
                                 is not None) == present
        await self.settle(shown)

    async def settle(self, shown=None) -> None:
        """The line acted: let it settle before the next, until its change (`shown`, None:
        none to wait for) is in the settled reading."""
        self.last_shown = shown
        if not self.interactive:
            # Piped actions arrive faster than hands: let each settle, as a person's would,
            # and on a loaded machine (a late scan) until the settled reading shows it.
            await asyncio.sleep(self.session.referee.debouncer.window_s + 0.08)
            await _until(shown, PIPED_SETTLE_LIMIT_S)
        elif shown is not None:
            # Lines pasted into a terminal arrive as fast as piped ones: the next waits
            # until this one is in the settled reading (`lift b3` after `place b3` is
            # then a lift, not "nothing to lift at b3"). Typed lines find it there.
            await _until(shown, PIPED_SETTLE_LIMIT_S)

    # --- the sim's own commands (COMMANDS) ------------------------------------------------------

    async def help(self, verb: str, args: list[str]) -> None:
        print(game_help(self.session.referee.state.game.name), file=self.terminal.out)
        await self.legend(verb, args)

    async def legend(self, verb: str, args: list[str]) -> None:
        print("\n".join(legend_lines(self.terminal.moment(self.session.referee), self.terminal.paint)),
              file=self.terminal.out)

    async def show(self, verb: str, args: list[str]) -> None:
        self.terminal.draw(self.session)

    async def repeat(self, verb: str, args: list[str]) -> None:
        self.terminal.repeat(self.session, self.config.voice.repeat_moves)

    async def takeback(self, verb: str, args: list[str]) -> None:
        done = self.door.takeback()
        if self.door.link is not None:
            self.terminal.say(done)   # (asked of the other board)
        # A takeback done is said as the board changes ("takeback of h1.0: lift the piece on
        # h1.0"), before the board is drawn: nothing more to say.
        await self.settle()

    async def clock(self, verb: str, args: list[str]) -> None:
        self.terminal.say(self.door.set_time_control(" ".join(args)))
        self.terminal.draw(self.session)   # (the clocks under the board)
        await self.settle()

    async def answer(self, verb: str, args: list[str]) -> None:
        """accept or refuse: the answer to the other board's request for a takeback."""
        if self.door.link is None:
            self.terminal.say(tr("  ? {word}: there is no remote game to answer").format(
                word=verb))
        else:
            self.door.answer_takeback(verb == "accept")
        await self.settle()

    async def new(self, verb: str, args: list[str]) -> None:
        if self.door.link is not None:
            self.terminal.say(tr("  ? new: a remote game is one game on both boards; to "
                                 "play another, start both with a new --join id"))
            await self.settle()
            return
        # The journal's game is closed first: the lifts that follow are then a board being
        # cleared for the new game, not takebacks of the old one.
        self.door.new_game()
        await self.clear(verb, args)

    async def clear(self, verb: str, args: list[str]) -> None:
        session = self.session
        if session.referee.touch is not None:
            if verb == "clear":   # (`new` on a touch board: the new game is all there is)
                self.terminal.say(tr("a touch board holds no pieces: nothing to lift"))
            await self.settle()
            return
        n = clear_board(session)
        self.terminal.say(ngettext("lifted {n} piece; the board is empty",
                                   "lifted {n} pieces; the board is empty", n).format(n=n))
        await self.settle(lambda: not pieces_on_board(session))

    async def quit(self, verb: str = "quit", args: list[str] | None = None) -> None:
        """The end (quit, exit, or the end of the input): once the last action has settled
        and been said (a tap's words, a takeback's)."""
        await _until(lambda: all_said(self.session, self.terminal, self.last_shown),
                     PIPED_SETTLE_LIMIT_S, then=0)
        self.over = True


class Command(NamedTuple):
    """A command of the sim's own: its handler (a `Typed` method), what it takes (fewest and
    most arguments, and in words), and whether it acts on the game or the board (then the next
    line waits until it settled) or only shows or says."""

    run: Callable[[Typed, str, list[str]], Awaitable[None]]
    takes: tuple[int, int | None, str] = (0, 0, "no argument")
    acts: bool = True


#: What a line may start with beyond the physical actions (place, lift, tap, hold, press, wait).
COMMANDS = {
    "help": Command(Typed.help, acts=False), "?": Command(Typed.help, acts=False),
    "legend": Command(Typed.legend, acts=False), "show": Command(Typed.show, acts=False),
    "repeat": Command(Typed.repeat, acts=False),
    "takeback": Command(Typed.takeback), "accept": Command(Typed.answer),
    "refuse": Command(Typed.answer), "new": Command(Typed.new), "clear": Command(Typed.clear),
    "clock": Command(Typed.clock, takes=(0, None, "a time control")),
    "quit": Command(Typed.quit, acts=False), "exit": Command(Typed.quit, acts=False),
    # the family's lobby (sim --remote URL --lobby: cli/sim_lobby.py)
    "lobby": Command(sim_lobby.lobby, acts=False),
    "join": Command(sim_lobby.join, takes=(1, 1, "a game id the lobby offers")),
}


def feed_lines(stdin: TextIO, loop: asyncio.AbstractEventLoop, lines: asyncio.Queue) -> None:
    """The input's lines into `lines`, then None (a thread: input() would block the loop)."""
    try:
        for line in stdin:
            loop.call_soon_threadsafe(lines.put_nowait, line)
        loop.call_soon_threadsafe(lines.put_nowait, None)
    except RuntimeError:   # the loop closed: the sim ended (quit) before its input did
        pass


def greet(daemon: Daemon, terminal: Terminal) -> None:
    """What the sim says as it starts: the game's help, a remote game's seats, the page's
    address, and the board."""
    session, out = daemon.session, terminal.out
    terminal.link_of = lambda: daemon.remote
    print(game_help(session.referee.state.game.name), file=out)
    if daemon.remote is not None:
        print(tr(REMOTE_HELP), file=out)
        ref = session.referee
        print(views.seat_words(ref.state.game.name, tuple(ref.seats), ref.settings.colours),
              file=out)
    elif daemon.config.remote:   # (--lobby: no game arranged yet)
        print(tr(LOBBY_HELP), file=out)
    if daemon.web is not None:
        print(tr("the board in a browser: {url}").format(url=daemon.web.url), file=out)
    terminal.start(session)
    terminal.draw(session)


async def play(daemon: Daemon, terminal: Terminal, config: Config, stdin: TextIO,
               on_ctrl_c: Callable[[], None]) -> None:
    """The daemon runs; each line of `stdin` is done in turn, until quit, the end of the input,
    or Ctrl-C (which stops the daemon, and with it this loop, at once)."""
    loop = asyncio.get_running_loop()
    runner = asyncio.ensure_future(daemon.run())
    while not daemon.started.is_set() and not runner.done():
        await asyncio.sleep(0.01)
    if runner.done():
        runner.result()  # raises what went wrong at start
        return
    try:
        loop.add_signal_handler(signal.SIGINT, lambda: (daemon.stop(), on_ctrl_c()))
    except (NotImplementedError, RuntimeError):  # not the main thread (tests)
        pass
    greet(daemon, terminal)
    lines: asyncio.Queue = asyncio.Queue()
    typed = Typed(daemon, terminal, config,
                  interactive=hasattr(stdin, "isatty") and stdin.isatty())
    threading.Thread(target=feed_lines, args=(stdin, loop, lines), daemon=True).start()
    while not runner.done() and not typed.over:
        getting = asyncio.ensure_future(lines.get())
        await asyncio.wait({getting, runner}, return_when=asyncio.FIRST_COMPLETED)
        if not getting.done():
            getting.cancel()
            break  # the daemon stopped (Ctrl-C, a signal)
        line = getting.result()
        if line is None:   # the end of the input: as quit
            await typed.quit()
        else:
            await typed.line(line)
    daemon.stop()
    await runner


def run_sim(config: Config, *, new_game: bool = False, stdin: TextIO = sys.stdin,
            out: TextIO = sys.stdout, web: bool = False) -> int:
    terminal = Terminal(out)
    daemon = Daemon(config, new_game=new_game, on_frame=terminal, web=web)
    terminal.speak = daemon.say
    interrupted = False

    def ctrl_c() -> None:
        nonlocal interrupted
        interrupted = True

    try:
        asyncio.run(play(daemon, terminal, config, stdin, ctrl_c))
    except KeyboardInterrupt:  # Ctrl-C before the daemon's handler was in place
        interrupted = True
    if interrupted:
        print(tr("stopped (Ctrl-C); the game is in the journal"), file=out)
        return EXIT_INTERRUPTED
    return 0
