"""`treeboard sim` as a player meets it: words after every command, clear and new, resume,
Ctrl-C. Piped input, so each action settles before the next (about 0.1 s each)."""

from __future__ import annotations

import io
import re
import signal
import subprocess
import sys
import time

import pytest

from board_driver.config import sim_config
from board_driver.cli.sim import EXIT_INTERRUPTED, run_sim
from board_driver.referee.tracer import Tracer
from tests.waits import scaled


def play(journal, *lines: str, layout: str | None = None) -> str:
    config = sim_config(journal=str(journal), **({"layout": layout} if layout else {}))
    out = io.StringIO()
    assert run_sim(config, stdin=io.StringIO("".join(f"{line}\n" for line in lines)), out=out) == 0
    return out.getvalue()


def test_the_sim_says_what_each_command_did(tmp_path):
    out = play(tmp_path / "j.sqlite",
               "place h0.0", "place h0.0", "lift h1.0", "place h1.0", "lift h1.0", "place t0.0",
               "lift t0.0", "place x9", "press end_turn", "quit")
    said = [line for line in out.splitlines() if not line.startswith((" ", "+"))]
    assert "move 1: h0.0 (player 2 to move)" in said
    assert "not a move: a rod at h0.0 already" in said
    assert "not a move: nothing to lift at h1.0" in said
    assert "move 2: h1.0 (player 1 to move)" in said
    assert "takeback of h1.0" in said
    assert "not a move: t0.0: no move puts a piece there now" in said
    assert "  ? 'x9' is no site of layout tree-planting-classic-pins, and no move can put a piece there now" in out
    # A KeyError's message without repr's quotes around the whole of it.
    assert "  ? no button 'end_turn'; layout tree-planting-classic-pins has none\n" in out
    assert "\x1b[" not in out  # no colour codes into a pipe
    # Said in the order things happened.
    assert said.index("move 1: h0.0 (player 2 to move)") < said.index("takeback of h1.0")


def test_resume_clear_and_new(tmp_path):
    journal = tmp_path / "j.sqlite"
    play(journal, "place h0.0", "place h1.0", "quit")
    out = play(journal, "clear", "new", "place v0.0", "quit")
    assert f"resumed the game at move 2 (journal {journal})" in out
    assert "lifted 2 pieces; the board is empty" in out
    assert "new game of Tree Planting" in out
    assert "move 1: v0.0 (player 2 to move)" in out
    # The new game is the journal's game now: a restart resumes it, not the old one.
    assert "resumed the game at move 1" in play(journal, "quit")


def test_ctrl_c_ends_the_sim_at_once(tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "board_driver.cli", "sim", "--journal",
                             str(tmp_path / "j.sqlite")], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while "actions:" not in proc.stdout.readline():
            assert proc.poll() is None, proc.stderr.read()
        proc.send_signal(signal.SIGINT)  # stdin stays open: no Enter, no end of input
        assert proc.wait(timeout=scaled(10)) == EXIT_INTERRUPTED
        out, err = proc.communicate()
        assert "stopped (Ctrl-C)" in out and "Traceback" not in err
    finally:
        proc.kill()
        proc.communicate()


def test_a_cube_entered_above_the_board_can_be_taken_back(tmp_path):
    tracer = Tracer(sim_config(layout="treeblox-adc", journal=str(tmp_path / "j.sqlite")))
    try:
        for site, kind in [("a1", "dark-leaf"), ("d4", "light-leaf"), ("b1", "dark-branch"),
                           ("c4", "light-leaf")]:
            tracer.step("place", [site, kind])
        assert tracer.step("place", ["b1+1", "dark-leaf"])["game"]["moves"][-1] == "Lb1+1"
        record = tracer.step("lift", ["b1+1"])
        assert record["game"]["moves"] == ["La1", "Ld4", "Bb1", "Lc4"]
        assert tracer.session.journal.current().moves == ["La1", "Ld4", "Bb1", "Lc4"]
    finally:
        tracer.close()


