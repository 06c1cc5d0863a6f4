"""The board end to end on simulated hardware: gpiozero mock pins (a diode matrix and direct
pins), debounce, reconcile, the journal, and LED frames read back from the PixelBuf strip."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

import games
from board_driver.config import ConfigError, load_config, parse_config, sim_config
from board_driver.views.base import kind_colour
from board_driver.referee.session import open_session
from board_driver.referee.tracer import TraceError, Tracer, run_trace
from hardware.base import SensorEvent
from tests.waits import scaled


def colours(t):
    return t.session.config.colours


def shown(t, site):
    """The colour on the strip at a site, as the LEDs show it (gamma and brightness applied)."""
    return tuple(t.referee.site_colours()[site])


def as_strip(t, colour):
    """What `colour` looks like on the strip after the LED layer's corrections."""
    leds = t.session.hardware.leds
    return leds.correct([colour])[0]


def play_rod(t, move):
    """Put the rod of `move` down, and plant the tree peg(s) it earns, as a player would."""
    record = t.step("place", [str(move)])
    for hole in t.referee.state.last_planted() if str(t.referee.state.moves[-1]) == str(move) else []:
        if not t.referee.state.is_over():  # (after the last move the winner's show takes over)
            assert hole in record["corrections"]  # the peg is wanted: its hole blinks
        record = t.step("place", [hole])
    return record


def test_a_whole_classic_game_through_the_mock_pins(tracer):
    t = tracer()
    rng = random.Random(7)
    reference = games.get_game("tree-planting").new_state(board="classic")
    while not reference.is_over():
        move = rng.choice(sorted(reference.legal_moves(), key=str))
        reference.play(move)
        record = play_rod(t, move)
        if not reference.is_over():
            assert record["corrections"] == []
            assert record["game"]["moves"] == [str(m) for m in reference.moves]
            # whose turn: the "turn" LEDs and every empty hole glow in the mover's colour
            mover = colours(t)[f"player{reference.to_move}"]
            assert shown(t, "turn") == as_strip(t, mover)
            # the last rod shows in its player's colour
            assert shown(t, str(move)) == as_strip(t, colours(t)[f"player{reference.last_mover()}"])
    summary = t.referee.state.summary()
    assert summary == reference.summary()
    assert summary["over"] is True
    # every tree's hole in its owner's colour, once the winner's animation has played
    t.step("wait", ["7000"])
    for site, kind in reference.occupancy().items():
        if kind.startswith("tree"):
            assert shown(t, site) == as_strip(t, kind_colour(t.referee.state.game, kind, colours(t)))
    # clearing the board starts a new game
    for site in reference.occupancy():
        record = t.step("lift", [site])
    assert record["game"]["moves"] == [] and record["game"]["over"] is False
    assert t.session.journal.history(limit=1)[0].summary["scores"] == list(reference.scores())


def test_a_tree_peg_is_awaited_before_play_goes_on(tracer):
    t = tracer()
    for m in ["h0.0", "h1.0", "v0.0"]:
        t.step("place", [m])
    record = t.step("place", ["v0.1"])  # player 1 closes square (0, 0)
    assert record["corrections"] == ["t0.0"]
    assert record["game"]["scores"] == [0, 1]
    # the hole blinks in the owner's colour: on, then off
    on = as_strip(t, colours(t)["player1"])
    seen = set()
    for _ in range(4):
        t.step("wait", ["250"])
        seen.add(shown(t, "t0.0"))
    assert on in seen and (0, 0, 0) in seen
    # a rod put down before the peg is no move yet, and no mistake: it waits for the peg
    record = t.step("place", ["h0.1"])
    assert record["game"]["moves"] == ["h0.0", "h1.0", "v0.0", "v0.1"]
    assert record["corrections"] == ["t0.0"]
    assert shown(t, "h0.1") != as_strip(t, colours(t)["wrong"])
    t.step("lift", ["h0.1"])
    record = t.step("place", ["t0.0"])
    assert record["corrections"] == []
    record = t.step("place", ["h0.1"])  # the same player draws again
    assert record["game"]["moves"][-1] == "h0.1" and record["game"]["to_move"] == 0


