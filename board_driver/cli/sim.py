"""`treeboard sim`: the daemon on simulated hardware, played from the terminal.

The daemon is the real one (asyncio loop, debounce on a real clock, matrix scan thread on
gpiozero mock pins, the recording NeoPixel strip); you are the hands. Type actions as in a
trace file (`place h0.0`, `lift h0.0`, `press end_turn`, `place b2+1 dark-leaf`, and in a touch
game `tap c3` and `hold c3`, gestures whatever the pace of typing), or `clear` (lift every
piece), `new` (start a new game), `takeback`, `show`, `legend` (the board's colours, from the
views' one legend), `help`, `quit`. After each change the
sim says what happened in words (a move, a takeback, what is not a move and why) and draws
the board with the LED colours. Ctrl-C ends it at once.
"""

from __future__ import annotations

import asyncio
import signal
import sys
import threading
from typing import TextIO

from board_driver.config import Config
from board_driver.daemon.loop import Daemon
from board_driver.referee.referee import takeback_words
from board_driver.referee.session import Session
from board_driver.referee.tracer import act, describe_error, parse_action
from board_driver import views
from board_driver.views.base import piece_name
from board_driver.views.frame import shown_view
from hardware.base import PRESENT

HELP = ("actions: place SITE [KIND] | lift SITE | press BUTTON | wait MS | clear (lift every piece) | "
        "new (start a new game) | takeback | show | legend | help | quit")
#: The same, for a game played by touch (no pieces: taps and holds).
TOUCH_HELP = ("actions: tap SQ | hold SQ (a tap or a hold however slowly you type; place SQ and "
              "lift SQ time the wand for real) | takeback | new (start a new game) | show | legend "
              "| help | quit")
#: What a line may start with, beyond the trace's actions (place, lift, press, wait).
SIM_WORDS = ("legend", "takeback", "accept", "refuse", "clear", "new", "show", "help", "?", "quit", "exit")
REMOTE_HELP = ("remote game: takeback asks the other board; accept | refuse answers its request")
#: The exit status of a sim ended with Ctrl-C (128 + SIGINT), as a shell reports it.
EXIT_INTERRUPTED = 130


def legend_lines(ref, paint) -> list[str]:
    """The board's colours and what they mean, from the one legend the page shows too."""
    lines = ["the LEDs (type legend to see this again):"]
    for entry in views.legend(ref.state, ref.view):
        colour = entry["colour"]
        swatch = paint(tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5)), "██") if colour \
            else "  "
        lines.append(f"  {swatch} {entry['label']}: {entry['means']}")
    return lines


def game_help(game_name: str) -> str:
    """The actions, then the game's own help (its sites and entries), from its view module."""
    import games

    own = getattr(views.view_of(game_name), "HELP", "")
    actions = TOUCH_HELP if games.get_game(game_name).input_mode == "touch" else HELP
    return f"{actions}\n{own}" if own else actions


