"""The physical actions, as `trace` files and the sim's typed lines write them, and the board's
hands that do them: `place SITE [KIND]`, `lift SITE`, `tap SITE`, `hold SITE`, `press BUTTON`,
`wait MS`; `#` starts a comment (tracer.py's docstring says what each does, as trace's file
format). And the commands of the modes that bring a position to the board, done through the
door (`setup`, `puzzle`, `study`, `forward`, `back`, `branch`: `act_mode`; docs/study.md).

One parser for both readers: `parse_action` reads a line as trace does, and the sim reads every
line that is not one of its own commands with it, so a line means the same action in both and
a bad one is refused with the same message. The caller adds where the line was (trace: the file
and the line number). `act` does an action with the board's hands, on whatever clock the
caller keeps (trace's simulated one, the sim's real one).
"""

from __future__ import annotations

from typing import NamedTuple

import games
from board_driver.referee.door import Door
from board_driver.referee.absence import CHOICES as ABSENT_CHOICES
from board_driver.referee.reconcile import candidate_moves
from board_driver.views import words
from board_driver.views.ending import away_words
from games.base import Reason
from treeboard.exc import TreeboardError

#: Each action's verb -> (fewest arguments, most arguments, what it takes, as its refusal says).
ACTIONS = {"place": (1, 2, "SITE [KIND]"), "lift": (1, 1, "one argument"),
           "tap": (1, 1, "one argument"), "hold": (1, 1, "one argument"),
           "press": (1, 1, "one argument"), "wait": (1, 1, "one argument"),
           # ending and pausing a game (referee/endings.py), through the board's door
           "resign": (0, 1, "[SEAT]"), "draw": (0, 1, "[accept | refuse | SEAT]"),
           "away": (0, 0, "no argument"), "take": (2, 2, "up N"),
           "waiting": (0, 0, "no argument"),
           # a player away (referee/absence.py): the present player's choice, or (a trace)
           # what a link says of a seat
           "absent": (1, 2, "pause | wait | claim | draw, or SEAT away | here"),
           # a web seat's move (seat kind `web`), as the page makes it: through the board's door
           "web": (1, 1, "a move in the game's notation")}
#: The commands of the modes that bring a position to the board (docs/study.md), done through
#: the board's door, not its hands (`act_mode`): a set-up from moves, a puzzle, a study's steps
#: and its branch. Read as the actions are, in a trace and in the sim.
MODES = {"setup": (0, None, "the moves of the position"), "puzzle": (0, 1, "a puzzle's number"),
         "study": (1, 1, "a journal game's id"), "forward": (0, 1, "how many moves"),
         "back": (0, 1, "how many moves"), "branch": (0, 1, "who plays the other seat")}
#: The longest `wait`: an hour.
WAIT_LIMIT_MS = 3_600_000


def cut(text: str, limit: int = 40) -> str:
    """Bad input as an error message quotes it: at most `limit` characters of it."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text)} characters)"


class ActionError(TreeboardError, ValueError):
    """A line that is not an action, or an action the board's hands cannot do: says what was
    expected (the caller names the line)."""


class UnknownAction(ActionError):
    """A line whose first word is no action (`verb`, in lower case): the sim answers it with
    its own commands' help, trace with the list of actions."""

    def __init__(self, verb: str):
        *most, last = ACTIONS
        super().__init__(f"unknown action {cut(verb)!r}; expected {', '.join(most)} or {last}")
        self.verb = verb


class Action(NamedTuple):
    """One physical action: its verb and its arguments, as written."""

    verb: str
    args: list[str]

    def __str__(self) -> str:
        return " ".join([self.verb, *self.args])


def split_line(line: str) -> tuple[str, list[str]] | None:
    """A line's first word (in lower case) and the words after it, without a `#` comment; None
    for a blank or comment line."""
    text = line.split("#", 1)[0].strip()
    if not text:
        return None
    verb, *args = text.split()
    return verb.lower(), args


