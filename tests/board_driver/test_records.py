"""Records (docs/records.md): every game exported as SGF FF[4] and read back exactly, by our
reader and by sgfmill; every bad kind of file refused with its line and reason, the journal
untouched; the journal's schema 2 (seats, clocks at each move, imports) and old journals read;
`treeboard export` and `import`; the examples in docs/records.md as the code makes them."""

from __future__ import annotations

import datetime as dt
import json
import random
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from sgfmill import sgf as sgfmill, sgf_grammar

import games
from board_driver.records import Move, Player, Record, RecordError, library, sgf
from board_driver.records.record import checked
from board_driver.referee.journal import SCHEMA_VERSION, Journal

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import record_examples  # noqa: E402  (tools/record_examples.py: the docs' examples)

UTC = dt.timezone.utc
T0 = 1_779_974_400.0   # 2026-05-28 13:20 UTC
#: One game of each, played to its end (or a timed loss, or put aside) by a seeded hand.
GAMES = [
    ("tree-planting", {"board": "classic"}, 1, ("human", "computer:hard"), "5+3", "rules"),
    ("treeblox", {"cubes": 4}, 2, ("remote", "human"), None, "rules"),
    ("fangqi", {"board": "6x6"}, 3, ("computer:easy", "web"), "10,3+2", "rules"),
    ("arbos", {"board": "8x8", "setup_seed": 11}, 4, ("human", "human"), "1", "flag"),
    ("game-for-the-trees", {"limit": 30}, 5, ("human", "computer:beginner"), None, "stop"),
]


def journal_at(path, start=T0) -> Journal:
    times = iter(range(10 ** 6))
    return Journal(path, clock=lambda: start + next(times))


def rows(path) -> dict:
    """Every row of every table of a journal (what "untouched" means for the page)."""
    with sqlite3.connect(path) as db:
        return {t: db.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall()
                for t in ("games", "events", "settings", "clocks")}


def played(journal, game, options, seed, seats, control, ending) -> int:
    moves = 14 if ending != "rules" else None
    record_examples.journal_game(journal, game, options, seed, seats, control, ending, moves)
    return max(g.game_id for g in journal.listing(statuses=library.EVERY_STATUS))


def sgfmill_moves(node) -> list[dict]:
    """What sgfmill reads of a line of moves (the first child at each node) from `node` on."""
    out = []
    while node is not None:
        colour = next((c for c in "BW" if node.has_property(c)), None)
        if colour is not None:
            out.append({"player": "BW".index(colour),
                        "text": sgf_grammar.simpletext_value(node.get_raw(colour)).decode(),
                        "left": tuple(round(node.get(f"{c}L") * 1000)
                                      if node.has_property(f"{c}L") else None for c in "BW"),
                        "comment": node.get("C") if node.has_property("C") else None,
                        "bad": node.get("BM") if node.has_property("BM") else 0,
                        "siblings": len(node.parent) - 1 if node.parent is not None else 0})
        node = node[0] if len(node) else None
    return out


def ours(moves) -> list[dict]:
    return [{"player": m.player, "text": m.text,
             "left": m.left_ms if m.left_ms is not None else (None, None),
             "comment": m.comment, "bad": m.bad, "siblings": len(m.variations)} for m in moves]


@pytest.mark.parametrize("game,options,seed,seats,control,ending", GAMES,
                         ids=[g[0] for g in GAMES])
def test_a_record_of_each_game_exported_and_read_back_exactly(tmp_path, game, options, seed,
                                                               seats, control, ending):
    with journal_at(tmp_path / "a.sqlite") as journal:
        game_id = played(journal, game, options, seed, seats, control, ending)
        saved = journal.game(game_id)
        [record] = library.export(journal, [game_id], tz=UTC)
    text = sgf.dumps([record])
    # our reader: the same record, to the last clock's millisecond
    [back] = sgf.read(text)
    assert back == record
    assert [m.text for m in back.moves] == saved.moves and back.number == record.number
    assert back.players == tuple(Player(s) for s in seats)
    assert back.control == control
    # sgfmill, a well-kept SGF library, reads the same game, players, result and moves
    tree = sgfmill.Sgf_game.from_bytes(text)
    root = tree.get_root()
    assert root.get("GM") == games.get_game(game).sgf_number and root.get("FF") == 4
    assert root.get("PB") == record.players[0].shown and root.get("XW") == seats[1]
    assert root.get("DT") == "2026-05-28" and tree.get_charset() == "UTF-8"
    assert (root.get("RE") if root.has_property("RE") else None) == record.result
    assert sgfmill_moves(root) == ours(record.moves)
    if ending == "flag":
        assert record.result == f"{'BW'[1 - saved.summary['flag']]}+T"
    elif ending == "stop":
        assert record.result is None and saved.status == "playing"
    else:
        assert record.result is not None and saved.summary["over"]
    # into another journal and out again: the same record, byte for byte
    with journal_at(tmp_path / "b.sqlite") as other:
        [new_id] = library.import_records(other, text, tz=UTC)
        again = other.game(new_id)
        assert sgf.dumps(library.export(other, [new_id], tz=UTC)) == text
    assert again.moves == saved.moves and again.options == saved.options
    assert again.players == saved.players and again.move_clocks == saved.move_clocks
    assert again.origin == "import" and again.summary == (
        saved.summary if saved.status == "finished" else None)
    assert again.status == ("finished" if saved.status == "finished" else "abandoned")


