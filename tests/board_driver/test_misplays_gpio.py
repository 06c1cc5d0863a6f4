"""The GPIO path's one debounce (the host's: 8 ms since the last edge, over a matrix scanned every
2 ms) against the misplays of docs/hardware.md, through the referee: a rod rolling in its groove,
a cube wobbling on its sensor (its flicker at a rod's groove here: a reed's pull-in edge flickers
as a hall sensor's threshold does) and a rod carried over a neighbouring groove are each the one
move of the piece that stays; the neighbour is never played, nothing is
taken back. On the classic Tree Planting matrix board, a simulated clock, the layout's own scan
period and debounce."""

from __future__ import annotations

import pytest

from board_driver.config import sim_config
from board_driver.referee.session import open_session
from misplays import MISPLAYS, SLOW_PIECE


def play_out(tmp_path, steps, sites):
    clock = [1000.0]
    session = open_session(sim_config(layout="tree-planting-classic-matrix",
                                      journal=str(tmp_path / "journal.sqlite")),
                           clock=lambda: clock[0], autoscan=False, new_game=True)
    try:
        ref, board = session.referee, session.hardware.board
        assert (ref.debouncer.window_s, session.layout.matrix.scan_period_s) == (0.008, 0.002)
        session.hardware.source.start(ref.feed)
        told = []
        ref.listeners.append(lambda what, move, origin: told.append((what, str(move))))
        period_ms = 2
        t0 = clock[0] + 0.0013  # the hand moves at a random phase of the scan
        pending = sorted(steps)
        for ms in range(0, 200):  # simulated milliseconds, scanning every period_ms
            now = clock[0] = 1000.0 + ms / 1000
            while pending and t0 + pending[0][0] / 1000 <= now:
                _, cell, on = pending.pop(0)
                (board.place if on else board.lift)(sites[cell])
            if ms % period_ms == 0:
                board.scan_once()
            deadline = ref.next_deadline()
            if deadline is not None and deadline <= now:
                ref.tick(now)
        return told, [str(m) for m in ref.state.moves]
    finally:
        session.close()


@pytest.mark.parametrize("name", sorted(MISPLAYS))
def test_a_misplay_is_the_one_move_of_the_piece_that_stays(tmp_path, name):
    piece = "h0.0"
    sites = {"piece": piece, "neighbour": "h0.1"}
    told, moves = play_out(tmp_path, MISPLAYS[name], sites)
    assert moves == [piece] and told == [("move", piece)], (name, told)


def test_a_rod_that_stays_10_ms_is_a_move_and_its_lift_a_takeback(tmp_path):
    told, moves = play_out(tmp_path, SLOW_PIECE, {"piece": "h0.0", "neighbour": "h0.1"})
    assert moves == [] and [w for w, _ in told][:1] == ["move"] and len(told) == 2, told
