"""The one interface every game follows.

Modelled on OpenSpiel's Game/State split and python-chess's Board: a `Game` describes a
game and its options and makes states; a `State` is mutable, with `play`/`undo`, and
knows what a correct physical board holds (`occupancy`). That last function is what ties
the rules to the hardware: the daemon compares it with what the sensors see.

Everything else a game may offer is declared here too, with a default, so that nothing
outside a game's own module probes it with `getattr` or recognises it by its name: how moves
come in (`Game.input_mode`, `State.touch_moves`), a turn time its rules give
(`Game.turn_seconds`), its title in two parts (`Game.short_title`, `Game.description`), which
player owns a piece kind (`Game.owner_of`), its end-turn and pass moves (`State.end_turn_move`,
`State.pass_move`), what a turn whose time ran out becomes (`State.timeout_move`), the options
drawn afresh for each game (`Game.drawn_options`), how a match of several games is totalled
(`Game.match_rules`, `Game.play_match`), the shortcuts the daemon and the search use
(`State.moves_at`, `State.position_key`, `State.move_prior`, `State.playout`), and the physical
board with its dimensions and pieces (`State.plan`, games/plan.py: the maker's kit draws it).

A game module says what the game is. How the computer plays it (its search's options, its
levels' efforts, its beginner's glance, its exact solver) is the computer's, in
games/ai/tuning/<game>.py, and why, in docs/ai.md.

Rules modules are pure: no I/O, no threads, no clock, no hardware imports.
"""

from __future__ import annotations

import json
import random
from abc import ABC, abstractmethod
from typing import TYPE_CHECKING, Any, ClassVar, Iterable, Sequence

# GameError is the rules' family in the project's tree of errors (treeboard/exc.py): a
# TreeboardError and a ValueError. Re-exported here and by `games`, where callers take it.
from treeboard.exc import GameError

if TYPE_CHECKING:
    from games.plan import Plan


class Reason(str):
    """A sentence a player can read, kept with its template and fields, so that the board can
    say it in the family's language (board_driver/views/words.py translates the template, and
    tools/catalogs.py finds every `Reason("...")` in games/). It is the formatted text:

        Reason("{site} is not vacant", site="d4") == "d4 is not vacant"
    """

    template: str
    fields: dict

    def __new__(cls, template: str, **fields: object) -> "Reason":
        self = super().__new__(cls, template.format(**fields))
        self.template, self.fields = template, fields
        return self

    def __getnewargs_ex__(self):  # pickled (the computer's worker) with its template
        return (self.template,), self.fields


class IllegalMove(GameError):
    """A move the rules do not allow now, or text that is not a move.

    `move` is the move (or the text) as given; `reason` is a sentence a player can read.
    A state that raised this is exactly as it was before the call.
    """

    def __init__(self, move: object, reason: str):
        self.move = move
        self.reason = reason
        super().__init__(f"{move}: {reason}" if str(move) else reason)


class InvalidNotation(IllegalMove):
    """Text that does not name a move of this game at all (as opposed to a move not allowed now)."""


class BadOptions(GameError):
    """Options for `Game.new_state` that do not describe a game: a bad board, an unknown option."""