class Terminal:
    """Draws the board when the game or the corrections change (not on every blink)."""

    def __init__(self, out: TextIO):
        self.out = out
        self.paint = views.Paint.for_stream(out)  # no colour codes into a pipe or a file
        self._last = None
        self._state = None  # the game object last seen (a new one: a new game began)
        self._moves: list[str] = []
        self._wrong: set[str] = set()  # sites already reported as "not a move"
        self._missing: set[str] = set()  # sites already missing a piece
        self._occupied: set[str] = set()  # the game's pieces at the last narration
        self.link = None  # the RemoteLink of a remote game, once the daemon runs
        self._link_said: dict | None = None

    def __call__(self, session: Session) -> None:
        ref = session.referee
        key = self._key(ref)
        if self.link is not None:
            self.narrate_link()
        if key == self._last or self._state is None:
            return  # unchanged, or before `start` (run_sim draws the first board itself)
        before = self._last or (None,) * 4
        drawn = key[:3] != before[:3]
        self._last = key
        self.narrate(session)
        if drawn:
            self.draw(session)
        if key[3] is not None and key[3] != before[3]:
            # a touch game's selection, or what a tap that made no move did
            # (board_driver/referee/touch.py)
            words, _ = key[3]
            if words:
                self.say(words)

    @staticmethod
    def _key(ref) -> tuple:
        # What the drawing shows: the game, the corrections, a move's steps still to make;
        # and a touch game's selection, said in words.
        touch = ref.touch
        if touch is None:
            said = None
        else:
            note = touch.note
            words = touch.words() or (touch.note_words(views.players(ref.state.game.name))
                                      if note is not None else None)
            said = (words, note[0] if note is not None and touch.selected is None else None)
        # (the hints of --moves best arrive from the worker after the board was drawn: a
        # redraw then shows them)
        hints = tuple(sorted(ref.view.hints.items())) if ref.view.moves == "best" else ()
        return ((ref.state.to_json(), hints), tuple(ref.corrections),
                tuple(ref.view.completions), said)

    def say(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    def start(self, session: Session) -> None:
        """Remember the game as it starts; say so if it was resumed from the journal."""
        state = session.referee.state
        self._state, self._moves = state, [str(m) for m in state.moves]
        self._occupied = set(state.occupancy())
        self._last = self._key(session.referee)
        if self._moves:
            self.say(f"resumed the game at move {len(self._moves)} "
                     f"(journal {session.config.journal}); `new` starts another")

    def narrate(self, session: Session) -> None:
        """Say in words what changed since the last frame: moves, takebacks, a new game, and
        any piece that is no move, with the reason the rules give."""
        ref = session.referee
        state = ref.state
        names = views.players(state.game.name)
        moves = [str(m) for m in state.moves]
        if state is not self._state:
            self.say(f"new game of {state.game.short_title}")
            self._state, self._moves, self._occupied = state, [], set()
        common = 0
        while common < min(len(moves), len(self._moves)) and moves[common] == self._moves[common]:
            common += 1
        took_back = common < len(self._moves)
        undone = self._moves[common:]
        if len(undone) > 1 and len(moves) == common and not all(map(ref.at_board, (0, 1))):
            # Against the computer: the player's move and the computer's reply, together.
            self.say(f"takeback of {_with_reply(ref, state, undone)}")
        else:
            for move in reversed(undone):
                self.say(f"takeback of {move}")
        for i in range(common, len(moves)):
            nxt = "" if i + 1 < len(moves) else (" (game over)" if state.is_over()
                                                  else f" ({names[state.to_move]} to move)")
            if not ref.at_board(_mover(state, i)):
                nxt += f"; {names[_mover(state, i)]}'s move: put it on the board"
            why = " (the turn's time ran out)" if i + 1 in ref.timed_out else ""
            self.say(f"move {i + 1}: {moves[i]}{why}{nxt}")
        self._moves = moves
        occupied = set(state.occupancy())
        # A piece whose move was just taken back is to be lifted, as the takeback said: no
        # "not a move" for it.
        taken_back = self._occupied - occupied if took_back else set()
        self._occupied = occupied
        wrong = {c.site for c in ref.corrections if c.want is None}
        owed = first_to_make(ref, names)
        for site in sorted(wrong - self._wrong - taken_back):
            self.say(f"not a move: {site}: {owed}" if owed else
                     f"not a move: {why_not(state, site)}")
        self._wrong = wrong
        # A piece of the last move lifted where lifting takes nothing back: say why.
        missing = {c.site for c in ref.corrections if c.want is not None and c.have is None}
        last = _last_sites(state)
        off = None if not last or not (missing - self._missing) & last else \
            "takebacks by lifting are off (display.takeback = false)" if not ref.config.takeback \
            else "in a remote game a takeback is asked of the other board" \
            if "remote" in ref.seats else None
        if off and not took_back:
            self.say(f"{off}: put it back, or type takeback")
        self._missing = missing

    def narrate_link(self) -> None:
        """A remote game: say when the link to the other board changes, and its requests."""
        now = self.link.summary()
        was = self._link_said or {}
        self._link_said = now
        if now["status"] != was.get("status"):
            self.say(f"other board: {now['status']}")
        if now["request"] is not None and now["request"] != was.get("request"):
            self.say(f"the other board asks to take back move {now['request'] + 1}: "
                     "accept or refuse")

    def draw(self, session: Session) -> None:
        ref = session.referee
        state = ref.state
        body = views.terminal(state, shown_view(ref), self.paint)  # as the LEDs: hints for a player here
        paint = self.paint
        names = views.players(state.game.name)
        a, b = state.scores()
        colours = session.config.colours
        winner = state.winner()
        status = (f"game over: {a}:{b}, " + ("a draw" if winner is None else
                  paint(colours[f"player{winner}"], f"{names[winner]} wins", bold=True))
                  + (" — hold any square for a new game" if ref.touch is not None else
                     " — clear the board for a new game")) if state.is_over() else \
            (f"score {a}:{b}, " + paint(colours[f"player{state.to_move}"], names[state.to_move],
                                        bold=True) + " to move")
        if self.link is not None:
            # a remote game: the link's state in the board's header, not a log line a retry
            status += f" — other board: {self.link.summary()['status']}"
        print(f"\n{body}\n{status}", file=self.out)
        by = "the other board's" if ref.view.to_make_by == "remote" else "the computer's"
        for fix in views.corrections_in_words(state, ref.view):
            # The other seat's move is an invitation, not a mistake: say so in other words.
            verb = f"make {by} move at" if fix["move"] else "correct"
            print(f"  {verb} {fix['site']}: {fix['do']}", file=self.out)
        self.out.flush()


def first_to_make(ref, names: tuple[str, str]) -> str | None:
    """While the other seat's move still waits to be made on the board, what to do first
    ("first put the computer's rod on v1.2"); None when nothing is owed."""
    owed = [c for c in ref.corrections if c.want is not None and c.have is None
            and c.site in ref.view.to_make]
    if not owed:
        return None
    by = "the other board's" if ref.view.to_make_by == "remote" else "the computer's"
    kind = owed[0].want
    noun = "piece" if kind == PRESENT else kind.partition(":")[0] if ":" in kind else \
        piece_name(kind, names, "").strip()
    return f"first put {by} {noun} on {' and '.join(c.site for c in owed)}"


def why_not(state, site: str) -> str:
    """Why a piece on `site` is no move: the rules' reason where the site names a move (a rod
    in a groove), else that no move puts a piece there now."""
    import games

    try:
        state.copy().play(state.parse_move(site))
    except games.IllegalMove as exc:
        if not isinstance(exc, games.InvalidNotation):
            return f"{site}: {exc.reason}"
    except games.GameError:
        pass
    else:
        return f"{site}: it is a move, but the board changed in more than one place at once"
    return f"{site}: no move puts a piece there now"


def pieces_on_board(session: Session) -> list[str]:
    """The sensed sites that hold a piece now (the settled reading)."""
    return [site for site, value in session.referee.physical.items() if value is not None]


def _with_reply(ref, state, undone: list[str]) -> str:
    """Moves taken back together, from the position before them: "h0.0 and the computer's
    reply v1.2"."""
    probe, made = state.copy(), []
    for text in undone:
        made.append((text, ref.at_board(probe.to_move)))
        probe.play(probe.parse_move(text))
    return takeback_words(list(reversed(made)))


def _last_sites(state) -> set[str]:
    """The sites the last move changed (empty before the first)."""
    if not state.moves:
        return set()
    probe = state.copy()
    after = probe.occupancy()
    probe.undo()
    before = probe.occupancy()
    return {s for s in before.keys() | after.keys() if before.get(s) != after.get(s)}


def _mover(state, index: int) -> int:
    """Who made move `index` (0-based) of `state`."""
    probe = state.copy()
    while len(probe.moves) > index:
        probe.undo()
    return probe.to_move


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
        return f"not a move: {piece_name(kind, views.players(state.game.name))} at {site} already"
    if verb == "lift" and have is None:
        return f"not a move: nothing to lift at {site}"
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


async def _until(condition, limit: float) -> None:
    """Wait until condition() holds (None: nothing to wait for), at most `limit` seconds."""
    if condition is None:
        return
    deadline = asyncio.get_running_loop().time() + limit
    while not condition() and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.02)  # the frame and its words follow the settled reading


