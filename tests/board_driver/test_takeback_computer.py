"""Takebacks against the computer: the player's move and the computer's reply go together, by
lifting one's own last piece or by the takeback command, and the board says so; a takeback by
hand that reads also as a new move is a takeback (Fangqi); the player told to make the
computer's move first. On a traced board whose second seat is the computer (its replies are
played as the computer's worker would, through `Referee.play_for_seat`)."""

from __future__ import annotations

import io

import pytest

from board_driver.cli.sim import Terminal
from board_driver.config import sim_config
from board_driver.referee.tracer import Tracer


@pytest.fixture
def board(tmp_path):
    made = []

    def make(**overrides):
        t = Tracer(sim_config(journal=str(tmp_path / f"j{len(made)}.sqlite"), **overrides),
                   new_game=True)
        t.referee.set_seats(("human", "computer:easy"))
        made.append(t)
        return t

    yield make
    for t in made:
        t.close()


def reply(t, move):
    """The computer answers in the game (its worker's move); the board then owes it."""
    t.referee.play_for_seat(move, t.clock(), "computer")
    return t.step("wait", ["0"])


def test_lifting_ones_own_last_rod_takes_back_the_computers_reply_too(board):
    t = board()
    t.step("place", ["h0.0"])
    reply(t, "v1.2")
    t.step("place", ["v1.2"])                # the computer's move made on the board
    record = t.step("lift", ["h0.0"])        # the player lifts their own last rod
    assert record["game"]["moves"] == []
    assert record["corrections"] == ["v1.2"]  # the reply's rod is to come off, not a move
    record = t.step("lift", ["v1.2"])
    assert record["game"]["moves"] == [] and record["corrections"] == []
    assert not t.referee.holding


def test_lifting_ones_rod_before_the_reply_was_made_takes_back_both(board):
    t = board()
    t.step("place", ["h0.0"])
    reply(t, "v1.2")                          # not made on the board yet
    record = t.step("lift", ["h0.0"])
    assert record["game"]["moves"] == [] and record["corrections"] == []


def test_the_takeback_command_takes_back_the_move_and_the_reply_and_says_so(board):
    t = board()
    t.step("place", ["h0.0"])
    reply(t, "v1.2")
    t.step("place", ["v1.2"])
    from board_driver.web.snapshot import takeback_question

    assert takeback_question(t.moment()) == ("Take back h0.0 and the computer's reply v1.2? "
                                            "Then lift the pieces on h0.0 and v1.2.")
    assert t.door.takeback() == "took back h0.0 and the computer's reply v1.2"
    assert t.referee.state.moves == [] and t.referee.state.to_move == 0
    # while the computer still thinks, only the player's move is there to take back
    t.step("lift", ["h0.0"])
    t.step("lift", ["v1.2"])
    t.step("place", ["h1.0"])
    assert t.door.takeback() == "took back h1.0"


def test_the_sim_says_both_were_taken_back(board):
    t = board()
    terminal = Terminal(io.StringIO(), clock=t.clock)
    terminal.start(t.session)
    t.step("place", ["h0.0"])
    terminal(t.session)
    reply(t, "v1.2")
    terminal(t.session)
    t.step("place", ["v1.2"])
    terminal(t.session)
    t.step("lift", ["h0.0"])
    terminal(t.session)
    said = terminal.out.getvalue().splitlines()
    assert "takeback of h0.0 and the computer's reply v1.2: lift the piece on v1.2" in said
    assert not any(line.startswith("not a move") for line in said)


def test_a_rod_put_before_the_computers_is_told_to_wait_for_it(board):
    t = board()
    terminal = Terminal(io.StringIO(), clock=t.clock)
    terminal.start(t.session)
    t.step("place", ["h0.0"])
    reply(t, "v1.2")
    terminal(t.session)
    t.step("place", ["h1.0"])                 # the player's next rod, the computer's not down
    terminal(t.session)
    assert "not a move yet: h1.0: first put the computer's rod on v1.2; then it counts" in \
        terminal.out.getvalue().splitlines()


