"""One parser of the physical actions (board_driver/referee/actions.py) for `trace` and the sim:
a line both read means the same action, and a bad one is refused with the same message."""

from __future__ import annotations

import io

import pytest

from board_driver.cli.sim import COMMANDS, run_sim
from board_driver.config import sim_config
from board_driver.referee.actions import (ACTIONS, Action, ActionError, UnknownAction,
                                          parse_action)
from board_driver.referee.tracer import TraceError, run_trace

#: Bad lines, and what both readers say of each.
BAD = [
    ("place", "place takes SITE [KIND]"),
    ("place h0.0 rod extra", "place takes SITE [KIND]"),
    ("lift", "lift takes one argument"),
    ("tap a3 a4", "tap takes one argument"),
    ("press", "press takes one argument"),
    ("wait soon", "wait takes milliseconds, not 'soon'"),
    ("wait -5", "wait takes 0 to 3600000 ms"),
    ("WAIT 3600001  # an hour and a bit", "wait takes 0 to 3600000 ms"),
    ("wait " + "9" * 60, "wait takes 0 to 3600000 ms"),
    ("wait x" + "y" * 60, "wait takes milliseconds, not 'x" + "y" * 39 + "... (61 characters)'"),
]


def sim(tmp_path, *lines: str, layout: str | None = None) -> str:
    config = sim_config(journal=str(tmp_path / "sim.sqlite"),
                        **({"layout": layout} if layout else {}))
    out = io.StringIO()
    assert run_sim(config, stdin=io.StringIO("".join(f"{line}\n" for line in lines)),
                   out=out) == 0
    return out.getvalue()


def trace(tmp_path, *lines: str, layout: str | None = None) -> list[dict]:
    config = sim_config(journal=str(tmp_path / "trace.sqlite"),
                        **({"layout": layout} if layout else {}))
    return list(run_trace(list(lines), config))


@pytest.mark.parametrize("line, action", [
    ("place h0.0", Action("place", ["h0.0"])),
    ("  PLACE b2+1 dark-leaf   # a cube above the board", Action("place", ["b2+1", "dark-leaf"])),
    ("Lift h0.0#no space before the comment", Action("lift", ["h0.0"])),
    ("tap a3", Action("tap", ["a3"])),
    ("hold\tc3", Action("hold", ["c3"])),
    ("press end_turn", Action("press", ["end_turn"])),
    ("wait 0", Action("wait", ["0"])),
    ("wait 1.5", Action("wait", ["1.5"])),
    ("", None), ("   ", None), ("# only a comment", None), ("  # indented", None),
])
def test_the_parser_reads_each_action(line, action):
    assert parse_action(line) == action
    if action is not None:
        assert str(action) == " ".join([action.verb, *action.args])


@pytest.mark.parametrize("line, message", BAD)
def test_the_parser_refuses_a_bad_line_saying_what_was_expected(line, message):
    with pytest.raises(ActionError) as refused:
        parse_action(line)
    assert str(refused.value) == message
    assert not isinstance(refused.value, UnknownAction)


def test_an_unknown_first_word_is_named_with_the_actions_expected():
    with pytest.raises(UnknownAction) as refused:
        parse_action("Jump h0.0")
    assert refused.value.verb == "jump"
    assert str(refused.value) == ("unknown action 'jump'; expected place, lift, tap, hold, "
                                  "press, wait, resign, draw, away, take, waiting, absent or "
                                  "web")
    # (the hands' actions, and ending or pausing a game: board_driver/referee/endings.py)
    assert set(ACTIONS) == {"place", "lift", "tap", "hold", "press", "wait",
                            "resign", "draw", "away", "take", "waiting", "absent", "web"}


def test_the_sims_commands_are_no_actions():
    # A line that starts with one of the sim's own commands is never read as an action.
    assert not set(COMMANDS) & set(ACTIONS)


def test_a_bad_line_is_refused_with_the_same_message_in_trace_and_the_sim(tmp_path):
    out = sim(tmp_path, *(line for line, _ in BAD), "place h0.0", "quit")
    for line, message in BAD:
        with pytest.raises(TraceError) as refused:
            trace(tmp_path, "place h0.0", line)
        assert str(refused.value) == f"<trace>: line 2: {message}"
        assert f"  ? {message}\n" in out
    # Nothing was done on the way: the good line after them is the first move.
    assert "move 1: h0.0 (player 2 to move)" in out


def test_a_line_means_the_same_action_in_trace_and_the_sim(tmp_path):
    lines = ["PLACE h0.0  # the first rod", "place h1.0", "  lift   h1.0", "place v0.0",
             "wait 100"]
    records = trace(tmp_path, *lines)
    assert [r["action"] for r in records] == ["place h0.0", "place h1.0", "lift h1.0",
                                              "place v0.0", "wait 100"]
    assert records[-1]["game"]["moves"] == ["h0.0", "v0.0"]
    out = sim(tmp_path, *lines, "quit")
    assert "move 1: h0.0 (player 2 to move)" in out
    assert "takeback of h1.0" in out
    assert "move 2: v0.0 (player 1 to move)" in out
    assert "  ? " not in out


def test_a_touch_games_tap_and_hold_mean_the_same_in_trace_and_the_sim(tmp_path):
    layout = "game-for-the-trees-matrix"
    lines = ["tap a3", "TAP a4  # grows there", "hold h6", "tap h6"]
    records = trace(tmp_path, *lines, layout=layout)
    assert records[-1]["game"]["moves"] == ["a3-a4", "retreat:h6"]
    out = sim(tmp_path, *lines, "quit", layout=layout)
    assert "move 1: a3-a4 (Black to move)" in out
    assert "move 2: retreat from h6 (White to move)" in out


def test_the_sims_commands_take_what_they_take_and_a_comment(tmp_path):
    out = sim(tmp_path, "place h0.0", "takeback now", "show # the board again", "help me",
              "clock 5+3  # blitz", "quit later", "lift h0.0", "quit")
    assert "  ? takeback takes no argument\n" in out
    assert "  ? help takes no argument\n" in out
    assert "  ? quit takes no argument\n" in out
    assert "time control 5+3 from the next game" in out
    # `quit later` did not end the sim: the lift after it is a takeback.
    assert "takeback of h0.0" in out
    assert "  ? " not in out.replace("  ? takeback takes no argument", "").replace(
        "  ? help takes no argument", "").replace("  ? quit takes no argument", "")


def test_an_unknown_word_in_the_sim_points_to_help_and_in_trace_to_the_actions(tmp_path):
    out = sim(tmp_path, "Jump h0.0", "quit")
    assert "  ? unknown command 'jump'; type help for the commands\n" in out
    with pytest.raises(TraceError, match=r"^<trace>: line 1: unknown action 'jump'; expected "
                                         r"place, lift, tap, hold, press, wait, resign, draw, "
                                         r"away, take, waiting, absent or web$"):
        trace(tmp_path, "Jump h0.0")
