"""`treeboard sim --bridge --layout grid-20x20-bridge`, actions piped in: the daemon, the
simulated RP2040 on a real pty (the same controller as `trace`'s, on the real clock, through its
simulated shift-register chain) and the terminal. A short Arbos game (one seed and four spores
each) with a misplay put right and two passes on the end-turn button, which is on the Pi's GPIO
beside the bridge."""

from __future__ import annotations

import io

import games
from board_driver.config import sim_config
from board_driver.referee.journal import Journal
from board_driver.cli.sim import run_sim

MOVES = ["seed T1", "seed T5", "P1", "S2", "R9", "pass", "pass"]


def test_a_short_arbos_game_through_treeboard_sim_on_the_20x20_bridge(tmp_path):
    journal = str(tmp_path / "j.sqlite")
    cfg = sim_config(layout="grid-20x20-bridge", backend="bridge", bridge_port="sim",
                     journal=journal, game_options={"board": "20x20", "seeds": 1, "spores": 4, "setup": "chosen"},
                     turn_seconds=0)
    actions = ["place T1", "place T5", "place P1", "place S2",
               "place T2",  # white beside black's S2 by a side, and near no seed of theirs
               "lift T2", "place R9", "press end_turn", "press end_turn", "quit"]
    out = io.StringIO()
    assert run_sim(cfg, new_game=True, stdin=io.StringIO("\n".join(actions) + "\n"), out=out) == 0
    text = out.getvalue()
    assert "not a move: T2:" in text
    assert "move 5: R9 (Black to move)" in text and "move 7: pass (game over)" in text
    reference = games.get_game("arbos").new_state(board="20x20", seeds=1, spores=4, setup="chosen")
    reference.play_all(MOVES)
    with Journal(journal) as saved:
        last = saved.history(limit=1)[0]
    assert last.moves == MOVES and last.summary["scores"] == list(reference.scores())
    assert last.summary["winner"] == reference.winner() == 1