def test_every_ending_has_its_result_and_comes_back_the_same(tmp_path):
    """Score, a draw by the rules, time, resignation and agreement: RE says each, and an
    import keeps the journal's summary as the referee wrote it."""
    state = games.get_game("tree-planting").new_state(board="2x2")
    state.play_all(["h0.0", "h1.0", "v0.0"])
    unfinished = state.summary()
    endings = {"B+T": dict(unfinished, over=True, winner=0, flag=1),
               "W+R": dict(unfinished, over=True, winner=1, resigned=0),
               "0": dict(unfinished, over=True, winner=None, agreed=True)}
    with journal_at(tmp_path / "a.sqlite") as journal:
        for result, summary in endings.items():
            journal.start_game("tree-planting", {"board": "2x2"}, ("human", "human"))
            for move in unfinished["moves"]:
                journal.record_move(move)
            journal.finish(summary)
            [record] = library.export(journal, [journal.history(limit=1)[0].game_id])
            assert record.result == result
            [found] = library.read_records(sgf.dumps([record]))
            assert found.summary == summary
            entry = library.entry(journal.listing(limit=1)[0])
            assert (entry["outcome"], entry["ended"]) == {
                "B+T": ("first", "time"), "W+R": ("second", "resignation"),
                "0": ("draw", "agreement")}[result]
    drawn = games.get_game("treeblox").new_state(cubes=2)   # a draw by the rules: RE[0]
    rng = random.Random(2)
    while not drawn.is_over():
        drawn.play(rng.choice(sorted(drawn.legal_moves(), key=str)))
    assert drawn.winner() is None
    record = Record("treeblox", {"cubes": "2"}, moves=tuple(
        Move(p, str(m)) for p, m in _movers(drawn)), result="0")
    found, _ = checked(record)
    assert found.summary == drawn.summary() and "agreed" not in found.summary


def _movers(state):
    replay = state.game.new_state(**state.options())
    for move in state.moves:
        yield replay.to_move, move
        replay.play(move)


def test_the_review_marks_comments_and_best_moves_as_variations(tmp_path):
    from games.ai.review import review

    state = games.get_game("tree-planting").new_state(board="2x2")
    rng = random.Random(2)
    while not state.is_over():
        state.play(rng.choice(sorted(state.legal_moves(), key=str)))
    rows_ = review(state, seconds=1.0, seed=0)
    with journal_at(tmp_path / "a.sqlite") as journal:
        journal.start_game("tree-planting", {"board": "2x2"}, ("human", "computer:easy"))
        for i, move in enumerate(state.moves, 1):
            journal.record_move(str(move), finish=state.summary() if i == len(state.moves)
                                else None)
        [record] = library.export(journal, [1], {1: rows_})
    changed = [r for r in rows_ if r["changed_result"]]
    assert changed
    marked = [(n, m) for n, m in enumerate(record.moves, 1) if m.bad]
    assert [n for n, _ in marked] == [r["n"] for r in changed]
    for (n, move), row in zip(marked, changed):
        assert move.comment.startswith(f"move {n}: {row['move']} changed the result (best: ")
        assert move.variations == ((Move(row["player"], row["best"][0]),),)
    text = sgf.dumps([record])
    assert sgf.read(text) == [record]
    tree = sgfmill.Sgf_game.from_bytes(text)
    assert sgfmill_moves(tree.get_root()) == ours(record.moves)
    # a variation is the best move instead: sgfmill sees it beside the move it replaces
    n = marked[0][0]
    node = tree.get_main_sequence()[n]
    other = node.parent[1]
    assert sgf_grammar.simpletext_value(other.get_raw("BW"[other.has_property("W")])).decode() \
        == changed[0]["best"][0]
    # the journal keeps the main line: the comments and variations are the record's
    found, _ = checked(record)
    assert [m for m, _ in found.moves] == [str(m) for m in state.moves]
    assert library.as_json(record)["notes"][0]["n"] == changed[0]["n"]


