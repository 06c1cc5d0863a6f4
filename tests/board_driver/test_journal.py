"""The move journal: real SQLite, real SIGKILLs of a real subprocess, real damage."""

import logging
import os
import random
import selectors
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from board_driver.daemon.supervisor import journal_part
from board_driver.referee.journal import Journal, JournalError, default_journal_path
from tests.waits import Deadline, scaled, wait_for

PLAYER = Path(__file__).with_name("journal_player.py")
KILLS = 20


# The model of what the journal must hold ------------------------------------------

class Model:
    """What current() and history() must say, given the acknowledged records."""

    def __init__(self):
        self.moves = None  # None: no game in progress
        self.finished = 0

    def apply(self, op: str) -> "Model":
        after = Model()
        after.moves = None if self.moves is None else list(self.moves)
        after.finished = self.finished
        if op == "new":
            after.moves = []
        elif op == "finish":
            after.moves, after.finished = None, after.finished + 1
        elif op == "undo":
            after.moves.pop()
        else:
            after.moves.append(op.split(" ", 1)[1])
        return after

    def key(self):
        return self.moves, self.finished


def observed(path) -> tuple:
    with Journal(path) as journal:
        saved = journal.current()
        return (None if saved is None else saved.moves), len(journal.history(limit=10_000))


# Running the player ------------------------------------------------------------------

def start_player(path, seed, prefix):
    return subprocess.Popen(
        [sys.executable, str(PLAYER), str(path), str(seed), prefix],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0,
    )


def read_lines(proc, want_lines: int, timeout: float = 10.0) -> bytes:
    """Read the player's output until it has printed ``want_lines`` whole lines."""
    data = b""
    deadline = Deadline(timeout)
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        while data.count(b"\n") < want_lines:
            remaining = deadline.left()
            if remaining <= 0 or not selector.select(remaining):
                raise AssertionError(f"player stalled: {data[-200:]!r}; stderr: {proc.stderr.read()!r}")
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                raise AssertionError(f"player exited early: {proc.stderr.read()!r}")
            data += chunk
    return data


def kill_and_drain(proc, data: bytes) -> list[str]:
    proc.send_signal(signal.SIGKILL)
    rest, _ = proc.communicate(timeout=scaled(10))
    assert proc.returncode == -signal.SIGKILL
    return (data + rest).decode().strip().splitlines()


def acknowledged(lines: list[str]) -> tuple[list[str], str | None]:
    """The acknowledged ops, and the op under way when the kill came (if any)."""
    acked, pending = [], None
    for line in lines:
        verb, op = line.split(" ", 1)
        if verb == "DO":
            pending = op
        else:
            assert verb == "ACK" and op == pending, lines
            acked.append(op)
            pending = None
    return acked, pending


def play_and_kill(path, model: Model, seed: int, kill_after: int) -> tuple[Model, bool]:
    """One run of the player, killed after ``kill_after`` lines; checks the journal after.

    An odd ``kill_after`` kills just after a DO line, while that record is under way.
    """
    proc = start_player(path, seed, f"r{seed}")
    data = b""
    if kill_after:
        data = read_lines(proc, kill_after)
    lines = kill_and_drain(proc, data)  # kill_after == 0: dies while starting up
    acked, pending = acknowledged(lines)
    for op in acked:
        model = model.apply(op)
    allowed = {repr(model.key()): model}
    if pending is not None:
        extra = model.apply(pending)
        allowed[repr(extra.key())] = extra  # the record under way may or may not have landed
    got = observed(path)
    assert repr(got) in allowed, f"after {acked[-3:]} + pending {pending!r}: journal has {got}"
    return allowed[repr(got)], pending is not None


def test_sigkill_at_random_points_loses_no_acknowledged_move(tmp_path):
    path = tmp_path / "journal.sqlite"
    rng = random.Random(20240611)
    model, total_acks, killed_mid_record = Model(), 0, 0
    for run in range(KILLS):
        kill_after = 0 if run % 7 == 3 else rng.randint(1, 80)
        before = model
        model, mid_record = play_and_kill(path, model, seed=run, kill_after=kill_after)
        killed_mid_record += mid_record
        total_acks += kill_after // 2
        assert model is not before or kill_after <= 1
    # No kill left anything SQLite could not read: nothing was moved aside.
    assert not list(tmp_path.glob("*.corrupt-*"))
    assert total_acks > 300
    # Where exactly each kill lands is up to the scheduler; say how often it was mid-record.
    print(f"{KILLS} kills, {killed_mid_record} while a record was under way")


