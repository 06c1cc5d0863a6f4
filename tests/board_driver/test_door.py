"""The board's one door (board_driver/referee/door.py): every way in (the page, the sim, trace,
remote play) acts through it, and it refuses what cannot be done with a reason, changing
nothing. Here on a traced board, which has no daemon behind it (no worker, no link)."""

from __future__ import annotations

import pytest

import games
from board_driver.config import sim_config
from board_driver.referee.tracer import Tracer


@pytest.fixture
def board(tmp_path):
    made = []

    def make(**overrides):
        t = Tracer(sim_config(journal=str(tmp_path / f"j{len(made)}.sqlite"), **overrides))
        made.append(t)
        return t

    yield make
    for t in made:
        t.close()


def test_every_change_through_the_door_is_shown(board):
    t = board()
    shown = []
    t.door.after_change = lambda: shown.append(len(t.door.state.moves))
    t.step("place", ["h0.0"])
    assert t.door.takeback() == "took back h0.0" and shown == [0]
    t.door.set_hint_mode("legal")
    t.door.new_game()
    assert t.referee.settings.moves == "legal" and len(shown) == 3


def test_refusals_change_nothing_and_say_why(board):
    t = board()
    t.step("place", ["h0.0"])
    before = t.door.state.to_json()
    with pytest.raises(ValueError, match="the only button is end_turn"):
        t.door.press("reset")
    with pytest.raises(games.IllegalMove, match="the turn cannot end now"):
        t.door.press("end_turn")
    with pytest.raises(games.IllegalMove, match="has a sensor: put the piece on the board"):
        t.door.enter("h0.1", "rod")
    with pytest.raises(ValueError, match="hint mode must be one of"):
        t.door.set_hint_mode("everything")
    with pytest.raises(ValueError, match="seat must be 0"):
        t.door.set_seat(2, "human")
    with pytest.raises(ValueError, match="player must be human, web or one of"):
        t.door.set_seat(1, "computer:medum")
    with pytest.raises(games.IllegalMove, match="only on a running board"):
        t.door.set_seat(1, "computer:easy")
    with pytest.raises(games.IllegalMove, match="no remote game"):
        t.door.answer_takeback(True)
    assert t.door.state.to_json() == before and t.door.seats == ("human", "human")


def test_the_referee_owns_the_seats(board):
    t = board()
    t.door.set_seat(1, "human")
    assert t.door.seats is t.referee.seats == ("human", "human")
    assert t.session.config.players == ("human", "human")   # where the board started, untouched


def test_drawing_never_plays_a_move(tmp_path):
    """Time that runs out is the referee's `tick`, never its `show`: redrawing a board whose
    turn has expired changes no game."""
    cfg = sim_config(layout="arbos-8x8-matrix", journal=str(tmp_path / "j.sqlite"), turn_seconds=5,
                     game_options={"board": "8x8", "setup": "chosen"})
    t = Tracer(cfg)
    try:
        for site in ("A1", "D4", "A7", "H8"):   # the setup's seeds: then a turn can pass
            t.step("place", [site])
        ref = t.referee
        deadline = ref.flag_deadline()
        assert deadline is not None
        moves = len(ref.state.moves)
        ref.show(deadline + 1)
        assert len(ref.state.moves) == moves
        assert ref.tick(deadline + 1) and str(ref.state.moves[-1]) == "pass"
    finally:
        t.close()
