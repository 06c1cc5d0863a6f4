"""Puzzles (games/ai/puzzles.py, board_driver/referee/puzzle.py; docs/study.md): the set shipped
for each game, set up on a simulated board by hand, failed (a wrong move, said wrong and why),
taken back, and solved (said right); the sets' format refused when bad, naming the puzzle and
the key; `treeboard puzzles` the same for the same seed."""

from __future__ import annotations

import json

import pytest

import games
from board_driver.cli import main
from board_driver.config import sim_config
from board_driver.referee.tracer import Tracer
from board_driver.views import words
from games.ai.puzzles import PuzzleError, read_set, shipped_set, state_of
from whole_games import play_by_hand, put_right, set_up_by_hand

#: Each game's board for its shipped set (the set's options fit it).
BOARDS = {
    "tree-planting": "tree-planting-classic-matrix",
    "treeblox": "treeblox-adc",
    "fangqi": "fangqi-7x7-matrix",
    "arbos": "arbos-8x8-matrix",
    "game-for-the-trees": "game-for-the-trees-matrix",
}


def board_for(tmp_path, game: str, **more) -> Tracer:
    options = shipped_set(game)["puzzles"][0]["options"]
    return Tracer(sim_config(layout=BOARDS[game], journal=str(tmp_path / "j.sqlite"),
                             game_options=options, **more))


@pytest.mark.parametrize("game", games.names())
def test_a_puzzle_of_each_game_failed_then_solved_on_the_board(tmp_path, game):
    tracer = board_for(tmp_path, game)
    try:
        ref = tracer.referee
        said = tracer.step("puzzle", ["1"])["said"]
        said += set_up_by_hand(tracer)
        face = tracer.moment().puzzle
        puzzle = shipped_set(game)["puzzles"][0]
        assert [str(m) for m in ref.state.moves] == puzzle["moves"]
        assert face.number == 1 and face.verdict is None
        assert any(s.startswith("puzzle 1 of ") for s in said), said
        # A wrong move: said wrong, with the answer and why.
        state = ref.state
        wrong = next(m for m in sorted(state.legal_moves(), key=str)
                     if str(m) not in puzzle["answers"])
        play_by_hand(tracer, wrong)
        face = tracer.moment().puzzle
        assert (face.verdict, face.played) == ("wrong", str(wrong))
        # Taken back (the page's takeback): the puzzle waits for another try.
        tracer.door.takeback()
        put_right(tracer)   # (the wrong move's pieces lifted)
        assert tracer.moment().puzzle.verdict is None
        answer = state.parse_move(puzzle["answers"][0])
        play_by_hand(tracer, answer)
        face = tracer.moment().puzzle
        assert (face.verdict, face.played) == ("right", puzzle["answers"][0])
    finally:
        tracer.close()


def said_after(tracer: Tracer, verb: str, args: list[str]) -> list[str]:
    return tracer.step(verb, args)["said"]


def test_the_verdicts_are_said_with_why_in_both_languages(tmp_path):
    for language, right, wrong in (("en", "right: ", "wrong: "), ("zh", "对了：", "错了：")):
        tracer = board_for(tmp_path / language, "tree-planting", language=language)
        try:
            tracer.step("puzzle", ["2"])
            said = set_up_by_hand(tracer)
            puzzle = shipped_set("tree-planting")["puzzles"][1]
            assert any(s.startswith(("puzzle 2 of", "第 2 题")) for s in said), said
            miss = next(m for m, r in puzzle["results"].items() if r != puzzle["goal"])
            said = said_after(tracer, "place", [miss])
            assert said[-1].startswith(wrong) and len(said[-1]) > len(wrong) + 20, said
            said = said_after(tracer, "lift", [miss])   # (a takeback by lifting)
            said = said_after(tracer, "place", [puzzle["answers"][0]])
            assert said[-1].startswith(right), said
        finally:
            tracer.close()
            words.use("en")


