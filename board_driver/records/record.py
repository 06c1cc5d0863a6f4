"""A game's record: everything the board knows of a game, as one value (docs/records.md).

`record_of(saved)` makes it from the journal's saved game (its seats, dates, the clocks at
each move, the result and how it ended), with the review's marks and sentences where one is
given; `checked(record)` replays it against the game's rules, its variations too, and makes
what the journal keeps of it (`Imported`), or refuses it with the line and the reason
(`RecordError`) before anything is written.

SGF names the two players by colour: B is the first player (player 0, who moves first) and W
the second, whatever colour the game gives their pieces.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import games
from board_driver import views
from board_driver.referee.clock import ClockError, parse_time_control
from board_driver.referee.journal import Imported
from board_driver.views.words import tr
from games.base import Reason
from treeboard.exc import TreeboardError

#: SGF's colours, by player: B moves first.
COLOURS = ("B", "W")
#: How a seat is named in a record when the record has no name of its own (PB, PW).
SEAT_WORDS = {"human": "person at the board", "remote": "remote board", "web": "web seat",
              "computer": "computer"}
#: How a game ends, as a record's RE says it (and the library searches it).
ENDINGS = ("score", "time", "resignation", "agreement", "forfeit", "absence")


class RecordError(TreeboardError, ValueError):
    """A file that is no record this board can take: not UTF-8, not SGF, another game's, an
    illegal move inside. `line` is where (None: the file as a whole), `reason` a sentence a
    player can read (a `games.Reason`, translated on the page)."""

    def __init__(self, line: int | None, reason: str):
        self.line, self.reason = line, reason
        super().__init__(f"line {line}: {reason}" if line is not None else str(reason))


@dataclass(frozen=True)
class Player:
    """Who played a seat: `seat` as the board knew it ("human", "computer:LEVEL", "remote",
    "web"), `name` as the record wrote it where that is more than the seat's words."""
    seat: str | None = None
    name: str | None = None

    @property
    def shown(self) -> str | None:
        """The player as a record names them (PB, PW): the name, else the seat in words."""
        return self.name if self.name is not None else seat_words(self.seat)

    def to_json(self) -> dict[str, str]:
        return {k: v for k, v in (("seat", self.seat), ("name", self.name)) if v is not None}


@dataclass(frozen=True)
class Move:
    """One move of a record: by `player` (0 or 1), in the game's own notation; both clocks
    after it (ms; None where a seat has none), the review's comment and mark (BM: 1 a bad
    move, 2 a very bad one), and the lines played instead of it (variations)."""
    player: int
    text: str
    left_ms: tuple[int | None, int | None] | None = None
    comment: str | None = None
    bad: int = 0
    variations: tuple[tuple["Move", ...], ...] = ()
    line: int = field(default=0, compare=False)   # where it was read (0: made here)


@dataclass(frozen=True)
class Record:
    """One game: its registry name, its options (as text, as `new_state` takes them), both
    players, the moves of its main line, its date (SGF's DT), its result (SGF's RE; None: not
    finished), its time control (our notation, docs/board.md) and a comment on the whole."""
    game: str
    options: dict[str, str]
    players: tuple[Player, Player] = (Player(), Player())
    moves: tuple[Move, ...] = ()
    date: str | None = None
    result: str | None = None
    control: str | None = None
    comment: str | None = None
    line: int = field(default=0, compare=False)   # where it was read: its root node
    lines: dict[str, int] = field(default_factory=dict, compare=False)   # ... each property

    def at(self, key: str) -> int:
        """The line a property of the record's root was read on (its root's, if not read)."""
        return self.lines.get(key, self.line)

    @property
    def number(self) -> int:
        """The game's number in SGF (GM)."""
        return number_of(self.game)


# --- the games' numbers, players and results ------------------------------------------------

def number_of(game: str) -> int:
    number = games.get_game(game).sgf_number
    if number is None:
        raise RecordError(None, Reason("{game} has no SGF game number", game=game))
    return number


