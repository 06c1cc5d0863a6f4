"""The move journal: every accepted move on disk before the LEDs confirm it.

SQLite in WAL mode with ``synchronous=FULL``: each record is its own transaction,
and a commit returns only after the write-ahead log is fsynced, so a move whose
``record_move`` has returned survives a power cut or a SIGKILL. A record torn by
a crash is a WAL frame with a bad checksum, which SQLite ignores on the next open.

History is append-only. A takeback is a new ``undo`` event, never an UPDATE or a
DELETE of the move, so the journal always says what happened at the board.

Whose file: a journal carries its mark in SQLite's header (`APPLICATION_ID`); a file that is
neither marked, nor empty, nor holding the journal's tables alone (a journal older than the
mark) is another program's database, refused before a byte of it is written.

Threading: one connection, owned by the journal's writer thread (committer.py) from the
end of the open on; every call hands its work to that thread in order. A commit costs one
fsync, several to tens of milliseconds on an SD card (spikes past 100 ms), which the board's
answer to a piece must not wait for: `record_move(..., durable=False)` returns at once, for a
move the pieces on the board record themselves (the referee's `accept`, `seen`), and its
commit follows in the writer. Every other call returns once its record, and every record
handed in before it, is on disk.

How the daemon uses it::

    journal = Journal(default_journal_path())   # never fails on a corrupt file
    saved = journal.current()                   # the game in progress, or None
    if saved: state = replay(saved.game, saved.options, saved.moves)
    else:     journal.start_game("tree-planting", {"size": 4})
    ...
    journal.record_move(str(move))   # then light the LEDs to confirm it
    journal.record_move(str(move), durable=False)   # a move the pieces record: light at once
    journal.record_undo()            # a takeback
    journal.record_move(str(last), finish={"scores": [3, 2], "winner": 0})  # the last move

The finishing move and the game's result are one transaction: a crash between them would
otherwise leave a finished game "playing", and the next game would mark it abandoned.

What a record needs is kept with the game (board_driver/records/): who played each seat
(`start_game`'s seats, `set_seats` when they change), the clocks as each move was made, and
for a game read from a record, that it was (`origin`, "import"; `add_games` writes such games,
never the game in progress). A journal written before these columns (schema version 1) gains
them when opened, NULL in its old rows (not known), and reads as it did.

The game in progress (its id and how many moves stand after takebacks) is kept in memory
from the open on, so that a move or a takeback costs the same at move 10,000 as at move 1:
this connection is the journal's only writer (one daemon per board).
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from board_driver.referee.committer import Committer, Unwritten
from treeboard.exc import TreeboardError

log = logging.getLogger(__name__)

JOURNAL_NAME = "journal.sqlite"

# SQLite's own words for "this file is not a (sound) database". Anything else
# (locked, out of disk, unwritable) is not corruption and must not move the file.
_CORRUPT_ERRORS = {"SQLITE_CORRUPT", "SQLITE_NOTADB"}

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id          INTEGER PRIMARY KEY,
    game        TEXT NOT NULL,
    options     TEXT NOT NULL,              -- JSON
    status      TEXT NOT NULL DEFAULT 'playing'
                CHECK (status IN ('playing', 'finished', 'abandoned', 'away')),
    started_at  REAL NOT NULL,
    finished_at REAL,
    players     TEXT,                       -- JSON: [{"seat": ..., "name": ...}] x2 (schema 2)
    origin      TEXT,                       -- NULL: played here; "import": from a record (2)
    summary     TEXT                        -- JSON, once finished
);
CREATE TABLE IF NOT EXISTS events (
    id      INTEGER PRIMARY KEY,            -- the order things happened in
    game_id INTEGER NOT NULL REFERENCES games(id),
    kind    TEXT NOT NULL CHECK (kind IN ('move', 'undo')),
    text    TEXT,                           -- the move's notation; NULL for an undo
    at      REAL NOT NULL,
    clocks  TEXT                            -- JSON: the clocks as the move was made (schema 2)
);
CREATE INDEX IF NOT EXISTS events_by_game ON events(game_id, id);
CREATE TABLE IF NOT EXISTS settings (
    key   TEXT PRIMARY KEY,                 -- what the page changed ("voice")
    value TEXT NOT NULL,                    -- JSON
    at    REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS clocks (
    game_id INTEGER PRIMARY KEY REFERENCES games(id),
    clocks  TEXT NOT NULL,                  -- JSON: control, left_ms [ms, ms], turn_of
    at      REAL NOT NULL
);
"""