# --- refused -----------------------------------------------------------------------------------

def _good(tmp_path) -> bytes:
    """A finished 2x2 Tree Planting game's record, as the board writes it."""
    with journal_at(tmp_path / "source.sqlite") as journal:
        game_id = played(journal, "tree-planting", {"board": "2x2"}, 2, ("human", "human"),
                         "5", "rules")
        return sgf.dumps(library.export(journal, [game_id]))


SWAP = str.maketrans("BW", "WB")


def _line_of(data: bytes, needle: bytes) -> int:
    return data[:data.index(needle)].count(b"\n") + 1


def _mutations(good: bytes):
    """(what, the file, its line, words of the reason) for each bad kind."""
    moves = [m.text for m in sgf.read(good)[0].moves]
    first, third = f"B[{moves[0]}]".encode(), f"B[{moves[2]}]".encode()
    bad_move = good.replace(third, f"B[{moves[0]}]".encode())
    gm = good.index(b"GM[7001]")
    yield "JSON", b'{"game": "tree-planting", "moves": []}', 1, "not an SGF record"
    yield "empty", b"", 1, "holds no game tree"
    yield "words", b"Dear Grandma,\nhere is our game.\n", 1, "does not begin with '(;'"
    yield "not UTF-8", good.replace(b"PB[person", b"PB[\xe9t\xe9 person"), \
        _line_of(good, b"PB["), "not UTF-8 (byte 0xE9)"
    yield "Go", good.replace(b"GM[7001]", b"GM[1]"), _line_of(good, b"GM["), \
        "GM[1] is a game this board does not play"
    yield "no GM", good[:gm] + good[gm + 8:], 1, "names no game"
    yield "chess options", good.replace(b"XO[board=2x2]", b"XO[board=8x8x8]"), \
        _line_of(good, b"XO["), "its options make no game of Tree Planting"
    yield "illegal move", bad_move, _line_of(good, third), "move 3"
    yield "wrong player", good.replace(first, f"W[{moves[0]}]".encode(), 1), \
        _line_of(good, first), "move 1"
    yield "no such move", good.replace(third, b"B[zz9]"), _line_of(good, third), "(zz9)"
    cut = good.rindex(b"[")   # (a value that never ends swallows the file to its end)
    yield "unterminated", good[:cut + 3], good[:cut].count(b"\n") + 1, "[' without its ']'"
    yield "no end", good.rstrip().rstrip(b")"), good.rstrip().count(b"\n") + 1, \
        "a ')' is missing"
    yield "lower case", good.replace(b"XO[", b"xo["), _line_of(good, b"XO["), "capital letters"
    yield "two moves", good.replace(third, third + b"W[" + moves[0].encode() + b"]"), \
        _line_of(good, third), "two moves"
    yield "setup", good.replace(b"XO[", b"AB[aa]XO["), _line_of(good, b"XO["), "AB[...]"
    said = sgf.read(good)[0].result
    yield "result", good.replace(f"RE[{said}]".encode(), f"RE[{said.translate(SWAP)}]".encode()), \
        _line_of(good, b"RE["), "says otherwise than its moves"
    yield "collection", good + good.replace(third, b"B[zz9]"), \
        good.count(b"\n") + _line_of(good, third), "(zz9)"


def test_every_bad_kind_is_refused_with_its_line_and_reason_and_nothing_written(tmp_path):
    good = _good(tmp_path)
    path = tmp_path / "kept.sqlite"
    with journal_at(path) as journal:
        played(journal, "fangqi", {"board": "6x6"}, 0, ("human", "human"), None, "stop")
    before, bytes_before = rows(path), path.read_bytes()
    seen = 0
    with journal_at(path) as journal:
        for what, data, line, words in _mutations(good):
            with pytest.raises(RecordError) as refused:
                library.import_records(journal, data)
            assert refused.value.line == line, what
            assert words in str(refused.value), (what, str(refused.value))
            assert str(refused.value).startswith(f"line {line}: "), what
            seen += 1
        assert journal.current().moves   # the game in progress as it was
    assert seen >= 17 and rows(path) == before
    assert sgf.read(good) and library.read_records(good)   # (the file before each change is good)
    # (the journal's own file: not a byte written by the refusals)
    assert path.read_bytes() == bytes_before


