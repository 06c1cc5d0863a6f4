"""The board's one door: everything that acts on a board in play comes through here.

The page, the sim, `trace`, remote play and the command line do not reach into the referee,
the session or the daemon: they call a `Door` method (an entry, a button, a takeback, a new
game, a seat, the hint mode), which checks what is asked, changes the game through the referee,
and calls `after_change()` so that the board is lit and the pages are told. A refusal raises
`games.IllegalMove` (a reason a player can read: not now) or `ValueError` (not a thing that can
be asked: a bad seat, an unknown mode) and changes nothing.

The door is synchronous and clock-injected, like the referee, so `trace` and the daemon use the
same one. What only a running daemon has (the computer's worker process, the remote link and
its task) the door asks of its `host`, the daemon, which sets itself there; without one (a
trace) those requests are refused.
"""

from __future__ import annotations

from typing import Any, Callable, Protocol

import games
import games.ai
from games.base import Reason
from board_driver import views
from board_driver.referee.kept import web_refusal
from board_driver.referee.seats import play_web
from board_driver.views.words import tr

#: What a seat may be set to from the page or the sim: "human", "web" or "computer:LEVEL".
HUMAN = "human"
WEB = "web"


class Host(Protocol):
    """What the daemon gives the door: the parts with a process, a task or a connection."""

    remote: Any  # the RemoteLink while a seat is played from another board, else None
    supervisor: Any  # the daemon's supervisor: its parts and their state

    def seats_changed(self) -> None: ...
    def want_hints(self) -> None: ...
    def join_remote(self, table: dict, seat: int | None) -> None: ...
    async def leave_remote(self) -> None: ...
    def in_worker(self, fn: Callable, *args: Any) -> Any: ...
    def repeat(self) -> list[str]: ...
    def voice_settings(self) -> dict: ...
    def set_voice(self, data: dict) -> None: ...