#: The journal's schema version (SQLite's `user_version`). 1: the tables above without the
#: columns marked "schema 2"; 2: who played each seat, where a game came from, and the clocks
#: at each move (what a record needs, board_driver/records/). A journal of version 1 is
#: migrated when opened: each column added (`ALTER TABLE ... ADD COLUMN`, which keeps every
#: row), NULL in the rows written before (not known), so an old journal reads as it did.
#: 3: a game may be put away (status 'away': board_driver/referee/endings.py), which the
#: status's CHECK of versions 1 and 2 refuses: its games table is made again with the new
#: CHECK and every row copied (SQLite's way to change a constraint, lang_altertable.html).
SCHEMA_VERSION = 3
_ADDED_COLUMNS = (("games", "players", "TEXT"), ("games", "origin", "TEXT"),
                  ("events", "clocks", "TEXT"))


#: The journal's mark in its SQLite header (`PRAGMA application_id`, "TBRD"): a file that
#: carries it is ours. Journals written before the mark are known by their tables instead.
APPLICATION_ID = 0x54425244
#: The tables (and the index) a journal holds: a file whose schema is anything else belongs to
#: another program, and is refused untouched.
_OURS = {"games", "events", "settings", "clocks", "events_by_game"}
#: What a journal of any version holds at least.
_ESSENTIAL = {"games", "events"}


class JournalError(TreeboardError, RuntimeError):
    """The journal cannot be used: its directory is unwritable, or a call came out of turn."""


@dataclass
class SavedGame:
    game_id: int
    game: str
    options: dict[str, Any]
    moves: list[str]  # after applying takebacks, in play order
    status: str = "playing"
    started_at: float = 0.0
    finished_at: float | None = None
    summary: dict[str, Any] | None = None
    events: int = field(default=0, repr=False)  # how many records, takebacks included
    clocks: dict[str, Any] | None = None  # the clocks as last kept (None: an untimed game)
    # Who played each seat: [{"seat": "human" | "computer:LEVEL" | "remote" | "web", "name":
    # ...}] x2, either key missing when not known; None: not recorded (a journal before
    # schema 2).
    players: list[dict[str, str]] | None = None
    origin: str | None = None  # None: played at this board; "import": read from a record
    # The clocks as each standing move was made (None for a move made untimed, or journaled
    # before schema 2), one per move.
    move_clocks: list[dict[str, Any] | None] = field(default_factory=list, repr=False)


@dataclass
class Listed:
    """A game as the library lists it: what `SavedGame` says but its moves, and how many."""
    game_id: int
    game: str
    options: dict[str, Any]
    status: str
    started_at: float
    finished_at: float | None
    summary: dict[str, Any] | None
    players: list[dict[str, str]] | None
    origin: str | None
    moves: int


@dataclass
class Imported:
    """A game read from a record, for `Journal.add_games`: its moves each with the clocks as
    it was made (None: untimed), finished with `summary` or not (status "abandoned")."""
    game: str
    options: dict[str, Any]
    moves: list[tuple[str, dict[str, Any] | None]]
    players: list[dict[str, str]] | None = None
    started_at: float | None = None
    finished_at: float | None = None
    summary: dict[str, Any] | None = None


def default_journal_path(env: Mapping[str, str] | None = None) -> Path:
    """Where the journal lives: systemd's StateDirectory, else the user's state dir."""
    env = os.environ if env is None else env
    # systemd sets STATE_DIRECTORY (colon-separated when a unit names several).
    if env.get("STATE_DIRECTORY"):
        return Path(env["STATE_DIRECTORY"].split(":")[0]) / JOURNAL_NAME
    base = env.get("XDG_STATE_HOME") or Path.home() / ".local" / "state"
    return Path(base) / "treeboard" / JOURNAL_NAME