def test_a_peg_in_an_open_square_is_red_until_removed(tracer):
    t = tracer()
    record = t.step("place", ["t1.1"])
    assert record["corrections"] == ["t1.1"] and record["game"]["moves"] == []
    assert shown(t, "t1.1") == as_strip(t, colours(t)["wrong"])
    record = t.step("lift", ["t1.1"])
    assert record["corrections"] == []


def test_two_rods_at_once_are_corrected_not_played(tracer):
    t = tracer()
    t.board.place("h0.0")
    t.board.place("h2.1")
    t.settle()
    assert t.referee.state.moves == []
    assert [c.site for c in t.referee.corrections] == ["h0.0", "h2.1"]
    t.board.lift("h2.1")
    t.settle()
    assert [str(m) for m in t.referee.state.moves] == ["h0.0"]
    assert t.referee.corrections == []


def test_a_bounce_never_makes_a_move_and_a_real_change_is_not_lost(tracer):
    t = tracer()
    ref = t.referee
    # A reed switch chatters on the hole pin t0.0 (a direct pin): 2 ms apart, then lets go.
    pin = t.session.layout.channels_of_site["t1.2"][0]
    for i in range(6):
        ref.feed(SensorEvent(pin, "present" if i % 2 == 0 else None, t.clock.now))
        t.clock.now += 0.002
        ref.tick(t.clock.now)
    t.clock.now += 0.1
    ref.tick(t.clock.now)
    assert ref.corrections == [] and ref.state.moves == []
    # a rod that settles is played even though its sensor bounced first
    t.board.place("h0.0")
    t.board.scan_once()
    t.board.lift("h0.0")
    t.board.scan_once()
    t.board.place("h0.0")
    t.settle()
    assert [str(m) for m in ref.state.moves] == ["h0.0"]


def test_lifting_the_last_rod_takes_it_back(tracer):
    t = tracer()
    t.step("place", ["h0.0"])
    t.step("place", ["h0.1"])
    record = t.step("lift", ["h0.1"])
    assert record["game"]["moves"] == ["h0.0"] and record["game"]["to_move"] == 1
    assert t.session.journal.current().moves == ["h0.0"]
    # lifting an older rod is not a takeback: it must go back
    t.step("place", ["h0.1"])
    record = t.step("lift", ["h0.0"])
    assert record["game"]["moves"] == ["h0.0", "h0.1"]
    assert record["corrections"] == ["h0.0"]
    t.step("wait", ["0"])
    assert shown(t, "h0.0") in {as_strip(t, kind_colour(t.referee.state.game, "rod", colours(t))), (0, 0, 0)}


def test_takeback_can_be_forbidden(tracer):
    t = tracer(takeback=False)
    t.step("place", ["h0.0"])
    record = t.step("lift", ["h0.0"])
    assert record["game"]["moves"] == ["h0.0"] and record["corrections"] == ["h0.0"]


def test_lifting_a_scoring_rod_with_its_peg_planted_is_not_yet_a_takeback(tracer):
    t = tracer()
    for m in ["h0.0", "h1.0", "v0.0", "v0.1", "t0.0"]:
        t.step("place", [m])
    record = t.step("lift", ["v0.1"])
    assert record["corrections"] == ["v0.1"]
    record = t.step("lift", ["t0.0"])  # peg off too: now it is the last move lifted
    assert record["game"]["moves"] == ["h0.0", "h1.0", "v0.0"] and record["corrections"] == []


@pytest.mark.parametrize("mode", ["off", "legal", "safe"])
def test_move_display_modes(tracer, mode):
    t = tracer(moves=mode)
    t.step("place", ["h0.0"])
    t.step("place", ["h1.0"])
    c = colours(t)
    # v0.0 would give square (0, 0) away; h0.2 gives nothing away
    v, h = shown(t, "v0.0"), shown(t, "h0.2")
    if mode == "off":
        assert v == h == (0, 0, 0)
    elif mode == "legal":
        assert v == h != (0, 0, 0)
    else:
        assert v == as_strip(t, c["unsafe"]) and h == as_strip(t, c["safe"])