class Game(ABC):
    """A game: its name, its options, and a factory of fresh states."""

    #: The registry name, e.g. "tree-planting".
    name: ClassVar[str]
    #: The game's name as people write it ("Tree Planting"): the page's heading, the sim's words.
    short_title: ClassVar[str]
    #: What the game is about, in one line (the page shows it under the heading).
    description: ClassVar[str]
    #: The game's number in an SGF record (`GM[...]`; docs/records.md): SGF assigns none to
    #: these games, so each takes a private one, unique among them; None: not recorded.
    sgf_number: ClassVar[int | None] = None

    #: How moves come in. "pieces": the sensors watch pieces, and the daemon compares them
    #: with `State.occupancy`. "touch": the board holds no pieces (the position lives on the
    #: LEDs) and its sensors are taps; the states answer `State.touch_moves`
    #: (board_driver/referee/touch.py).
    input_mode: ClassVar[str] = "pieces"
    #: The time a turn may take by the game's own rules, in seconds (Arbos: 300), or None for
    #: no limit. A board's config may set another.
    turn_seconds: ClassVar[float | None] = None
    #: Every piece kind `State.occupancy` can name, for a sensor that tells kinds apart (an
    #: ADC layout's bands are checked against it); None: not declared, nothing is checked.
    piece_kinds: ClassVar[frozenset[str] | None] = None
    #: Options `new_state` draws at random for each game when they are not given (Arbos:
    #: `setup_seed`, the draw of its random setup). They belong to one game, not to the board:
    #: `State.options()` keeps them, so a saved, resumed or remote game draws the same, but the
    #: board's next game draws them again, a board finding its game in the journal compares
    #: only the other options, and a remote game draws them from its game id (each is a whole
    #: number below 2**32).
    drawn_options: ClassVar[frozenset[str]] = frozenset()
    #: How the game's rules total a match of several games, the end of a sentence
    #: ("Total a Treeblox match: ...", `treeboard match --help`), for a game whose rules have
    #: one; None (the default): no match, and `play_match` refuses.
    match_rules: ClassVar[str | None] = None

    @property
    def title(self) -> str:
        """One line for `treeboard games`: "Short title: description"."""
        return f"{self.short_title}: {self.description}"

    def play_match(self, records: Sequence[Sequence[str]], sources: Sequence[str] | None = None,
                   **options: Any) -> dict[str, Any]:
        """The summary of a match (`treeboard match` prints it as JSON) of the games
        `records`, each a list of move texts, game 1 first, played with `options` (as
        `State.options()` gives them); `sources` names where each game came from, for the
        errors. Raises GameError naming the game that does not replay or finish. The default:
        this game's rules have no match (`match_rules` None)."""
        raise GameError(f"{self.short_title} has no match rules")

    def owner_of(self, kind: str) -> int | None:
        """The player (0 or 1) a piece kind (a value of `State.occupancy`) belongs to, or None
        for a piece of nobody's (a Tree Planting rod): the views colour pieces by it. The
        default reads the convention "WHAT:PLAYER" ("tree:1" -> 1); a game whose kinds are
        named otherwise (Fangqi's "black", Treeblox's "dark-leaf") says so itself."""
        what, sep, player = kind.rpartition(":")
        return int(player) if sep and player in ("0", "1") else None

    @abstractmethod
    def options(self) -> dict[str, str]:
        """Option name -> a description of the values it accepts (for `treeboard games`)."""

    @abstractmethod
    def new_state(self, **options: Any) -> "State":
        """A fresh state at the start of a game. Raises BadOptions for options it cannot use."""

    def boards(self) -> list[str]:
        """Names of the ready-made boards, if the game has a board option."""
        return []

    def state_from_json(self, text: str | dict) -> "State":
        """The state saved by `State.to_json`. Raises GameError if it does not hold together."""
        data = load_json(text)
        if data.get("game") != self.name:
            raise GameError(f"saved game is {data.get('game')!r}, not {self.name!r}")
        # Options are saved beside the other keys (the replay object's "board", say).
        options = {k: data[k] for k in self.options() if k in data}
        moves = data.get("moves", [])
        if not isinstance(moves, list) or not all(isinstance(m, str) for m in moves):
            raise GameError("saved 'moves' must be a list of move texts")
        state = self.new_state(**options)
        for i, text in enumerate(moves, 1):
            try:
                state.play(state.parse_move(text))
            except IllegalMove as exc:
                raise GameError(f"saved move {i} ({text!r}) does not replay: {exc.reason}") from exc
        return state