def test_game_for_the_trees_by_tap_and_hold_whatever_the_pace(tmp_path):
    # Typed at any pace: `tap` and `hold` are gestures, not timings. A hold only offers the
    # retreat; a tap that does nothing, and a cancel, are said.
    out = play(tmp_path / "j.sqlite", "tap a3", "wait 1500", "tap a4", "hold h6", "tap b4",
               "tap a5", "hold h6", "tap h6", "takeback", "quit",
               layout="game-for-the-trees-matrix")
    said = out.splitlines()
    assert "actions: tap SQ | hold SQ" in out
    assert "move 1: a3-a4 (Black to move)" in said
    assert "retreat from h6? tap h6 again to confirm; any other square cancels" in said
    assert "tap on b4: cancelled, nothing is selected" in said
    assert "tap on a5: nothing of Black's grows from there" in said
    assert "move 2: retreat from h6 (White to move)" in said
    assert "takeback of retreat from h6" in said   # a touch game has no pieces to lift
    assert "lift its pieces" not in out
    assert said.index("tap on b4: cancelled, nothing is selected") < said.index(
        "move 2: retreat from h6 (White to move)")


def _workers_ready(pid: int) -> bool:
    """Has a child of `pid` (the computer's worker) run its initializer (niced to 19)?"""
    import os

    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and int(fields[16]) == 19:   # ppid, nice
            return True
    return False


