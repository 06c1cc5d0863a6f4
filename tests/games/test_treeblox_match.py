"""Treeblox match play (games/match.py): colours switch every game, active leaves total."""

from __future__ import annotations

import io
import json

import pytest

from games.match import MatchError, main, play_match, read_records

DARK_TWO_LIGHT_ONE = "La1 Ld4 La2 end end".split()  # double pass: Dark 2, Light 1
DARK_THREE_LIGHT_ONE = "La1 Ld4 La2 end La3 end end".split()
DARK_KILLS = "La1 Ld4 Bc4 Bb2 Bc4+1 Bb3 Bd4+1".split()  # Light has no leaf: Dark 1, Light 0


def test_colours_switch_every_game_and_leaves_are_totalled_per_player():
    summary = play_match([DARK_TWO_LIGHT_ONE, DARK_KILLS, DARK_TWO_LIGHT_ONE])
    rows = summary["games"]
    assert [r["colours"] for r in rows] == [["dark", "light"], ["light", "dark"],
                                           ["dark", "light"]]
    assert [r["leaves"] for r in rows] == [[2, 1], [0, 1], [2, 1]]
    assert [r["winner"] for r in rows] == [1, 2, 1]
    assert [r["end"] for r in rows] == ["double-pass", "no-active-leaves", "double-pass"]
    assert summary["totals"] == [4, 3] and summary["winner"] == 1 and summary["margin"] == 1
    assert summary["result"] == "Player 1 won by 1 point"


def test_a_match_can_be_drawn_and_a_margin_is_plural():
    summary = play_match([DARK_TWO_LIGHT_ONE] * 2)
    assert summary["totals"] == [3, 3] and summary["winner"] is None
    assert summary["result"] == "Draw at 3 active leaves each"
    summary = play_match([DARK_TWO_LIGHT_ONE, DARK_THREE_LIGHT_ONE] * 2)
    assert [r["leaves"] for r in summary["games"]] == [[2, 1], [1, 3], [2, 1], [1, 3]]
    assert summary["totals"] == [6, 8] and summary["winner"] == 2
    assert summary["result"] == "Player 2 won by 2 points"


def test_a_game_that_does_not_replay_or_finish_is_an_error_naming_it():
    with pytest.raises(MatchError,
                       match=r"game 2 \(b.txt\): move 3 \(La1\): a1 is taken by a dark leaf"):
        play_match([DARK_KILLS, ["La1", "Ld4", "La1"]], sources=["a.txt", "b.txt"])
    with pytest.raises(MatchError, match="game 1: the game is not over after its 2 moves"):
        play_match([["La1", "Ld4"]])


def test_cli_one_file_is_a_game_per_line(tmp_path):
    record = tmp_path / "match.txt"
    record.write_text("# a two-game match\n" + " ".join(DARK_TWO_LIGHT_ONE) + "\n\n"
                      + "\n".join(DARK_KILLS) + "\n")
    out, err = io.StringIO(), io.StringIO()
    # One game per line: a game spread over several lines is several (unfinished) games.
    assert main([str(record)], out, err) == 2
    assert "game 2" in err.getvalue() and "line 4" in err.getvalue()
    record.write_text("# a two-game match\n" + " ".join(DARK_TWO_LIGHT_ONE) + "\n\n"
                      + " ".join(DARK_KILLS) + "  # Light's leaf shaded\n")
    out, err = io.StringIO(), io.StringIO()
    assert main([str(record)], out, err) == 0 and err.getvalue() == ""
    summary = json.loads(out.getvalue())
    assert summary["totals"] == [2, 2] and summary["winner"] is None


def test_cli_several_files_are_a_game_each_and_stdin_works(tmp_path):
    one, two = tmp_path / "g1.txt", tmp_path / "g2.txt"
    one.write_text("\n".join(DARK_TWO_LIGHT_ONE))
    two.write_text(" ".join(DARK_KILLS[:4]) + "\n" + " ".join(DARK_KILLS[4:]))
    out, err = io.StringIO(), io.StringIO()
    assert main([str(one), str(two), "--cubes", "16"], out, err) == 0
    assert json.loads(out.getvalue())["games"][1]["leaves"] == [0, 1]
    out, err = io.StringIO(), io.StringIO()
    stdin = io.StringIO(" ".join(DARK_KILLS) + "\n")
    assert main(["-"], out, err, stdin) == 0
    assert json.loads(out.getvalue())["totals"] == [1, 0]
    assert "odd number of games" in err.getvalue()
    assert read_records([str(one), str(two)])[1] == [str(one), str(two)]


def test_cli_errors_exit_2(tmp_path):
    err = io.StringIO()
    assert main([str(tmp_path / "missing.txt")], io.StringIO(), err) == 2
    assert "cannot read" in err.getvalue()
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n")
    err = io.StringIO()
    assert main([str(empty)], io.StringIO(), err) == 2
    assert "at least one game" in err.getvalue()
    err = io.StringIO()
    assert main([str(empty), "--cubes", "0"], io.StringIO(), err) == 2
    assert "cubes must be" in err.getvalue()
    assert main([], io.StringIO(), io.StringIO()) == 2