def game_of(number: int) -> str | None:
    """The registry name of the game whose SGF number is `number`, or None."""
    for name in games.names():
        if games.get_game(name).sgf_number == number:
            return name
    return None


def option_text(value: Any) -> str:
    """An option's value as a record writes it (`new_state` reads it back the same)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def seat_words(seat: str | None) -> str | None:
    """A seat in a record's words: "person at the board", "computer (easy)", "remote board"."""
    if seat is None:
        return None
    kind, _, level = seat.partition(":")
    words = SEAT_WORDS.get(kind, seat)
    return f"{words} ({level})" if kind == "computer" and level else words


def outcome(summary: Mapping[str, Any] | None) -> tuple[int | None, str] | None:
    """Who won a finished game (None: a draw) and how ("score", "time", "resignation",
    "agreement", "forfeit" and "absence": claimed or drawn while one was away), from the
    journal's summary; None for a game not finished. A summary says a
    loss on time with `flag` (the seat whose time ran out), a resignation with `resigned`
    (the seat that resigned), a draw agreed with `agreed`."""
    if summary is None:
        return None
    for key, how in (("flag", "time"), ("resigned", "resignation"), ("forfeit", "forfeit")):
        if summary.get(key) in (0, 1):
            return 1 - summary[key], how
    if summary.get("agreed"):
        return None, "agreement"
    if summary.get("drawn_away") in (0, 1):
        return None, "absence"
    winner = summary.get("winner")
    return (winner if winner in (0, 1) else None), "score"


def result_text(summary: Mapping[str, Any] | None) -> str | None:
    """SGF's RE for a finished game: B+3 (by 3), B+ (a win the score does not measure), B+T
    (on time), B+R (by resignation), B+F (by forfeit: claimed while the other was away), 0 (a
    draw, by the rules, agreed, or called while the other was away)."""
    found = outcome(summary)
    if found is None:
        return None
    winner, how = found
    if winner is None:
        return "0"
    if how != "score":
        return f"{COLOURS[winner]}+{ {'time': 'T', 'forfeit': 'F'}.get(how, 'R')}"
    scores = summary.get("scores") or (0, 0)
    margin = scores[winner] - scores[1 - winner]
    return f"{COLOURS[winner]}+{margin if margin > 0 else ''}"


_RESULT = re.compile(r"^(?:(?P<draw>0|draw|jigo)|(?P<who>[BW])\+(?P<how>.*))$", re.I)


def read_result(text: str, line: int) -> tuple[int | None, str | None, float | None] | None:
    """An RE value: (winner or None for a draw, "time" / "resignation" / None (by the
    score or agreed), the margin or None), or None for a game not finished ("?", "Void")."""
    text = text.strip()
    if text.lower() in ("", "?", "void"):
        return None
    m = _RESULT.match(text)
    if m is None:
        raise RecordError(line, Reason("RE[{result}] is no result SGF writes (B+3, W+T, B+R, "
                                       "0)", result=text))
    if m.group("draw"):
        return None, None, None
    winner, how = COLOURS.index(m.group("who").upper()), m.group("how").strip().lower()
    if how in ("t", "time"):
        return winner, "time", None
    if how in ("r", "resign"):
        return winner, "resignation", None
    if how in ("", "f", "forfeit"):
        return winner, None, None
    try:
        return winner, None, float(how)
    except ValueError:
        raise RecordError(line, Reason("RE[{result}] is no result SGF writes (B+3, W+T, B+R, "
                                       "0)", result=text)) from None


# --- dates ----------------------------------------------------------------------------------

def date_text(started_at: float | None, finished_at: float | None,
              tz: dt.tzinfo | None = None) -> str | None:
    """SGF's DT: the day the game began (the board's local time, unless `tz`), and the day
    it ended where that is another: "2026-05-01" or "2026-05-01,2026-05-02"."""
    if not started_at:
        return None
    begun = dt.datetime.fromtimestamp(started_at, tz).date()
    ended = dt.datetime.fromtimestamp(finished_at, tz).date() if finished_at else begun
    return begun.isoformat() if ended == begun else f"{begun.isoformat()},{ended.isoformat()}"