def test_an_illegal_move_inside_a_variation_is_refused(tmp_path):
    good = _good(tmp_path)
    record = sgf.read(good)[0]
    moves = list(record.moves)
    moves[2] = Move(moves[2].player, moves[2].text, moves[2].left_ms,
                    variations=((Move(moves[2].player, moves[0].text),),))
    text = sgf.dumps([Record(record.game, record.options, record.players, tuple(moves),
                             record.date, record.result, record.control)])
    with pytest.raises(RecordError) as refused:
        library.read_records(text)
    assert refused.value.line == _line_of(text, b"(;B[" + moves[0].text.encode()) and \
        "move 3" in str(refused.value) and "not legal" in str(refused.value)


def schema_1(path) -> None:
    """A journal as schema 1 wrote it: today's tables without the columns schema 2 added."""
    Journal(path).close()
    with sqlite3.connect(path) as db:
        for table, column in (("games", "players"), ("games", "origin"), ("events", "clocks")):
            db.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        db.execute("PRAGMA user_version=0")


def test_a_journal_of_schema_1_is_read_and_migrated(tmp_path):
    path = tmp_path / "old.sqlite"
    schema_1(path)
    with sqlite3.connect(path) as db:
        assert "players" not in {row[1] for row in db.execute("PRAGMA table_info(games)")}
        db.execute("INSERT INTO games (game, options, status, started_at, finished_at, summary)"
                   " VALUES ('tree-planting', '{\"board\": \"2x2\"}', 'finished', ?, ?, ?)",
                   (T0, T0 + 60, json.dumps({"winner": 0, "scores": [1, 0], "flag": 1})))
        db.executemany("INSERT INTO events (game_id, kind, text, at) VALUES (1, ?, ?, ?)",
                       [("move", "h0.0", T0 + 1), ("move", "h1.0", T0 + 2),
                        ("undo", None, T0 + 3), ("move", "v0.0", T0 + 4)])
        db.execute("INSERT INTO clocks VALUES (1, ?, ?)", (json.dumps(
            {"control": "1", "left_ms": [41000, 0], "turn_of": 1}), T0 + 60))
    with Journal(path) as journal:
        saved = journal.game(1)
        assert saved.moves == ["h0.0", "v0.0"] and saved.players is None
        assert saved.move_clocks == [None, None] and saved.origin is None
        [record] = library.export(journal, [1], tz=UTC)
        journal.start_game("tree-planting", {"board": "2x2"}, ("human", "human"))
        journal.record_move("h0.0", clocks={"control": "1", "left_ms": [1, 2], "turn_of": 0})
        assert journal.current().move_clocks == [{"control": "1", "left_ms": [1, 2],
                                                  "turn_of": 0}]
    assert record.players == (Player(), Player()) and record.result == "B+T"
    assert record.moves[-1].left_ms == (41000, 0) and record.moves[0].left_ms is None
    assert record.control == "1" and sgf.read(sgf.dumps([record])) == [record]
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("SELECT text FROM events ORDER BY id").fetchall() == [
            ("h0.0",), ("h1.0",), (None,), ("v0.0",), ("h0.0",)]


def test_the_board_journals_its_seats_and_each_moves_clocks(tracer):
    from board_driver.referee.clock import parse_time_control

    t = tracer(time_control=parse_time_control("1"))
    journal = t.session.journal
    assert journal.current().players == [{"seat": "human"}, {"seat": "human"}]
    t.step("place", ["h0.0"])
    t.step("wait", ["1500"])
    t.step("place", ["v0.0"])
    saved = journal.current()
    assert saved.moves == ["h0.0", "v0.0"]
    assert [c["turn_of"] for c in saved.move_clocks] == [0, 1]
    assert saved.move_clocks[1]["left_ms"][1] < 60000 - 1400
    t.referee.set_seats(("human", "remote"))   # (a remote game joined: the seats change)
    assert journal.current().players == [{"seat": "human"}, {"seat": "remote"}]
    t.step("wait", ["61000"])   # the first player's minute runs out
    [record] = library.export(journal, [journal.history(limit=1)[0].game_id])
    assert record.result == "W+T" and record.players[1] == Player("remote")
    assert record.moves[1].left_ms == tuple(saved.move_clocks[1]["left_ms"])
    # an imported game is the library's: never the game a restart shows as the last played
    library.import_records(journal, sgf.dumps([record]))
    assert journal.history(limit=1)[0].origin is None


