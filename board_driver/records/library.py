"""The journal's games as records and as a library: export, import, search (docs/records.md).

    records = export(journal, [3])            # game 3 as a Record (review= adds the review's)
    sgf.dumps(records)                        # ... as SGF; as_json(record) as JSON
    ids = import_records(journal, data)       # a file's records, checked, then all kept or none
    search(journal, Query.of({"player": "computer", "result": "first"}))

Reading a file (`read_records`) is pure: the page does it off the loop; only `Journal.add_games`
writes, one transaction for the whole file, so a file refused at its last game leaves the
journal as it was.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

import games
from board_driver import views
from board_driver.records import sgf
from board_driver.records.record import (ENDINGS, Record, RecordError, checked, midnight,
                                         outcome, record_of, seat_words)
from board_driver.referee.journal import Imported, Journal, Listed
from board_driver.views.absence import claimed_words
from board_driver.views.words import N_, tr
from treeboard.exc import TreeboardError

#: Who won, as the library searches it ("first": the first player, who moves first).
RESULTS = ("first", "second", "draw", "unfinished")
#: The most games a search reads from the journal before filtering them.
SCANNED = 10_000
#: Every game a record may be exported from: in progress too.
EVERY_STATUS = ("finished", "abandoned", "playing", "away")
#: The games the library lists: every one no longer in progress, the games put away too.
LISTED = ("finished", "abandoned", "away")
#: A seat as the page's library says it (a computer's: "computer, easy").
PLAYER_WORDS = {"human": N_("human"), "remote": N_("remote board"), "web": N_("web seat")}


class BadQuery(TreeboardError, ValueError):
    """A library search that asks for something that is not there (a game, a date)."""


# --- export -----------------------------------------------------------------------------------

def every_game(journal: Journal) -> list[int]:
    """The ids of every game of the journal, the one in progress too, oldest first."""
    return [g.game_id for g in reversed(journal.listing(limit=-1, statuses=EVERY_STATUS))]


def export(journal: Journal, ids: Sequence[int],
           review: Mapping[int, Sequence[Mapping[str, Any]]] | None = None,
           tz: dt.tzinfo | None = None) -> list[Record]:
    """The records of the journal's games `ids`, each with its review (game id ->
    `games.ai.review` rows) where given. Raises JournalError for a game not in the journal,
    RecordError for one that does not replay."""
    return [record_of(journal.game(i), (review or {}).get(i), tz) for i in ids]


def as_json(record: Record) -> dict[str, Any]:
    """A record as JSON: the replay object (`treeboard replay` reads it) with all the record
    says besides: players, date, result and how it ended, control, clocks, the review's notes."""
    found, state = checked(record)
    how = outcome(found.summary)
    return {**state.summary(), "sgf_number": record.number,
            "players": [p.to_json() for p in record.players], "date": record.date,
            "result": record.result, "ended": None if how is None else how[1],
            "control": record.control,
            "clocks": [None if m.left_ms is None else list(m.left_ms) for m in record.moves],
            "notes": [{"n": n, "comment": m.comment, "bad": m.bad,
                       "variations": [[v.text for v in line] for line in m.variations]}
                      for n, m in enumerate(record.moves, 1)
                      if m.comment is not None or m.bad or m.variations]}


# --- import -----------------------------------------------------------------------------------

def read_records(data: bytes, tz: dt.tzinfo | None = None) -> list[Imported]:
    """What the journal would keep of a file's records, each checked against its game's
    rules. Pure (no journal): raises RecordError with the line and the reason."""
    return [checked(record, tz)[0] for record in sgf.read(data)]


def import_records(journal: Journal, data: bytes, tz: dt.tzinfo | None = None) -> list[int]:
    """A file's records into the journal, all or none; returns their ids. The game in
    progress stays as it is."""
    return journal.add_games(read_records(data, tz))


# --- the library --------------------------------------------------------------------------------