def test_the_journal_restores_a_game_after_a_restart(tmp_path):
    cfg = sim_config(journal=str(tmp_path / "j.sqlite"))
    t = Tracer(cfg)
    for m in ["h0.0", "h1.0", "v0.0"]:
        t.step("place", [m])
    t.close()
    # The pieces stayed on the board: the game resumes in sync.
    session = open_session(sim_config(journal=str(tmp_path / "j.sqlite")), clock=lambda: 5.0,
                           autoscan=False)
    try:
        assert [str(m) for m in session.referee.state.moves] == ["h0.0", "h1.0", "v0.0"]
        assert session.referee.corrections == []
    finally:
        session.close()
    # The board was cleared while the daemon was off: the restored game shows every rod as
    # missing until the players put them back.
    session = open_session(sim_config(journal=str(tmp_path / "j.sqlite")), clock=lambda: 5.0,
                           autoscan=False, restore_pieces=False)
    try:
        ref = session.referee
        assert [str(m) for m in ref.state.moves] == ["h0.0", "h1.0", "v0.0"]
        assert sorted(c.site for c in ref.corrections) == ["h0.0", "h1.0", "v0.0"]
        assert all(c.want == "rod" for c in ref.corrections)
    finally:
        session.close()


# The board process the SIGKILL tests cut: it prints ACCEPTED and the moves after each move.
# Each report is one write(2), well under PIPE_BUF, so a kill never leaves half a line: print()
# writes its arguments, separators and newline one write each when Python's output is
# unbuffered (PYTHONUNBUFFERED=1, as on this CI machine and in the systemd unit), and a kill
# between two of them (test_journal's comes from the journal's writer thread, at any point of
# the main thread's print) left "ACCEPTED" alone as the last line: a report of no moves.
KILLER = r"""
import os, sys, random
from board_driver.config import sim_config
from board_driver.referee.tracer import Tracer
t = Tracer(sim_config(journal=sys.argv[1]))
rng = random.Random(int(sys.argv[2]))
state = t.referee.state
while not state.is_over():
    move = rng.choice(sorted(state.legal_moves(), key=str))
    t.step("place", [str(move)])
    for hole in state.last_planted() if state.moves and str(state.moves[-1]) == str(move) else []:
        t.step("place", [hole])
    os.write(1, ("ACCEPTED " + " ".join(str(m) for m in state.moves) + "\n").encode())
"""


def test_sigkill_mid_game_loses_no_accepted_move(tmp_path):
    """Kill the board process at random points; every move it had accepted (journal written,
    then reported) is there when the next process opens the journal."""
    rng = random.Random(11)
    for round_ in range(4):
        journal = tmp_path / f"j{round_}.sqlite"
        proc = subprocess.Popen([sys.executable, "-c", KILLER, str(journal), str(round_)],
                                stdout=subprocess.PIPE, text=True)
        accepted = []
        for _ in range(rng.randint(1, 20)):
            line = proc.stdout.readline()
            if not line:
                break
            accepted = line.split()[1:]
        proc.kill()
        proc.wait(timeout=scaled(10))
        # The player may have run ahead of our reading: what it printed before it died counts
        # as reported too (a loaded machine reads slowly; the pipe holds the lines).
        printed = accepted
        for line in proc.stdout.read().splitlines():
            if line.startswith("ACCEPTED"):
                printed = line.split()[1:]
        proc.stdout.close()
        session = open_session(sim_config(journal=str(journal)), clock=lambda: 1.0,
                               autoscan=False, restore_pieces=False)
        try:
            # A move made with pieces is lit while its commit is under way (the pieces record
            # it): at most the last one reported is not in the journal yet, and at most one
            # more was being written.
            restored = [str(m) for m in session.referee.state.moves]
            assert restored[:len(printed) - 1] == printed[:-1]
            assert len(printed) - 1 <= len(restored) <= len(printed) + 1
            # The power comes back with the pieces where the players left them: the board
            # adopts what its sensors show, and the game is every move it had reported.
            board = session.hardware.board
            left = games.get_game("tree-planting").new_state()
            left.play_all(printed)
            for site, kind in left.occupancy().items():
                board.place(site, kind)
            board.scan_once()
            session.referee.resync(session.hardware.source.snapshot(), 2.0)
            assert [str(m) for m in session.referee.state.moves] == printed
        finally:
            session.close()