class State(ABC):
    """A position and its history. Mutable: `play` and `undo` change it in place."""

    game: Game

    # --- what every game provides -------------------------------------------------

    @property
    @abstractmethod
    def to_move(self) -> int:
        """The player (0 or 1) whose move it is."""

    @abstractmethod
    def legal_moves(self) -> list:
        """The moves `play` accepts now (empty when the game is over)."""

    @abstractmethod
    def play(self, move: Any) -> None:
        """Play a move (a move object or its text). Raises IllegalMove and changes nothing."""

    @abstractmethod
    def undo(self) -> Any:
        """Take back the last move and return it. Raises IndexError with no move to undo."""

    @abstractmethod
    def copy(self) -> "State":
        """An independent state with the same position and history."""

    @abstractmethod
    def is_over(self) -> bool: ...

    @abstractmethod
    def scores(self) -> tuple[int, int]: ...

    @abstractmethod
    def occupancy(self) -> dict[str, str]:
        """Site name -> piece kind: what a correct physical board holds now."""

    @abstractmethod
    def sites(self) -> list[str]:
        """Every site of the physical board that a sensor can watch (a superset of occupancy's keys
        for the sites on the board; games whose pieces can leave the board may name more there)."""

    @abstractmethod
    def parse_move(self, text: str) -> Any:
        """The move that `text` names. Raises InvalidNotation; `str(move)` gives `text` back.

        A move's text is one word, or words whose first alone names no move (raises
        InvalidNotation: Arbos's `seed C7`), so that moves written one after another,
        separated by whitespace, read back unambiguously (`treeboard replay` joins such a
        first word with the next)."""

    @property
    @abstractmethod
    def moves(self) -> list:
        """The moves played so far, oldest first (a copy)."""

    @abstractmethod
    def options(self) -> dict[str, Any]:
        """The options this state was made with, as `Game.new_state` takes them."""

    # --- shared behaviour ------------------------------------------------------------

    def winner(self) -> int | None:
        """0 or 1 once the game is over; None for a draw or an unfinished game."""
        if not self.is_over():
            return None
        a, b = self.scores()
        return 0 if a > b else 1 if b > a else None

    def summary(self) -> dict[str, Any]:
        """The replay object: what `treeboard replay` prints and `to_json` saves."""
        return {
            "game": self.game.name,
            "board": None,  # games with a board option override it just below
            **self.options(),
            "moves": [str(m) for m in self.moves],
            "scores": list(self.scores()),
            "to_move": self.to_move,
            "over": self.is_over(),
            "winner": self.winner(),
        }

    def to_json(self) -> str:
        return json.dumps(self.summary())

    def playout(self, rng: Any = random, cap: int | None = None) -> tuple[int, int]:
        """Play on with random legal moves until the game ends, or `cap` moves are made, and
        return the scores. Every move is recorded, so `undo` takes them back.

        The search's inner loop (games/ai/mcts.py). This default chooses uniformly among
        `legal_moves()` move after move; games override it with something faster and, where
        they say so, differently distributed (a random game for search, not a model of play).
        A game whose playout can be played more than one way takes keyword arguments with
        neutral defaults (Arbos: `choices`), which the search passes from its table
        (games/ai/tuning/<game>.py, the search option `playout_options`)."""
        left = -1 if cap is None else cap
        randrange = rng.randrange
        while left and not self.is_over():
            ms = self.legal_moves()
            self.play(ms[randrange(len(ms))])
            left -= 1
        return self.scores()

    def playout_value(self) -> float | None:
        """For the search (games/ai/mcts.py): player 0's expected share of the points (0..1,
        a draw 0.5) in this unfinished position, where a capped playout (the search option
        `playout_cap`) stopped; None (the default): the scores as they stand decide, more
        a win and equal a draw, as `winner` would at the end. A game whose end is not
        decided by the score (Fangqi, where the quiet limit is a draw however many counters
        each has) says what a lead is worth by its own rules."""
        return None

    def moves_at(self, site: str) -> list:
        """The legal moves that may change `site`: reconcile (board_driver/referee) tests only
        these when the board differs there. A game narrows them for speed, as long as every
        legal move that changes a sensed site is listed at one of the sites it changes (Tree
        Planting: a rod's move at its groove, not at the hole its tree fills). The default,
        every legal move, is correct for any game."""
        return self.legal_moves()

    def position_key(self) -> Any:
        """A hashable key of the position, equal for states the game cannot tell apart
        whatever their histories, so that the search (games/ai/mcts.py) shares one node
        between transpositions; None (the default): every history is a node of its own."""
        return None

    def end_turn_move(self) -> Any:
        """The move that ends the turn early (the page's and the board's "end turn" button),
        whether or not it is legal now; None when the game has no such move (the default).
        Treeblox: `end`, a pass when no cube was placed this turn; Arbos: its pass."""
        return None

    def pass_move(self) -> Any:
        """The move that passes the turn, whether or not it is legal now: what the referee
        plays for a player whose turn time ran out. None when the game has none (the default)."""
        return None

    def timeout_move(self) -> Any:
        """The move the referee plays for a player whose turn time ran out, whether or not it
        is legal now (the referee plays it only when it is); None when time out has no move
        now. The default is `pass_move()`. Arbos: inside a begun turn, `time`, which ends the
        turn by a stated rule (docs/games/arbos.md, reading 10)."""
        return self.pass_move()

    def touch_moves(self, site: str) -> list[tuple[Any, str | None]]:
        """For games whose `Game.input_mode` is "touch" (board_driver/referee/touch.py): the
        legal moves that begin by tapping `site`, each with the second site to tap, or None
        for a move made by holding `site`. The default: nothing begins anywhere."""
        return []

    def touch_stops(self, move: Any) -> bool:
        """For the touch input: does `move` (one of `touch_moves`) stop something rather than
        grow (Game for the Trees: a chain's stop)? The board lights its target in the warning
        colour. Default False."""
        return False

    def move_prior(self, moves: Sequence[Any]) -> list[float] | None:
        """Optional, for the search: a cheap guess of how promising each of `moves` (this
        position's legal moves) is for the player to move, one number per move, higher first.
        Only the order matters. A game with hundreds of moves a turn (Arbos) offers one so
        that the search (games/ai/mcts.py, progressive widening) looks at the likely moves
        first; the default, None, is no opinion (the search orders moves at random)."""
        return None

    def plan(self) -> "Plan":
        """The physical board this state's options make (games/plan.py): where each of
        `sites()` lies, in mm, what is cut there, the pieces. Default: the sites as 30 mm cells
        of a square, in order; a game whose rules give a board overrides it."""
        from games.plan import square_plan

        return square_plan(self.sites())

    def play_all(self, moves: Iterable[Any]) -> None:
        """Play several moves; on an illegal one, the moves before it stay played."""
        for move in moves:
            self.play(self.parse_move(move) if isinstance(move, str) else move)

    def __eq__(self, other: object) -> bool:
        # Two states are equal when they hold the same game, options and history.
        if not isinstance(other, State):
            return NotImplemented
        return self.summary() == other.summary()

    __hash__ = None  # mutable


def load_json(text: str | dict) -> dict:
    """A game's JSON (text or an already-parsed dict) as a dict; a GameError names what is wrong."""
    if isinstance(text, dict):
        return text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GameError(f"saved game is not JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise GameError("saved game must be a JSON object")
    return data
