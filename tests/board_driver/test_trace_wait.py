"""`wait` in a trace: a long wait costs the same as a short one, and shows what stepping
through it would have shown."""

import pytest

from board_driver.config import sim_config
from board_driver.referee.tracer import Tracer


def tracer(tmp_path, name, **overrides):
    return Tracer(sim_config(journal=str(tmp_path / f"{name}.sqlite"), **overrides))


def test_a_long_wait_while_the_board_animates_draws_one_frame(tmp_path):
    # Treeblox pulses the growth rate all the time; a tree peg left out blinks on Tree Planting.
    for layout, actions in [("treeblox-adc", [("place", ["a1", "dark-leaf"])]),
                            ("tree-planting-classic-matrix", [("place", ["h0.0"]), ("place", ["t2.2"])])]:
        t = tracer(tmp_path, layout, layout=layout)
        try:
            for verb, args in actions:
                t.step(verb, args)
            strip = t.session.hardware.board.strip
            before = strip.shows
            for _ in range(3):
                t.step("wait", ["600000"])  # ten minutes: 1,200+ blinks, 12,000 pulse frames
            assert strip.shows - before <= 3, layout
        finally:
            t.close()


def test_one_long_wait_ends_where_many_short_ones_do(tmp_path):
    actions = [("place", ["h0.0"]), ("place", ["h1.0"]), ("place", ["t2.2"])]
    long, short = tracer(tmp_path, "long"), tracer(tmp_path, "short")
    try:
        for verb, args in actions:
            a, b = long.step(verb, args), short.step(verb, args)
            assert a == b
        for total in (1370, 6020):  # mid-blink, and past the winner-show length
            a = long.step("wait", [str(total)])
            for _ in range(total // 10):
                b = short.step("wait", ["10"])
            assert a["leds"] == b["leds"] and a["corrections"] == b["corrections"] == ["t2.2"]
            assert long.clock.now == pytest.approx(short.clock.now)
    finally:
        long.close()
        short.close()
