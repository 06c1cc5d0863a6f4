"""What a new user trips over when following the README: each a command that once failed."""

from __future__ import annotations

import io
import time

from board_driver.cli import build_parser
from board_driver.cli.board import simulated_config
from board_driver.cli.sim import run_sim
from tests.waits import Deadline


def test_sim_on_a_bridge_layout_simulates_its_microcontroller_without_being_told(tmp_path):
    # `treeboard sim --layout fangqi-7x7-bridge` used to stop with "a bridge board is simulated
    # by firmware_bridge's simulated firmware"; the README lists it as a layout to play.
    args = build_parser().parse_args(
        ["sim", "--layout", "fangqi-7x7-bridge", "--journal", str(tmp_path / "j.sqlite")])
    config = simulated_config(args)
    assert (config.backend, config.bridge_port) == ("bridge", "sim")
    out = io.StringIO()
    assert run_sim(config, stdin=io.StringIO("place a1\nquit\n"), out=out) == 0
    assert "move 1: a1 (White to move)" in out.getvalue()


def test_sim_on_a_gpio_layout_stays_on_simulated_pins(tmp_path):
    args = build_parser().parse_args(
        ["sim", "--layout", "fangqi-7x7-matrix", "--journal", str(tmp_path / "j.sqlite")])
    assert simulated_config(args).backend == "sim"


def test_review_names_the_players_as_the_sim_does(tmp_path, capsys):
    # The README: players are named as each game names them everywhere (`review` said 0 and 1).
    from board_driver.cli import main

    moves = tmp_path / "g.txt"
    moves.write_text("h0.0 h1.0 v0.0 v0.1\n")
    assert main(["review", "--game", "tree-planting", "--board", "2x2", str(moves)]) == 0
    rows = capsys.readouterr().out.splitlines()[2:]
    assert [row.split()[1:3] for row in rows[:2]] == [["player", "1"], ["player", "2"]]


def test_treeblox_in_the_terminal_counts_its_leaves_in_good_english():
    # "Dark: 1 leaf see the sky" was what a player read after their first move.
    import games
    from board_driver import views
    from board_driver.config import DEFAULT_COLOURS
    from board_driver.views import Paint, Moment

    state = games.get_game("treeblox").new_state()
    for move in ("La1", "Lb2", "Lc1"):
        state.play(state.parse_move(move))
    text = views.terminal(state, Moment.still(dict(DEFAULT_COLOURS)), Paint(False))
    assert "Dark: 2 leaves see the sky;" in text
    assert "Light: 1 leaf sees the sky;" in text


def test_lifting_an_empty_entry_site_says_there_is_nothing_there(tmp_path):
    # `lift b2+1` above an empty hole said "only the last piece entered can be taken back".
    from board_driver.config import sim_config

    config = sim_config(layout="treeblox-adc", journal=str(tmp_path / "j.sqlite"))
    out = io.StringIO()
    assert run_sim(config, stdin=io.StringIO("place a1 dark-leaf\nlift b2+1\nquit\n"), out=out) == 0
    assert "  ? nothing to lift at b2+1\n" in out.getvalue()


def test_an_unknown_command_in_the_sim_points_to_help_not_to_the_trace_actions(tmp_path):
    # It said "expected place, lift, press or wait": no word of clear, new, takeback or help.
    from board_driver.config import sim_config

    config = sim_config(journal=str(tmp_path / "j.sqlite"))
    out = io.StringIO()
    lines = "foo h0.0\n\n# a comment\nplace h0.0\nquit\n"
    assert run_sim(config, stdin=io.StringIO(lines), out=out) == 0
    text = out.getvalue()
    assert "  ? unknown command 'foo'; type help for the commands\n" in text
    assert "  ? " not in text.replace("  ? unknown command 'foo'", "")  # blank, comment: silent
    assert "move 1: h0.0 (player 2 to move)" in text


def test_sim_refuses_a_player_it_does_not_know(tmp_path, capsys):
    # `treeboard sim --players human robot` started a two-human game without a word.
    from board_driver.cli import main

    journal = str(tmp_path / "j.sqlite")
    assert main(["sim", "--no-web", "--journal", journal, "--players", "human", "robot"]) == 2
    assert capsys.readouterr().err == ('treeboard: <command line>: --players: expected two seats, '
                                       'each "human", "web", "computer" or "computer:LEVEL"; '
                                       'got \'robot\'\n')


