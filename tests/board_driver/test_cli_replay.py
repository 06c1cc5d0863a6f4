"""`treeboard games` and `treeboard replay`, run as a user runs them: the installed script."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from board_driver.cli import main


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    exe = shutil.which("treeboard")
    cmd = [exe] if exe else [sys.executable, "-m", "board_driver.cli"]
    return subprocess.run(cmd + list(args), input=stdin, capture_output=True, text=True,
                          timeout=60)


def test_games_lists_every_game_with_boards():
    out = run("games")
    assert out.returncode == 0, out.stderr
    assert "tree-planting" in out.stdout and "classic" in out.stdout
    assert "treeblox" in out.stdout


def test_replay_prints_exactly_one_json_object(tmp_path):
    f = tmp_path / "game.txt"
    f.write_text("h0.0 h1.0\nv0.0   v0.1\n")
    out = run("replay", "--game", "tree-planting", "--board", "classic", str(f))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data == {"game": "tree-planting", "board": "classic",
                    "moves": ["h0.0", "h1.0", "v0.0", "v0.1"], "scores": [0, 1],
                    "to_move": 1, "over": False, "winner": None}
    assert out.stdout.count("\n") == 1


def test_replay_reads_stdin():
    out = run("replay", "--game", "tree-planting", "--board", "1x1", "-",
              stdin="h0.0 h1.0 v0.0 v0.1")
    data = json.loads(out.stdout)
    assert data["over"] is True and data["winner"] == 1 and data["scores"] == [0, 1]


@pytest.mark.parametrize("moves,position,words", [
    ("h0.0 h0.0", "move 2 (h0.0)", "already has a rod"),
    ("h0.0 zz", "move 2 (zz)", "a move is a groove"),
    ("h7.7", "move 1 (h7.7)", "no groove h7.7"),
])
def test_bad_move_prints_nothing_and_exits_2(moves, position, words):
    out = run("replay", "--game", "tree-planting", stdin=moves)
    assert out.returncode == 2
    assert out.stdout == ""
    assert position in out.stderr and words in out.stderr


def test_bad_game_board_or_file_exit_2(tmp_path, capsys):
    assert main(["replay", "--game", "chess", str(tmp_path / "x")]) == 2
    assert "no game 'chess'" in capsys.readouterr().err
    assert main(["replay", "--game", "tree-planting", "--board", "#./.#", "-"]) == 2
    assert "not connected" in capsys.readouterr().err
    assert main(["replay", "--game", "tree-planting", str(tmp_path / "missing")]) == 2
    assert "cannot read" in capsys.readouterr().err
