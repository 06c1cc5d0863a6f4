"""`treeboard match` (board_driver/cli/rules.py): the records read from files or standard
input, the summary printed as JSON, every error a status 2 with a message."""

from __future__ import annotations

import io
import json

import pytest

from board_driver.cli import main
from board_driver.cli.rules import read_records

DARK_TWO_LIGHT_ONE = "La1 Ld4 La2 end end".split()  # double pass: Dark 2, Light 1
DARK_KILLS = "La1 Ld4 Bc4 Bb2 Bc4+1 Bb3 Bd4+1".split()  # Light has no leaf: Dark 1, Light 0


def match(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["match", *args])
    out, err = capsys.readouterr()
    return status, out, err


def test_cli_one_file_is_a_game_per_line(tmp_path, capsys):
    record = tmp_path / "match.txt"
    record.write_text("# a two-game match\n" + " ".join(DARK_TWO_LIGHT_ONE) + "\n\n"
                      + "\n".join(DARK_KILLS) + "\n")
    # One game per line: a game spread over several lines is several (unfinished) games.
    status, out, err = match(capsys, str(record))
    assert status == 2 and "game 2" in err and "line 4" in err
    record.write_text("# a two-game match\n" + " ".join(DARK_TWO_LIGHT_ONE) + "\n\n"
                      + " ".join(DARK_KILLS) + "  # Light's leaf shaded\n")
    status, out, err = match(capsys, str(record))
    assert status == 0 and err == ""
    summary = json.loads(out)
    assert summary["totals"] == [2, 2] and summary["winner"] is None


def test_cli_several_files_are_a_game_each_and_stdin_works(tmp_path, capsys, monkeypatch):
    one, two = tmp_path / "g1.txt", tmp_path / "g2.txt"
    one.write_text("\n".join(DARK_TWO_LIGHT_ONE))
    two.write_text(" ".join(DARK_KILLS[:4]) + "\n" + " ".join(DARK_KILLS[4:]))
    status, out, _ = match(capsys, str(one), str(two), "--cubes", "16")
    assert status == 0 and json.loads(out)["games"][1]["leaves"] == [0, 1]
    status, out, _ = match(capsys, "--cubes", "16", str(one), str(two))  # options before too
    assert status == 0 and json.loads(out)["games"][1]["leaves"] == [0, 1]
    monkeypatch.setattr("sys.stdin", io.StringIO(" ".join(DARK_KILLS) + "\n"))
    status, out, err = match(capsys, "-")
    assert status == 0 and json.loads(out)["totals"] == [1, 0]
    assert "odd number of games" in err
    assert read_records([str(one), str(two)])[1] == [str(one), str(two)]


def test_cli_errors_exit_2(tmp_path, capsys):
    status, _, err = match(capsys, str(tmp_path / "missing.txt"))
    assert status == 2 and "treeboard match: cannot read" in err
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n")
    status, _, err = match(capsys, str(empty))
    assert status == 2 and "at least one game" in err
    status, _, err = match(capsys, str(empty), "--cubes", "0")
    assert status == 2 and "cubes must be" in err
    with pytest.raises(SystemExit) as exc:  # no file: argparse's usage error
        main(["match"])
    assert exc.value.code == 2
    # A game whose rules have no match (Game.match_rules), or no game of that name.
    status, _, err = match(capsys, str(empty), "--game", "fangqi")
    assert status == 2 and "treeboard match: Fangqi has no match rules" in err
    status, _, err = match(capsys, str(empty), "--game", "chess")
    assert status == 2 and "no game 'chess'" in err


def test_cli_match_has_its_own_help(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["match", "--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert "usage: treeboard match" in out and "--cubes" in out and "Treeblox match" in out
