"""The seam between the referee and the views: one frozen value a moment of the board is drawn
from, and the small settings record it is drawn with.

The referee owns the game on the board and decides; it hands the views a `Moment` (the
position, what must be corrected or completed, the other seat's move still to put down, the
clocks, a flag, the menu or a touch selection in progress, the hints) and the views draw it.
Nothing in a Moment can be changed after it is made, so a view can never write back into the
referee, and the same Moment can be drawn on the LEDs, the page, the terminal and in words.

Lives below both rooms (referee/ and views/ import it; it imports neither), with the types
both need: `Correction`, `Settings`, `MenuFace`, `TouchFace`, `EndingFace`, `AbsentFace`, and the
faces of the modes (`SetupFace`, `StudyFace`, `PuzzleFace`).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Mapping

Colour = tuple[int, int, int]
_EMPTY: Mapping = MappingProxyType({})


def frozen_map(mapping: Mapping | None) -> Mapping:
    """A read-only copy of `mapping` (a Moment's mappings cannot be written through)."""
    return MappingProxyType(dict(mapping)) if mapping else _EMPTY


@dataclass(frozen=True)
class Correction:
    """A site where the board and the game disagree: what must be there and what is."""

    site: str
    want: str | None   # the piece kind that must be there; None: the site must be empty
    have: str | None   # what the sensor reads there

    @property
    def missing(self) -> bool:
        return self.want is not None


@dataclass(frozen=True)
class Settings:
    """How the board draws, apart from what it draws: the config's colours and timings and the
    hint mode in force. Changed only by replacing it (`Referee.set_hint_mode`, the menu)."""

    colours: Mapping[str, Colour]
    moves: str = "safe"              # the hint mode: off | legal | safe | best
    blink_hz: float = 2.0
    winner_seconds: float = 6.0
    takeback: bool = True            # display.takeback: lifting the last piece takes it back

    def __post_init__(self):
        object.__setattr__(self, "colours", frozen_map(self.colours))

    def with_moves(self, mode: str) -> "Settings":
        return replace(self, moves=mode)


@dataclass(frozen=True)
class MenuFace:
    """The menu while it is open (board_driver/referee/menu.py): its sites and choices."""

    sites: Mapping[str, Any]          # site -> Choice (group, value)
    selected: frozenset[str]          # the sites of the choices made
    corners: tuple[str, str] | None
    chosen: Mapping[str, Any]         # group -> value
    touch: bool                       # chosen by taps (a touch board), not pieces
    game: bool = False                # the game menu (resign, a draw, put away), mid-game


@dataclass(frozen=True)
class TouchFace:
    """A touch game's selection (board_driver/referee/touch.py) as it stands."""

    shown: Any                        # the position to light (in a choice: after the offer)
    selected: str | None = None
    targets: frozenset = frozenset()  # sites a tap grows to (None: a hold's move)
    stops: frozenset = frozenset()    # of those, the ones that stop the chain growing
    choice: bool = False              # a choice of moves is on offer
    choice_target: str | None = None
    confirming: bool = False
    flash: tuple[str, float] | None = None   # a tap that did nothing: (site, until)
    words: str | None = None          # the selection in words (the sim's line)
    note: str | None = None           # the last tap that made no move, in words
    note_key: int | None = None       # which tap that was (a new one is said again)
    described: Mapping = field(default_factory=lambda: _EMPTY)   # for the page and traces


@dataclass(frozen=True)
class EndingFace:
    """A game its players ended, or a draw on offer (board_driver/referee/endings.py)."""

    resigned: int | None = None       # the seat that resigned (the other won)
    agreed: bool = False              # a draw agreed
    # The seat that was away when the present player ended the game (referee/absence.py):
    # claimed (the other won: `forfeit`) or called a draw (`drawn_away`).
    forfeit: int | None = None
    drawn_away: int | None = None
    offer_by: int | None = None       # the seat whose draw offer waits for its answer
    asked: str | None = None          # who answers: "board" (a person here), "computer", "remote"
    # The last thing done, said once: (its count, what: "offer", "refused", "lapsed",
    # "resigned", "agreed", "away", "taken-up", "forfeit", "drawn_away", its values: a seat,
    # a game id and moves).
    news: tuple | None = None

    @property
    def over(self) -> bool:
        return self.resigned is not None or self.agreed or self.forfeit is not None \
            or self.drawn_away is not None

    @property
    def winner(self) -> int | None:
        lost = self.resigned if self.resigned is not None else self.forfeit
        return None if lost is None else 1 - lost


@dataclass(frozen=True)
class AbsentFace:
    """The player to move away (board_driver/referee/absence.py): whether the present player
    is asked now and may choose what, and whether that player's clock is paused."""

    seat: int | None = None           # the away seat to move (None: no one away, news only)
    asked: bool = False               # away past the grace: the present player is asked
    paused: bool = False              # its clock paused until it returns
    choices: tuple[str, ...] = ()     # pause, wait, claim, draw (none: the game just waits)
    hosted: bool = True               # this board decides that seat's game (a browser's)
    # The last choice or return, said once: (its count, "paused" | "waiting" | "back" |
    # "credited" | "waited" | "withdrawn", seat).
    news: tuple | None = None
    cut_off: bool = False             # this board has no link to the broker: it cannot tell
    # A claim ("claim") or draw ("draw") sent to the away board, final when it hears it.
    pending: str | None = None


@dataclass(frozen=True)
class SetupFace:
    """A position being set up on the board (board_driver/referee/setup.py)."""

    left: int                         # how many sites still differ from the position
    total: int                        # how many differed when the set-up began
    purpose: str = "record"           # record | study | puzzle | game (taken up again)
    next: tuple[Correction, ...] = ()  # the sites lit now: wrong pieces, then the nearest to put


@dataclass(frozen=True)
class StudyFace:
    """A record studied on the board (board_driver/referee/study.py): move `at` of `count`."""

    at: int                           # how many of the record's moves stand on the board
    count: int                        # the record's moves
    move: str | None = None           # the move last stepped to (None: the start)
    comment: str | None = None        # the record's or the review's sentence on that move
    title: str | None = None          # the record's name (players, date), as the page lists it
    off: bool = False                 # a move off the record was played (a branch begun)
    next: str | None = None           # the record's next move (made by hand, it steps forward)


@dataclass(frozen=True)
class PuzzleFace:
    """A puzzle on the board (board_driver/referee/puzzle.py): its prompt and, once a move is
    played, the verdict (the views say why: the game's view's reason for the answer)."""

    number: int                       # which puzzle of its set (1 up)
    count: int                        # how many the set has
    mover: int                        # the player to find the move
    goal: str                         # win | draw: what the one best move keeps
    free: int | None = None           # its grade: free grooves (Tree Planting) or moves to play
    theme: str | None = None          # what it teaches (a key: chain-endgame, long-chain, ...)
    verdict: str | None = None        # None (not answered yet), "right" or "wrong"
    played: str | None = None         # the move played
    answers: tuple[str, ...] = ()     # the moves that solve it (shown once answered)
    result: str | None = None         # what the move played leads to: win, draw, loss (None:
                                      # not known)


@dataclass(frozen=True)
class Moment:
    """What a moment of the board is. Made by `Referee.moment(now)`; drawn by the views."""

    settings: Settings
    state: Any = None                 # the position (a copy: the views read it, never play)
    game: int = 0                     # which game of this board's life (a new game: a new one)
    seats: tuple[str, str] = ("human", "human")
    sensed: tuple[str, ...] = ()      # the sites a sensor watches
    corrections: tuple[Correction, ...] = ()
    # A move in progress (reconcile's "in-progress"): where a piece may go next (want set), or
    # which pieces may be taken off (want None).
    completions: tuple[Correction, ...] = ()
    # A move in progress: the sites whose piece is lifted off (drawn as lifted, not where it was).
    lifted: frozenset = frozenset()
    # Sites of a move another seat played in the game, still to be made on the board: shown as
    # "the computer's move: make it", not as a mistake; `to_make_by` says whose.
    to_make: frozenset = frozenset()
    to_make_by: str = "computer"
    # Sites of the next move, put before what the last move still owes the board (player 2's
    # rod before the tree its last rod planted, the player's rod before the computer's): no
    # mistake, the move counts once the owed pieces (the corrections) are in place.
    waiting: frozenset = frozenset()
    holding: bool = False             # nothing is played until the board matches the game
    over_since: float | None = None   # when the game ended (the winner's animation)
    flagged: int | None = None        # the seat whose time ran out (the game is lost)
    timed_out: frozenset = frozenset()  # move numbers (1 up) that a clock's timeout made
    takeback_depth: int = 1           # how many moves a takeback takes back now
    # The clocks at the moment (None: an untimed game): both seats' seconds left (None: an
    # untimed seat), whose runs, the running one's seconds left, the controls in words.
    clocks: tuple | None = None
    clock_running: int | None = None
    turn_left: float | None = None
    clock_control: str | None = None
    # hints "best": site -> "best" (a best move), and with an exact value "keeps" (keeps the
    # mover's result) or "loses"; why the best move (one sentence) and its notation.
    hints: Mapping[str, str] = field(default_factory=lambda: _EMPTY)
    hint_reason: str | None = None
    hint_move: str | None = None
    # Computer seats whose last search the wall-time cap cut short of their level's effort
    # (seat -> level): they play weaker than their rating here ("limited by time").
    limited: Mapping[int, str] = field(default_factory=lambda: _EMPTY)
    menu: MenuFace | None = None      # the menu, while it is open
    touch: TouchFace | None = None    # a touch game's selection (None: a piece game)
    # A game its players ended (a resignation, a draw agreed), a draw on offer, and the last
    # such thing done (None: none of these).
    ending: EndingFace | None = None
    setup: SetupFace | None = None    # a position being set up (None: none)
    study: StudyFace | None = None    # a record studied on the board (None: none)
    puzzle: PuzzleFace | None = None  # a puzzle on the board (None: none)
    absent: AbsentFace | None = None  # the player to move away (None: no one, nothing new)
    # The seats whose player the link or the page says is away, to move or not (absence.py):
    # the views say it of a web seat (a remote seat's link says its own).
    away: frozenset = frozenset()

    def __post_init__(self):
        object.__setattr__(self, "hints", frozen_map(self.hints))
        object.__setattr__(self, "limited", frozen_map(self.limited))
        object.__setattr__(self, "corrections", tuple(self.corrections))
        object.__setattr__(self, "completions", tuple(self.completions))

    @classmethod
    def still(cls, colours: Mapping[str, Colour], moves: str = "safe", state: Any = None,
              **decided: Any) -> "Moment":
        """A moment with nothing decided but what is given (a saved game's picture on the page,
        a position drawn by a test); settings other than the colours and hint mode may be given
        by name too (blink_hz, winner_seconds, takeback)."""
        settings = {k: decided.pop(k) for k in ("blink_hz", "winner_seconds", "takeback")
                    if k in decided}
        return cls(Settings(colours=colours, moves=moves, **settings), state=state, **decided)

    def at_board(self, player: int) -> bool:
        """Whether `player` plays here, through the sensors (not the computer, not remote)."""
        return self.seats[player] == "human"

    @property
    def over(self) -> bool:
        return self.flagged is not None or (self.ending is not None and self.ending.over) \
            or (self.state is not None and self.state.is_over())

    def shown(self) -> "Moment":
        """This moment as the board shows it: no hints while the player to move is not at this
        board (the computer thinking, the other family's turn on a remote board). The board
        lights moves only for the players standing at it; the LEDs and the page both draw it."""
        state = self.state
        if self.settings.moves == "off" or state is None or state.is_over() \
                or self.at_board(state.to_move):
            return self
        return replace(self, settings=self.settings.with_moves("off"), hints=_EMPTY)


__all__ = ["Moment", "Settings", "Correction", "MenuFace", "TouchFace", "EndingFace", "SetupFace",
           "StudyFace", "PuzzleFace", "AbsentFace", "Colour", "frozen_map"]
