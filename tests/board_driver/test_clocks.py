"""The players' clocks, end to end on the simulated board: time controls as written, a flag that
falls at its exact millisecond (and loses), a per-turn limit, the increment and a handicap, the
pause while the board owes the other side's move, the journal resuming each clock after a cut,
the computer's budget from its clock, and two boards' clocks through the remote protocol."""

from __future__ import annotations

import asyncio
import json

import pytest

import games
from board_driver.config import ConfigError, parse_config, sim_config
from board_driver.referee.clock import (ClockError, Clocks, TimeControl, control_text,
                                        parse_time_control)
from board_driver.referee.journal import Journal
from board_driver.referee.referee import CHECKPOINT_S
from board_driver.referee.seats import LEAST_S, RESERVE_S, think_seconds
from board_driver.referee.tracer import Tracer, run_trace
from board_driver.remote import protocol as rp
from tests.waits import scaled


# --- time controls as written -----------------------------------------------------------------

@pytest.mark.parametrize("text, seat0, seat1", [
    ("none", TimeControl(), TimeControl()),
    ("10", TimeControl(bank_s=600), TimeControl(bank_s=600)),
    ("5+3", TimeControl(bank_s=300, increment_s=3), TimeControl(bank_s=300, increment_s=3)),
    ("30s/move", TimeControl(per_move_s=30), TimeControl(per_move_s=30)),
    ("300/move", TimeControl(per_move_s=300), TimeControl(per_move_s=300)),
    ("10,3+2", TimeControl(bank_s=600), TimeControl(bank_s=180, increment_s=2)),
    ("0.5, none", TimeControl(bank_s=30), TimeControl()),
])
def test_time_controls_are_read_as_chess_players_write_them(text, seat0, seat1):
    assert parse_time_control(text) == (seat0, seat1)
    assert parse_time_control(control_text((seat0, seat1))) == (seat0, seat1)


@pytest.mark.parametrize("text, says", [
    ("5x3", "expected none, minutes (10), minutes+seconds (5+3)"),
    ("10,5,3", "at most two controls"),
    ("-5", "expected none"),
    ("5+", "expected none"),
    ("0+3", "the minutes are above 0"),
    ("700", "at most 600"),
    ("0s/move", "a turn's limit is 1 to"),
    ("5+601", "the seconds added a turn are 0 to 600"),
])
def test_a_bad_time_control_is_refused_with_what_was_expected(text, says):
    with pytest.raises(ClockError, match=text.split(",")[0].replace("+", r"\+")) as err:
        parse_time_control(text)
    assert says in str(err.value)


def test_the_config_names_a_bad_time_control_and_refuses_two_ways_of_saying_it():
    assert parse_config({"time_control": "3+2"}, "b.toml").time_control == \
        parse_time_control("3+2")
    with pytest.raises(ConfigError, match=r"b.toml: time_control: expected none, minutes .*"
                                          r"got '3x2'"):
        parse_config({"time_control": "3x2"}, "b.toml")
    with pytest.raises(ConfigError, match="either time_control or turn_seconds"):
        parse_config({"time_control": "3", "turn_seconds": 30}, "b.toml")


# --- on the board -------------------------------------------------------------------------------

def run(tmp_path, control: str, lines: list[str], **overrides) -> list[dict]:
    cfg = sim_config(journal=str(tmp_path / "j.sqlite"), time_control=parse_time_control(control),
                     **overrides)
    return list(run_trace(lines, cfg))


def test_a_flag_falls_at_its_exact_millisecond_and_loses_the_game(tmp_path):
    records = run(tmp_path, "0.05", ["place h0.0", "wait 1000", "wait 100000", "place v0.0"])
    placed, waited, flagged = records[0]["clocks"], records[1]["clocks"], records[2]["clocks"]
    assert placed[1] == 3000 and waited == [placed[0], 2000]
    assert flagged == [placed[0], 0] and records[2]["flag"] == 1
    journal = Journal(tmp_path / "j.sqlite")
    try:
        (lost,) = journal.history()
        assert lost.summary["flag"] == 1 and lost.summary["winner"] == 0
        assert lost.moves == ["h0.0"]   # and a piece put after the flag is no move
    finally:
        journal.close()
    assert records[3]["game"]["moves"] == ["h0.0"]