def read_date(text: str, line: int) -> tuple[dt.date, dt.date]:
    """The first and last day of a DT value, in any form FF[4] writes ("1996-05-06,07",
    "1996-12-27,1997-01-03", "1996-05", "1996")."""
    days, year, month = [], None, None
    for part in text.split(","):
        numbers = part.strip().split("-")
        try:
            values = [int(n) for n in numbers]
            if len(numbers[0]) == 4:
                year, month = values[0], (values[1] if len(values) > 1 else None)
                day = values[2] if len(values) > 2 else None
            elif len(values) == 2:
                month, day = values
            elif len(values) == 1 and month is not None:
                day = values[0]
            else:
                raise ValueError(part)
            days.append(dt.date(year, month or 1, day or 1))
        except (ValueError, TypeError):
            raise RecordError(line, Reason("DT[{date}] is no date as SGF writes it "
                                           "(YYYY-MM-DD)", date=text)) from None
    return min(days), max(days)


def midnight(day: dt.date, tz: dt.tzinfo | None = None) -> float:
    """The moment `day` begins (the board's local time, unless `tz`)."""
    return dt.datetime.combine(day, dt.time(), tz).timestamp()


# --- from the journal -------------------------------------------------------------------------

def record_of(saved: Any, review: Sequence[Mapping[str, Any]] | None = None,
              tz: dt.tzinfo | None = None) -> Record:
    """The record of a journal's saved game (`Journal.game`), with the review's marks and
    sentences (`games.ai.review`'s rows, the page's review) where given. Raises RecordError
    for a game that does not replay (a journal written by hand)."""
    state = games.get_game(saved.game).new_state(**saved.options)
    clocks = list(saved.move_clocks) + [None] * (len(saved.moves) - len(saved.move_clocks))
    if saved.clocks is not None and saved.moves and not any(clocks):
        clocks[-1] = saved.clocks   # (a journal before schema 2 kept the last clocks only)
    control = next((c.get("control") for c in [*reversed(clocks), saved.clocks]
                    if c and c.get("control")), None)
    notes = {row["n"]: row for row in review or () if row.get("changed_result")}
    moves = []
    for n, (text, at) in enumerate(zip(saved.moves, clocks), 1):
        player = state.to_move
        try:
            state.play(state.parse_move(text))
        except games.IllegalMove as exc:
            raise RecordError(None, Reason("game {id} of the journal does not replay: move "
                                           "{n} ({move}): {reason}", id=saved.game_id, n=n,
                                           move=text, reason=exc.reason)) from None
        moves.append(_annotated(Move(player, text, _left(at)), notes.get(n), saved.game))
    players = tuple(Player(p.get("seat"), p.get("name")) for p in saved.players or ())
    return Record(saved.game, {k: option_text(v) for k, v in state.options().items()},
                  players if len(players) == 2 else (Player(), Player()), tuple(moves),
                  date_text(saved.started_at,
                            saved.finished_at if saved.status == "finished" else None, tz),
                  result_text(saved.summary) if saved.status == "finished" else None,
                  control if control not in (None, "none") else None)


def _left(clocks: Mapping[str, Any] | None) -> tuple[int | None, int | None] | None:
    left = (clocks or {}).get("left_ms")
    if not isinstance(left, list) or len(left) != 2:
        return None
    return tuple(None if ms is None else int(ms) for ms in left)  # type: ignore[return-value]


def _annotated(move: Move, row: Mapping[str, Any] | None, game: str) -> Move:
    """A move with the review's mark and sentence (the page's: a move that changed the
    result, and the best move instead, as a variation)."""
    if row is None:
        return move
    best = [b for b in row.get("best", ()) if b != move.text]
    said = tr("move {n}: {move} changed the result (best: {best})").format(
        n=row["n"], move=views.show_move(game, move.text),
        best=tr(", ").join(views.show_move(game, b) for b in row.get("best", ())))
    return Move(move.player, move.text, move.left_ms, said, 1,
                ((Move(move.player, best[0]),),) if best else ())