# Damage done to the files between runs -----------------------------------------------

@pytest.fixture
def killed_mid_game(tmp_path):
    """A journal whose writer was SIGKILLed mid-game: the moves sit in the -wal file."""
    path = tmp_path / "journal.sqlite"
    proc = start_player(path, 7, "k")
    data = read_lines(proc, 120)
    acked, pending = acknowledged(kill_and_drain(proc, data))
    model = Model()
    for op in acked:
        model = model.apply(op)
    return path, model, pending


def assert_fresh_and_usable(path, tmp_path, caplog):
    with caplog.at_level(logging.ERROR, logger="board_driver.referee.journal"):
        journal = Journal(path)
    assert journal.current() is None and journal.history() == []
    assert list(tmp_path.glob("journal.sqlite.corrupt-*")), "the damaged file was not kept"
    assert any("moved aside" in r.getMessage() for r in caplog.records)
    journal.start_game("fangqi", {"size": [6, 6]})
    journal.record_move("a1")
    journal.close()
    assert observed(path) == (["a1"], 0)


def test_truncated_database_is_moved_aside(killed_mid_game, tmp_path, caplog):
    path, _, _ = killed_mid_game
    Journal(path).close()  # checkpoint the WAL into the file, then cut the file short
    os.truncate(path, path.stat().st_size // 2 + 100)
    assert_fresh_and_usable(path, tmp_path, caplog)


def test_garbage_database_is_moved_aside(killed_mid_game, tmp_path, caplog):
    path, _, _ = killed_mid_game
    # Checkpoint first: with the pages still in the -wal file SQLite would read them
    # from there, and the garbage in the main file would go unnoticed (and harmless).
    Journal(path).close()
    with open(path, "r+b") as f:
        f.write(os.urandom(4096))
    assert_fresh_and_usable(path, tmp_path, caplog)


def test_garbage_in_the_middle_is_moved_aside(tmp_path, caplog):
    path = tmp_path / "journal.sqlite"
    with Journal(path) as journal:
        journal.start_game("arbos", {})
        for i in range(400):
            journal.record_move(f"cell-{i}-" + "x" * 40)
    with open(path, "r+b") as f:
        f.seek(path.stat().st_size // 2)
        f.write(b"\xff" * 3000)
    assert_fresh_and_usable(path, tmp_path, caplog)


def test_a_torn_tail_on_the_wal_keeps_every_acknowledged_move(killed_mid_game, tmp_path):
    path, model, pending = killed_mid_game
    wal = Path(f"{path}-wal")
    with open(wal, "ab") as f:  # a frame that was half-written when the power went
        f.write(os.urandom(2000))
    got = observed(path)
    assert got in (model.key(), model.apply(pending).key() if pending else model.key())
    assert not list(tmp_path.glob("*.corrupt-*"))


def test_deleted_wal_loses_only_what_it_held_and_the_journal_still_opens(killed_mid_game, tmp_path):
    path, model, _ = killed_mid_game
    assert model.moves, "the fixture should leave a game in progress"
    Path(f"{path}-wal").unlink()
    Path(f"{path}-shm").unlink(missing_ok=True)
    with Journal(path) as journal:
        # The writer never checkpointed, so the game lived in the -wal file: it is gone,
        # but what is left is a sound (older) journal, not a reason to refuse to start.
        assert journal.current() is None or journal.current().moves != model.moves
        journal.start_game("treeblox", {})
        journal.record_move("after-the-damage")
    assert observed(path) == (["after-the-damage"], 0)
    assert not list(tmp_path.glob("*.corrupt-*"))


def test_unwritable_directory_is_a_clear_error(tmp_path):
    not_a_directory = tmp_path / "file"
    not_a_directory.write_text("")
    with pytest.raises(JournalError, match="journal directory"):
        Journal(not_a_directory / "journal.sqlite")


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_read_only_directory_is_a_clear_error(tmp_path):
    directory = tmp_path / "ro"
    directory.mkdir()
    directory.chmod(0o500)
    try:
        with pytest.raises(JournalError, match="writable"):
            Journal(directory / "journal.sqlite")
    finally:
        directory.chmod(0o700)


# The API -------------------------------------------------------------------------------

def test_moves_undos_and_history(tmp_path):
    clock = iter(range(100, 200)).__next__
    path = tmp_path / "journal.sqlite"
    with Journal(path, clock=clock) as journal:
        assert journal.current() is None
        first = journal.start_game("tree-planting", {"size": 3})
        journal.record_move("g1")
        journal.record_move("h2")
        journal.record_undo()
        journal.record_move("t5")
        saved = journal.current()
        assert (saved.game_id, saved.game, saved.options, saved.moves) == (first, "tree-planting", {"size": 3}, ["g1", "t5"])
        assert saved.events == 4  # the takeback is a record of its own: history kept
        journal.finish({"scores": [3, 1], "winner": 0})
        assert journal.current() is None
        second = journal.start_game("arbos", {})
        journal.record_move("a1")
        third = journal.start_game("arbos", {})  # abandons the second
        assert journal.current().game_id == third and journal.current().moves == []
        (done,) = journal.history()
        assert (done.game_id, done.status, done.summary, done.moves) == (first, "finished", {"scores": [3, 1], "winner": 0}, ["g1", "t5"])
        assert done.started_at == 100 and done.finished_at is not None
        assert [g.game_id for g in journal.history(include_abandoned=True)] == [second, first]
        assert journal.history(include_abandoned=True)[0].status == "abandoned"
    # The moves of the game in progress come back after a restart.
    with Journal(path) as journal:
        assert journal.current().game_id == third


def test_out_of_turn_calls_are_journal_errors(tmp_path):
    with Journal(tmp_path / "j.sqlite") as journal:
        with pytest.raises(JournalError, match="start_game"):
            journal.record_move("a1")
        with pytest.raises(JournalError):
            journal.record_undo()
        journal.start_game("fangqi", {})
        with pytest.raises(JournalError, match="no move to take back"):
            journal.record_undo()
        with pytest.raises(JournalError):
            journal.game(999)


def test_wal_mode_and_full_sync(tmp_path):
    path = tmp_path / "j.sqlite"
    with Journal(path) as journal:
        assert journal._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    other = sqlite3.connect(path)
    assert other.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    other.close()


def test_used_from_another_thread_is_refused(tmp_path):
    journal = Journal(tmp_path / "j.sqlite")
    errors = []
    thread = threading.Thread(target=lambda: errors.append(pytest.raises(JournalError, journal.current)))
    thread.start()
    thread.join()
    assert errors and errors[0] is not None
    journal.close()


def test_default_path_follows_systemd_state_directory(tmp_path):
    assert default_journal_path({"STATE_DIRECTORY": "/var/lib/treeboard"}) == Path("/var/lib/treeboard/journal.sqlite")
    assert default_journal_path({"STATE_DIRECTORY": "/a:/b"}) == Path("/a/journal.sqlite")
    assert default_journal_path({"XDG_STATE_HOME": str(tmp_path)}) == tmp_path / "treeboard" / "journal.sqlite"


# The finishing move and the result ------------------------------------------------------

# The board process of test_board_e2e's SIGKILL test, cut the moment the result is written
# (after the last move went in): SIGKILL from SQLite's statement trace.
from test_board_e2e import KILLER  # noqa: E402

FINISHER = KILLER.replace("rng = random.Random", """
import os, signal
def cut(statement):
    if statement.lstrip().upper().startswith("UPDATE GAMES SET STATUS='FINISHED'"):
        os.kill(os.getpid(), signal.SIGKILL)
t.session.journal._db.set_trace_callback(cut)
rng = random.Random""", 1)


def test_a_kill_between_the_last_move_and_the_result_loses_neither(tmp_path):
    """Before: the last move was one commit and the result another; a kill between them left
    a game that is over marked "playing", and the next game marked it abandoned (its result
    lost). Now both are one transaction: the kill leaves the game one move before its end.
    The last rod was lit before its commit (the pieces record it): the board restarts one move
    short, adopts the rod from its sensors, and the game ends again, with its result."""
    import games
    from board_driver.config import sim_config
    from board_driver.referee.session import open_session

    path = tmp_path / "j.sqlite"
    proc = subprocess.run([sys.executable, "-c", FINISHER, str(path), "3"], capture_output=True,
                          text=True, timeout=scaled(60))
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    reported = [line.split()[1:] for line in proc.stdout.splitlines()
                if line.startswith("ACCEPTED")]
    # The last rod is reported as lit, unless the kill came first (its commit raced the
    # report): then the journal and the report agree, and only the restart is left to see.
    accepted = reported[-1]
    game = games.get_game("tree-planting")
    end = game.new_state()
    end.play_all(accepted)
    with Journal(path) as journal:
        saved = journal.current()
        assert saved is not None and saved.status == "playing"
        state = game.new_state(**saved.options)
        state.play_all(saved.moves)
        assert not state.is_over(), "a game that is over is still marked playing"
        assert saved.moves == accepted[:len(saved.moves)]
        assert len(saved.moves) >= len(accepted) - 1
    # The board restarts on the game one move short, the pieces as the players left them.
    session = open_session(sim_config(journal=str(path)), clock=lambda: 9.0, autoscan=False)
    try:
        assert [str(m) for m in session.referee.state.moves] == saved.moves
        board = session.hardware.board
        for site, kind in end.occupancy().items():
            if not session.referee.physical.get(site):
                board.place(site, kind)
        board.scan_once()
        session.referee.resync(session.hardware.source.snapshot(), 10.0)
        if end.is_over():
            assert [str(m) for m in session.referee.state.moves] == accepted
            assert session.referee.state.is_over()
        session.journal.flush()
    finally:
        session.close()
    if end.is_over():
        with Journal(path) as journal:
            assert journal.current() is None
            last = journal.history(limit=1)[0]
            assert last.moves == accepted and last.status == "finished"


def test_a_failure_inside_the_finishing_transaction_keeps_the_move_out_of_game_and_journal(tmp_path):
    """An exception injected between the last move's insert and the result's update: the
    journal rolls back both. A move entered on the page is taken back out of the game; a move
    made with pieces stays (the pieces record it), nothing after it is written until it is,
    and it is written at the next record once the journal takes it."""
    from board_driver.config import sim_config
    from board_driver.referee.tracer import Tracer

    t = Tracer(sim_config(journal=str(tmp_path / "j.sqlite"), layout="treeblox-adc",
                          game_options={"cubes": 1}))
    try:
        db = t.session.journal._db
        db.execute("CREATE TEMP TRIGGER cut BEFORE UPDATE OF status ON games "
                   "WHEN NEW.status = 'finished' BEGIN SELECT RAISE(ABORT, 'injected cut'); END")
        for site, kind in [("a1", "dark-leaf"), ("d4", "light-leaf"), ("b1", "dark-branch")]:
            t.step("place", [site, kind])
        state = t.referee.state
        assert state.in_final_growth and state.placements_left == 1  # Light's last cube
        journal = t.session.journal
        t.step("place", ["c4", "light-branch"])  # ends the game, lit before its commit
        assert state.is_over()
        wait_for(lambda: journal.unwritten, what="the failed commit")
        assert "injected cut" in journal.unwritten
        with pytest.raises(JournalError, match="injected cut"):
            journal.save_setting("voice", {})   # nothing after the gap is written
        with Journal(tmp_path / "j.sqlite") as other:   # (what a restart would read)
            saved = other.current()
        assert saved.status == "playing" and saved.moves == ["La1", "Ld4", "Bb1"]
        part = journal_part(journal)   # the daemon's supervisor says so (LEDs, page, voice)
        assert "injected cut" in part.check()
        with pytest.raises(JournalError, match="injected cut"):
            part.restart()   # (tried again: still refused)
        db.execute("DROP TRIGGER cut")
        journal.save_setting("voice", {})   # the move first, then this
        assert journal.unwritten is None and part.check() is None
        part.restart()   # (nothing left to write: the part is up)
        with Journal(tmp_path / "j.sqlite") as other:
            assert other.history(limit=1)[0].moves == ["La1", "Ld4", "Bb1", "Bc4"]
    finally:
        t.close()


def sqlite_steps(journal, action) -> int:
    """SQLite virtual-machine instructions `action` costs (in hundreds): a measure of work
    that does not depend on the machine's speed."""
    steps = 0

    def count():
        nonlocal steps
        steps += 1
        return 0

    journal._db.set_progress_handler(count, 100)
    try:
        action()
    finally:
        journal._db.set_progress_handler(None, 100)
    return steps


def test_a_takeback_costs_the_same_at_move_3000_as_at_move_3(tmp_path):
    """Before: every takeback re-read the whole game (Journal.current()), so place/lift on one
    groove was quadratic in the game's length."""
    with Journal(tmp_path / "j.sqlite") as journal:
        game_id = journal.start_game("tree-planting", {})
        for i in range(3):
            journal.record_move(f"m{i}")
        short = sqlite_steps(journal, journal.record_undo)
        journal.record_move("m2")
        with journal._db:  # 3,000 moves and takebacks, as a long session leaves them
            journal._db.execute("BEGIN")  # one transaction: one fsync, not 3,000
            journal._db.executemany(
                "INSERT INTO events (game_id, kind, text, at) VALUES (?, ?, ?, 0)",
                [(game_id, kind, "x" if kind == "move" else None)
                 for _ in range(1500) for kind in ("move", "undo")])
        long = sqlite_steps(journal, journal.record_undo)
        assert long <= short + 2, (short, long)
        assert journal.current().moves == ["m0", "m1"]
    with Journal(tmp_path / "j.sqlite") as journal:  # and the count survives a restart
        journal.record_undo()
        journal.record_undo()
        with pytest.raises(JournalError, match="no move to take back"):
            journal.record_undo()


# Whose database it is ------------------------------------------------------------------

#: The journal's schema as its first version wrote it (no settings, no clocks, no mark in the
#: header): such journals must still open.
FIRST_SCHEMA = """
CREATE TABLE games (id INTEGER PRIMARY KEY, game TEXT NOT NULL, options TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'playing' CHECK (status IN ('playing', 'finished', 'abandoned')),
    started_at REAL NOT NULL, finished_at REAL, summary TEXT);
CREATE TABLE events (id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES games(id),
    kind TEXT NOT NULL CHECK (kind IN ('move', 'undo')), text TEXT, at REAL NOT NULL);
CREATE INDEX events_by_game ON events(game_id, id);
"""


def _fingerprint(path: Path) -> tuple:
    import hashlib

    files = sorted(p.name for p in path.parent.iterdir())
    return hashlib.sha256(path.read_bytes()).hexdigest(), files


@pytest.mark.parametrize("schema", [
    "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('milk')",
    # another program's table of the same name, and one of its own
    "CREATE TABLE games (id INTEGER PRIMARY KEY, title TEXT); CREATE TABLE scores (n INTEGER)",
    # the journal's tables, and another program's beside them
    FIRST_SCHEMA + "CREATE TABLE contacts (name TEXT);",
    # another program's mark in the header, no table yet
    "PRAGMA application_id = 1234",
])
def test_another_programs_database_is_refused_and_left_as_it_was(tmp_path, schema):
    path = tmp_path / "other.sqlite"
    db = sqlite3.connect(path)
    db.executescript(schema)
    db.commit()
    db.close()
    before = _fingerprint(path)
    with pytest.raises(JournalError) as refused:
        Journal(path)
    message = str(refused.value)
    assert str(path) in message and "not a treeboard journal" in message
    assert "\n" not in message
    assert _fingerprint(path) == before   # not a byte written, no WAL beside it


def test_a_journal_of_the_first_version_still_opens_and_is_marked_as_ours(tmp_path):
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.executescript(FIRST_SCHEMA)
    db.execute("INSERT INTO games (game, options, started_at) VALUES ('tree-planting', '{}', 1)")
    db.execute("INSERT INTO events (game_id, kind, text, at) VALUES (1, 'move', 'h0.0', 2)")
    db.commit()
    db.close()
    with Journal(path) as journal:
        assert journal.current().moves == ["h0.0"]
        journal.save_setting("voice", {"enabled": True})   # the newer tables are added
    check = sqlite3.connect(path)
    assert check.execute("PRAGMA application_id").fetchone()[0] == 0x54425244
    check.close()
    with Journal(path) as journal:   # and it opens again, by its mark
        assert journal.setting("voice") == {"enabled": True}


def test_an_empty_file_becomes_a_journal(tmp_path):
    path = tmp_path / "empty.sqlite"
    path.write_bytes(b"")
    with Journal(path) as journal:
        journal.start_game("fangqi", {})
        assert journal.current().moves == []