def test_the_flag_is_at_the_deadline_not_at_the_end_of_the_wait(tmp_path):
    cfg = sim_config(journal=str(tmp_path / "j.sqlite"), time_control=parse_time_control("0.05"))
    t = Tracer(cfg)
    try:
        start = t.clock.now
        t.step("wait", ["60000"])
        assert t.referee.flagged == 0 and t.moment().over_since == pytest.approx(start + 3.0)
    finally:
        t.close()


def test_the_turn_leds_breathe_in_the_last_ten_seconds_then_show_the_flag(tmp_path):
    cfg = sim_config(journal=str(tmp_path / "j.sqlite"), time_control=parse_time_control("0.5"))
    t = Tracer(cfg)
    try:
        player0 = list(t.referee.leds.shown[t.session.layout.named_leds["turn"][0]])
        steady = [t.step("wait", ["1000"])["leds"]["turn"] for _ in range(3)]
        assert all(colour == player0 for colour in steady)   # 27 s and more: steady
        t.step("wait", ["17000"])                           # 10 s left
        breath = {tuple(t.step("wait", ["130"])["leds"]["turn"]) for _ in range(8)}
        assert len(breath) > 3                              # it changes between frames
        flag = t.step("wait", ["20000"])
        assert flag["flag"] == 0 and flag["clocks"][0] == 0
        colours = {tuple(t.step("wait", ["500"])["leds"]["turn"]) for _ in range(4)}
        assert len(colours) == 2, "the flag's colour alternates with the winner's"
        assert list(colours) != [tuple(player0)] and tuple(player0) not in colours
    finally:
        t.close()


def test_fischer_increment_and_a_handicap(tmp_path):
    records = run(tmp_path, "1+2,0.5", ["wait 5000", "place h0.0", "wait 3000", "place v0.0"])
    # player 0 used 5 s (and the debounce), then got 2 s; player 1 has its own 30 s, no increment
    assert records[0]["clocks"] == [55_000, 30_000]
    first = records[1]["clocks"][0]
    assert 56_900 < first < 57_000 and records[1]["clocks"][1] == 30_000
    assert records[2]["clocks"] == [first, 27_000]
    assert records[3]["clocks"][0] == first and 26_900 < records[3]["clocks"][1] < 27_000


def test_a_per_turn_limit_in_a_game_without_a_pass_loses(tmp_path):
    records = run(tmp_path, "5s/move", ["wait 4000", "place h0.0", "wait 4900", "wait 200"])
    assert records[1]["clocks"][0] == 5000   # a whole turn again, shown while the other plays
    assert records[2]["clocks"][1] == 100 and "flag" not in records[2]
    assert records[3]["flag"] == 1


def test_an_untimed_game_prints_no_clocks_and_arbos_has_its_turn_limit(tmp_path):
    assert "clocks" not in run(tmp_path, "none", ["place h0.0"])[0]
    arbos = sim_config(journal=str(tmp_path / "a.sqlite"), layout="arbos-8x8-matrix")
    assert list(run_trace(["wait 0"], arbos))[0]["clocks"] == [300_000, 300_000]


# --- a clock runs only while its player can play ----------------------------------------------

def test_the_clock_stops_while_the_board_owes_the_other_sides_move(tmp_path):
    cfg = sim_config(journal=str(tmp_path / "j.sqlite"), time_control=parse_time_control("1"))
    t = Tracer(cfg)
    try:
        ref = t.referee
        ref.set_seats(("remote", "human"))
        t.step("wait", ["2000"])
        ref.play_for_seat("h0.0", t.clock.now, "remote")   # the other board's move arrives
        owed = t.step("wait", ["7000"])                    # ... and is not made here yet
        assert owed["corrections"] == ["h0.0"] and owed["clocks"][1] == 60_000
        made = t.step("place", ["h0.0"])                   # put down: the clock runs
        assert made["corrections"] == [] and made["clocks"][1] == 60_000
        assert t.step("wait", ["1000"])["clocks"][1] == 59_000
    finally:
        t.close()