@dataclass(frozen=True)
class Query:
    """What the library is asked for: a game (its registry name), a player (any part of a
    seat or a name: "computer", "easy", "Grandma"), who won (RESULTS), how it ended
    (records.ENDINGS), and the days it began between (both included)."""
    game: str | None = None
    player: str | None = None
    result: str | None = None
    ended: str | None = None
    since: dt.date | None = None
    until: dt.date | None = None

    @classmethod
    def of(cls, params: Mapping[str, str]) -> "Query":
        """From the page's query parameters (game, player, result, ended, from, to; empty:
        any). Raises BadQuery naming the parameter and what it takes."""
        def choice(key: str, allowed: Sequence[str]) -> str | None:
            value = params.get(key) or None
            if value is not None and value not in allowed:
                raise BadQuery(f"{key} must be one of {', '.join(allowed)}")
            return value

        def day(key: str) -> dt.date | None:
            value = params.get(key) or None
            try:
                return None if value is None else dt.date.fromisoformat(value)
            except ValueError:
                raise BadQuery(f"{key} must be a date, YYYY-MM-DD") from None

        player = (params.get("player") or "").strip()[:64] or None
        return cls(choice("game", games.names()), player, choice("result", RESULTS),
                   choice("ended", ENDINGS), day("from"), day("to"))


def search(journal: Journal, query: Query, limit: int = 200,
           tz: dt.tzinfo | None = None) -> list[Listed]:
    """The journal's games no longer in progress that answer `query`, newest first."""
    since = None if query.since is None else midnight(query.since, tz)
    until = None if query.until is None else midnight(query.until + dt.timedelta(days=1), tz)
    found = []
    for game in journal.listing(game=query.game, since=since, until=until, limit=SCANNED,
                                statuses=LISTED):
        result, ended = _kind(game)
        if ((query.result is None or query.result == result)
                and (query.ended is None or query.ended == ended)
                and (query.player is None or any(query.player.lower() in said.lower()
                                                 for said in _player_texts(game)))):
            found.append(game)
            if len(found) >= limit:
                break
    return found


def _kind(game: Listed) -> tuple[str, str | None]:
    """Who won a listed game (RESULTS) and how it ended (ENDINGS; None: unfinished)."""
    how = outcome(game.summary) if game.status == "finished" else None
    if how is None:
        return "unfinished", None
    winner, ended = how
    return ("draw" if winner is None else RESULTS[winner]), ended


def _player_texts(game: Listed) -> list[str]:
    """Everything a player search may match: seats, names, and both in words."""
    texts = []
    for player in game.players or ():
        seat, name = player.get("seat"), player.get("name")
        texts += [t for t in (seat, name, seat_words(seat), player_words(player)) if t]
    return texts


def player_words(player: Mapping[str, str] | None) -> str:
    """A player as the page lists them: the name a record gave, else the seat in words."""
    player = player or {}
    if player.get("name"):
        return player["name"]
    kind, _, level = (player.get("seat") or "").partition(":")
    if kind == "computer":
        return tr("computer, {level}").format(level=tr(views.LEVEL_WORDS.get(level, level)))
    return tr(PLAYER_WORDS.get(kind, N_("unknown")))


def result_words(game: Listed) -> str:
    """How a listed game ended, in the page's words."""
    how = outcome(game.summary) if game.status == "finished" else None
    if how is None:
        return tr("put away") if game.status == "away" else tr("unfinished")
    names = views.players(game.game)
    winner, ended = how
    scores = (game.summary or {}).get("scores") or (0, 0)
    if ended == "time":
        return views.flag_words(game.game, 1 - winner)
    if ended == "resignation":
        return tr("{player} resigned: {other} wins").format(player=names[1 - winner],
                                                           other=names[winner])
    if ended == "agreement":
        return tr("a draw by agreement")
    if ended in ("forfeit", "absence"):
        return claimed_words(game.game, game.summary)
    if winner is None:
        return tr("a draw, {a}:{b}").format(a=scores[0], b=scores[1])
    return tr("{player} wins, {a}:{b}").format(player=names[winner], a=scores[0], b=scores[1])


def entry(game: Listed) -> dict[str, Any]:
    """A listed game as the page's library shows it (in the page's language)."""
    result, ended = _kind(game)
    return {"id": game.game_id, "game": game.game, "title": views.title(game.game),
            "options": game.options, "status": game.status, "imported": game.origin == "import",
            "moves": game.moves,
            "players": [player_words(p) for p in game.players or ({}, {})],
            "result": result_words(game), "outcome": result, "ended": ended,
            "started_at": game.started_at, "finished_at": game.finished_at}


def titles() -> dict[str, str]:
    """Every game the library may hold, registry name -> its title (the page's choice)."""
    return {name: views.title(name) for name in games.names()}


__all__ = ["BadQuery", "Query", "RecordError", "as_json", "entry", "every_game", "export",
           "import_records",
           "read_records", "search", "titles", "RESULTS", "ENDINGS"]