def test_the_next_puzzle_follows_and_a_new_game_ends_the_mode(tmp_path):
    tracer = board_for(tmp_path, "tree-planting")
    try:
        tracer.step("puzzle", [])
        assert tracer.moment().puzzle.number == 1
        tracer.step("puzzle", [])
        assert tracer.moment().puzzle.number == 2
        tracer.door.new_game()
        assert tracer.moment().puzzle is None and tracer.referee.mode is None
        with pytest.raises(ValueError, match="the set has 1 to"):
            tracer.door.puzzle(99)
    finally:
        tracer.close()


def test_every_shipped_set_replays():
    for game in games.names():
        found = shipped_set(game)
        assert found["game"] == game and len(found["puzzles"]) >= 2
        for puzzle in found["puzzles"]:
            assert not state_of(game, puzzle).is_over()


def test_a_bad_set_is_refused_naming_the_puzzle_and_the_key():
    good = shipped_set("tree-planting")
    text = json.dumps(good)
    assert read_set(text)["puzzles"] == good["puzzles"]
    cases = [
        ("{", "set.json: line 1: not JSON"),
        (json.dumps({"format": "x"}), 'not a puzzle set (expected "format": "treeboard-puzzles")'),
        (json.dumps({**good, "game": "chess"}), "game 'chess': expected one of"),
        (json.dumps({**good, "puzzles": []}), "puzzles: expected a list of at least one"),
        (json.dumps({**good, "puzzles": [{**good["puzzles"][0], "moves": ["h0.0", "h0.0"]}]}),
         "puzzle 1: moves: move 2 'h0.0'"),
        (json.dumps({**good, "puzzles": [{**good["puzzles"][0], "answers": ["zz9"]}]}),
         "puzzle 1: answers: 'zz9' is not a legal move there"),
        (json.dumps({**good, "puzzles": [{**good["puzzles"][0], "goal": "lose"}]}),
         "puzzle 1: goal 'lose': expected win or draw"),
    ]
    for text, message in cases:
        with pytest.raises(PuzzleError, match=None) as refused:
            read_set(text, "set.json")
        assert message in str(refused.value) and str(refused.value).startswith("set.json: ")


def test_the_command_writes_the_same_set_for_the_same_seed(tmp_path, capsys):
    out = tmp_path / "set.json"
    assert main(["puzzles", "--game", "tree-planting", "--count", "2", "--out", str(out)]) == 0
    first = read_set(out.read_text(), str(out))
    assert main(["puzzles", "--game", "tree-planting", "--count", "2"]) == 0
    printed = capsys.readouterr().out
    assert json.loads(printed.split("\n", 1)[1]) == first   # (after the "written to" line)
    assert len(first["puzzles"]) == 2 and first["exact"] is True
    for puzzle in first["puzzles"]:
        # Exactly one groove wins (the exact solver's values).
        assert len(puzzle["answers"]) == 1
        assert sum(r == puzzle["goal"] for r in puzzle["results"].values()) == 1


def test_the_menu_s_puzzle_site_sets_up_the_first_puzzle(tmp_path):
    from tests.board_driver.test_menu import open_menu, put, site_of

    tracer = Tracer(sim_config(layout="fangqi-7x7-matrix", journal=str(tmp_path / "j.sqlite"),
                               players=("human", "computer:easy")))
    try:
        open_menu(tracer, None)
        said = put(tracer, site_of(tracer, "puzzle"), None)["said"]
        face = tracer.moment().puzzle
        assert face is not None and face.number == 1 and tracer.moment().setup is not None
        assert tracer.referee.seats == ("human", "human") and tracer.referee.menu.open is False
        assert any(s.startswith("set-up: ") for s in said), said
        said = set_up_by_hand(tracer)   # (the menu's pieces lifted with the rest)
        assert said[-1].startswith("puzzle 1 of "), said
        assert [str(m) for m in tracer.referee.state.moves] == \
            shipped_set("fangqi")["puzzles"][0]["moves"]
    finally:
        tracer.close()