# --- trace files and bad input ----------------------------------------------------------------

def test_trace_command_prints_one_json_line_per_action(tmp_path):
    f = tmp_path / "game.trace"
    f.write_text("# a start\nplace h0.0\n\nplace h1.0  # second rod\nwait 100\nlift h1.0\n")
    out = subprocess.run([sys.executable, "-m", "board_driver.cli", "trace", str(f)],
                         capture_output=True, text=True, timeout=scaled(60))
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["action"] for r in lines] == ["place h0.0", "place h1.0", "wait 100", "lift h1.0"]
    assert lines[-1]["game"]["moves"] == ["h0.0"]
    assert set(lines[0]) == {"action", "game", "corrections", "leds", "said"}
    assert set(lines[0]["game"]) == {"game", "board", "moves", "scores", "to_move", "over", "winner"}


@pytest.mark.parametrize("text,words", [
    ("jump h0.0", "line 1: unknown action 'jump'"),
    ("place", r"line 1: place takes SITE \[KIND\]"),
    ("wait soon", "line 1: wait takes milliseconds"),
    ("place h0.0\nplace q9", r"line 2 \(place q9\): 'q9' is no site of layout"),
    ("press end_turn", r"line 1 \(press end_turn\): no button 'end_turn'"),
])
def test_bad_trace_lines_are_named(tmp_path, text, words):
    with pytest.raises(TraceError, match=words):
        list(run_trace(text.splitlines(), sim_config(journal=str(tmp_path / "j.sqlite"))))


@pytest.mark.parametrize("toml,words", [
    ('backend = "usb"', "backend: expected one of gpio, sim, bridge; got 'usb'"),
    ('[display]\nmoves = "fast"', "display.moves: expected one of off, legal, safe"),
    ('[display]\nbrightness = 2', "display.brightness: expected a number above 0"),
    ('[display]\nbrightness = true', "display.brightness"),
    ('[colours]\nplayer0 = "blue"', "colours.player0: expected a colour"),
    ('[colours]\nplayer7 = "#ffffff"', "colours.player7: expected one of"),
    ('[sensors]\ndebounce_ms = -1', "sensors.debounce_ms"),
    ('colour = 1', "colour: expected no such key"),
    ('game = "chess"', "game: expected one of tree-planting, treeblox"),
    ('display = 3', "display: expected a table"),
    ('layout = "nope"', "layout"),
    ("this is = not toml ]", "expected valid TOML"),
])
def test_bad_config_is_refused_with_file_key_and_expectation(tmp_path, toml, words):
    path = tmp_path / "config.toml"
    path.write_text(toml + "\n" + 'journal = "%s"\n' % (tmp_path / "j.sqlite"))
    out = subprocess.run([sys.executable, "-m", "board_driver.cli", "run", "--config", str(path)],
                         capture_output=True, text=True, timeout=scaled(60))
    assert out.returncode == 2
    assert str(path) in out.stderr and words in out.stderr
    assert "Traceback" not in out.stderr


def test_missing_config_file_names_it(tmp_path):
    with pytest.raises(ConfigError, match="missing.toml"):
        load_config(tmp_path / "missing.toml")


def test_shipped_default_config_loads():
    from pathlib import Path
    import board_driver
    cfg = load_config(Path(board_driver.__file__).parent / "default_config.toml")
    assert cfg.backend == "gpio" and cfg.moves == "safe"
    assert parse_config({}).layout == cfg.layout


def test_debounce_window_is_the_layouts_unless_the_config_sets_one(tmp_path):
    cfg = sim_config(journal=str(tmp_path / "a.sqlite"))
    assert parse_config({}).debounce_ms is None
    session = open_session(cfg, clock=lambda: 1.0, autoscan=False)
    try:
        assert session.referee.debouncer.window_s == session.layout.debounce_s
    finally:
        session.close()
    cfg = parse_config({"sensors": {"debounce_ms": 250}, "backend": "sim",
                        "journal": str(tmp_path / "b.sqlite")})
    session = open_session(cfg, clock=lambda: 1.0, autoscan=False)
    try:
        assert session.referee.debouncer.window_s == 0.25
    finally:
        session.close()
