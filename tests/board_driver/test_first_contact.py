"""What a new user trips over when following the README: each a command that once failed."""

from __future__ import annotations

import io

from board_driver.cli import build_parser
from board_driver.commands import _sim_config
from board_driver.sim import run_sim


def test_sim_on_a_bridge_layout_simulates_its_microcontroller_without_being_told(tmp_path):
    # `treeboard sim --layout fangqi-7x7-bridge` used to stop with "a bridge board is simulated
    # by firmware_bridge's simulated firmware"; the README lists it as a layout to play.
    args = build_parser().parse_args(
        ["sim", "--layout", "fangqi-7x7-bridge", "--journal", str(tmp_path / "j.sqlite")])
    config = _sim_config(args)
    assert (config.backend, config.bridge_port) == ("bridge", "sim")
    out = io.StringIO()
    assert run_sim(config, stdin=io.StringIO("place a1\nquit\n"), out=out) == 0
    assert "move 1: a1 (White to move)" in out.getvalue()


def test_sim_on_a_gpio_layout_stays_on_simulated_pins(tmp_path):
    args = build_parser().parse_args(
        ["sim", "--layout", "fangqi-7x7-matrix", "--journal", str(tmp_path / "j.sqlite")])
    assert _sim_config(args).backend == "sim"