def check_arguments(verb: str, args: list[str], fewest: int, most: int | None,
                    takes: str) -> None:
    """Refuse a word given too few or too many arguments (`most` None: no limit), saying what
    it takes: "place takes SITE [KIND]"."""
    if len(args) < fewest or (most is not None and len(args) > most):
        raise ActionError(f"{verb} takes {takes}")


def parse_action(line: str) -> Action | None:
    """One line as an Action, None for a blank or comment line; ActionError (UnknownAction for
    a first word that is no action) saying what is wrong."""
    split = split_line(line)
    if split is None:
        return None
    verb, args = split
    if verb not in ACTIONS and verb not in MODES:
        raise UnknownAction(verb)
    check_arguments(verb, args, *(ACTIONS.get(verb) or MODES[verb]))
    if verb in ENDINGS:
        check_ending(verb, args)
    if verb == "wait":
        try:
            ms = float(args[0])
        except ValueError:
            raise ActionError(f"wait takes milliseconds, not {cut(args[0])!r}") from None
        if not 0 <= ms <= WAIT_LIMIT_MS:
            raise ActionError(f"wait takes 0 to {WAIT_LIMIT_MS} ms")
    return Action(verb, args)


#: The actions that end or pause a game: through the board's door, not the sensors.
ENDINGS = ("resign", "draw", "away", "take", "waiting", "absent")


def check_ending(verb: str, args: list[str]) -> None:
    """Refuse an ending action's arguments that are not what it takes (ActionError)."""
    if verb in ("resign", "draw") and args and args[0] not in ("0", "1") and not (
            verb == "draw" and args[0].lower() in ("accept", "refuse")):
        raise ActionError(f"{verb} takes {ACTIONS[verb][2]}, not {cut(args[0])!r}")
    if verb == "absent" and [a.lower() for a in args] not in (
            *([c] for c in ABSENT_CHOICES), *([s, w] for s in "01" for w in ("away", "here"))):
        raise ActionError(f"absent takes {ACTIONS[verb][2]}, not {cut(' '.join(args))!r}")
    if verb == "take" and (args[0].lower() != "up" or not args[1].isdigit()
                           or len(args[1]) > 18):
        raise ActionError(f"take takes up N (N a game's number: type waiting to list them), "
                          f"not {cut(' '.join(args))!r}")


def ending(door: Door, verb: str, args: list[str]) -> str | None:
    """Do an ending action through the board's door; returns what to say besides what the
    board says of it (the list of games put away), or None."""
    if verb == "resign":
        door.resign(int(args[0]) if args else None, origin="board")
    elif verb == "draw" and args and args[0].lower() in ("accept", "refuse"):
        door.answer_draw(args[0].lower() == "accept", origin="board")
    elif verb == "draw":
        door.offer_draw(int(args[0]) if args else None, origin="board")
    elif verb == "away":
        door.put_away(origin="board")
    elif verb == "take":
        door.take_up(int(args[1]), origin="board")
    elif verb == "absent" and len(args) == 2:
        door.seen(int(args[0]), args[1].lower() == "here")
    elif verb == "absent":
        door.absent_choice(args[0].lower(), origin="board")
    else:
        return away_words(door.away())
    return None


