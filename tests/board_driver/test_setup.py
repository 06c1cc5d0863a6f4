"""A position comes to the board (board_driver/referee/setup.py): set up from an empty board on
each layout kind (direct pins, a scanned matrix, ADC channels, a firmware bridge, a touch grid),
with hands that go wrong on the way (a piece put where none belongs, a piece lifted again after
it was put right), each corrected; the count of what is left said as it goes; then play goes on
from the position."""

from __future__ import annotations

import random

import pytest

from board_driver.config import sim_config
from board_driver.referee.clock import parse_time_control
from board_driver.referee.tracer import Tracer
from board_driver.views import words
from whole_games import hand, play_by_hand

#: (layout kind, layout, game options, moves into a random game for the target)
KINDS = [
    ("pins", "tree-planting-classic-pins", None, 9),
    ("matrix", "fangqi-7x7-matrix", {"quiet_limit": 6}, 10),
    ("adc", "treeblox-adc", {"cubes": 4}, 6),
    ("bridge", "fangqi-7x7-bridge", None, 8),
    ("touch", "game-for-the-trees-matrix", {"limit": 12}, 6),
]


def target_of(tracer: Tracer, count: int, seed: int = 5):
    """A position `count` random legal moves into a game of the board's own kind."""
    rng = random.Random(seed)
    state = tracer.referee.state.copy()
    for _ in range(count):
        state.play(rng.choice(sorted(state.legal_moves(), key=str)))
    return state


@pytest.mark.parametrize("kind,layout,options,count", KINDS, ids=[k[0] for k in KINDS])
def test_a_position_set_up_from_empty_with_hands_that_go_wrong(tmp_path, kind, layout, options,
                                                               count):
    tracer = Tracer(sim_config(layout=layout, journal=str(tmp_path / "j.sqlite"),
                               game_options=options))
    try:
        ref = tracer.referee
        target = target_of(tracer, count)
        moves = [str(m) for m in target.moves]
        tracer.door.set_up(target.copy(), purpose="record")
        first = tracer.narrator(tracer.moment())
        if kind == "touch":
            # Its LEDs are the position: nothing to put, play goes on at once.
            assert tracer.moment().setup is None and not ref.holding
            assert [s.text for s in first] == ["the position is set up: "
                                               f"{('player 1', 'player 2')[target.to_move]} to move"
                                               ] or first[0].kind == "new"
        else:
            face = tracer.moment().setup
            expected = target.occupancy()
            to_put = [s for s in ref.sensed if expected.get(s) is not None]
            assert face.left == face.total == len(to_put) > 0
            assert first and first[0].text.startswith("set-up: ")
            assert ref.holding and ref.can_play(target.to_move) is False
            # Wrong hands 1: a piece where none belongs is lit to take off, said, and its lift
            # puts it right.
            empty = next(s for s in ref.sensed if expected.get(s) is None)
            said = hand(tracer, "place", empty, to_put and expected[to_put[0]])
            face = tracer.moment().setup
            assert any(c.site == empty and c.want is None for c in face.next), face
            assert face.left == len(to_put) + 1
            assert any("take the piece off " in s for s in said), said
            hand(tracer, "lift", empty)
            # Wrong hands 2: the first piece put right, then lifted again: it is owed again.
            site = tracer.moment().setup.next[0].site
            hand(tracer, "place", site, expected[site])
            assert tracer.moment().setup.left == len(to_put) - 1
            hand(tracer, "lift", site)
            face = tracer.moment().setup
            assert face.left == len(to_put) and site in {c.site for c in face.next}
            # Then the guide, a few at a time, nearest first: every step one fewer left.
            left = face.left
            for _ in range(len(to_put) + 2):
                face = tracer.moment().setup
                if face is None:
                    break
                assert 1 <= len(face.next) <= 3 and all(c.want is not None for c in face.next)
                c = face.next[0]
                said = hand(tracer, "place", c.site, c.want)
                left -= 1
                if left:
                    assert tracer.moment().setup.left == left
                    assert said == [s for s in said if s.startswith("set-up: ")] and said
                else:
                    assert said and said[-1].startswith("the position is set up")
            assert tracer.moment().setup is None and not ref.holding
            assert ref.corrections == []
        assert [str(m) for m in ref.state.moves] == moves
        assert tracer.session.journal.current().moves == moves   # (a power cut resumes it)
        # Play goes on from the position, by hand.
        if not ref.state.is_over():
            move = sorted(ref.state.legal_moves(), key=str)[0]
            play_by_hand(tracer, move)
            assert [str(m) for m in ref.state.moves] == moves + [str(move)]
    finally:
        tracer.close()


def test_the_set_up_is_said_in_chinese(tmp_path):
    tracer = Tracer(sim_config(layout="tree-planting-classic-matrix", language="zh",
                               journal=str(tmp_path / "j.sqlite")))
    try:
        target = target_of(tracer, 3)
        tracer.door.set_up(target)
        said = tracer.narrator(tracer.moment())
        assert said and "set-up" not in said[0].text and said[0].text != said[0].spoken
        for c in list(tracer.moment().setup.next) * 3:
            if tracer.moment().setup is None:
                break
            said = hand(tracer, "place", c.site)
        while tracer.moment().setup is not None:
            said = hand(tracer, "place", tracer.moment().setup.next[0].site)
        assert said and "position is set up" not in said[-1]
    finally:
        tracer.close()
        words.use("en")


def test_a_position_of_another_game_is_refused_and_nothing_changes(tmp_path):
    import games

    tracer = Tracer(sim_config(layout="tree-planting-classic-matrix",
                               journal=str(tmp_path / "j.sqlite")))
    try:
        other = games.get_game("fangqi").new_state()
        with pytest.raises(games.BadOptions, match="this board plays tree-planting"):
            tracer.door.set_up(other)
        assert tracer.moment().setup is None and tracer.referee.state.moves == []
    finally:
        tracer.close()


def test_the_clocks_wait_for_the_set_up_and_a_takeback_after_it_works(tmp_path):
    from whole_games import put_right, set_up_by_hand

    tracer = Tracer(sim_config(layout="tree-planting-classic-matrix", time_control=parse_time_control("5+3"),
                               journal=str(tmp_path / "j.sqlite")))
    try:
        target = target_of(tracer, 4)
        tracer.door.set_up(target)
        left = tracer.moment().clocks
        tracer.step("wait", ["5000"])   # five seconds with the pieces not yet put
        assert tracer.moment().clocks == left and tracer.moment().clock_running is None
        set_up_by_hand(tracer)
        assert tracer.moment().clock_running == target.to_move
        tracer.step("wait", ["2000"])
        assert tracer.moment().clocks[target.to_move] < left[target.to_move] - 1.5
        # A takeback after the set-up takes back the position's last move, as in any game.
        tracer.door.takeback()
        put_right(tracer)
        assert [str(m) for m in tracer.referee.state.moves] == [str(m) for m in target.moves][:-1]
    finally:
        tracer.close()
