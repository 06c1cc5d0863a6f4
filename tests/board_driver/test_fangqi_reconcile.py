"""Reconcile on hand-built Fangqi positions: what a physical difference means when it is a
move, the start of one (a move in progress), a takeback or a mistake. Pure: no hardware."""

from __future__ import annotations

from board_driver.referee.reconcile import reconcile
from hardware.base import PRESENT
from tests.games.fangqi_positions import SLIDE, position


def board(state, lifted=(), put=()):
    """What presence sensors read: the game's counters, less `lifted`, plus `put`."""
    physical = {s: PRESENT for s in state.occupancy() if s not in lifted}
    physical.update({s: PRESENT for s in put})
    return physical


def sites(verdict, which="completions"):
    return [c.site for c in getattr(verdict, which)]


def test_a_lifted_counter_is_a_move_in_progress_showing_its_targets():
    state = position(SLIDE)  # Black's b2 may go to b1 or c2
    verdict = reconcile(state, board(state, lifted=["b2"]), state.sites())
    assert verdict.action == "in-progress" and sites(verdict) == ["b1", "c2"]
    assert all(c.want == "black" and c.have is None for c in verdict.completions)
    assert state.moves == []


def test_a_lifted_counter_with_one_target_is_not_yet_a_move():
    state = position(SLIDE)  # a1 may only go to b1
    verdict = reconcile(state, board(state, lifted=["a1"]), state.sites())
    assert verdict.action == "in-progress" and sites(verdict) == ["b1"]
    verdict = reconcile(state, board(state, lifted=["a1"], put=["b1"]), state.sites())
    assert verdict.action == "play" and str(verdict.move) == "a1-b1"


def test_targets_come_first_then_the_captures_to_choose():
    state = position(SLIDE)  # c1-b1 forms a square; d1 d2 d3 may be taken
    verdict = reconcile(state, board(state, lifted=["c1"]), state.sites())
    assert sites(verdict) == ["b1", "c2"]  # where it may go, not yet what it may take
    verdict = reconcile(state, board(state, lifted=["c1"], put=["b1"]), state.sites())
    assert verdict.action == "in-progress" and sites(verdict) == ["d1", "d2", "d3"]
    assert all(c.want is None and c.have == PRESENT for c in verdict.completions)
    verdict = reconcile(state, board(state, lifted=["c1", "d2"], put=["b1"]), state.sites())
    assert verdict.action == "play" and str(verdict.move) == "c1-b1xd2"


def test_a_capture_lifted_first_is_the_same_move_in_progress():
    state = position(SLIDE)
    verdict = reconcile(state, board(state, lifted=["d2"]), state.sites())
    assert verdict.action == "in-progress" and sites(verdict) == ["b1"]


def test_one_takeable_counter_the_move_is_made_when_the_counter_lands():
    state = position([
        "WWW.",
        "WWWW",
        "BB.W",
        "B.BW",
    ])
    state._masks[1] &= ~(1 << state.grid.index["d3"]) & ~(1 << state.grid.index["d2"])
    verdict = reconcile(state, board(state, lifted=["c1"], put=["b1"]), state.sites())
    assert verdict.action == "play" and str(verdict.move) == "c1-b1xd1"
    state.play(verdict.move)
    verdict = reconcile(state, board(state, put=["d1"]), state.sites())
    assert verdict.action == "correct" and sites(verdict, "corrections") == ["d1"]


def test_mistakes_are_corrections():
    state = position([
        "W..W",
        "....",
        "BB.W",
        "B..W",
    ])
    for lifted, put in [(["a2", "b2"], []),  # two counters lifted
                        (["d1"], [])]:  # White's counter, when no move of Black's takes it
        verdict = reconcile(state, board(state, lifted=lifted, put=put), state.sites())
        assert verdict.action == "correct", (lifted, put, verdict)
        assert sites(verdict, "corrections") == sorted(lifted + put)
        assert verdict.completions == []


def test_a_wrong_landing_is_the_only_correction_the_lifted_counter_still_shows_its_targets():
    state = position([
        "W..W",
        "....",
        "BB.W",
        "B..W",
    ])
    for lifted, put, targets in [("b2", "a3", ["b1", "b3", "b4", "c2"]),  # diagonally
                                 ("a1", "a3", ["b1", "c1"]),  # through a2
                                 ("a1", "c3", ["b1", "c1"])]:  # off any line
        verdict = reconcile(state, board(state, lifted=[lifted], put=[put]), state.sites())
        assert verdict.action == "correct" and sites(verdict, "corrections") == [put]
        assert verdict.corrections[0].want is None  # take it off
        assert sites(verdict) == targets


def test_a_wrong_counter_lifted_while_captures_are_chosen_is_the_only_correction():
    state = position(SLIDE)  # c1-b1 made; d1 d2 d3 may be taken, a3 stands in a square
    verdict = reconcile(state, board(state, lifted=["c1", "a3"], put=["b1"]), state.sites())
    assert verdict.action == "correct" and sites(verdict, "corrections") == ["a3"]
    assert verdict.corrections[0].want == "white"  # put it back
    assert sites(verdict) == ["d1", "d2", "d3"]  # and the choice is still lit


def test_a_takeback_wins_over_a_move_in_progress():
    state = position(SLIDE)
    state.play("b2-c2")  # White to move now
    verdict = reconcile(state, board(state, lifted=["c2"], put=["b2"]), state.sites())
    assert verdict.action == "undo"


def test_putting_the_taken_counter_back_first_is_a_takeback_under_way_not_a_move():
    # Black's c1-b1 took d2. To take it back, people put the taken counter back first: that
    # reads also as White's d3-d2 or d1-d2 with the source still to lift; the takeback wins.
    state = position(SLIDE)
    state.play("c1-b1xd2")
    verdict = reconcile(state, board(state, put=["d2"]), state.sites())
    assert verdict.action == "in-progress" and verdict.move is None
    assert {(c.site, c.want) for c in verdict.completions} == {("b1", None), ("c1", "black")}
    verdict = reconcile(state, board(state, lifted=["b1"], put=["d2", "c1"]), state.sites())
    assert verdict.action == "undo" and str(verdict.move) == "c1-b1xd2"
    # with takebacks off it is a mistake to correct, still not White's move
    verdict = reconcile(state, board(state, put=["d2"]), state.sites(), takeback=False)
    assert verdict.action != "play"


def test_the_taken_counter_put_back_is_never_the_opponents_only_slide_there():
    # The case: one White counter could slide onto the point (d2-d1), so the change
    # read as that move and it was played for White; it is the takeback under way.
    state = position(SLIDE)
    state.play("c1-b1xd1")
    verdict = reconcile(state, board(state, put=["d1"]), state.sites())
    assert verdict.action == "in-progress"
    assert {(c.site, c.want) for c in verdict.completions} == {("b1", None), ("c1", "black")}
