"""Bad input the command line used to take silently or for ever: each is refused at once with
one line naming what is wrong, or (a huge trace) runs in bounded memory."""

from __future__ import annotations

import tracemalloc

import pytest

from board_driver.cli import main
from board_driver.config import sim_config
from board_driver.referee.tracer import TraceLines, run_trace
from hardware.layout import LAYOUT_DIR
from checks import one_line_error


@pytest.mark.parametrize("board, free", [("9x9", 180), ("16", 40)])
def test_solve_refuses_a_board_no_exact_answer_can_reach(capsys, board, free):
    """It ran for ever with no output."""
    assert main(["solve", "--board", board]) == 1
    line = one_line_error(capsys)
    assert line.startswith(f"treeboard: solve: no exact answer is within reach: {free} grooves "
                           "are free")


def test_solve_has_a_time_budget_and_says_when_it_ran_out(capsys):
    assert main(["solve", "--board", "3x3", "--seconds", "0.001"]) == 1
    assert "no exact value within 0.001 s (24 grooves free)" in one_line_error(capsys)
    assert main(["solve", "--board", "3x3", "--seconds", "-1"]) == 2
    assert "--seconds must be 0 (no limit) or more" in one_line_error(capsys)


def test_players_with_remote_is_refused_not_dropped(capsys, monkeypatch):
    monkeypatch.setenv("TREEBOARD_REMOTE_SECRET", "a family secret")
    assert main(["sim", "--no-web", "--remote", "mqtt://127.0.0.1:1", "--join", "g1",
                 "--seat", "0", "--players", "human", "computer"]) == 2
    assert "--players: expected no --players with --remote" in one_line_error(capsys)


def test_an_adc_band_named_for_a_piece_the_game_lacks(tmp_path, capsys):
    text = (LAYOUT_DIR / "treeblox-adc.toml").read_text()
    bad = tmp_path / "adc.toml"
    bad.write_text(text.replace('"light-branch"]', '"rod"]'))
    assert main(["trace", "--layout", str(bad), str(tmp_path / "none.txt")]) == 2
    line = one_line_error(capsys)
    assert f"{bad}: [sensors.adc] kinds: expected piece kinds of treeblox" in line
    assert "got 'rod'" in line


def test_a_named_led_on_a_square_the_board_lacks(tmp_path, capsys):
    text = (LAYOUT_DIR / "game-for-the-trees-quad-matrix.toml").read_text()
    bad = tmp_path / "quad.toml"
    bad.write_text(text.replace('"a1:kind" = [1]', '"z9:kind" = [1]'))
    assert main(["trace", "--layout", str(bad), str(tmp_path / "none.txt")]) == 2
    assert f"{bad}: [leds] named.z9:kind: expected a site of game-for-the-trees, got 'z9'" \
        in one_line_error(capsys)


def test_map_sim_with_an_output_it_cannot_write_says_so_at_once(tmp_path, capsys):
    """It waited for a piece for the whole timeout, then said only that it timed out."""
    out = tmp_path / "no-such-dir" / "layout.toml"
    assert main(["map", "--sim", "--layout", "tree-planting-4x4-matrix", "--output", str(out),
                 "--timeout", "600"]) == 2
    err = capsys.readouterr().err
    assert f"treeboard map: cannot write {out}: No such file or directory; nothing mapped" in err
    assert "timed out" not in err and not out.exists()


def _peak_of_trace(tmp_path, actions: int) -> int:
    path = tmp_path / f"t{actions}.txt"
    path.write_text("place h0.0\nlift h0.0\n" * (actions // 2))
    lines = TraceLines(str(path))
    tracemalloc.start()
    try:
        for _ in run_trace(lines, sim_config(journal=":temporary:")):
            pass
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        lines.close()


def test_a_long_trace_is_streamed_in_bounded_memory(tmp_path):
    """Every line was parsed into a list before the first ran (a million actions: 467 MB).
    Six times the actions, the same peak: memory is measured (tracemalloc's peak), never time,
    and the traces are no longer than it takes to see a list of them (on a busy machine each
    action is slower under tracemalloc, never larger)."""
    _peak_of_trace(tmp_path, 200)   # (the first run's imports and caches)
    small = _peak_of_trace(tmp_path, 400)
    large = _peak_of_trace(tmp_path, 2400)
    # (measured: the same within 40 KB; holding every action was +0.5 MB)
    assert large - small < 150_000, (small, large)


def test_a_trace_plays_its_first_action_having_held_no_other():
    """The structure behind the bounded peak: the check reads every line once, holding none,
    then the first action is played when its own line is the only one read again."""
    class Counted:
        def __init__(self, lines):
            self.lines, self.read = lines, 0

        def __iter__(self):
            self.read = 0
            for line in self.lines:
                self.read += 1
                yield line

    lines = Counted(["place h0.0", "lift h0.0"] * 500)
    records = run_trace(lines, sim_config(journal=":temporary:"))
    try:
        first = next(records)
        assert lines.read == 1, lines.read
        assert first["action"] == "place h0.0"
    finally:
        records.close()


def test_a_bad_line_still_fails_before_anything_runs(tmp_path, capsys):
    path = tmp_path / "t.txt"
    path.write_text("place h0.0\n" * 3 + "jump h0.0\n")
    assert main(["trace", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""   # no action ran
    assert f"{path}: line 4" in captured.err