def test_piped_actions_wait_for_a_late_scan(tmp_path):
    # Piped into the sim on a loaded machine, `place h0.0` then `takeback` said "no move to
    # take back" before "move 1": the next line went ahead one debounce window later, whether
    # or not the scan had seen the rod. A 300 ms scan period makes that late scan certain.
    from board_driver.config import sim_config
    from hardware.layout import load_layout

    shipped = load_layout("tree-planting-classic-pins").path.read_text()
    assert "scan_period_ms = 2\n" in shipped
    slow = tmp_path / "slow-scan.toml"
    slow.write_text(shipped.replace("scan_period_ms = 2\n", "scan_period_ms = 300\n"))
    config = sim_config(layout=str(slow), journal=str(tmp_path / "j.sqlite"))
    out = io.StringIO()
    assert run_sim(config, stdin=io.StringIO("place h0.0\ntakeback\nquit\n"), out=out) == 0
    text = out.getvalue()
    assert "no move to take back" not in text
    assert text.index("move 1: h0.0") < text.index("takeback of h0.0")


def test_a_takeback_command_asks_to_lift_the_piece_without_calling_it_no_move(tmp_path):
    # After `takeback` the sim said "not a move: h0.0: it is a move, but the board changed in
    # more than one place at once", about the rod the takeback had just asked to lift.
    from board_driver.config import sim_config

    journal = str(tmp_path / "j.sqlite")
    config = sim_config(journal=journal)
    out = io.StringIO()
    lines = "place h0.0\nplace h1.0\ntakeback\nlift h1.0\nquit\n"
    assert run_sim(config, stdin=io.StringIO(lines), out=out) == 0
    text = out.getvalue()
    assert "takeback of h1.0: lift the piece on h1.0" in text and "correct h1.0: take the piece off" in text
    assert "not a move" not in text
    # A resumed game: the same, from the journal's pieces.
    out = io.StringIO()
    assert run_sim(sim_config(journal=journal), stdin=io.StringIO("takeback\nquit\n"), out=out) == 0
    assert "takeback of h0.0: lift the piece on h0.0" in out.getvalue() and "not a move" not in out.getvalue()


def test_a_computer_answer_after_the_loop_closed_is_dropped_quietly():
    # `treeboard sim --moves best`, then quit while the hint worker thinks: its answer arrived
    # on a closed loop and the executor printed "RuntimeError: Event loop is closed".
    import asyncio

    from board_driver.config import sim_config
    from board_driver.daemon.loop import Daemon

    daemon = Daemon(sim_config(journal=":memory:"))
    daemon.loop = asyncio.new_event_loop()
    daemon.loop.close()
    daemon._from_worker(print, "never")  # as ComputerSeat's future callback calls it


def test_the_sim_calls_the_computers_move_a_move_to_make_not_a_correction(tmp_path):
    # The sim printed "correct h0.3: put a rod here" for the computer's move: an invitation
    # worded as a mistake.
    from board_driver.config import sim_config

    config = sim_config(journal=str(tmp_path / "j.sqlite"), players=("human", "computer:0.2"))
    out = io.StringIO()

    def lines():  # read by the sim's input thread: paced, until the computer has answered
        yield "place h0.0\n"
        deadline = Deadline(30)
        while "move 2: " not in out.getvalue() and not deadline.passed():
            time.sleep(0.1)
        yield "wait 300\n"
        yield "quit\n"

    assert run_sim(config, stdin=lines(), out=out) == 0
    text = out.getvalue()
    assert "move 2: " in text, text[-2000:]
    site = text.split("move 2: ")[1].split()[0]
    assert f"make the computer's move at {site}: put a rod here" in text
    assert f"correct {site}" not in text


def test_the_sim_says_why_the_hinted_move(tmp_path):
    # `treeboard sim --moves best`: the lit best move comes with its reason, a sentence from
    # the game's view, once per position.
    import re

    from board_driver.config import sim_config

    config = sim_config(journal=str(tmp_path / "j.sqlite"), moves="best")
    out = io.StringIO()

    def lines():
        yield "place h0.0\n"
        deadline = Deadline(30)
        while "hint: " not in out.getvalue() and not deadline.passed():
            time.sleep(0.1)
        yield "quit\n"

    assert run_sim(config, stdin=lines(), out=out) == 0
    text = out.getvalue()
    said = re.findall(r"^hint: (.*)$", text, re.M)
    assert said, text[-2000:]
    assert re.fullmatch(r"[hv]\d\.\d (hands nothing over: \d+ safe grooves are left after it|"
                        r"hands over a square|closes a square: plant your tree and move again)\.",
                        said[-1]), said
