"""`treeboard games` and `treeboard replay`, run as a user runs them: the installed script."""

from __future__ import annotations

import io
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


# --- the same options everywhere, --help on every subcommand ------------------------------

SUBCOMMANDS = ["games", "replay", "sim", "trace", "run", "selftest", "map", "kit", "match",
               "install-service"]


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_every_subcommand_answers_help(command, capsys):
    try:
        status = main([command, "--help"])
    except SystemExit as exc:
        status = exc.code
    assert status == 0
    assert f"usage: treeboard {command}" in capsys.readouterr().out


def test_every_listed_game_option_is_a_flag_of_replay_sim_and_trace(capsys):
    main(["games"])
    listed = {line.split(":")[0].strip() for line in capsys.readouterr().out.splitlines()
              if line.startswith("  --")}
    assert {"--board", "--cubes"} <= listed
    for command in ("replay", "sim", "trace"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = capsys.readouterr().out
        assert all(flag in text for flag in listed), (command, listed)


def test_a_game_option_as_a_flag_is_the_same_as_option(capsys, monkeypatch):
    outs = []
    for flags in (["--cubes", "2"], ["--option", "cubes=2"]):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"La1 Ld4")))
        assert main(["replay", "--game", "treeblox", *flags, "-"]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0] == outs[1] and outs[0]["cubes"] == 2


def test_an_option_of_another_game_is_refused_by_name(capsys):
    assert main(["replay", "--game", "tree-planting", "--cubes", "2", "-"]) == 2
    assert "no option 'cubes'" in capsys.readouterr().err


def test_match_takes_its_options_before_or_after_the_files(tmp_path):
    game = tmp_path / "g.txt"
    game.write_text("La1\n")  # one move: not over, so the match says so, after parsing fine
    for args in (["match", "--cubes", "3", str(game)], ["match", str(game), "--cubes", "3"]):
        out = run(*args)
        assert out.returncode == 2
        assert out.stderr.startswith("treeboard match: game 1") and "not over" in out.stderr


def test_a_board_option_needs_a_layout_with_its_sites(tmp_path, capsys):
    f = tmp_path / "a.txt"
    f.write_text("place h0.0\n")
    assert main(["trace", "--board", "4x4", str(f)]) == 2
    assert "try --layout tree-planting-4x4-matrix" in capsys.readouterr().err
    assert main(["trace", "--board", "4x4", "--layout", "tree-planting-4x4-matrix", str(f)]) == 0
    assert '"board": "4x4"' in capsys.readouterr().out


def test_sim_keeps_one_journal_per_layout_and_options():
    from board_driver.cli.board import sim_journal
    from board_driver.config import sim_config

    paths = {sim_journal(sim_config(layout=name, game_options=options))
             for name, options in [("tree-planting-classic-pins", None), ("treeblox-adc", None),
                                   ("treeblox-adc", {"cubes": "2"}), ("/x/my board.toml", None)]}
    assert len(paths) == 4
    assert all(p.parent == sim_journal(sim_config()).parent and p.name.startswith("sim-") for p in paths)


def test_an_option_with_an_underscore_takes_dashes_too(capsys, monkeypatch):
    outs = []
    for flag in ("--quiet_limit", "--quiet-limit"):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"")))
        assert main(["replay", "--game", "fangqi", flag, "7", "-"]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and '"quiet_limit": 7' in outs[0]


def test_games_lists_each_games_levels_with_their_ratings(capsys, monkeypatch, tmp_path):
    import json

    import games.ai

    path = tmp_path / "ratings.json"
    path.write_text(json.dumps({"fangqi": {"ratings": {"easy": {"rating": 1234,
                                                                 "ci95": [1100, 1368]}}}}))
    monkeypatch.setattr(games.ai, "RATINGS_FILE", path)
    main(["games"])
    lines = capsys.readouterr().out.splitlines()
    levels = [line for line in lines if line.startswith("  computer levels: ")]
    assert len(levels) == len(games.names())
    assert "  computer levels: beginner, easy (1234), medium, hard, strongest" in levels
    assert "  computer levels: beginner, easy, medium, hard, strongest" in levels


def arbos_game(seed: int = 3) -> dict:
    """A whole random Arbos game with the players' own setup (its `seed C7` moves)."""
    import random

    import games

    rng = random.Random(seed)
    state = games.get_game("arbos").new_state(board="8x8", setup="chosen")
    while not state.is_over() and len(state.moves) < 600:
        state.play(rng.choice(sorted(state.legal_moves(), key=str)))
    return state.summary()


@pytest.mark.parametrize("sep", ["\n", " "])
def test_arbos_replay_reads_its_own_summarys_moves(sep):
    """`seed C7` is two words (docs/games/arbos.md "Notation"): replay reads the notation as
    the game writes it, one move a line or all on one line."""
    summary = arbos_game()
    moves = summary["moves"]
    assert any(m.startswith("seed ") for m in moves) and len(moves) > 20
    out = run("replay", "--game", "arbos", "--board", "8x8", "--setup", "chosen", "-",
              stdin=sep.join(moves) + "\n")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == json.loads(json.dumps(summary))


@pytest.mark.parametrize("moves,position,words", [
    ("seed C3 seed I1", "move 2 (seed I1)", "I1"),   # past the 8x8 board: the pair's reason
    ("seed C3 seed Z9", "move 2 (seed)", "a move is 'seed C7'"),
    ("seed C3 seed", "move 2 (seed)", "a move is 'seed C7'"),    # the input ends
    ("seed C3 zz C4", "move 2 (zz)", "a move is 'seed C7'"),
    ("seed C3 seed C4", "move 2 (seed C4)", "too close"),         # a move, not allowed
])
def test_arbos_replay_names_the_bad_move_and_what_was_expected(moves, position, words):
    out = run("replay", "--game", "arbos", "--board", "8x8", "--setup", "chosen", "-",
              stdin=moves)
    assert out.returncode == 2 and out.stdout == ""
    assert position in out.stderr and words in out.stderr, out.stderr