class Door:
    def __init__(self, session: Any, clock: Callable[[], float], *,
                 after_change: Callable[[], None] = lambda: None):
        self.session = session
        self.clock = clock
        self.after_change = after_change
        self.host: Host | None = None

    # --- reading ----------------------------------------------------------------------------

    @property
    def referee(self):
        return self.session.referee

    @property
    def state(self) -> games.State:
        return self.session.referee.state

    @property
    def seats(self) -> tuple[str, str]:
        """Who plays each seat; the referee owns them (the config's `players` is only where a
        board starts)."""
        return self.session.referee.seats

    @property
    def link(self) -> Any:
        """The remote link, while a seat is played from another board; None otherwise."""
        return self.host.remote if self.host is not None else None

    def parts(self) -> tuple[list[dict], str | None]:
        """The daemon's parts (name, state, why) and, when one is not up, a sentence saying
        which and why; ([], None) without a daemon (a trace)."""
        if self.host is None:
            return [], None
        return self.host.supervisor.summary(), self.host.supervisor.down_words()

    def link_summary(self) -> dict | None:
        link = self.link
        return link.summary() if link is not None else None

    def invitation(self) -> str | None:
        """The link to the browser's seat of the game this board hosts (remote/guest.py)."""
        return getattr(self.link, "invitation", lambda: None)()

    @property
    def bridge(self) -> Any:
        """The sensor source when it is a microcontroller bridge (it tells its firmware's
        release and lends its line for an update: board_driver/web/firmware.py), else None."""
        source = getattr(self.session.hardware, "source", None)
        return source if hasattr(source, "lend_port") else None

    # --- acting -----------------------------------------------------------------------------

    def _done(self, result: Any = None) -> Any:
        self.after_change()
        return result

    def _decided(self, result: Any = None) -> Any:
        """The board decided again after what changed the game outside its own loop (an
        ending: referee/endings.py), then lit."""
        self.referee.decide(self.clock())
        return self._done(result)

    def enter(self, site: str, kind: str) -> None:
        """A piece put where no sensor sees it (a Treeblox cube above the board)."""
        referee = self.referee
        if site in referee.sensed:
            raise games.IllegalMove(f"{kind} at {site}",
                                    Reason("{site} has a sensor: put the piece on the board "
                                           "there", site=site))
        referee.enter(site, kind, self.clock())
        self._done()

    def lift_entry(self, site: str) -> None:
        """The piece entered last on a site no sensor sees, lifted again: a takeback."""
        self.referee.lift_entry(site, self.clock())
        self._done()

    def tap(self, site: str, held: bool = False) -> None:
        """A tap (`held`: a hold) of a touch game's square, as the wand makes it, without its
        timing (the sim's `tap` and `hold`): a hold only offers its move, a tap confirms."""
        self.referee.gesture(site, held, self.clock())
        self._done()

    def press(self, button: str) -> None:
        """A named button, from the page or the sim: refused with the reason when it would do
        nothing (the board's own button ignores a press that cannot count, see `button`)."""
        if button != "end_turn":
            raise ValueError("the only button is end_turn")
        state = self.state
        if self.referee.over:
            raise games.IllegalMove("end turn", Reason("the game is over"))
        move = state.end_turn_move()
        if move is None:
            raise games.IllegalMove("end turn", Reason("the turn cannot end now: this game has "
                                                       "no end-turn move"))
        try:
            state.copy().play(move)
        except games.IllegalMove as exc:
            raise games.IllegalMove("end turn", Reason("the turn cannot end now: {reason}",
                                                       reason=exc.reason)) from None
        self.button(button)

    def button(self, name: str) -> None:
        """The board's own button (a physical press): what it cannot do now, it ignores."""
        self.referee.press(name, self.clock())
        self._done()

    def takeback(self, origin: str = "page") -> str:
        """Take back the last move. In a remote game it is asked of the other board (which may
        refuse): returns what was done, in words."""
        link = self.link
        if link is not None:
            asked = link.request_takeback()
            if getattr(link.settings, "guest", False):   # (a seat in a browser: remote/guest.py)
                return self._done(tr("asked the player in the browser to take back move {n}")
                                  .format(n=asked + 1))
            return self._done(tr("asked the other board to take back move {n}").format(n=asked + 1))
        return self._done(tr("took back {moves}").format(moves=self.referee.takeback(self.clock(), origin)))

    def answer_takeback(self, accept: bool) -> None:
        """Accept or refuse the other board's (or the browser's) takeback request."""
        link = self.link
        if link is None:
            raise games.IllegalMove("answer", Reason("this board plays no remote game"))
        link.answer_takeback(accept)
        self._done()

    def new_game(self, options: dict[str, Any] | None = None, origin: str = "board") -> None:
        """Start over (with other options of the same game, if given)."""
        if self.link is not None:
            raise games.IllegalMove("new game", Reason("a remote game is one game on both "
                                                       "boards: to play another, join a new "
                                                       "game id on both"))
        self.referee.new_game(self.clock(), options, origin)
        self._done()

    def play(self, text: str) -> None:
        """A web seat's move, made on the page (POST /api/play): refused with the reason a
        player reads when it is not a web seat's turn or the rules refuse it (seats.play_web)."""
        play_web(self.referee, text, self.clock())
        self._done()

    # --- ending and pausing a game (referee/endings.py) ------------------------------------------

    def resign(self, seat: int | None = None, origin: str = "page") -> int:
        """`seat` resigns (None: the player to move if a person here plays it, else the one
        seat a person here plays). Returns the seat."""
        return self._decided(self.referee.endings.resign(self.clock(), seat, origin))

    def offer_draw(self, seat: int | None = None, origin: str = "page") -> int:
        """`seat` offers a draw (None: as `resign`); the other side answers. Returns the seat."""
        # (the computer, asked, looks at the game when the board is next shown: seats.py)
        return self._decided(self.referee.endings.offer_draw(self.clock(), seat, origin))

    def answer_draw(self, accept: bool, origin: str = "page") -> None:
        """A person here accepts or refuses the draw the other side offers."""
        self.referee.endings.answer(accept, self.clock(), origin)
        self._decided()

    def absent_choice(self, choice: str, origin: str = "page") -> int:
        """The present player's choice while the player to move is away (referee/absence.py):
        pause, wait, claim or draw. Returns the away seat."""
        return self._decided(self.referee.absence.choose(choice, self.clock(), origin))

    def seen(self, seat: int, here: bool, hosted: bool = True, cut_off: bool = False) -> None:
        """Whether `seat`'s player is there, as a link says it, or the pages holding a web seat
        (web/presence.py; a trace says it by hand); `cut_off`: this board's own link is down."""
        if self.referee.absence.seen(seat, here, self.clock(), hosted, cut_off):
            self._decided()

    def put_away(self, origin: str = "page") -> int:
        """The game in progress put away (its position, clocks and seats kept); a new game
        starts. Returns its journal id."""
        return self._decided(self.referee.endings.put_away(self.clock(), origin))

    def take_up(self, game_id: int, origin: str = "page") -> Any:
        """A game put away, taken up again (the game in progress put away first, if a move was
        made in it). Returns the journal's saved game."""
        # (the computer's seat follows the game's seats: the daemon hears "taken-up")
        return self._decided(self.referee.endings.take_up(game_id, self.clock(), origin))

    def away(self) -> list[Any]:
        """The games put away that this board can take up, newest first."""
        return self.referee.endings.away()

    def set_up(self, state: games.State, purpose: str = "record") -> None:
        """A position comes to the board (referee/setup.py): `state` becomes the game, the
        board leads the hands until the pieces match it, then play continues from it. Refused
        in a remote game (one game on both boards) and for a game this board does not play."""
        if self.link is not None:
            raise games.IllegalMove("set up", Reason("a remote game is one game on both boards: "
                                                     "leave it first"))
        self.referee.set_up(state, self.clock(), purpose=purpose)
        self._done()

    def puzzle(self, number: int | None = None, puzzles: dict | None = None) -> str:
        """Start puzzle `number` (1 up; None: the next after the one on the board, else the
        first) of `puzzles` (a set read by games.ai.puzzles.read_set; None: the set shipped for
        the board's game). Both seats become people (referee/puzzle.py says why). Returns its
        prompt's number in words. Raises games.IllegalMove (not now) or ValueError (no such
        puzzle, another game's set)."""
        from board_driver.referee.puzzle import Puzzle
        from games.ai.puzzles import shipped_set

        referee = self.referee
        current = referee.mode if referee.mode is not None and referee.mode.kind == "puzzle" \
            else None
        if puzzles is None:
            puzzles = current.set if current is not None else shipped_set(self.state.game.name)
        if puzzles["game"] != self.state.game.name:
            raise ValueError(f"a set of {puzzles['game']} puzzles: this board plays "
                             f"{self.state.game.name}")
        if number is None:
            number = current.index + 2 if current is not None and current.set is puzzles else 1
        if not 1 <= number <= len(puzzles["puzzles"]):
            raise ValueError(f"puzzle {number}: the set has 1 to {len(puzzles['puzzles'])}")
        if self.link is not None:
            raise games.IllegalMove("puzzle", Reason("a remote game is one game on both "
                                                     "boards: leave it first"))
        self._people()
        Puzzle(referee, puzzles, number - 1).start(self.clock())
        return self._done(tr("puzzle {k} of {n}").format(k=number, n=len(puzzles["puzzles"])))

    def study(self, game_id: int, at: int = 0) -> None:
        """Study game `game_id` of the journal on the board, from move `at` (referee/study.py).
        Raises ValueError for a game the journal does not hold or of another game."""
        from board_driver.referee.journal import JournalError

        try:
            saved = self.session.journal.game(game_id)
        except JournalError:
            raise ValueError(f"game {game_id}: the journal holds no such game") from None
        self.study_moves(saved.game, saved.options, saved.moves, at=at,
                         title=tr("game {id}").format(id=game_id))

    def study_moves(self, game: str, options: dict, moves: list[str], *, at: int = 0,
                    comments: dict[int, str] | None = None, title: str | None = None) -> None:
        """Study a record given as its moves (an imported SGF file: the page reads it), with
        its comments by move number (1 up), from move `at`. Both seats become people."""
        from board_driver.referee.study import Study

        if game != self.state.game.name:
            raise ValueError(f"a record of {game}: this board plays {self.state.game.name}")
        if self.link is not None:
            raise games.IllegalMove("study", Reason("a remote game is one game on both "
                                                    "boards: leave it first"))
        study = Study(self.referee, game, options, moves, comments, title)
        self._people()
        study.start(at, self.clock())
        self._done()

    def step(self, count: int) -> None:
        """The study `count` moves forward (negative: back)."""
        self._studying("step").step(count, self.clock())
        self._done()

    def branch(self, other: str = HUMAN) -> None:
        """Leave the study and play on from its position: the side to move is a person here,
        the other `other` ("human" or "computer:LEVEL")."""
        referee = self.referee
        self._studying("branch")
        self.set_seat(1 - referee.state.to_move, other)   # (refused: the study goes on)
        referee.mode = None
        self._done()

    def _studying(self, what: str) -> Any:
        mode = self.referee.mode
        if mode is None or mode.kind != "study":
            raise games.IllegalMove(what, Reason("no record is being studied: open one first"))
        return mode

    def _people(self) -> None:
        """Both seats people (a study's or a puzzle's position is the players' to play)."""
        if self.seats != (HUMAN, HUMAN):
            self.referee.set_seats((HUMAN, HUMAN))
            if self.host is not None:
                self.host.seats_changed()

    def set_seat(self, seat: int, player: str) -> None:
        """Who plays `seat`: "human", "web" or "computer:LEVEL", at once (the computer thinks
        now if it is its turn). Kept across a restart in the journal (referee/kept.py), until
        the config's `players` is edited."""
        if seat not in (0, 1):
            raise ValueError(f"seat must be 0 (moves first) or 1, not {seat!r}")
        levels = ", ".join(f"computer:{name}" for name in games.ai.LEVELS)
        if player.startswith("computer:"):
            name = player.split(":", 1)[1]
            player = "computer:" + games.ai.ALIASES.get(name, name)  # "perfect": the strongest
        if player not in (HUMAN, WEB) and not (player.startswith("computer:")
                                               and player.split(":", 1)[1] in games.ai.LEVELS):
            raise ValueError(f"player must be human, web or one of {levels}, not {player!r}")
        if self.link is not None:
            raise games.IllegalMove("seats", Reason("this board is in a remote game, whose "
                                                    "seats are set by joining it: leave it "
                                                    "first"))
        if self.host is None and player not in (HUMAN, WEB):
            raise games.IllegalMove("seats", Reason("the computer plays only on a running board"))
        players = list(self.seats)
        players[seat] = player
        refused = web_refusal(tuple(players), self.state.game)
        if refused is not None:
            raise games.IllegalMove("seats", refused)
        self.referee.set_seats(players)
        if self.host is not None:
            self.host.seats_changed()
        self._done()

    def set_time_control(self, text: str) -> str:
        """The players' clocks as chess players write them (`none`, `10`, `5+3`, `30s/move`,
        `10,3+2`): for this game if no move is made yet, else from the next game. Returns what
        was done, in words. Raises ValueError (clock.ClockError) saying what was expected."""
        from board_driver.referee.clock import control_text, parse_time_control

        controls = parse_time_control(text)
        if self.link is not None:
            raise games.IllegalMove("clock", Reason("a remote game's clocks are set when both "
                                                    "boards start it"))
        referee = self.referee
        now_too = not referee.state.moves and not referee.over
        referee.set_controls(controls, self.clock())
        self._done()
        return (tr("time control {control} from now") if now_too else
                tr("time control {control} from the next game")).format(
            control=control_text(controls))

    def set_hint_mode(self, mode: str) -> None:
        """What the board lights of the moves: one of the game's hint modes."""
        modes = views.hint_modes(self.state.game.name)
        if mode not in modes:
            raise ValueError("hint mode must be one of " + ", ".join(modes))
        self.referee.set_hint_mode(mode)
        if mode == "best" and self.host is not None:
            self.host.want_hints()
        self._done()

    def join_remote(self, table: dict, seat: int | None) -> None:
        """Join a remote game (the page): `table` as the config's [remote] would hold it,
        `seat` the seat played here (None: watch)."""
        if self.host is None:
            raise games.IllegalMove("join", Reason("remote play needs a running board"))
        self.host.join_remote(table, seat)
        self._done()

    async def leave_remote(self) -> None:
        if self.host is None or self.link is None:
            raise games.IllegalMove("leave", Reason("this board is in no remote game"))
        await self.host.leave_remote()
        self._done()

    def repeat(self) -> list[str]:
        """Say it again (aloud, when the board has a voice): the last moves, whose turn, the
        score; returns the sentences."""
        if self.host is None:
            raise games.IllegalMove("repeat", Reason("the voice runs only on a running board"))
        return self.host.repeat()

    def voice(self) -> dict:
        """The voice's settings ([voice], as the page last changed them) and its health."""
        if self.host is None:
            raise games.IllegalMove("voice", Reason("the voice runs only on a running board"))
        return self.host.voice_settings()

    def set_voice(self, data: dict) -> dict:
        """Change the voice (any of enabled, language, voice, rate, volume, quiet_hours,
        repeat_moves): from the next sentence, and after a restart. Raises ConfigError naming
        the field and what was expected (nothing changes then)."""
        if self.host is None:
            raise games.IllegalMove("voice", Reason("the voice runs only on a running board"))
        self.host.set_voice(data)
        return self._done(self.host.voice_settings())

    def in_worker(self, fn: Callable, *args: Any) -> Any:
        """`fn(*args)` in the computer's worker process, awaitable (a game review)."""
        if self.host is None:
            raise games.IllegalMove("review", Reason("the computer's worker runs only on a "
                                                     "running board"))
        return self.host.in_worker(fn, *args)
