"""`treeboard solve` and `treeboard review`, and the review rows behind the latter."""

from __future__ import annotations

import json

import games
from board_driver.cli import main
from games.ai import book as book_mod
from games.ai import tree_planting as tree_planting_ai
from games.ai.review import review
from games.tree_planting import Board

GAME = games.get_game("tree-planting")
# A 2x2 game in which player 0 hands over a square at move 5 and player 1 misplays later.
MOVES = "h0.0 h0.1 v0.0 v0.1 v0.2 h1.0 h1.1 h2.0 v1.0 h2.1 v1.1 v1.2".split()


def test_solve_prints_value_best_and_seconds(capsys):
    assert main(["solve", "--game", "tree-planting", "--board", "2x3", "--moves", "h0.0",
                 "v0.1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"value", "for", "for_player", "best", "seconds", "core"}
    assert (out["for"], out["for_player"]) == (0, "player 1")   # whose value it is
    from games.ai.tree_planting import core

    assert out["core"] == core()[0]  # which search answered: the compiled core where built
    state = GAME.new_state(board="2x3")
    state.play_all(["h0.0", "v0.1"])
    from games.tree_planting import solve as reference

    margin, best = reference(state)
    assert out["value"] == (margin if state.to_move == 0 else -margin)
    assert sorted(out["best"]) == sorted(str(g) for g in best)


def test_solve_rejects_bad_input_naming_it(capsys):
    assert main(["solve", "--board", "2x2", "--moves", "h0.0", "zz"]) == 2
    assert "move 2 (zz)" in capsys.readouterr().err
    assert main(["solve", "--board", "nonsense!"]) == 2
    assert "board" in capsys.readouterr().err
    assert main(["solve", "--game", "treeblox"]) == 2
    assert "only tree-planting" in capsys.readouterr().err


def test_solve_without_its_shipped_book_is_one_error_not_a_slow_or_wrong_answer(monkeypatch, capsys):
    # What the book itself does when missing: tests/games/test_ai_book.py.
    b = Board.get("2x3")
    monkeypatch.setitem(book_mod.BOOKS, b.spec, "no-such.book")
    monkeypatch.setattr(book_mod, "_books", {})
    monkeypatch.setattr(tree_planting_ai, "_solvers", {})  # solvers keep the book they found
    assert main(["solve", "--board", "2x3"]) == 1
    err = capsys.readouterr().err
    assert "no-such.book: the opening book of board '###/###' is missing" in err


def test_review_marks_the_moves_that_changed_the_result():
    state = GAME.new_state(board="2x2")
    state.play_all(MOVES)
    rows = review(state, seconds=5)
    assert [r["move"] for r in rows] == MOVES
    assert all(r["exact"] for r in rows)
    # each row's "after" is the next row's "before", seen from whoever moves next
    for r, nxt in zip(rows, rows[1:]):
        same = nxt["player"] == r["player"]
        assert nxt["before"] == (r["after"] if same else -r["after"])
    assert rows[-1]["after"] == state.scores()[rows[-1]["player"]] - state.scores()[1 - rows[-1]["player"]]
    changed = [r["n"] for r in rows if r["changed_result"]]
    assert 5 in changed
    for r in rows:
        assert r["changed_result"] == ((r["before"] > 0) - (r["before"] < 0)
                                       > (r["after"] > 0) - (r["after"] < 0))
    assert state.moves == [state.parse_move(m) for m in MOVES]  # left as it was


def test_review_reads_replay_objects_and_move_lists(tmp_path, capsys):
    moves = tmp_path / "game.txt"
    moves.write_text(" ".join(MOVES))
    assert main(["review", "--board", "2x2", str(moves)]) == 0
    table = capsys.readouterr().out
    assert "<- changed the result" in table and "v0.2" in table
    assert table.startswith("Tree Planting (board 2x2): values are")   # no Python dict
    state = GAME.new_state(board="2x2")
    state.play_all(MOVES)
    replay = tmp_path / "game.json"
    replay.write_text(state.to_json())
    assert main(["review", "--json", str(replay)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["board"] == "2x2" and len(out["moves"]) == len(MOVES)


def test_review_of_other_games_uses_the_search(tmp_path, capsys):
    moves = tmp_path / "treeblox.txt"
    moves.write_text("La1 Lb2")
    assert main(["review", "--game", "treeblox", "--seconds", "0.05", "--json", str(moves)]) == 0
    rows = json.loads(capsys.readouterr().out)["moves"]
    assert [r["move"] for r in rows] == ["La1", "Lb2"]
    assert not any(r["exact"] for r in rows)
    assert all(0 <= r["before"] <= 1 for r in rows)


def test_review_bad_input_names_the_file_and_move(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text("h0.0 h0.0")
    assert main(["review", "--board", "2x2", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.txt" in err and "move 2" in err
    assert main(["review", str(tmp_path / "missing.txt")]) == 2
    assert "cannot read" in capsys.readouterr().err
    broken = tmp_path / "broken.json"
    broken.write_text('{"game": "tree-planting", "moves": [1]}')
    assert main(["review", str(broken)]) == 2
    assert "broken.json" in capsys.readouterr().err