class AwayGames:
    """The games put away (status 'away'): a part of `Journal` (its base class), apart so
    that the journal's own class stays one reader's size. Uses the journal's `_do`, `_write`,
    `_playing_id`, `_put_clocks`, `game`, `listing` and its game in progress (`_playing`)."""

    def put_away(self, clocks: Mapping[str, Any] | None = None) -> int:
        """The game in progress is put away (status 'away'): kept with its moves, seats and
        clocks (`clocks`, as they show now, kept in the same transaction) until `take_up`;
        no game is in progress after. Returns its id; durable when this returns."""
        game_id, now = self._playing_id(), self._clock()
        kept = None if clocks is None else json.dumps(dict(clocks), sort_keys=True)

        def job() -> None:
            with self._write() as db:
                if kept is not None:
                    self._put_clocks(db, game_id, kept, now)
                db.execute("UPDATE games SET status='away' WHERE id=?", (game_id,))
        self._do(job)
        self._playing = None
        return game_id

    def take_up(self, game_id: int) -> Any:
        """A game put away is the game in progress again (a game in progress, if any, must be
        put away or finished first). Returns it (a SavedGame); raises JournalError saying why
        not: no such game, or one that is not put away (finished, in progress, imported)."""
        if self._playing is not None:
            raise JournalError(f"game {self._playing} is in progress: put it away first")
        saved = self.game(game_id)
        if saved.status != "away":
            raise JournalError(f"game {game_id} is {STATUS_WORDS.get(saved.status, saved.status)}"
                               ", not put away")

        def job() -> None:
            with self._write() as db:
                db.execute("UPDATE games SET status='playing' WHERE id=? AND status='away'",
                           (game_id,))
        self._do(job)
        self._playing, self._standing = game_id, len(saved.moves)
        saved.status = "playing"
        return saved

    def away(self) -> list[Any]:
        """The games put away, newest first (what `take_up` takes)."""
        return self.listing(statuses=("away",), limit=-1)

    def abandon(self) -> None:
        """The game in progress is given up without a result (a game with no move, left for
        a game taken up); nothing without one."""
        if self._playing is None:
            return
        game_id, now = self._playing, self._clock()

        def job() -> None:
            with self._write() as db:
                db.execute("UPDATE games SET status='abandoned', finished_at=? WHERE id=?",
                           (now, game_id))
        self._do(job)
        self._playing = None