def test_the_computers_clock_stops_while_a_person_puts_the_board_right(tmp_path):
    cfg = sim_config(journal=str(tmp_path / "j.sqlite"), time_control=parse_time_control("1"))
    t = Tracer(cfg)
    try:
        t.referee.set_seats(("human", "computer:easy"))
        t.step("place", ["h0.0"])
        stray = t.step("place", ["t1.1"])          # a tree peg in an open square: a mistake
        assert stray["corrections"] == ["t1.1"]
        # (it ran while the peg settled: the board agreed until then)
        assert t.step("wait", ["4000"])["clocks"][1] == stray["clocks"][1] > 59_900
        t.step("lift", ["t1.1"])
        assert t.step("wait", ["1000"])["clocks"][1] < stray["clocks"][1] - 999
    finally:
        t.close()


# --- the journal keeps the clocks ----------------------------------------------------------------

def test_each_clock_resumes_after_a_cut_at_what_it_showed(tmp_path):
    cfg = sim_config(journal=str(tmp_path / "j.sqlite"), time_control=parse_time_control("2+1"))
    t = Tracer(cfg)
    t.step("wait", ["3000"])
    t.step("place", ["h0.0"])
    kept = t.step("wait", ["12000"])["clocks"]     # a keeping falls at the end of this wait
    cut = t.step("wait", ["3000"])["clocks"]       # ... and none in these 3 s: then the cut
    t.session.hardware.close()                     # the power goes (no orderly close)
    t.session.journal.close()
    assert cut[1] == kept[1] - 3000 and CHECKPOINT_S > 3

    cfg = sim_config(journal=str(tmp_path / "j.sqlite"), time_control=parse_time_control("9"))
    again = Tracer(cfg, new_game=False)             # (the config's control is the next game's)
    try:
        back = again.step("wait", ["0"])
        assert back["game"]["moves"] == ["h0.0"]
        assert back["clocks"] == kept, "resumed at what was kept, at most CHECKPOINT_S before the cut"
        assert back["clocks"][1] - cut[1] <= CHECKPOINT_S * 1000
        assert again.step("wait", ["1000"])["clocks"] == [kept[0], kept[1] - 1000]
    finally:
        again.close()


def test_a_move_keeps_the_clocks_exactly_and_a_restart_gives_the_increment(tmp_path):
    cfg = sim_config(journal=str(tmp_path / "j.sqlite"), time_control=parse_time_control("2+1"))
    t = Tracer(cfg)
    t.step("wait", ["1500"])
    moved = t.step("place", ["h0.0"])["clocks"]
    t.close()
    again = Tracer(sim_config(journal=str(tmp_path / "j.sqlite")), new_game=False)
    try:
        assert again.step("wait", ["0"])["clocks"] == moved
    finally:
        again.close()


def test_a_game_lost_on_time_stays_lost_after_a_restart(tmp_path):
    cfg = sim_config(journal=str(tmp_path / "j.sqlite"), time_control=parse_time_control("0.05"))
    t = Tracer(cfg)
    t.step("place", ["h0.0"])
    assert t.step("wait", ["5000"])["flag"] == 1
    t.close()
    again = Tracer(sim_config(journal=str(tmp_path / "j.sqlite")), new_game=False)
    try:
        record = again.step("wait", ["0"])
        assert again.referee.flagged == 1 and record["flag"] == 1
        cleared = again.step("lift", ["h0.0"])         # the board cleared: the next game
        assert again.referee.flagged is None and cleared["game"]["moves"] == []
    finally:
        again.close()


def test_unreadable_saved_clocks_start_afresh_and_say_so(tmp_path, caplog):
    cfg = sim_config(journal=str(tmp_path / "j.sqlite"), time_control=parse_time_control("1"))
    t = Tracer(cfg)
    t.step("place", ["h0.0"])
    t.session.journal.save_clocks({"control": "1", "left_ms": [-5, 3]})
    t.close()
    again = Tracer(sim_config(journal=str(tmp_path / "j.sqlite")), new_game=False)
    try:
        assert "left_ms[0]: expected milliseconds of 0 or more; got -5" in caplog.text
        assert again.referee.state.moves and again.referee.clocks.left_ms(0) == [None, None]
    finally:
        again.close()


# --- the computer thinks within its clock -------------------------------------------------------

