"""Treeblox on the simulated 4x4 hole board: analog hall sensors through gpiozero's MCP3008 on
mock SPI, the end-turn button on a mock pin, and cubes above the board entered by hand."""

from __future__ import annotations

import random

import pytest

import games
from board_driver.config import sim_config
from board_driver.referee.tracer import TraceError, Tracer, run_trace
from games.treeblox import cell_name


@pytest.fixture
def tracer(tmp_path):
    t = Tracer(sim_config(layout="treeblox-adc", journal=str(tmp_path / "j.sqlite")))
    yield t
    t.close()


def kind_of(state, move):
    return f"{('dark', 'light')[state.to_move]}-{move.kind}"


def act(t, reference, move):
    """Do on the board what `move` means, the way a player would."""
    if str(move) == "end":
        return t.step("press", ["end_turn"])
    kind = kind_of(reference, move)
    return t.step("place", [cell_name(move.cell), kind])


@pytest.mark.parametrize("seed", [1, 2])
def test_a_whole_treeblox_game_on_the_board(tracer, seed):
    rng = random.Random(seed)
    reference = games.get_game("treeblox").new_state()
    record = None
    while not reference.is_over():
        moves = sorted(reference.legal_moves(), key=str)
        # Prefer placements so that games reach the final growth, but pass sometimes.
        placing = [m for m in moves if str(m) != "end"]
        move = rng.choice(placing) if placing and rng.random() < 0.9 else rng.choice(moves)
        record = act(tracer, reference, move)
        reference.play(move)
        assert record["corrections"] == [], (str(move), record)
        assert record["game"]["moves"] == [str(m) for m in reference.moves]
    assert record["game"] == reference.summary()


def test_a_cube_of_the_wrong_colour_is_a_correction(tracer):
    record = tracer.step("place", ["b2", "light-leaf"])  # Dark moves first
    assert record["corrections"] == ["b2"] and record["game"]["moves"] == []
    record = tracer.step("lift", ["b2"])
    assert record["corrections"] == []
    record = tracer.step("place", ["b2", "dark-branch"])  # the first cube must be a leaf
    assert record["corrections"] == ["b2"]
    tracer.step("lift", ["b2"])
    record = tracer.step("place", ["b2", "dark-leaf"])
    assert record["game"]["moves"] == ["Lb2"] and record["game"]["to_move"] == 1


def test_end_turn_button_passes_and_lifting_is_a_takeback(tracer):
    tracer.step("place", ["a1", "dark-leaf"])
    tracer.step("place", ["d4", "light-leaf"])
    record = tracer.step("press", ["end_turn"])  # Dark passes
    assert record["game"]["moves"] == ["La1", "Ld4", "end"] and record["game"]["to_move"] == 1
    record = tracer.step("place", ["c3", "light-leaf"])
    assert record["game"]["moves"][-1] == "Lc3"
    record = tracer.step("lift", ["c3"])  # took it back
    assert record["game"]["moves"] == ["La1", "Ld4", "end"]


def test_cubes_above_the_board_are_entered_and_checked(tracer):
    for action in [("a1", "dark-leaf"), ("d4", "light-leaf"), ("b1", "dark-branch")]:
        tracer.step("place", list(action))
    tracer.step("place", ["c4", "light-leaf"])
    record = tracer.step("place", ["b1+1", "dark-leaf"])  # on top of Dark's branch
    assert record["game"]["moves"][-1] == "Lb1+1"
    with pytest.raises(TraceError, match="your first leaf goes into one of the 16 board holes"):
        list(run_trace(["place b1+1 dark-leaf"], tracer.session.config))



def test_a_tree_left_without_active_leaves_ends_the_game_on_the_board_at_once(tmp_path):
    """Light, in the final growth, covers its only active leaf with a cube above the board
    (an entry): the game is over there and then, and the LEDs go to the game-over show."""
    config = sim_config(layout="treeblox-adc", journal=str(tmp_path / "j.sqlite"),
                        game_options={"cubes": 5})
    tracer = Tracer(config)
    try:
        reference = games.get_game("treeblox").new_state(cubes=5)
        for text in ("Ld4 Lb4 La1 La4 Ld3 Bc4 Bc1 Lb3 Bc4+1 Bd1 B(3,-1,0) Bb2 Lb1 B(2,-1,0) "
                     "Bb4+1 Bd2").split():
            move = reference.parse_move(text)
            act(tracer, reference, move)
            reference.play(move)
        assert reference.in_final_growth and reference.placements_left == 4
        record = act(tracer, reference, reference.parse_move("Ba4+1"))
        game = record["game"]
        assert game["over"] and game["winner"] == 0 and game["scores"] == [5, 0]
        assert tracer.referee.state.end_reason == "no-active-leaves"
        # The journal has the result with the last move (the next start shows it, not a game).
        saved = tracer.session.journal.history(limit=1)[0]
        assert saved.status == "finished" and saved.summary["winner"] == 0
        assert saved.moves[-1] == "Ba4+1"
        # Game over on the LEDs: the turn LEDs show the winner, Dark's pieces breathe.
        dark = list(tracer.session.hardware.leds.correct([config.colours["player0"]])[0])
        assert record["leds"]["turn"] == dark
        breath = {tuple(tracer.step("wait", ["250"])["leds"]["a1"]) for _ in range(4)}
        assert len(breath) > 1
        # Light cannot go on growing: no entry plays, and the end-turn button does nothing.
        with pytest.raises(games.IllegalMove, match="no legal move"):
            tracer.step("place", ["a4+2", "light-leaf"])
        assert tracer.step("press", ["end_turn"])["game"] == game
    finally:
        tracer.close()