class Journal(AwayGames):
    def __init__(self, path: str | os.PathLike[str], clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self._clock = clock
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(f"cannot create the journal directory {self.path.parent}: {exc}") from exc
        try:
            self._db = self._open()
        except sqlite3.DatabaseError as exc:
            if getattr(exc, "sqlite_errorname", None) not in _CORRUPT_ERRORS:
                raise self._unusable(exc) from exc
            self._move_aside(exc)
            try:
                self._db = self._open()
            except sqlite3.DatabaseError as again:
                raise self._unusable(again) from again
        # The game in progress and how many of its moves stand: read once, then kept up to
        # date by every write (see the module's docstring). The caller's (the loop's), never
        # the writer's: a posted move counts from the moment it is handed in.
        self._committer: Committer | None = None
        self._caller = threading.get_ident()
        self._posted: threading.Event | None = None   # the last move posted (set: written)
        saved = self.current()
        self._playing: int | None = saved.game_id if saved else None
        self._standing = len(saved.moves) if saved else 0
        # From here on the writer thread alone touches the connection.
        self._committer = Committer(self.path.name)
        self._committer.start()

    def _do(self, job: Callable[[], Any]) -> Any:
        """`job` run on the connection's owner after everything handed in before it; its
        result once done (a write: on disk, with every earlier one)."""
        if self._committer is None:
            return job()
        self._check_caller()
        try:
            return self._committer.call(job)
        except Unwritten as exc:
            raise self._gap(exc) from exc

    def _gap(self, why: object) -> JournalError:
        return JournalError(f"{self.path}: a move lit before its commit could not be written "
                            f"({why}); nothing after it is written until it is")

    def _check_caller(self) -> None:
        # The game in progress kept in memory is the opening thread's (the daemon's loop): a
        # call from any other thread would race it, so it is refused, as SQLite refused a
        # connection used from two threads before the writer thread held it.
        if threading.get_ident() != self._caller and not self._committer.is_writer():
            raise JournalError(f"{self.path}: used from a thread other than the one that "
                               "opened it (the daemon's loop); hand the call to the loop")

    def flush(self) -> None:
        """Wait until every record handed in so far (a posted move too) is on disk."""
        self._do(lambda: None)

    @property
    def unwritten(self) -> str | None:
        """Why a move lit before its commit is not written yet (it is tried again before each
        later record), or None."""
        return None if self._committer is None else self._committer.unwritten

    def durable(self, on: bool) -> None:
        """Whether each record is on disk when its call returns (synchronous=FULL, the
        default); off only for a journal nobody keeps (a trace's temporary one)."""
        self._do(lambda: self._db.execute(f"PRAGMA synchronous={'FULL' if on else 'OFF'}"))

    # Opening ----------------------------------------------------------------------

    def _open(self) -> sqlite3.Connection:
        # isolation_level=None: we say where transactions begin and end (see _write).
        # check_same_thread=False: opened here, then handed to the writer thread, which alone
        # uses it from then on (committer.py).
        db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            # Whose file it is, before anything is written to it (WAL mode is a write too).
            self._check_ours(db)
            mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            if mode.lower() != "wal":
                raise JournalError(f"{self.path}: SQLite refused WAL mode (got {mode!r})")
            # FULL: fsync the WAL at every commit, so a returned record_move is on disk.
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            db.execute("PRAGMA busy_timeout=2000")
            # quick_check reads every page: a file torn or scribbled on shows up here,
            # at start, rather than halfway through a game.
            problems = [row[0] for row in db.execute("PRAGMA quick_check")]
            if problems != ["ok"]:
                error = sqlite3.DatabaseError("; ".join(problems[:3]))
                error.sqlite_errorname = "SQLITE_CORRUPT"  # type: ignore[attr-defined]
                raise error
            db.executescript(_SCHEMA)
            _migrate(db)
            if db.execute("PRAGMA application_id").fetchone()[0] != APPLICATION_ID:
                # (once: setting it again writes the header, a journal only read is unchanged)
                db.execute(f"PRAGMA application_id={APPLICATION_ID}")
        except BaseException:
            db.close()
            raise
        _fsync_directory(self.path.parent)  # the new file's name must survive a crash too
        return db

    def _check_ours(self, db: sqlite3.Connection) -> None:
        """A JournalError, nothing written, unless the file is a journal: marked as ours, or
        (older journals) holding the journal's tables and nothing else, or empty (a new file)."""
        mark = db.execute("PRAGMA application_id").fetchone()[0]
        if mark == APPLICATION_ID:
            return
        names = {name for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")}
        if mark == 0 and (not names or (_ESSENTIAL <= names and names <= _OURS)):
            return
        what = (f"its header names another program (application_id {mark:#x})" if mark else
                "it holds " + ", ".join(sorted(names)[:5]) + (" ..." if len(names) > 5 else ""))
        raise JournalError(f"{self.path} is not a treeboard journal ({what}); it was left as it "
                           "is: name another file for the journal")

    def _move_aside(self, exc: Exception) -> None:
        """Keep the unreadable file for a post-mortem; the board starts a fresh journal."""
        stamp = time.strftime("%Y%m%dT%H%M%S")
        aside = Path(f"{self.path}.corrupt-{stamp}")
        n = 1
        while any(Path(f"{aside}{suffix}").exists() for suffix in ("", "-wal", "-shm")):
            n += 1  # a second corruption within the same second keeps the first one too
            aside = Path(f"{self.path}.corrupt-{stamp}.{n}")
        for suffix in ("", "-wal", "-shm"):
            old = Path(f"{self.path}{suffix}")
            if old.exists():
                try:
                    old.rename(f"{aside}{suffix}")
                except OSError as rename_error:
                    raise JournalError(
                        f"{self.path} is unreadable ({exc}) and cannot be moved aside: {rename_error}"
                    ) from rename_error
        reason = " ".join(str(exc).split())[:200]
        log.error("journal %s was unreadable (%s): moved aside to %s; starting a fresh journal",
                  self.path, reason, aside)

    def _unusable(self, exc: Exception) -> JournalError:
        return JournalError(f"cannot open the journal {self.path}: {exc} "
                            f"(is {self.path.parent} writable by this user?)")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        # BEGIN IMMEDIATE takes the write lock up front, so a transaction never
        # fails half-way for want of it; COMMIT is where the fsync happens.
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield self._db
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    # Writing ----------------------------------------------------------------------

    def start_game(self, game: str, options: Mapping[str, Any] | None = None,
                   seats: Sequence[str] | None = None) -> int:
        """A new game; a game still in progress is marked abandoned. Returns its id. `seats`:
        who plays each ("human", "computer:LEVEL", "remote"), kept with the game."""
        now = self._clock()

        def job() -> int:
            with self._write() as db:
                db.execute("UPDATE games SET status='abandoned', finished_at=? "
                           "WHERE status='playing'", (now,))
                cursor = db.execute(
                    "INSERT INTO games (game, options, started_at, players) VALUES (?, ?, ?, ?)",
                    (game, json.dumps(dict(options or {}), sort_keys=True), now,
                     _seats_json(seats)))
            return int(cursor.lastrowid)
        self._playing, self._standing = self._do(job), 0
        return self._playing

    def set_seats(self, seats: Sequence[str]) -> None:
        """Who plays each seat of the game in progress, from now on (the seats it was last
        played with are the record's); nothing without a game in progress."""
        if self._playing is None:
            return
        game_id, players = self._playing, _seats_json(seats)

        def job() -> None:
            with self._write() as db:
                db.execute("UPDATE games SET players=? WHERE id=?", (players, game_id))
        self._do(job)

    def add_games(self, found: Sequence[Imported]) -> list[int]:
        """Games read from records, all in one transaction (or none): each finished (with its
        summary) or not ("abandoned"), never the game in progress, which stays as it is.
        Returns their ids."""
        now = self._clock()
        return self._do(lambda: self._add_games(found, now))

    def _add_games(self, found: Sequence[Imported], now: float) -> list[int]:
        ids = []
        with self._write() as db:
            for one in found:
                started = now if one.started_at is None else one.started_at
                cursor = db.execute(
                    "INSERT INTO games (game, options, status, started_at, finished_at, summary,"
                    " players, origin) VALUES (?, ?, ?, ?, ?, ?, ?, 'import')",
                    (one.game, json.dumps(dict(one.options), sort_keys=True),
                     "abandoned" if one.summary is None else "finished", started,
                     one.finished_at, None if one.summary is None else
                     json.dumps(dict(one.summary), sort_keys=True),
                     None if one.players is None else json.dumps(one.players, sort_keys=True)))
                game_id = int(cursor.lastrowid)
                db.executemany(
                    "INSERT INTO events (game_id, kind, text, at, clocks)"
                    " VALUES (?, 'move', ?, ?, ?)",
                    [(game_id, text, started, None if clocks is None else
                      json.dumps(dict(clocks), sort_keys=True)) for text, clocks in one.moves])
                ids.append(game_id)
        return ids

    def record_move(self, text: str, finish: Mapping[str, Any] | None = None,
                    clocks: Mapping[str, Any] | None = None, *, durable: bool = True) -> None:
        """Append a move to the game in progress; durable when this returns. With `finish`
        (the game's summary) the move ends the game: the move and the result are committed
        together, or neither is. `clocks` (a timed game) are kept in the same transaction.

        `durable=False`: returns once handed to the writer, which commits it next (before
        anything handed in after it). Only for a move the pieces on the board record
        themselves: a power cut before its commit loses it from the journal, not from the
        board, and the next start adopts it from the sensors."""
        game_id, now = self._playing_id(), self._clock()
        kept = None if clocks is None else json.dumps(dict(clocks), sort_keys=True)
        finish = None if finish is None else dict(finish)   # (the caller's may change)

        def job() -> None:
            with self._write() as db:
                db.execute("INSERT INTO events (game_id, kind, text, at, clocks)"
                           " VALUES (?, 'move', ?, ?, ?)", (game_id, text, now, kept))
                if kept is not None:
                    self._put_clocks(db, game_id, kept, now)
                if finish is not None:
                    self._mark_finished(db, game_id, finish, now)
        if durable or self._committer is None:
            self._do(job)
        else:
            self._check_caller()
            # At most one move posted and not yet on disk: a restart adopts one move from the
            # sensors (two new pieces at once would read as a board to correct). A person
            # takes far longer than a commit between two moves, so this wait is all but never.
            if self._posted is not None:
                self._posted.wait()
            if self._committer.unwritten is not None:
                raise self._gap(self._committer.unwritten)
            self._posted = self._committer.post(job)
        self._standing += 1
        if finish is not None:
            self._playing = None

    def record_undo(self) -> None:
        """Take the last move back (recorded as a new event); durable when this returns.
        Costs the same however long the game is (no re-read of its moves)."""
        if self._playing is None:
            raise JournalError("no game in progress to take a move back from")
        if not self._standing:
            raise JournalError("no move to take back")
        game_id, now = self._playing, self._clock()

        def job() -> None:
            with self._write() as db:
                db.execute("INSERT INTO events (game_id, kind, text, at) "
                           "VALUES (?, 'undo', NULL, ?)", (game_id, now))
        self._do(job)
        self._standing -= 1

    def save_clocks(self, clocks: Mapping[str, Any]) -> None:
        """What the clocks of the game in progress show (the referee keeps them every few
        seconds while one runs); durable when this returns. A restart resumes them."""
        game_id, now = self._playing_id(), self._clock()
        kept = json.dumps(dict(clocks), sort_keys=True)

        def job() -> None:
            with self._write() as db:
                self._put_clocks(db, game_id, kept, now)
        self._do(job)

    @staticmethod
    def _put_clocks(db: sqlite3.Connection, game_id: int, clocks: str, now: float) -> None:
        db.execute("INSERT OR REPLACE INTO clocks (game_id, clocks, at) VALUES (?, ?, ?)",
                   (game_id, clocks, now))

    def save_setting(self, key: str, value: Any) -> None:
        """A setting changed on the page (the voice), kept with the board's state so that it
        survives a restart; durable when this returns. The config file is never rewritten."""
        kept, now = json.dumps(value, sort_keys=True), self._clock()

        def job() -> None:
            with self._write() as db:
                db.execute("INSERT OR REPLACE INTO settings (key, value, at) VALUES (?, ?, ?)",
                           (key, kept, now))
        self._do(job)

    def setting(self, key: str) -> Any:
        """A setting as `save_setting` kept it, or None (never set, or not JSON: logged)."""
        row = self._do(lambda: self._db.execute("SELECT value FROM settings WHERE key=?",
                                                (key,)).fetchone())
        if row is None:
            return None
        try:
            return json.loads(row[0])
        except json.JSONDecodeError:
            log.error("journal %s: setting %r is not JSON; the config's applies", self.path, key)
            return None

    def finish(self, summary: Mapping[str, Any] | None = None) -> None:
        """The game in progress is over without a move (a resignation, a result set by hand);
        ``summary`` (scores, winner...) goes to the history. A game that ends with a move
        passes the summary to `record_move` instead, so both land in one transaction."""
        game_id, now = self._playing_id(), self._clock()
        summary = None if summary is None else dict(summary)

        def job() -> None:
            with self._write() as db:
                self._mark_finished(db, game_id, summary, now)
        self._do(job)
        self._playing = None

    def reopen(self) -> int:
        """The game that finished last goes back to playing: its finishing move is about to be
        taken back (`record_undo` next), and a game is over only while that move stands. Its
        events stay as they are (the move, then the undo). Returns its id; raises JournalError
        while a game is in progress, or when none has finished."""
        if self._playing is not None:
            raise JournalError("a game is in progress: there is no finished game to reopen")
        def job() -> int | None:
            row = self._db.execute("SELECT id FROM games WHERE status='finished' "
                                   "ORDER BY id DESC LIMIT 1").fetchone()
            if row is None:
                return None
            with self._write() as db:
                db.execute("UPDATE games SET status='playing', finished_at=NULL, summary=NULL "
                           "WHERE id=?", (row[0],))
            return int(row[0])
        game_id = self._do(job)
        if game_id is None:
            raise JournalError("no finished game to reopen")
        self._playing, self._standing = game_id, len(self.game(game_id).moves)
        return self._playing

    @staticmethod
    def _mark_finished(db: sqlite3.Connection, game_id: int,
                       summary: Mapping[str, Any] | None, now: float) -> None:
        db.execute("UPDATE games SET status='finished', finished_at=?, summary=? WHERE id=?",
                   (now, json.dumps(dict(summary or {}), sort_keys=True), game_id))

    # Reading ----------------------------------------------------------------------

    def current(self) -> SavedGame | None:
        """The game in progress with its moves (takebacks applied), or None."""
        def job() -> SavedGame | None:
            row = self._db.execute(
                "SELECT id FROM games WHERE status='playing' ORDER BY id DESC LIMIT 1").fetchone()
            return None if row is None else self.game(row[0])
        return self._do(job)

    def history(self, limit: int = 20, include_abandoned: bool = False) -> list[SavedGame]:
        """Games played at this board and no longer in progress, newest first (the games
        imported from records are the library's: `listing`)."""
        statuses = ("finished", "abandoned") if include_abandoned else ("finished",)
        return self._do(lambda: [self.game(game_id) for (game_id,) in self._db.execute(
            f"SELECT id FROM games WHERE status IN ({','.join('?' * len(statuses))}) "
            "AND origin IS NULL ORDER BY id DESC LIMIT ?", (*statuses, limit)).fetchall()])

    def listing(self, *, game: str | None = None, since: float | None = None,
                until: float | None = None, limit: int = 1000,
                statuses: Sequence[str] = ("finished", "abandoned")) -> list[Listed]:
        """The games of `statuses` (by default those no longer in progress: finished,
        abandoned, imported), newest first, each with how many of its moves stand: of `game`
        only, begun at `since` or later and before `until`, when given (the library's search
        and the records' export: board_driver/records/library.py)."""
        where = [f"g.status IN ({','.join('?' * len(statuses))})"]
        args: list[Any] = list(statuses)
        for clause, value in (("g.game = ?", game), ("g.started_at >= ?", since),
                              ("g.started_at < ?", until)):
            if value is not None:
                where.append(clause)
                args.append(value)
        rows = self._do(lambda: self._db.execute(
            "SELECT g.id, g.game, g.options, g.status, g.started_at, g.finished_at, g.summary,"
            " g.players, g.origin, (SELECT COALESCE(SUM(CASE e.kind WHEN 'move' THEN 1 ELSE -1"
            " END), 0) FROM events e WHERE e.game_id = g.id) FROM games g WHERE "
            + " AND ".join(where) + " ORDER BY g.started_at DESC, g.id DESC LIMIT ?",
            (*args, limit)).fetchall())
        return [Listed(i, name, json.loads(options), status, started, finished,
                       _json_or_none(summary), _json_or_none(players), origin, moves)
                for (i, name, options, status, started, finished, summary, players, origin,
                     moves) in rows]

    def game(self, game_id: int) -> SavedGame:
        return self._do(lambda: self._game(game_id))

    def _game(self, game_id: int) -> SavedGame:
        row = self._db.execute(
            "SELECT game, options, status, started_at, finished_at, summary, players, origin "
            "FROM games WHERE id=?", (game_id,)).fetchone()
        if row is None:
            raise JournalError(f"no game {game_id} in the journal")
        game, options, status, started_at, finished_at, summary, players, origin = row
        moves: list[str] = []
        move_clocks: list[dict[str, Any] | None] = []
        events = 0
        for kind, text, at_move in self._db.execute(
                "SELECT kind, text, clocks FROM events WHERE game_id=? ORDER BY id", (game_id,)):
            events += 1
            if kind == "move":
                moves.append(text)
                move_clocks.append(_json_or_none(at_move))
            elif moves:
                moves.pop()
                move_clocks.pop()
        row = self._db.execute("SELECT clocks FROM clocks WHERE game_id=?", (game_id,)).fetchone()
        clocks = None
        if row is not None:
            try:
                clocks = json.loads(row[0])
            except json.JSONDecodeError:
                log.error("journal %s: game %d: its clocks are not JSON; they start afresh",
                          self.path, game_id)
        return SavedGame(game_id, game, json.loads(options), moves, status, started_at,
                         finished_at, json.loads(summary) if summary else None, events, clocks,
                         _json_or_none(players), origin, move_clocks)

    def _playing_id(self) -> int:
        if self._playing is None:
            raise JournalError("no game in progress: call start_game first")
        return self._playing

    def close(self) -> None:
        # Every record handed in is written first; closing the last connection checkpoints
        # the WAL into the database file.
        if self._committer is not None:
            self._committer.stop()
            if self._committer.unwritten is not None:
                log.error("journal %s closed with a move lit before its commit still unwritten "
                          "(%s): the next start adopts it from the pieces on the board",
                          self.path, self._committer.unwritten)
        self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _migrate(db: sqlite3.Connection) -> None:
    """An older journal brought to SCHEMA_VERSION: each column it lacks added (NULL in its
    rows), and its games table made again with schema 3's status CHECK, in one transaction; a
    journal at the version is left as it is."""
    if db.execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION:
        return
    # (foreign keys off while the games table is replaced: events and clocks name its ids,
    # which the copy keeps; checked again before the commit)
    db.execute("PRAGMA foreign_keys=OFF")
    db.execute("BEGIN IMMEDIATE")
    try:
        for table, column, kind in _ADDED_COLUMNS:
            have = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            if column not in have:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {kind}")
        (made,) = db.execute("SELECT sql FROM sqlite_master WHERE name='games'").fetchone()
        if "'away'" not in made:
            new = _SCHEMA[:_SCHEMA.index(");\n") + 1].replace("IF NOT EXISTS games", "games_new")
            db.execute(new)
            columns = ", ".join(row[1] for row in db.execute("PRAGMA table_info(games_new)"))
            db.execute(f"INSERT INTO games_new ({columns}) SELECT {columns} FROM games")
            db.execute("DROP TABLE games")
            db.execute("ALTER TABLE games_new RENAME TO games")
            if db.execute("PRAGMA foreign_key_check").fetchall():
                raise JournalError("the journal's events name games it does not hold")
        db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    except BaseException:
        db.execute("ROLLBACK")
        db.execute("PRAGMA foreign_keys=ON")
        raise
    db.execute("COMMIT")
    db.execute("PRAGMA foreign_keys=ON")


#: A game's status as an error message says it.
STATUS_WORDS = {"playing": "in progress", "finished": "finished", "abandoned": "abandoned",
                "away": "put away"}


def _seats_json(seats: Sequence[str] | None) -> str | None:
    return None if seats is None else json.dumps([{"seat": str(s)} for s in seats])


def _json_or_none(text: str | None) -> Any:
    """A column's JSON, or None (NULL, or not JSON: a row no version of the journal wrote)."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return None


def _fsync_directory(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return  # some filesystems refuse to open directories; SQLite's own syncs remain
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