def act(door: Door, verb: str, args: list[str]) -> str | None:
    """Do a `place`, `lift`, `tap`, `hold` or `press` action with the board's hands (shared by
    `trace`, on simulated time, and `sim`, on the real clock), an ending (`ending`), or a mode's
    command (`act_mode`). A piece on a site with no sensor is an entry, through the board's
    door; everything else goes in through the (mock) sensors. Returns what to say besides what
    the board says, or None."""
    if verb in ENDINGS:
        return ending(door, verb, args)
    if verb in MODES:
        act_mode(door, verb, args)
        return None
    if verb == "web":
        door.play(args[0])   # (refused as the page's is: out of turn, against the rules)
        return None
    session = door.session
    board = session.hardware.board
    if verb == "press":
        board.press(args[0])
        board.release(args[0])
        return
    if verb in ("tap", "hold"):
        # A tap or a hold as such, whatever time passes between the typed lines: `place` and
        # `lift` on a touch board time the wand for real (a touch of 1.2 s is a hold).
        door.tap(args[0], held=verb == "hold")
        return
    site = args[0]
    kind = args[1] if len(args) > 1 else None
    layout = session.layout
    if verb == "place" and kind is not None and site in layout.channels_of_site and not _tells_kinds(layout, site):
        # A reed switch or a hall switch says only "something is here"; a kind would be
        # silently dropped, and a trace that seems to place a dark leaf would place a piece.
        raise ActionError(Reason("the sensor under {site} tells only that a piece is there, not "
                                 "its kind (layout {layout}): write `place {site}`; the game "
                                 "knows whose piece it is", site=site, layout=layout.name))
    if verb == "place" and site not in layout.channels_of_site:
        if kind is None:
            raise ActionError(_unsensed_site(session, site))
        door.enter(site, kind)
    elif verb == "place":
        board.place(site, kind)
    elif site not in layout.channels_of_site and site not in layout.sites:
        door.lift_entry(site)  # a cube above the board: a takeback
    else:
        board.lift(site)


def act_mode(door: Door, verb: str, args: list[str]) -> None:
    """A mode's command: `setup M1 M2 ...` sets up the position those moves make (from the
    game's start, its options as now); `puzzle [N]` starts puzzle N of the board's game's set
    (none: the next); `study ID` a journal game; `forward [N]`, `back [N]` step it; `branch
    [SEAT]` plays on from the studied move (SEAT: who plays the side not to move, `human` or
    `computer:LEVEL`; none: a person)."""
    if verb == "setup":
        state = door.state.game.new_state(**door.state.options())
        for text in args:
            state.play(state.parse_move(text))
        door.set_up(state)
    elif verb == "puzzle":
        door.puzzle(_number(args[0]) if args else None)
    elif verb == "study":
        door.study(_number(args[0]))
    elif verb in ("forward", "back"):
        steps = _number(args[0]) if args else 1
        door.step(steps if verb == "forward" else -steps)
    else:
        door.branch(args[0] if args else "human")


def _number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise ActionError(f"expected a whole number, not {cut(text)!r}") from None


def _unsensed_site(session, site: str) -> Reason:
    """Why `place SITE` without a kind cannot be done, with the hint that fits this game: a
    kind only helps where some move could put a piece (Treeblox above the board)."""
    state = session.referee.state
    kinds = set()
    for move in candidate_moves(state, [site]):
        state.play(move)
        kind = state.occupancy().get(site)
        state.undo()
        if kind is not None:
            kinds.add(kind)
    layout = session.layout.name
    if kinds:
        return Reason("no sensor sees {site} on layout {layout}: say which piece, place {site} "
                      "KIND (here: {kinds})", site=site, layout=layout,
                      kinds=", ".join(sorted(kinds)))
    if site in session.layout.sites:
        return Reason("site {site} has no sensor on layout {layout}", site=site, layout=layout)
    return Reason("{site} is no site of layout {layout}, and no move can put a piece there now",
                  site=repr(cut(site)), layout=layout)


def _tells_kinds(layout, site: str) -> bool:
    """Whether every sensor under `site` classifies pieces (an ADC's bands), not only sees one."""
    adc = layout.adc
    return adc is not None and all(ch in adc.channels for ch in layout.channels_of_site[site])


def describe_error(exc: Exception) -> str:
    """What a refused action's exception says to a player: an illegal move's reason, or the
    message of a bad site, kind or button (a KeyError's message, without repr's quotes), in the
    board's language where it is a `Reason` (the message itself, `str(exc)`, stays English)."""
    if isinstance(exc, games.IllegalMove):
        return words.reason(exc.reason)   # in the board's language
    if exc.args and isinstance(exc.args[0], Reason):
        return words.reason(exc.args[0])
    return str(exc.args[0]) if exc.args else type(exc).__name__