def test_takebacks_by_lifting_off_still_hold_and_the_sim_says_why(board):
    t = board(takeback=False)
    terminal = Terminal(io.StringIO(), clock=t.clock)
    terminal.start(t.session)
    t.step("place", ["h0.0"])
    reply(t, "v1.2")
    t.step("place", ["v1.2"])
    terminal(t.session)
    record = t.step("lift", ["v1.2"])
    terminal(t.session)
    assert len(record["game"]["moves"]) == 2 and record["corrections"] == ["v1.2"]
    assert ("takebacks by lifting are off (display.takeback = false): put it back, or type "
            "takeback") in terminal.out.getvalue().splitlines()


def test_a_touch_board_never_waits_for_pieces_after_a_takeback_or_a_new_game(tmp_path):
    # (holding would keep the computer from ever moving again: it waits for the board to agree)
    t = Tracer(sim_config(layout="game-for-the-trees-matrix", journal=str(tmp_path / "j.sqlite")),
               new_game=True)
    try:
        t.referee.set_seats(("human", "computer:easy"))
        t.step("tap", ["a3"])
        t.step("tap", ["a4"])
        reply(t, "h6-h5")
        assert t.door.takeback() == "took back a3-a4 and the computer's reply h6-h5"
        assert not t.referee.holding and t.referee.state.moves == []
        t.door.new_game()
        assert not t.referee.holding
    finally:
        t.close()


def test_the_computer_moving_first_is_never_taken_back_by_its_own_absent_piece(board):
    """The computer's first move, not yet made on the board, is an invitation to make it: the
    empty groove is not a lifted piece (a takeback would undo it, and it would play again, for
    ever). Nor is it the takeback command's to undo."""
    import games

    t = board()
    t.referee.set_seats(("computer:easy", "human"))
    record = reply(t, "v1.2")
    assert record["game"]["moves"] == ["v1.2"] and record["corrections"] == ["v1.2"]
    with pytest.raises(games.IllegalMove, match="the computer's move stands"):
        t.door.takeback()
    record = t.step("place", ["v1.2"])           # made on the board: now the player's turn
    assert record["game"]["moves"] == ["v1.2"] and record["corrections"] == []
    record = t.step("place", ["h0.0"])
    assert record["game"]["moves"] == ["v1.2", "h0.0"]


def test_the_takeback_depth_is_worked_out_once_a_change_not_each_frame(board):
    """Every frame's Moment carries how many moves a takeback takes back; against the computer
    that walks a copy of the game, so it is worked out when the game or the seats change, and
    every frame between reads it (each frame walked the copy again)."""
    t = board()
    ref = t.referee
    walks = []
    depth = ref.hands.takeback_depth
    ref.hands.takeback_depth = lambda: walks.append(len(ref.state.moves)) or depth()
    t.step("place", ["h0.0"])
    reply(t, "v1.2")
    t.step("place", ["v1.2"])
    walks.clear()
    frames = [ref.moment(t.clock() + i) for i in range(20)]
    assert walks == [] and {m.takeback_depth for m in frames} == {2}
    ref.set_seats(("human", "human"))        # the seats change: worked out again, once
    assert [ref.moment(t.clock() + i).takeback_depth for i in range(5)] == [1] * 5
    assert walks == [2]
    ref.set_seats(("human", "computer:easy"))
    t.step("place", ["h1.1"])                # the game changes: again, once (the step's own
    walks.clear()                            # frames may have done it already)
    assert {ref.moment(t.clock() + i).takeback_depth for i in range(5)} == {1}
    assert walks in ([], [3])


def test_a_takeback_and_replay_between_two_frames_is_a_new_position(board):
    """Two moves taken back and two others played between frames (a batch from the link), the
    last the same as before: the frame shows the new game, not the copy of the old one (the
    position's copy was keyed by the length and the last move alone)."""
    t = board()
    ref = t.referee
    ref.set_seats(("human", "human"))
    t.step("place", ["h0.0"])
    t.step("place", ["v1.2"])
    assert [str(m) for m in ref.moment(t.clock()).state.moves] == ["h0.0", "v1.2"]
    ref.undo_moves(2, "test")
    for move in ("h1.1", "v1.2"):
        ref.accept(ref.state.parse_move(move), t.clock(), origin="test")
    assert [str(m) for m in ref.moment(t.clock()).state.moves] == ["h1.1", "v1.2"]