def test_the_computers_thinking_time_comes_from_its_clock():
    bank = TimeControl(bank_s=300)
    assert think_seconds(3.0, TimeControl(), None) == 3.0           # untimed: its level's
    assert think_seconds(3.0, bank, 300.0) == 3.0                   # plenty: its level's
    assert think_seconds(3.0, bank, 21.0) == pytest.approx(1.0)     # a twentieth of what is left
    assert think_seconds(3.0, TimeControl(bank_s=60, increment_s=2), 11.0) == \
        pytest.approx(0.5 + 1.6)
    assert think_seconds(10.0, TimeControl(per_move_s=5), 5.0) == pytest.approx(2.0)
    assert think_seconds(3.0, bank, 0.5) == LEAST_S                 # almost out: answer at once
    for left in (0.0, 0.3, 1.0, 1.5, 2.0, 5.0, 30.0):
        for control in (bank, TimeControl(bank_s=60, increment_s=30), TimeControl(per_move_s=9)):
            spent = think_seconds(10.0, control, left)
            assert spent <= max(LEAST_S, (left - RESERVE_S) / 2)


def test_the_computer_asks_its_worker_for_no_more_than_its_clock_allows(tmp_path):
    from concurrent.futures import Future

    from board_driver.referee.seats import ComputerSeat

    cfg = sim_config(journal=str(tmp_path / "j.sqlite"), time_control=parse_time_control("0.5"))
    t = Tracer(cfg)
    try:
        t.referee.set_seats(("human", "computer:perfect"))
        asked = []

        def submit(fn, *args):
            asked.append(args)
            return Future()

        seat = ComputerSeat(t.referee, {1: games.ai.level("perfect")}, submit=submit,
                            call_soon=lambda fn, *a: fn(*a), clock=t.clock)
        t.step("place", ["h0.0"])
        seat.poke()
        (position, level, _seed, _processes), = asked
        assert json.loads(position)["moves"] == ["h0.0"]
        assert level.seconds == pytest.approx((30 - RESERVE_S) / 20)   # not its own cap
    finally:
        t.close()


# --- remote play: each move carries its mover's clock ------------------------------------------

def _link(tracer, remote_seat, tmp_path):
    from board_driver.remote.link import RemoteLink, RemoteSettings

    players = ["human", "human"]
    players[remote_seat] = "remote"
    tracer.referee.set_seats(tuple(players))
    settings = RemoteSettings(host="h", port=1, tls=False, game_id="clocks", secret=b"kitchen-42",
                              seat=remote_seat, state_dir=str(tmp_path / f"link{remote_seat}"))
    return RemoteLink(settings, tracer.referee, tracer.clock)


def _deliver(source, target) -> list[str]:
    kinds = []
    while not source._outbox.empty():
        topic, payload, _retain = source._outbox.get_nowait()
        kinds.append(json.loads(payload)["type"])
        target.handle(topic, payload)
    return kinds


def test_two_boards_show_the_same_clocks_and_the_link_charges_nobody(tmp_path):
    async def scenario():
        control = parse_time_control("1+2")
        a = Tracer(sim_config(journal=str(tmp_path / "a.sqlite"), time_control=control))
        b = Tracer(sim_config(journal=str(tmp_path / "b.sqlite"), time_control=control))
        try:
            link_a, link_b = _link(a, 1, tmp_path), _link(b, 0, tmp_path)
            # Each board's presence carries its nonce: then both know the game's epoch.
            hello = rp.Signer(b"kitchen-42", "clocks")
            link_b.handle(rp.presence_topic("clocks", 0),
                          hello.encode(rp.presence_message(0, True, link_a.nonce)))
            link_a.handle(rp.presence_topic("clocks", 1),
                          hello.encode(rp.presence_message(1, True, link_b.nonce)))
            a.step("wait", ["5000"])
            moved = a.step("place", ["h0.0"])["clocks"]
            b.step("wait", ["4000"])          # the move takes 4 s to arrive (B's clock is idle)
            assert "move" in _deliver(link_a, link_b)
            arrived = b.step("wait", ["0"])["clocks"]
            assert arrived == moved           # B shows A's clock as A measured it (+ its 2 s)
            assert 56_900 < moved[0] < 57_000
            assert arrived[1] == 60_000       # the link's delay charged to nobody
            b.step("wait", ["2000"])          # the move is owed on B's board: paused
            b.step("place", ["h0.0"])
            b.step("wait", ["10000"])
            answered = b.step("place", ["v0.0"])["clocks"]
            a.step("wait", ["30000"])         # A's board shows B's clock only estimated...
            _deliver(link_b, link_a)
            assert a.step("wait", ["0"])["clocks"] == answered   # ...then what B measured
            # B's own board decides B's flag: A never flags the other board's seat by itself.
            a.step("place", ["v0.0"])
            a.step("place", ["h0.1"])
            _deliver(link_a, link_b)
            b.step("place", ["h0.1"])
            a.step("wait", ["600000"])
            assert a.referee.flagged is None
            lost = b.step("wait", ["600000"])
            assert lost["flag"] == 1
            assert "flag" in _deliver(link_b, link_a)
            assert a.referee.flagged == 1 and a.step("wait", ["0"])["flag"] == 1
        finally:
            a.close()
            b.close()

    asyncio.run(scenario())