def run_sim(config: Config, *, new_game: bool = False, stdin: TextIO = sys.stdin,
            out: TextIO = sys.stdout, web: bool = False) -> int:
    terminal = Terminal(out)
    daemon = Daemon(config, new_game=new_game, on_frame=terminal, web=web)
    interrupted = False

    async def main() -> None:
        nonlocal interrupted
        loop = asyncio.get_running_loop()
        runner = asyncio.ensure_future(daemon.run())
        while not daemon.started.is_set() and not runner.done():
            await asyncio.sleep(0.01)
        if runner.done():
            runner.result()  # raises what went wrong at start
            return
        session, door = daemon.session, daemon.door
        # Ctrl-C stops the daemon (its own SIGINT handler), and with it this loop, at once.
        try:
            loop.add_signal_handler(signal.SIGINT, lambda: (daemon.stop(), _mark_interrupted()))
        except (NotImplementedError, RuntimeError):  # not the main thread (tests)
            pass
        print(game_help(session.referee.state.game.name), file=out)
        if daemon.remote is not None:
            print(REMOTE_HELP, file=out)
            ref = session.referee
            print(views.seat_words(ref.state.game.name, tuple(ref.seats), ref.view.colours),
                  file=out)
            terminal.link = daemon.remote
        if daemon.web is not None:
            print(f"the board in a browser: {daemon.web.url}", file=out)
        terminal.start(session)
        terminal.draw(session)
        lines: asyncio.Queue = asyncio.Queue()
        interactive = hasattr(stdin, "isatty") and stdin.isatty()

        def read() -> None:  # a thread: input() would block the loop
            for line in stdin:
                loop.call_soon_threadsafe(lines.put_nowait, line)
            loop.call_soon_threadsafe(lines.put_nowait, None)

        threading.Thread(target=read, daemon=True).start()
        while not runner.done():
            getting = asyncio.ensure_future(lines.get())
            await asyncio.wait({getting, runner}, return_when=asyncio.FIRST_COMPLETED)
            if not getting.done():
                getting.cancel()
                break  # the daemon stopped (Ctrl-C, a signal)
            line = getting.result()
            if line is None or line.strip().lower() in ("quit", "exit"):
                await asyncio.sleep(0.2)  # let the last action settle and show
                break
            word = line.strip().lower()
            if word in ("help", "?"):
                print(game_help(session.referee.state.game.name), file=out)
                print("\n".join(legend_lines(session.referee, terminal.paint)), file=out)
                continue
            if word == "legend":
                print("\n".join(legend_lines(session.referee, terminal.paint)), file=out)
                continue
            if word == "show":
                terminal.draw(session)
                continue
            shown = None  # what the settled reading must show once a piped action took effect
            try:
                if word == "takeback":
                    done = door.takeback()
                    # (a touch game has no pieces: the LEDs change back by themselves)
                    pieces = door.link is None and session.referee.touch is None
                    terminal.say(f"{done}; lift its pieces" if pieces else done)
                elif word in ("accept", "refuse"):
                    if door.link is None:
                        terminal.say(f"  ? {word}: there is no remote game to answer")
                    else:
                        door.answer_takeback(word == "accept")
                elif word == "new" and door.link is not None:
                    terminal.say("  ? new: a remote game is one game on both boards; to play "
                                 "another, start both with a new --join id")
                elif word in ("clear", "new"):
                    if word == "new":
                        # The journal's game is closed first: the lifts that follow are then a
                        # board being cleared for the new game, not takebacks of the old one.
                        door.new_game()
                    n = clear_board(session)
                    shown = lambda: not pieces_on_board(session)  # noqa: E731
                    terminal.say(f"lifted {n} piece{'s' if n != 1 else ''}; the board is empty")
                elif word and not word.startswith("#") \
                        and word.split()[0] not in ("place", "lift", "tap", "hold", "press", "wait",
                                                   *SIM_WORDS):
                    # The trace's own message lists only its four actions; the sim has more.
                    terminal.say(f"  ? unknown command {word.split()[0]!r}; type help for the "
                                 "commands")
                else:
                    action = parse_action(line)
                    if action is None:
                        continue
                    verb, args = action
                    refused = refusal(session, verb, args)
                    if refused:
                        terminal.say(refused)
                        continue
                    if verb == "wait":
                        await asyncio.sleep(float(args[0]) / 1000)
                    else:
                        act(door, verb, args)   # (an entry relights the board itself)
                        if verb in ("place", "lift") and args[0] in session.referee.sensed:
                            site, present = args[0], verb == "place"
                            shown = lambda: (session.referee.physical.get(site)  # noqa: E731
                                             is not None) == present
                if not interactive:
                    # Piped actions arrive faster than hands: let each settle, as a person's would,
                    # and on a loaded machine (a late scan) until the settled reading shows it.
                    await asyncio.sleep(session.referee.debouncer.window_s + 0.08)
                    await _until(shown, PIPED_SETTLE_LIMIT_S)
                elif shown is not None:
                    # Lines pasted into a terminal arrive as fast as piped ones: the next waits
                    # until this one is in the settled reading (`lift b3` after `place b3` is
                    # then a lift, not "nothing to lift at b3"). Typed lines find it there.
                    await _until(shown, PIPED_SETTLE_LIMIT_S)
            except Exception as exc:  # a typo must not end the game
                terminal.say(f"  ? {describe_error(exc)}")
        daemon.stop()
        await runner

    def _mark_interrupted() -> None:
        nonlocal interrupted
        interrupted = True

    try:
        asyncio.run(main())
    except KeyboardInterrupt:  # Ctrl-C before the daemon's handler was in place
        interrupted = True
    if interrupted:
        print("stopped (Ctrl-C); the game is in the journal", file=out)
        return EXIT_INTERRUPTED
    return 0