def test_ctrl_c_with_a_computer_seat_prints_no_traceback_from_its_worker(tmp_path):
    import os

    # Ctrl-C at a terminal signals the whole process group, the worker process included.
    proc = subprocess.Popen([sys.executable, "-m", "board_driver.cli", "sim", "--journal",
                             str(tmp_path / "j.sqlite"), "--players", "human", "computer:easy"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        while "actions:" not in proc.stdout.readline():
            assert proc.poll() is None, proc.stderr.read()
        proc.stdin.write("place h0.0\n")
        proc.stdin.flush()
        while "move 2:" not in proc.stdout.readline():  # the computer moved; its worker idles
            assert proc.poll() is None, proc.stderr.read()
        assert _workers_ready(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        assert proc.wait(timeout=scaled(20)) == EXIT_INTERRUPTED
        out, err = proc.communicate()
        assert "stopped (Ctrl-C)" in out
        assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()


def test_the_pages_takeback_question_in_a_touch_game_asks_to_lift_nothing(tmp_path):
    from board_driver.web.snapshot import takeback_question

    tracer = Tracer(sim_config(layout="game-for-the-trees-matrix",
                               journal=str(tmp_path / "j.sqlite")), new_game=True)
    try:
        tracer.step("tap", ["a3"])
        tracer.step("tap", ["a4"])
        assert takeback_question(tracer.moment()) == "Take back a3-a4?"
    finally:
        tracer.close()


class _Pasted(io.StringIO):
    """Lines pasted into a terminal: a tty, every line there at once."""

    def isatty(self):
        return True


def test_lines_pasted_into_a_terminal_each_settle_before_the_next(tmp_path):
    out = io.StringIO()
    config = sim_config(journal=str(tmp_path / "j.sqlite"))
    assert run_sim(config, stdin=_Pasted("place h0.0\nplace v0.0\nlift v0.0\nwait 300\nquit\n"),
                   out=out) == 0
    said = out.getvalue().splitlines()
    assert "not a move: nothing to lift at v0.0" not in said
    assert "takeback of v0.0" in said


def test_the_sim_sets_the_clocks_shows_them_and_says_the_flag(tmp_path):
    out = play(str(tmp_path / "j.sqlite"), "clock 5x3", "clock 0.02,1", "wait 1500")
    assert "? time control '5x3': expected none, minutes (10)" in out
    assert "time control 0.02,1 from now" in out
    assert re.search(r"clocks: player 1 0:01\.[0-2] \(running\), player 2 1:00\n", out)
    assert "player 1's time ran out: player 2 wins on time" in out


def test_the_sim_says_the_menu(tmp_path):
    out = play(str(tmp_path / "j.sqlite"), "place a1", "place g7", "wait 2100", "place c1",
               "place b2", "place a3", layout="fangqi-7x7-matrix")
    assert "menu: two people play, clock none, hints safe; put a piece on a lit site" in out
    assert "menu: the computer plays White (medium), clock 5+3, hints safe;" in out
    assert ("menu applied, a new game: the computer plays White (medium), clock 5+3, hints "
            "safe\nnew game of Fangqi") in out
    assert "clocks: Black 5:00, White 5:00" in out


def test_what_quit_waits_for_the_last_action_settled_and_said(tmp_path):
    from board_driver.cli.sim import Terminal, all_said

    t = Tracer(sim_config(journal=str(tmp_path / "t.sqlite")))
    try:
        term = Terminal(io.StringIO(), clock=t.clock)
        term.start(t.session)
        assert all_said(t.session, term, None)
        t.step("place", ["h0.0"])                      # played: not said yet
        assert not all_said(t.session, term, None)
        term(t.session)
        assert all_said(t.session, term, None)
        t.board.place("h1.0")                          # on the board, not yet in the reading
        placed = lambda: t.referee.physical.get("h1.0") is not None  # noqa: E731
        assert not all_said(t.session, term, placed)
        t.session.hardware.source.scan_once()          # seen, still settling (debounce)
        assert t.referee.next_deadline() is not None
        assert not all_said(t.session, term, None)
        t.step("wait", ["100"])
        term(t.session)
        assert all_said(t.session, term, placed)
    finally:
        t.close()


@pytest.mark.parametrize("lines, said", [
    # a touch game's tap: its words come with the next frame
    ("tap a3\nquit\n", "selected a3: tap a4 b4 to grow there; hold a3: retreat from a3; tap a3 again to cancel"),
    # a lift that takes the move back: said once the lift has settled (debounce)
    ("place h0.0\nlift h0.0\nquit\n", "takeback of h0.0"),
    # the input ends without quit: the same
    ("tap a3\n", "selected a3: tap a4 b4 to grow there; hold a3: retreat from a3; tap a3 again to cancel"),
])
def test_quit_shows_what_the_last_action_did(tmp_path, lines, said):
    """Pasted into a terminal (no settling between lines), `quit` right after an action still
    shows what the action did (`all_said`, above: exactly that, not a fixed time)."""
    layout = "game-for-the-trees-matrix" if lines.startswith("tap") else None
    config = sim_config(journal=str(tmp_path / "j.sqlite"),
                        **({"layout": layout} if layout else {}))
    out = io.StringIO()
    assert run_sim(config, stdin=_Pasted(lines), out=out) == 0
    assert said in out.getvalue().splitlines(), out.getvalue()[-600:]


def test_input_that_goes_on_after_quit_ends_quietly(tmp_path, monkeypatch):
    """The line reader is a thread: a line typed after `quit`, when the sim's loop has closed,
    ends the reader without an error (it once raced the loop's end, behind a fixed sleep)."""
    import threading

    errors, over = [], threading.Event()

    def hook(args):
        errors.append(args.exc_value)
        over.set()

    monkeypatch.setattr(threading, "excepthook", hook)
    ended = threading.Event()

    def typed():
        try:
            yield "place h0.0\n"
            yield "quit\n"
            ended.wait(10)
            yield "lift h0.0\n"     # after the sim has ended
        finally:
            over.set()

    class Typed:
        def __iter__(self):
            return typed()

    out = io.StringIO()
    config = sim_config(journal=str(tmp_path / "j.sqlite"))
    assert run_sim(config, stdin=Typed(), out=out) == 0
    assert "move 1: h0.0 (player 2 to move)" in out.getvalue()
    ended.set()
    assert over.wait(10)
    assert errors == []