# --- into the journal ---------------------------------------------------------------------------

def checked(record: Record, tz: dt.tzinfo | None = None) -> tuple[Imported, games.State]:
    """What the journal keeps of a record, and its final position: its options made a game,
    every move (the variations' too) replayed by the rules, its result matched with how its
    moves end. Raises RecordError with the line and the reason; writes nothing."""
    game = games.get_game(record.game)
    try:
        state = game.new_state(**record.options)
    except games.GameError as exc:
        raise RecordError(record.at("XO"), Reason("its options make no game of {game}: {reason}",
                                              game=game.short_title, reason=str(exc))) from None
    control = record.control
    if control is not None:
        try:
            parse_time_control(control)
        except ClockError as exc:
            raise RecordError(record.at("XC"), Reason("XC[{control}]: {reason}", control=control,
                                                  reason=str(exc))) from None
    moves = []
    for n, move in enumerate(record.moves, 1):
        for line in move.variations:
            _replay(state.copy(), line, n)
        _play(state, move, n)
        clocks = None if move.left_ms is None else {
            **({"control": control} if control else {}), "left_ms": list(move.left_ms),
            "turn_of": move.player}
        moves.append((move.text, clocks))
    summary = _summary(record, state)
    started = finished = None
    if record.date is not None:
        first, last = read_date(record.date, record.at("DT"))
        started, finished = midnight(first, tz), midnight(last, tz)
    players = [p.to_json() for p in record.players]
    return Imported(game.name, state.options(), moves, players if any(players) else None,
                    started, finished if summary is not None else None, summary), state


def _play(state: games.State, move: Move, n: int) -> None:
    if move.player != state.to_move and not state.is_over():
        raise RecordError(move.line, Reason(
            "move {n} ({move}) is {colour}'s, but {other} is to move", n=n, move=move.text,
            colour=COLOURS[move.player], other=COLOURS[state.to_move]))
    try:
        state.play(state.parse_move(move.text))
    except games.IllegalMove as exc:
        raise RecordError(move.line, Reason("move {n} ({move}) is not legal: {reason}", n=n,
                                            move=move.text, reason=exc.reason)) from None


def _replay(state: games.State, line: Sequence[Move], n: int) -> None:
    """A variation played from the position before move `n` (its own variations too)."""
    for k, move in enumerate(line, n):
        for other in move.variations:
            _replay(state.copy(), other, k)
        _play(state, move, k)


def _summary(record: Record, state: games.State) -> dict[str, Any] | None:
    """The journal's summary of a finished record (as the referee writes it), from how its
    moves end and what its RE says; None when it is not finished. Raises RecordError when the
    two disagree."""
    said = None if record.result is None else read_result(record.result, record.at("RE"))
    over = state.is_over()
    if said is None:
        return state.summary() if over else None
    winner, how, margin = said
    summary = state.summary()
    if over:
        scores = summary["scores"]
        true_margin = None if winner is None else scores[winner] - scores[1 - winner]
        if how is not None or winner != state.winner() or (
                margin is not None and true_margin is not None and margin != true_margin):
            raise RecordError(record.at("RE"), Reason(
                "RE[{said}] says otherwise than its moves, which end the game {result}",
                said=record.result, result=result_text(summary)))
        return summary
    if how == "time":
        return dict(summary, over=True, winner=winner, flag=1 - winner)
    if how == "resignation":
        return dict(summary, over=True, winner=winner, resigned=1 - winner)
    if winner is None:
        return dict(summary, over=True, winner=None, agreed=True)
    raise RecordError(record.at("RE"), Reason(
        "RE[{said}] says the game was won, but its moves leave it unfinished (a win before the "
        "end is W+T, B+T, W+R or B+R)", said=record.result))
