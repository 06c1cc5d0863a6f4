"""`treeboard trace` on a bridge layout: the 20x20 Arbos board, its 400 cells scanned by the
firmware's own controller through the simulated shift-register chain and debounced there, its
frames heard by the host's own link, all on the trace's simulated clock
(firmware_bridge/lockstep.py). A whole game through the real CLI, the firmware's debounce seen
from the referee, a seed swapped for a spore faster than that debounce, and the same output
every time."""

from __future__ import annotations

import json

import pytest

import games
from board_driver import cli
from board_driver.config import sim_config
from board_driver.referee.tracer import Tracer
from hardware.base import PRESENT
from misplays import MISPLAYS

LAYOUT = "grid-20x20-bridge"
# 20 seeds four apart (white puts black's down first), then spores, a replacement and its two
# follow-ups, and two passes on the end-turn button: 1 to 1, black wins.
SEED_CELLS = [f"{r}{c}" for r in "AEIMQ" for c in (1, 5, 9, 13)]
GAME = [f"seed {c}" for c in SEED_CELLS] + ["D4", "A8", "F6", "A10", "G7", "I1=", "H2", "J1",
                                             "pass", "pass"]


def actions(move: str) -> list[str]:
    """What a player does on the board for a move."""
    if move == "pass":
        return ["press end_turn"]
    if move.startswith("seed "):
        return [f"place {move[5:]}"]
    if move.endswith("="):
        return [f"lift {move[:-1]}", f"place {move[:-1]}"]
    return [f"place {move}"]


def trace_lines() -> list[str]:
    lines = ["# a whole Arbos game on the 20x20 bridge board"]
    for move in GAME:
        lines += actions(move)
        if move == "A8":  # white misplays: a spore beside black's A8 and near no seed of theirs
            lines += ["place A7", "lift A7"]
        if move == "F6":  # black lifts white's seed, which no move takes off, and puts it back
            lines += ["lift E5", "wait 600", "place E5"]
    return lines


@pytest.fixture
def tracer(tmp_path):
    made = []

    def make():
        t = Tracer(sim_config(layout=LAYOUT, journal=str(tmp_path / f"j{len(made)}.sqlite"),
                              turn_seconds=0, game_options={"board": "20x20", "setup": "chosen"}))
        made.append(t)
        return t

    yield make
    for t in made:
        t.close()


def test_a_whole_arbos_game_through_treeboard_trace_on_the_20x20_bridge(tmp_path, capsys):
    trace = tmp_path / "game.trace"
    trace.write_text("\n".join(trace_lines()) + "\n")
    # (no --turn-seconds on the command line: the game is played well inside 5 minutes)
    assert cli.main(["trace", "--layout", LAYOUT, "--setup", "chosen", str(trace)]) == 0
    out = capsys.readouterr().out
    records = [json.loads(line) for line in out.splitlines()]
    reference = games.get_game("arbos").new_state(board="20x20", setup="chosen")
    reference.play_all(GAME)
    corrected = [r["action"] for r in records if r["corrections"]]
    # the misplays, lit until put right, and the replacement's lift, which asks for the spore
    assert corrected == ["place A7", "lift E5", "wait 600", "lift I1"]
    final = records[-1]["game"]
    assert final == reference.summary()
    assert final["over"] and final["scores"] == [1, 1] and final["winner"] == 1
    # the same trace gives the same output: nothing in it depends on the machine's clock
    assert cli.main(["trace", "--layout", LAYOUT, "--setup", "chosen", str(trace)]) == 0
    assert capsys.readouterr().out == out


def test_the_firmware_debounces_and_its_strip_shows_the_hosts_frame(tracer):
    t = tracer()
    bridge = t.board.firmware  # the lockstep bridge: the firmware's controller and the host link
    channel = t.session.layout.channels_of_site["T1"][0]
    assert channel == 0  # wired from the bottom-left corner
    t.board.place("T1")
    start = t.clock.now
    t.board.run_until(bridge.firmware.next_scan / 1000 + 0.002)  # two scans: still counting
    assert bridge.firmware.pending[channel] == 2
    assert t.session.hardware.source.snapshot()[channel] is None and t.referee.state.moves == []
    t.settle()
    assert [str(m) for m in t.referee.state.moves] == ["seed T1"]
    # heard after the firmware's 4 scans 2 ms apart (6-8 ms), played after the layout's 1 ms
    # window (the firmware's debounce is the only one)
    assert 0.006 <= t.clock.now - start <= 0.0105
    t.referee.show(t.clock.now)
    t.board.flush()
    assert bridge.leds() == list(t.session.hardware.leds.shown)
    record = t.step("place", ["T5"])
    assert record["game"]["moves"] == ["seed T1", "seed T5"]
    assert bridge.leds() == list(t.session.hardware.leds.shown)
    assert bridge.link.stats["mismatches"] == 0 and bridge.link.reconnects == 0


def test_a_seed_swapped_faster_than_the_firmwares_debounce_is_a_replacement(tracer):
    t = tracer()
    for move in GAME[:20]:
        t.step("place", [move[5:]])
    assert t.referee.state.phase == "play" and t.referee.state.occupancy()["E5"] == "seed:0"
    bridge = t.board.firmware
    channel = t.session.layout.channels_of_site["E5"][0]
    t.board.lift("E5")  # white's seed out ...
    t.board.run_until(bridge.firmware.next_scan / 1000)  # ... for one scan ...
    assert bridge.firmware.pending[channel] == 1
    t.board.place("E5")  # ... and their spore in, 5 ms later: the firmware never debounced it
    t.settle()
    state = t.referee.state
    assert [str(m) for m in state.moves][-1] == "E5=" and t.referee.corrections == []
    assert state.follow_ups_left == 2 and t.session.hardware.source.snapshot()[channel] == PRESENT
    t.step("place", ["F6"])
    record = t.step("place", ["D6"])
    assert record["game"]["moves"][-3:] == ["E5=", "F6", "D6"] and record["game"]["to_move"] == 1


def test_a_trace_names_a_button_the_bridge_board_lacks(tmp_path, capsys):
    trace = tmp_path / "bad.trace"
    trace.write_text("place T1\npress reset\n")
    assert cli.main(["trace", "--layout", LAYOUT, str(trace)]) != 0
    err = capsys.readouterr().err
    assert f"{trace}: line 2 (press reset): no button 'reset'; layout {LAYOUT} has ['end_turn']" in err


@pytest.mark.parametrize("name", sorted(MISPLAYS))
def test_a_misplay_through_the_whole_bridge_board_is_one_move(tmp_path, name):
    """Issue 28's misplays end to end: the firmware's one debounce, the link and the referee on
    the classic Tree Planting bridge board. The piece that stays is the one move journaled;
    a rod's flicker is never a takeback and replay, and a neighbour a magnet passed over is
    never a move nor a correction."""
    t = Tracer(sim_config(layout="tree-planting-classic-bridge",
                          journal=str(tmp_path / "j.sqlite")))
    try:
        heard = []
        t.referee.listeners.append(lambda what, move, origin: heard.append((what, str(move))))
        sites = {"piece": "h0.0", "neighbour": "h0.1"}

        start = t.board.firmware.firmware.next_scan / 1000 + 0.001   # a hand at a random phase
        for ms, cell, on in MISPLAYS[name]:
            t.run_until(start + ms / 1000)
            (t.board.place if on else t.board.lift)(sites[cell])
        t.step("wait", ["300"])
        assert heard == [("move", "h0.0")], name
        assert t.referee.corrections == [] and t.session.journal.current().moves == ["h0.0"]
    finally:
        t.close()