def test_the_protocol_carries_clocks_and_refuses_a_bad_one():
    signer = rp.Signer("kitchen-42", "g", "0123456789abcdef.fedcba9876543210")
    state = games.get_game("tree-planting").new_state()
    state.play(state.parse_move("h0.0"))
    msg = signer.decode(signer.encode(rp.move_message(state, 0, 0, 57_000)))
    assert msg["clock_ms"] == 57_000
    assert rp.on_move(_before(state), 0, msg, 0).clock_ms == 57_000
    assert "clock_ms" not in rp.move_message(state, 0, 0)   # an untimed game: as protocol 1.0
    for bad in (-1, "57", True, rp.MAX_CLOCK_MS + 1):
        body = dict(rp.move_message(state, 0, 0), clock_ms=bad)
        with pytest.raises(rp.RemoteError, match="'clock_ms' of the wrong type or out of range"):
            signer.decode(signer.encode(body))
    flag = signer.decode(signer.encode(rp.flag_message(state, 0, 1)))
    assert rp.flags(state, 0, flag, remote_seat=1)
    assert not rp.flags(state, 0, flag, remote_seat=0)      # our own seat: only we decide it
    assert not rp.flags(state, 1, flag, remote_seat=1)      # from before a takeback
    assert rp.flags(state, 0, rp.state_message(state, 0, 1, flag=1), remote_seat=1)


def _before(state):
    earlier = state.copy()
    earlier.undo()
    return earlier


def test_clocks_in_their_journal_form_refuse_what_they_cannot_read():
    with pytest.raises(ClockError, match="journal: clocks: expected an object"):
        Clocks.from_json([1, 2])
    with pytest.raises(ClockError, match=r"left_ms\[1\]: expected milliseconds"):
        Clocks.from_json({"control": "1", "left_ms": [5, "x"], "turn_of": 0})


# --- set from the door, shown on the page ---------------------------------------------------------

def test_the_door_sets_the_clocks_now_or_from_the_next_game_and_the_page_shows_them(tmp_path):
    from board_driver.web.snapshot import page_state

    t = Tracer(sim_config(journal=str(tmp_path / "j.sqlite")))
    try:
        with pytest.raises(ValueError, match="time control '5x3': expected none"):
            t.door.set_time_control("5x3")
        assert not t.referee.clocks.timed                       # refused: nothing changed
        assert t.door.set_time_control("1,0.5") == "time control 1,0.5 from now"
        record = t.step("wait", ["2000"])
        assert record["clocks"] == [58_000, 30_000]
        page = page_state(t.referee, now=t.clock.now, layout_name="x", token_required=False, version=1,
                          instance="i")
        assert page["clocks"] == {"left_ms": [58_000, 30_000], "running": 0, "flag": None,
                                  "control": "1,0.5"}
        t.step("place", ["h0.0"])
        assert t.door.set_time_control("none") == "time control none from the next game"
        assert t.step("wait", ["1000"])["clocks"][1] < 30_000   # this game keeps its clocks
        t.step("wait", ["60000"])
        page = page_state(t.referee, now=t.clock.now, layout_name="x", token_required=False, version=2,
                          instance="i")
        assert page["clocks"]["flag"] == 1 and page["result"] == \
            "player 2's time ran out: player 1 wins on time"
        assert page["takeback"] is False
        cleared = t.step("lift", ["h0.0"])                      # the next game: untimed
        assert cleared["game"]["moves"] == [] and "clocks" not in cleared
    finally:
        t.close()


