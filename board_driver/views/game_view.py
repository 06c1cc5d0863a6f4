"""The interface of a game's view: one class with defaults, as `games.base` is for the games.

Each game's view module (`board_driver/views/<game>.py`) keeps its drawing in plain functions
and ends with its class, a `GameView` that binds them:

    class TreebloxView(GameView):
        TITLE = TITLE
        PLAYERS = PLAYERS
        frame = staticmethod(frame)
        svg = staticmethod(svg)
        terminal = staticmethod(terminal)
        svg_3d = staticmethod(svg_3d)

`board_driver.views.VIEWS` lists the classes, by the game's registry name. `frame`, `svg` and
`terminal` are required; everything else has its default here, so nothing reads a view by
probing it (`getattr`, `hasattr`). A class that lacks a required part, or names one the
interface does not declare (a misspelt name would silently be the default), is refused when it
is defined.

The methods are pure functions of a game's State (`state`) and a Moment (`moment`: board_driver/moment.py, the referee's decisions, frozen, with its `settings`), declared as
static methods: a view is never instantiated, its class is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, ClassVar, Mapping

from board_driver.views.base import DEFAULT_PLAYERS, PIECES, Colour, Moment
from board_driver.views.paint import Paint
from board_driver.views.words import N_, tr

#: The parts every view defines itself.
REQUIRED = ("frame", "svg", "terminal")

#: Numbers as words, so that a third language says them through its catalog alone.
NUMBER_WORDS = (N_("zero"), N_("one"), N_("two"), N_("three"), N_("four"), N_("five"),
                N_("six"), N_("seven"), N_("eight"), N_("nine"), N_("ten"), N_("eleven"),
                N_("twelve"), N_("thirteen"), N_("fourteen"), N_("fifteen"), N_("sixteen"),
                N_("seventeen"), N_("eighteen"), N_("nineteen"), N_("twenty"))


def say_number(n: int) -> str:
    """A whole number as a word in the board's language (digits past twenty: the voice reads
    them in its own language)."""
    return tr(NUMBER_WORDS[n]) if 0 <= n < len(NUMBER_WORDS) else str(n)


_SITE = re.compile(r"\b([A-Za-z])(\d{1,2})\b")
_WORD = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class Way:
    """One way to make a move by tapping the game's picture (the entry model, views/entry.py):
    the sites to tap in order, as the SVG pictures' `data-site` attributes name them (none: a
    button, such as end turn or pass), and the button's words where these taps also make
    another move (Treeblox's cube kind, Game for the Trees' retreat), or None: the model then
    says the move as `move_words` shows it."""

    move: Any
    taps: tuple[str, ...] = ()
    label: str | None = None


def changed_taps(state, move) -> tuple[str, ...]:
    """The sites a piece game's `move` changes that it is made at (`moves_at`: a Tree Planting
    rod's groove, not the hole its tree fills), the ones it empties first (a slide's source)."""
    before = state.occupancy()
    state.play(move)
    after = state.occupancy()
    state.undo()
    changed = [s for s in before.keys() | after.keys() if before.get(s) != after.get(s)]
    made_at = [s for s in changed if move in state.moves_at(s)] or changed
    # emptied, then changed, then filled; each group in the game's order of sites
    order = {s: i for i, s in enumerate(state.sites())}
    return tuple(sorted(made_at, key=lambda s: (s not in before, s in before and s in after,
                                                 order.get(s, len(order)), s)))


def touch_ways(state) -> list[Way]:
    """A touch game's moves as its board takes them (`State.touch_moves`): a source, then a
    target; a move made by holding its square is its one tap, told apart by its button."""
    ways = [Way(move, (site,) if second is None else (site, second))
            for site in state.sites() for move, second in state.touch_moves(site)]
    made = {str(w.move) for w in ways}
    return ways + [Way(m) for m in state.legal_moves() if str(m) not in made]


class GameView:
    """How one game is shown: its LED frame, its SVG picture for the page, its terminal
    drawing, and how its players name and say its sites, moves and sides. Subclass it once
    per game (see the module's docstring); read it through `board_driver.views`' helpers."""

    #: How players read the two sides, 0 then 1 ("Dark", "Light"), marked with `words.N_`.
    #: Default ("player 1", "player 2").
    PLAYERS: ClassVar[tuple[str, str]] = DEFAULT_PLAYERS

    #: The game's name as its players call it, marked with `words.N_`. Default None: the
    #: game's `short_title`, untranslated.
    TITLE: ClassVar[str | None] = None

    #: What the game's `scores()` count, in words, marked with `words.N_` ("counters left" in
    #: Fangqi, where the two numbers are each player's counters). Default "score".
    SCORE: ClassVar[str] = N_("score")

    #: The game's own help lines for `treeboard sim` (its site names, its entries), marked with
    #: `words.N_` (translated where shown). Default none ("").
    HELP: ClassVar[str] = ""

    #: The hint modes (Settings.moves) its frame and pictures show. Default ("off", "legal",
    #: "safe", "best"; the best moves are lit for every game by the shared overlay).
    HINTS: ClassVar[tuple[str, ...]] = ("off", "legal", "safe", "best")

    #: How the page draws each player's pieces when that is not their LED colour ("#f4f1e8"
    #: for White's light counters): the page's player chips show it, ringed in the LED
    #: colour. Default None (pieces drawn in the LED colours).
    PIECE_FILLS: ClassVar[tuple[str, str] | None] = None

    #: True when pieces may stand where no sensor sees them (Treeblox cubes above the board):
    #: the page then offers each legal move that puts one there. Default False (finding them
    #: tries every legal move, which a 20x20 board should not pay for on every change).
    ENTRIES: ClassVar[bool] = False

    #: Why a game ended, by the state's `end_reason`, marked with `words.N_`. Default none.
    END_REASONS: ClassVar[Mapping[str, str]] = MappingProxyType({})

    #: The game's own lines of the LED legend (`board_driver.views.legend`): a colour name ->
    #: its words, or None for a colour the game never shows. Default none.
    COLOUR_MEANINGS: ClassVar[Mapping[str, str | None]] = MappingProxyType({})

    @staticmethod
    def frame(state, moment: Moment, now: float) -> tuple[dict[str, Colour], float | None]:
        """Required. The game's own layer of light: {site: (r, g, b)} for the sites it lights,
        and the time (same clock as `now`) at which that layer next changes by itself, or None.
        Pure. Do NOT draw corrections or the winner's animation: `render` puts them on top,
        for every game."""
        raise NotImplementedError("a game's view defines frame")

    @staticmethod
    def svg(state, moment: Moment) -> str:
        """Required. The board as one standalone <svg> element (xmlns, viewBox; no
        width/height, the page sizes it). Pure: state and view in, SVG text out, like
        chess.svg; no clock. Every element that stands for a site carries
        `data-site="<site>"` and a <title> naming it; pieces carry `data-kind`; a site to
        correct carries class "fix" plus "blink" when the piece is missing (the page's CSS
        blinks it, as the LEDs do) and `data-fix` with what to do there. Pass every text
        through `svgkit.esc` (svgkit.el does)."""
        raise NotImplementedError("a game's view defines svg")

    @staticmethod
    def terminal(state, moment: Moment, paint: Paint) -> str:
        """Required. The board drawn in text for `treeboard sim`, rows and columns labelled so
        that a site's name can be read off it. Colours say what the LEDs mean (through
        `paint`, which writes plain text when the output is no terminal), so the drawing must
        also read without them."""
        raise NotImplementedError("a game's view defines terminal")

    #: A second picture (Treeblox: an isometric view of the trees), or None, the default: the
    #: game has none (the page then shows none, and refuses to turn one).
    #: `svg_3d(state, moment, places, turn=0) -> str`: `places` are the sites where an entry
    #: may be made now, drawn so that a click on one (an element with `data-place="<site>"`)
    #: picks it; `turn` quarter turns show it from another side.
    svg_3d: ClassVar[Callable[..., str] | None] = None

    @staticmethod
    def hint_reason(state, move) -> str | None:
        """Why a move is worth playing (or not), one whole sentence built in this one place
        ("d4 completes your square."), from the position's own shape; the hint shows it for
        the best move, in the sim, on the page and in the voice. Default None (nothing to
        say)."""
        return None

    @staticmethod
    def why_not(state, site: str, kind: str) -> str | None:
        """Why a piece of `kind` put on `site` is no move, in the rules' words, where no legal
        move puts any piece there now (Treeblox: "a2+1 is in the air, ..."), in the board's
        language; None (the default): nothing more to say than that no move puts it there."""
        return None

    @staticmethod
    def notice(state) -> str | None:
        """What the player to move must do that a piece alone cannot show, one sentence
        (Arbos: "4 trees: lift your spores until three remain"). Default None."""
        return None

    @staticmethod
    def site_words(site: str) -> str:
        """A site as a player says it, where its name is not that already (a Treeblox cell
        beside the board: "beyond c4, on the table", not "(2,4,0)"). Default: the name
        itself."""
        return site

    @staticmethod
    def move_words(move: str) -> str:
        """A move as a screen shows it to a player, short like a score sheet, in the board's
        language: the sites stay as they are written ("C7", "h0.1" are names), the notation's
        words become the language's (Arbos "seed C2" -> zh "播种 C2", "pass"; Game for the
        Trees "retreat:d5"; Treeblox "end", and a cube beside the board "L beyond c4"). Used
        wherever a move is shown (the sim's lines, the page's move list, the touch prompts,
        a takeback, a hint); the notation itself stays where a program reads it (the journal,
        trace JSON's moves, replay, the remote protocol). Default: the notation."""
        return move

    @staticmethod
    def say_site(state, site: str) -> str:
        """A site as a person says it aloud ("C seven", "the top groove of row 1, square 2"),
        in the board's language. Default: its letter, then its number in words."""
        return _SITE.sub(lambda m: f"{m.group(1).upper()} {say_number(int(m.group(2)))}", site)

    @classmethod
    def say_move(cls, state, move: str) -> str:
        """A move's notation as a person says it. Default: each site in it as the view's
        `say_site` says it, the pieces' names in words (a classmethod, to reach the class's
        `say_site`; a game's own is a static method like the rest)."""
        said = _SITE.sub(lambda m: cls.say_site(state, m.group(0)), move)
        return _WORD.sub(lambda m: tr(PIECES[m.group(0)]) if m.group(0) in PIECES else m.group(0),
                         said)

    @staticmethod
    def entry_ways(state) -> list[Way]:
        """Every legal move of the player to move with the taps on the pictures that make it
        (the entry model, board_driver/views/entry.py: a web seat plays by tapping the page's
        picture, and the page holds no rules). A move may have several ways (Fangqi's two
        captures, in either order); a move with no taps is a button. Every tap names an
        element's `data-site` in `svg` or `svg_3d`; the same taps with the same words for two
        moves would make neither (tests/board_driver/test_entry.py checks every game).
        Default: a touch game's `touch_moves`; a piece game's move at the sites it changes
        (`changed_taps`), a move that changes none (end turn, pass) a button."""
        if state.game.input_mode == "touch":
            return touch_ways(state)
        return [Way(m, changed_taps(state, m)) for m in state.legal_moves()]

    @staticmethod
    def picture_legend(moment: Moment) -> list[dict]:
        """What each colour of the game's own picture means (Game for the Trees' terrain), for
        the page to list beside the picture (never drawn over the board): [{"what", "how",
        "colours": ["#rrggbb", ...]}], the colours as the picture draws them, the words the
        LEDs' own legend. Default: none."""
        return []

    def __init_subclass__(cls, **kwargs) -> None:
        """Refuse, when it is defined, a view that lacks a required part or names one the
        interface does not declare."""
        super().__init_subclass__(**kwargs)
        below = cls.__mro__[:cls.__mro__.index(GameView)]
        own = {name for klass in below for name in vars(klass)
               if not (name.startswith("__") and name.endswith("__"))}
        missing = [name for name in REQUIRED if name not in own]
        unknown = sorted(own - DECLARED)
        where = f"{cls.__module__}.{cls.__qualname__}"
        if missing:
            raise TypeError(f"{where}: a game's view must define {', '.join(missing)} "
                            "(see board_driver/views/game_view.py)")
        if unknown:
            raise TypeError(f"{where}: {', '.join(unknown)} is not part of a game's view "
                            "(GameView declares every part; see board_driver/views/game_view.py)")


#: Every part of the interface, the names a view's class may define.
DECLARED = frozenset(name for name in vars(GameView) if not name.startswith("_"))