def test_the_library_searches_by_game_player_result_and_date(tmp_path):
    with journal_at(tmp_path / "a.sqlite") as journal:
        for game, options, seed, seats, control, ending in GAMES:
            played(journal, game, options, seed, seats, control, ending)
        journal.start_game("tree-planting", {"board": "2x2"})   # (puts the last one aside)
        old = """(;FF[4]GM[7001]DT[1999-12-31]PB[Grandma]XO[board=2x2];B[h0.0])""".encode()
        [grandma] = library.import_records(journal, old)

        def ids(**params) -> list[int]:
            return [g.game_id for g in library.search(journal, library.Query.of(params))]

        assert len(ids()) == 6 and ids()[-1] == grandma   # newest first; the one in progress not
        assert ids(game="fangqi") == [3]
        assert ids(player="computer") == [5, 3, 1] and ids(player="easy") == [3]
        assert ids(player="grandma") == [grandma] and ids(player="remote board") == [2]
        assert ids(result="unfinished") == [5, grandma] and ids(ended="time") == [4]
        assert ids(**{"from": "2000-01-01"}) == [5, 4, 3, 2, 1]
        assert ids(**{"to": "1999-12-31"}) == [grandma]
        entry = library.entry(library.search(journal, library.Query.of({"player": "grandma"}))[0])
        assert entry["players"] == ["Grandma", "unknown"] and entry["imported"]
        for bad in ({"game": "chess"}, {"result": "won"}, {"from": "yesterday"}):
            with pytest.raises(library.BadQuery):
                library.Query.of(bad)


# --- the command line ----------------------------------------------------------------------------

def treeboard(*args, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "board_driver.cli", *args], input=stdin,
                          capture_output=True, timeout=120, cwd=ROOT)


def test_export_and_import_on_the_command_line(tmp_path):
    path = tmp_path / "j.sqlite"
    with journal_at(path) as journal:
        for game, options, seed, seats, control, ending in GAMES[:3]:
            played(journal, game, options, seed, seats, control, ending)
        expected = sgf.dumps(library.export(journal, [3]))
    done = treeboard("export", "--journal", str(path))   # the last finished game
    assert done.returncode == 0 and done.stdout == expected
    every = treeboard("export", "--journal", str(path), "--all")
    assert [r.game for r in sgf.read(every.stdout)] == ["tree-planting", "treeblox", "fangqi"]
    as_json = json.loads(treeboard("export", "--journal", str(path), "--id", "1", "--format",
                                   "json").stdout)
    assert as_json["game"] == "tree-planting" and as_json["players"][1] == {
        "seat": "computer:hard"} and as_json["ended"] == "score"
    assert games.load_state(as_json).is_over()   # (the replay object: `treeboard replay` reads it)
    other = tmp_path / "other.sqlite"
    (tmp_path / "all.sgf").write_bytes(every.stdout)
    done = treeboard("import", "--journal", str(other), str(tmp_path / "all.sgf"))
    assert done.returncode == 0 and done.stdout.decode().splitlines() == [
        "imported game 1: tree-planting, " + f"{len(sgf.read(every.stdout)[0].moves)} moves, "
        "finished", *done.stdout.decode().splitlines()[1:]]
    assert treeboard("export", "--journal", str(other), "--all").stdout == every.stdout
    # refused: the line and the reason, exit 2, the journal's file not even opened
    before = other.read_bytes()
    bad = every.stdout.replace(b"GM[7002]", b"GM[3]")
    (tmp_path / "bad.sgf").write_bytes(bad)
    done = treeboard("import", "--journal", str(other), str(tmp_path / "bad.sgf"))
    assert done.returncode == 2 and other.read_bytes() == before
    assert done.stderr.decode().startswith(
        f"treeboard: {tmp_path / 'bad.sgf'}: line {_line_of(bad, b'GM[3]')}: GM[3] is a game")
    assert treeboard("export", "--journal", str(tmp_path / "none.sqlite")).returncode == 2
    assert treeboard("export", "--journal", str(path), "--id", "99").returncode == 2
    assert not (tmp_path / "none.sqlite").exists()


def test_the_examples_in_docs_records_md_are_what_the_code_makes():
    doc = (ROOT / "docs" / "records.md").read_text(encoding="utf-8")
    made = record_examples.examples()
    assert set(made) == set(games.names())
    assert record_examples.rewritten(doc, made) == doc, \
        "docs/records.md's examples are stale: run python tools/record_examples.py"
    for text in made.values():   # each reads back, by our reader and sgfmill
        [record] = sgf.read(text.encode())
        library.read_records(text.encode())
        sgfmill.Sgf_game.from_bytes(text.encode())
        assert record.number == games.get_game(record.game).sgf_number


def test_the_games_numbers_are_private_and_one_each():
    numbers = [games.get_game(name).sgf_number for name in games.names()]
    assert len(set(numbers)) == len(numbers) == 5 and all(n > 40 for n in numbers)