@pytest.mark.parametrize("layout, first, loser", [
    ("tree-planting-classic-bridge", "place h0.0", 1),   # sensors on the microcontroller
    ("treeblox-adc", "wait 10", 0),                       # an ADC board
    ("fangqi-7x7-matrix", "place d4", 1),                 # a scanned matrix
    ("game-for-the-trees-matrix", "wait 10", 0),          # a touch board
])
def test_a_flag_on_every_kind_of_board(tmp_path, layout, first, loser):
    cfg = sim_config(layout=layout, journal=str(tmp_path / "j.sqlite"),
                     time_control=parse_time_control("0.05"))
    t = Tracer(cfg)
    try:
        t.step(first.split()[0], first.split()[1:])
        record = t.step("wait", ["10000"])
        assert record["flag"] == loser and record["clocks"][loser] == 0
        seen = {tuple(t.step("wait", ["500"])["leds"]["turn"]) for _ in range(4)}
        assert len(seen) == 2, "the turn LEDs alternate the flag's colour and the winner's"
        with Journal(tmp_path / "j.sqlite") as journal:
            assert journal.history()[0].summary["flag"] == loser
    finally:
        t.close()


def test_the_legend_says_what_the_clocks_show(tmp_path):
    from board_driver import views

    t = Tracer(sim_config(journal=str(tmp_path / "j.sqlite"),
                          time_control=parse_time_control("1")))
    try:
        t.step("wait", ["10"])
        said = {e["name"]: e["means"] for e in views.legend(t.referee.state, t.moment())}
        assert "last 10 seconds" in said["clock"] and "time ran out" in said["flag"]
    finally:
        t.close()
    untimed = Tracer(sim_config(journal=str(tmp_path / "k.sqlite")))
    try:
        untimed.step("wait", ["10"])
        names = {e["name"] for e in views.legend(untimed.referee.state, untimed.moment())}
        assert "flag" not in names and "clock" not in names
    finally:
        untimed.close()


def test_a_process_killed_mid_turn_resumes_its_clocks(tmp_path):
    """A real cut: the board's process dies by SIGKILL (nothing closed, the WAL not folded
    back) in the middle of a turn; the next start resumes each clock as last kept."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    journal = tmp_path / "j.sqlite"
    script = f"""
import json, os, signal
from board_driver.config import sim_config
from board_driver.referee.clock import parse_time_control
from board_driver.referee.tracer import Tracer
t = Tracer(sim_config(journal={str(journal)!r}, time_control=parse_time_control("2+1")))
t.step("wait", ["3000"])
t.step("place", ["h0.0"])
kept = t.step("wait", ["12000"])["clocks"]     # kept in the journal at the end of this wait
cut = t.step("wait", ["2000"])["clocks"]
print(json.dumps([kept, cut]), flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=root, env=dict(os.environ, PYTHONPATH=str(root)), timeout=scaled(60))
    assert done.returncode == -9, done.stderr
    kept, cut = json.loads(done.stdout)
    again = Tracer(sim_config(journal=str(journal)), new_game=False)
    try:
        back = again.step("wait", ["0"])
        assert back["game"]["moves"] == ["h0.0"] and back["clocks"] == kept
        assert 0 <= back["clocks"][1] - cut[1] <= CHECKPOINT_S * 1000
    finally:
        again.close()


def test_the_voice_is_told_one_minute_ten_seconds_and_the_flag_once_each(tmp_path):
    from board_driver.views.narrate import Narrator

    t = Tracer(sim_config(journal=str(tmp_path / "j.sqlite"),
                          time_control=parse_time_control("1.1")))     # 66 s
    try:
        narrator = Narrator()
        said = lambda: [s.spoken for s in narrator.clock(t.moment())]  # noqa: E731
        t.step("wait", ["5000"])
        assert said() == []                                           # 61 s left
        t.step("wait", ["2000"])
        assert said() == ["player 1: one minute left"] and said() == []
        t.step("wait", ["50000"])
        assert said() == ["player 1: 10 seconds left"]
        t.step("wait", ["10000"])
        assert said() == ["player 1's time ran out: player 2 wins on time"] and said() == []
    finally:
        t.close()
