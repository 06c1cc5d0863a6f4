"""A record studied on the board (board_driver/referee/study.py; docs/study.md): a journal game
and an imported SGF record with its comments opened on the board, stepped forward and back (each
move lit and said), branched off by a move of one's own, and played on against the computer's
seat (refused on a board with no computer); refusals say why."""

from __future__ import annotations

import pytest

import games
from board_driver.config import sim_config
from board_driver.referee.tracer import Tracer
from whole_games import hand, put_right, set_up_by_hand

MOVES = ["h0.0", "h0.1", "v0.0", "h1.0", "v0.2"]


@pytest.fixture
def tracer(tmp_path):
    t = Tracer(sim_config(layout="tree-planting-classic-matrix",
                          journal=str(tmp_path / "j.sqlite")))
    yield t
    t.close()


def played(tracer) -> list[str]:
    return [str(m) for m in tracer.referee.state.moves]


def test_a_journal_game_studied_forward_and_back(tracer):
    for move in MOVES:
        tracer.step("place", [move])
    game_id = tracer.session.journal.current().game_id
    said = tracer.step("study", [str(game_id)])["said"]
    assert said and said[0].startswith("set-up: ") and played(tracer) == []
    said = set_up_by_hand(tracer)   # (the game's pieces lifted: the record's start)
    assert said[-2:] == ["the position is set up: player 1 to move",
                         "study: the start, 5 moves to step through; next: the top groove of "
                         "row zero, square zero"]
    # Forward: the move is played and lit to put (not a mistake), and said.
    said = tracer.step("forward", [])["said"]
    assert played(tracer) == MOVES[:1] and said == [
        "study: move 1 of 5: the top groove of row zero, square zero; next: the top groove of "
        "row zero, square one"]
    moment = tracer.moment()
    assert moment.to_make == frozenset({"h0.0"}) and moment.study.at == 1
    put_right(tracer)
    said = tracer.step("forward", ["3"])["said"]
    assert played(tracer) == MOVES[:4] and said[0].startswith("study: move 4 of 5: ")
    put_right(tracer)
    said = tracer.step("back", ["2"])["said"]
    assert played(tracer) == MOVES[:2] and said[0].startswith("study: move 2 of 5: ")
    assert {c.site for c in tracer.moment().corrections} == {"v0.0", "h1.0"}   # to lift
    put_right(tracer)
    # The record's next move made by hand steps forward too.
    hand(tracer, "place", MOVES[2])
    assert played(tracer) == MOVES[:3] and tracer.moment().study.off is False
    with pytest.raises(games.IllegalMove) as refused:
        tracer.door.step(3)
    assert "no move after move 5" in str(refused.value.reason)
    # A move off the record: a branch begun; forward refused, said as a move.
    said = hand(tracer, "place", "v1.4")
    assert tracer.moment().study.off is True and said[0].startswith("player 2: ")
    with pytest.raises(games.IllegalMove) as refused:
        tracer.door.step(1)
    assert "off the record" in str(refused.value.reason)
    tracer.door.branch("human")
    assert tracer.referee.mode is None and tracer.moment().study is None
    hand(tracer, "place", "h2.0")   # play goes on from the branch
    assert played(tracer) == MOVES[:3] + ["v1.4", "h2.0"]


def test_an_sgf_record_studied_with_its_comments(tracer):
    from board_driver.records import sgf
    from board_driver.records.record import Move, Record

    record = Record("tree-planting", {"board": "classic"}, moves=tuple(
        Move(i % 2, m, comment="the first rod" if i == 0 else None) for i, m in enumerate(MOVES)))
    (found,) = sgf.read(sgf.dumps([record]))
    comments = {n: m.comment for n, m in enumerate(found.moves, 1) if m.comment}
    tracer.door.study_moves(found.game, found.options, [m.text for m in found.moves], at=0,
                            comments=comments)
    set_up_by_hand(tracer)
    said = tracer.step("forward", [])["said"]
    assert said == ["study: move 1 of 5: the top groove of row zero, square zero: the first rod; "
                    "next: the top groove of row zero, square one"]
    # A layout's study buttons ([buttons] forward, back) step it too.
    tracer.door.button("forward")
    assert played(tracer) == MOVES[:2]
    put_right(tracer)
    tracer.door.button("back")
    tracer.door.button("back")
    tracer.door.button("back")   # (past the start: ignored, as a button that cannot count)
    assert played(tracer) == [] and tracer.moment().study.at == 0


def test_a_study_refuses_what_is_not_there(tracer):
    with pytest.raises(games.IllegalMove) as refused:
        tracer.door.step(1)
    assert "no record is being studied" in str(refused.value.reason)
    with pytest.raises(ValueError, match="game 99: the journal holds no such game"):
        tracer.door.study(99)
    with pytest.raises(ValueError, match="a record of fangqi: this board plays tree-planting"):
        tracer.door.study_moves("fangqi", {}, [])
    with pytest.raises(games.IllegalMove) as refused:
        tracer.door.study_moves("tree-planting", {}, ["h0.0", "h0.0"])
    assert "move 2 of the record does not replay" in str(refused.value.reason)
    assert tracer.referee.mode is None and played(tracer) == []


def test_the_branch_plays_on_against_the_computer_seat(tracer):
    for move in MOVES[:2]:
        tracer.step("place", [move])
    game_id = tracer.session.journal.current().game_id
    tracer.door.study(game_id, at=2)
    set_up_by_hand(tracer)   # (already standing: nothing to do)
    with pytest.raises(games.IllegalMove) as refused:
        tracer.door.branch("computer:easy")   # (a trace has no computer's worker)
    assert "the computer plays only on a running board" in str(refused.value.reason)
    assert tracer.moment().study is not None   # refused: the study goes on
    with pytest.raises(ValueError, match="player must be human, web or one of"):
        tracer.door.branch("nobody")
    tracer.door.branch()
    assert tracer.referee.mode is None and tracer.referee.seats == ("human", "human")
