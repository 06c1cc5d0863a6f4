"""Mistakes that can be undone: the move that ended a game (two end-turn presses by accident in
Treeblox or Arbos, any game's last move) is taken back like any other, which reopens the game,
in the journal too, across a restart as well, until the board is cleared for the next game. A
game lost on time stays lost. Traced boards (simulated time)."""

from __future__ import annotations

import io

import pytest

import games
from board_driver.cli.sim import Terminal
from board_driver.config import sim_config
from board_driver.referee.tracer import Tracer
from tests.board_driver.test_board_words import state_json
from tests.board_driver.test_arbos_board import CHOSEN, SETUP, play


@pytest.fixture
def board(tmp_path):
    made = []

    def make(new_game=True, **overrides):
        overrides.setdefault("journal", str(tmp_path / "j.sqlite"))
        t = Tracer(sim_config(**overrides), new_game=new_game)
        made.append(t)
        return t

    yield make
    for t in made:
        t.close()


def two_passes(t):
    t.step("place", ["a1", "dark-leaf"])
    t.step("place", ["d4", "light-leaf"])
    t.step("press", ["end_turn"])
    return t.step("press", ["end_turn"])


def test_two_end_turn_presses_by_accident_are_taken_back_and_the_game_goes_on(board):
    t = board(layout="treeblox-adc")
    assert two_passes(t)["game"]["over"]
    assert state_json(t)["takeback"] and state_json(t)["takeback_question"] == "Take back end?"
    terminal = Terminal(io.StringIO(), clock=t.clock)
    terminal.start(t.session)
    assert t.door.takeback() == "took back end"
    terminal(t.session)
    said = terminal.out.getvalue()
    assert "takeback of end" in said and "Light to move" in said
    assert not t.referee.over and t.referee.state.to_move == 1
    saved = t.session.journal.current()
    assert saved.status == "playing" and saved.moves == ["La1", "Ld4", "end"]
    assert saved.summary is None
    # the game goes on: Light places a cube, and the journal has it
    t.step("place", ["c3", "light-leaf"])
    assert t.session.journal.current().moves == ["La1", "Ld4", "end", "Lc3"]
    # and may end again, once, with its result in the history
    t.step("press", ["end_turn"])
    t.step("press", ["end_turn"])
    t.step("press", ["end_turn"])
    assert t.referee.over and t.session.journal.current() is None
    assert t.session.journal.history(limit=1)[0].moves[-1] == "end"


def test_the_end_is_taken_back_after_a_restart(board):
    t = board(layout="treeblox-adc")
    two_passes(t)
    t.close()
    t = board(layout="treeblox-adc", new_game=False)   # the board restarted, the game shown
    assert t.referee.over
    assert t.door.takeback() == "took back end"
    assert not t.referee.over
    assert t.session.journal.current().moves == ["La1", "Ld4", "end"]
    t.close()
    t = board(layout="treeblox-adc", new_game=False)   # and restarted again: still playing
    assert not t.referee.over and str(t.referee.state.moves[-1]) == "end"


def test_arbos_two_passes_taken_back(board):
    t = board(layout="arbos-8x8-matrix", turn_seconds=0, game_options=CHOSEN)
    play(t, *SETUP, "C3", "A6", "pass", "pass")
    assert t.referee.over
    assert t.door.takeback() == "took back pass"
    assert not t.referee.over and [str(m) for m in t.referee.state.moves][-1] == "pass"
    assert t.session.journal.current() is not None


def test_the_last_groove_taken_back_reopens_the_game_until_the_board_is_cleared(board):
    t = board(game_options={"board": "1x1"})
    for site in ("h0.0", "v0.0", "h1.0"):
        t.step("place", [site])
    record = t.step("place", ["v0.1"])
    assert record["game"]["over"]
    t.step("place", ["t0.0"])
    assert t.door.takeback() == "took back v0.1"
    record = t.step("wait", ["0"])
    assert not record["game"]["over"]
    assert set(record["corrections"]) == {"v0.1", "t0.0"}    # its rod and tree to lift
    t.step("lift", ["t0.0"])
    t.step("lift", ["v0.1"])
    assert t.step("place", ["v0.1"])["game"]["over"]          # played again: over again
    t.step("place", ["t0.0"])
    for site in ("h0.0", "v0.0", "h1.0", "v0.1", "t0.0"):   # the board cleared: the next game
        record = t.step("lift", [site])
    assert record["game"]["moves"] == []
    with pytest.raises(games.IllegalMove, match="no move to take back"):
        t.door.takeback()
    assert len(t.session.journal.history(limit=5)) == 1


def test_a_game_lost_on_time_stays_lost(board):
    from board_driver.referee.clock import parse_time_control

    t = board(layout="treeblox-adc", time_control=parse_time_control("10"))
    t.step("place", ["a1", "dark-leaf"])
    t.step("wait", ["601000"])
    assert t.referee.flagged is not None
    assert not state_json(t)["takeback"]
    with pytest.raises(games.IllegalMove, match="time ran out"):
        t.door.takeback()
