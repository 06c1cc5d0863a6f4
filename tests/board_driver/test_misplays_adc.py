"""Treeblox's hall/ADC path (analog hall sensors through MCP3008s, read every 10 ms, the layout's
debounce since the last change seen) against a cube's misplays, through the referee: a leaf
cube wobbling as the hand lets go, its reading crossing a band's edge back and forth and once
into the neighbouring band (a branch's, pressed closer on one edge), and a branch cube coming
down through the leaf band on its way. Each is the one move of the cube that stays: no other
kind is played or corrected, nothing is taken back. At every phase of the poll (a hand moves
whenever it likes), on the shipped `treeblox-adc` layout, its gpiozero MCP3008s on mock SPI, a
simulated clock. docs/hardware.md, "Debounce", says which parts and figures this assumes."""

from __future__ import annotations

import pytest

from board_driver.config import sim_config
from board_driver.referee.session import open_session

#: The layout's bands: dark-branch < 0.20 <= dark-leaf < 0.40 <= empty < 0.60 ...
#: A dark leaf put down on b2, wobbling: (ms, reading). Every reading off the leaf's band
#: lasts under 6 ms (docs/hardware.md); the last one stays.
LEAF_WOBBLING = [(0, 0.46), (1, 0.30), (3, 0.42), (6, 0.30), (8, 0.18), (11, 0.30),
                 (13, 0.41), (14, 0.39), (15, 0.41), (17, 0.36), (19, 0.43), (21, 0.30)]
#: A dark branch coming down on a2 after La1 and Lb1: through the leaf band, a bounce back into
#: it, and down, rocking across the band's edge.
BRANCH_THROUGH_THE_LEAF_BAND = [(0, 0.45), (2, 0.33), (5, 0.12), (9, 0.22), (11, 0.10),
                                (13, 0.19), (14, 0.16)]
SCENES = {"a leaf wobbling on its sensor": ([], "b2", LEAF_WOBBLING, "Lb2"),
          "a branch coming down through the leaf band": (
              [("a1", "dark-leaf"), ("b1", "light-leaf")], "a2", BRANCH_THROUGH_THE_LEAF_BAND, "Ba2")}
POLL_PHASES_MS = range(10)


def play_out(tmp_path, before, site, steps, phase_ms):
    clock = [1000.0]
    session = open_session(sim_config(layout="treeblox-adc",
                                      journal=str(tmp_path / f"j{phase_ms}.sqlite")),
                           clock=lambda: clock[0], autoscan=False, new_game=True)
    try:
        ref, board = session.referee, session.hardware.board
        period_ms = round(session.layout.adc.poll_period_s * 1000)
        assert (ref.debouncer.window_s, period_ms) == (0.012, 10)
        session.hardware.source.start(ref.feed)
        told = []
        ref.listeners.append(lambda what, move, origin: told.append((what, str(move))))
        pending = [(40 * i, s, None, kind) for i, (s, kind) in enumerate(before)]  # cleanly first
        t0 = 100 + phase_ms   # the hand starts at this phase of the poll
        pending += [(t0 + ms, site, level, None) for ms, level in steps]
        for ms in range(0, 300):  # simulated milliseconds, polling every period_ms
            now = clock[0] = 1000.0 + ms / 1000
            while pending and pending[0][0] <= ms:
                _, where, level, kind = pending.pop(0)
                if kind is not None:
                    board.place(where, kind)
                else:
                    board.set_level(where, level)
            if ms % period_ms == 0:
                board.scan_once()
            deadline = ref.next_deadline()
            if deadline is not None and deadline <= now:
                ref.tick(now)
        return told, [str(m) for m in ref.state.moves], [c.site for c in ref.corrections]
    finally:
        session.close()


@pytest.mark.parametrize("name", sorted(SCENES))
def test_a_cube_misplay_on_the_adc_is_the_one_move_of_the_cube_that_stays(tmp_path, name):
    before, site, steps, move = SCENES[name]
    setup = {"Lb2": [], "Ba2": ["La1", "Lb1"]}[move]
    for phase in POLL_PHASES_MS:
        told, moves, corrections = play_out(tmp_path, before, site, steps, phase)
        assert moves == setup + [move], (name, phase, told)
        assert told == [("move", m) for m in setup + [move]], (name, phase, told)
        assert corrections == [], (name, phase, corrections)
