"""Game for the Trees on the simulated 8x8 board, played by touch: a magnet wand on the
matrix's reed sensors (gpiozero mock pins, the real scan), the LEDs read back from the
recording strip. Whole games, choices of order, retreats by holding, a power cut."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

import games
from board_driver.config import sim_config
from board_driver.referee.tracer import Tracer
from board_driver.views.game_for_the_trees import KIND_COLOURS
from games.game_for_the_trees import square_name
from hardware.leds import gamma_table
from tests.waits import scaled


@pytest.fixture
def board(tmp_path):
    made = []

    def make(layout="game-for-the-trees-matrix", new_game=True, **options):
        t = Tracer(sim_config(layout=layout, journal=str(tmp_path / "j.sqlite"),
                              game_options=options or None), new_game=new_game)
        made.append(t)
        return t
    yield make
    for t in made:
        t.close()


def tap(t, site):
    t.step("place", [site])
    return t.step("lift", [site])


def hold(t, site):
    t.step("place", [site])
    t.step("wait", ["1500"])
    return t.step("lift", [site])


def play_by_touch(t, move):
    """Make `move` with the wand as a player would; returns the last record."""
    src = square_name(move.src)
    if move.action == "retreat":
        hold(t, src)           # a hold only offers the retreat...
        return tap(t, src)     # ...a second tap confirms it
    tap(t, src)
    dst = square_name(move.dst)
    record = tap(t, dst)
    for _ in range(20):
        if not t.referee.touch.choice:
            break
        if t.referee.touch.offered == move:
            record = tap(t, dst)
        else:
            record = tap(t, src)  # the source again: the next offer
    return record


def as_strip(t, colour, brightness=None):
    """What the strip gets for a frame colour (gamma, then the brightness cap)."""
    g = gamma_table(t.session.layout.leds.gamma)
    b = t.session.hardware.leds.brightness if brightness is None else brightness
    return [round(g[v] * b) for v in colour]


def non_losing(state, rng):
    """A random legal move, avoiding one that loses at once when there is another."""
    moves = state.legal_moves()
    rng.shuffle(moves)
    for move in moves:
        probe = state.copy()
        probe.play(move)
        if not probe.is_over() or probe.winner() == state.to_move:
            return move
    return moves[0]


@pytest.mark.parametrize("seed", [5, 6])
def test_a_whole_game_by_touch(board, seed):
    t = board(limit=24)
    rng = random.Random(seed)
    reference = games.get_game("game-for-the-trees").new_state(limit=24)
    record = None
    while not reference.is_over():
        move = non_losing(reference, rng)
        record = play_by_touch(t, move)
        reference.play(move)
        assert record["game"]["moves"] == [str(m) for m in reference.moves]
        assert record["corrections"] == []  # a touch board has nothing to correct
    assert record["game"] == reference.summary()
    assert record["game"]["over"] and reference.end_reason in ("limit", "huckleberry",
                                                               "mutual", "stalemate")


def test_tap_shows_targets_and_tapping_the_source_again_cancels(board):
    t = board()
    colours = t.session.config.colours
    record = tap(t, "b1")  # the Ash: it may grow to d2 only
    assert t.referee.touch.describe()["targets"] == ["d2"]
    assert record["leds"]["b1"] == as_strip(t, (200, 200, 200))
    # the target blinks: lit in "safe" green, or dark between blinks... read it when on
    t.step("wait", ["0"])
    lit = [as_strip(t, colours["safe"]), as_strip(t, (0, 0, 0))]
    assert record["leds"]["d2"] in lit
    record = tap(t, "b1")
    assert t.referee.touch.selected is None and record["game"]["moves"] == []
    record = tap(t, "a5")  # bare ground: nothing begins there
    assert t.referee.touch.selected is None and record["game"]["moves"] == []
    tap(t, "b1")
    record = tap(t, "d2")
    assert record["game"]["moves"] == ["Ab1-d2"] and record["game"]["to_move"] == 1


def test_tapping_another_source_moves_the_selection(board):
    t = board()
    tap(t, "b1")
    tap(t, "a3")  # not a target of the Ash, but White grass: selected instead
    assert t.referee.touch.selected == "a3"
    record = tap(t, "a4")
    assert record["game"]["moves"] == ["a3-a4"]


def test_an_order_choice_is_offered_and_cycled(board):
    t = board()
    for move in ("Ab1-d2", "h7-h6"):
        play_by_touch(t, t.referee.state.parse_move(move))
    tap(t, "g2")
    record = tap(t, "f3")  # two turns lead here: the default order, and the Ash first
    touch = t.referee.touch
    assert touch.describe()["choice"] == ["g2-f3", "g2-f3/d2>f3,g2>f3"]
    assert record["game"]["moves"] == ["Ab1-d2", "h7-h6"]
    # the board previews the offered turn: f3 lit as the Ash's square (the owner's colour)
    assert touch.describe()["offered"] == "g2-f3"
    tap(t, "g2")  # the source: the next offer
    assert touch.describe()["offered"] == "g2-f3/d2>f3,g2>f3"
    record = tap(t, "f3")  # the target: play it
    assert record["game"]["moves"][-1] == "g2-f3/d2>f3,g2>f3"
    assert t.referee.state.square("f3")["terrain"] == "underbrush"


def test_a_chain_is_stopped_by_touch(board):
    t = board()
    for move in ("Ab1-d2", "h7-h6"):
        play_by_touch(t, t.referee.state.parse_move(move))
    tap(t, "d2")
    assert "f3" in t.referee.touch.describe()["targets"]  # the chain's next square
    record = tap(t, "f3")
    assert record["game"]["moves"][-1] == "stop:d2>f3"


def test_hold_offers_the_retreat_a_second_tap_confirms_and_a_finished_game_restarts_on_hold(
        board):
    t = board(limit=2)
    colours = t.session.config.colours
    record = hold(t, "a3")
    assert record["game"]["moves"] == []          # a slow hand never destroys: only offered
    touch = t.referee.touch
    assert touch.confirming and str(touch.offered) == "retreat:a3"
    assert touch.words("game-for-the-trees") == ("retreat from a3? tap a3 again to confirm; any other square cancels")
    # the square blinks in the "unsafe" colour (on at whole seconds)
    t.step("wait", [str(round((1.1 - t.clock.now % 1) * 1000))])
    assert t.session.hardware.leds.shown is not None
    assert t.referee.site_colours()["a3"] == as_strip(t, colours["unsafe"])
    record = tap(t, "b4")                         # anything else cancels
    assert record["game"]["moves"] == [] and touch.selected is None
    assert touch.note_words(("White", "Black")) == "tap on b4: cancelled, nothing is selected"
    hold(t, "a3")
    record = tap(t, "a3")                         # the second tap confirms
    assert record["game"]["moves"] == ["retreat:a3"]
    record = tap(t, "h6")
    record = tap(t, "h5")
    assert record["game"]["over"] and record["game"]["moves"] == ["retreat:a3", "h6-h5"]
    record = tap(t, "a1")  # a tap on a finished game does nothing
    assert record["game"]["over"]
    record = hold(t, "e4")  # a hold starts the next game
    assert record["game"]["moves"] == [] and not record["game"]["over"]


def test_the_leds_carry_the_position(board):
    t = board()
    c = t.session.config.colours
    t.step("wait", ["250"])  # away from the winks and flashes at whole seconds
    leds = t.step("wait", ["0"])["leds"]
    assert leds["a4"] == [0, 0, 0]                                      # bare ground
    grass, under, tree = leds["a3"], leds["a2"], leds["b1"]
    assert sum(grass) < sum(under) < sum(tree)                          # brightness: terrain
    assert leds["b1"] == as_strip(t, c["player0"]) and leds["b8"] == as_strip(t, c["player1"])
    assert leds["turn"] == as_strip(t, c["player0"])


def test_the_quad_layout_shows_kind_root_and_momentum(board):
    t = board(layout="game-for-the-trees-quad-matrix")
    play_by_touch(t, t.referee.state.parse_move("Ab1-d2"))
    t.step("wait", ["250"])
    leds = t.step("wait", ["0"])["leds"]
    assert leds["b1:kind"] == as_strip(t, KIND_COLOURS["Ash"]) == leds["d2:kind"]
    assert leds["a1:kind"] == as_strip(t, KIND_COLOURS["Birch"])
    assert leds["b1:root"] != [0, 0, 0] and leds["d2:root"] == [0, 0, 0]
    assert leds["a4:kind"] == [0, 0, 0]


def test_a_power_cut_mid_game_resumes_with_momentum(board, tmp_path):
    t = board()
    for move in ("Ab1-d2", "h7-h6"):
        play_by_touch(t, t.referee.state.parse_move(move))
    assert t.referee.state.chains(0) == ["d2>f3"]
    t.session.hardware.close()  # the power goes: the strip and sensors are gone, nothing saved
    t2 = board(new_game=False)
    state = t2.referee.state
    assert [str(m) for m in state.moves] == ["Ab1-d2", "h7-h6"]
    assert state.chains(0) == ["d2>f3"] and state.chains(1) == ["h6>h5"]
    record = play_by_touch(t2, state.parse_move("g2-f3"))  # the Ash's momentum carries on
    assert record["game"]["moves"][-1] == "g2-f3"
    assert state.square("f3")["kind"] == "Ash" and state.chains(0) == ["f3>h4"]


def test_a_touch_game_through_treeboard_trace(tmp_path):
    f = tmp_path / "touch.trace"
    f.write_text("# the Ash b1-d2 by touch, then a cancelled selection\n"
                 "place b1\nlift b1\nplace d2\nlift d2\n"
                 "place h7\nlift h7\nplace h7\nlift h7\n")
    out = subprocess.run([sys.executable, "-m", "board_driver.cli", "trace", "--layout",
                          "game-for-the-trees-matrix", str(f)],
                         capture_output=True, text=True, timeout=scaled(60))
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(lines) == 8
    assert lines[3]["game"]["moves"] == ["Ab1-d2"] and lines[-1]["game"]["moves"] == ["Ab1-d2"]
    assert lines[-1]["game"]["to_move"] == 1
    assert all(r["corrections"] == [] for r in lines)


def test_touch_over_the_bridge_layout_through_the_simulated_firmware(tmp_path):
    """The bridge variant: the daemon on the simulated RP2040's pty, real time; a tap is the
    wand on a square until the daemon feels it, then off again."""
    import asyncio

    from board_driver.daemon.loop import Daemon
    from board_driver.daemon.notify import Notifier
    from tests.waits import wait_for
    from web_harness import started

    cfg = sim_config(journal=str(tmp_path / "j.sqlite"), backend="bridge", bridge_port="sim",
                     layout="game-for-the-trees-bridge")
    daemon = Daemon(cfg, notifier=Notifier(None))

    async def scenario():
        async with started(daemon):
            loop = asyncio.get_running_loop()

            async def until(condition):
                assert await loop.run_in_executor(None, wait_for, condition)

            await until(lambda: daemon.session is not None)
            board = daemon.session.hardware.board
            ref = daemon.session.referee

            async def tap(site):
                board.place(site)
                await until(lambda: ref.physical.get(site) is not None)
                board.lift(site)
                await until(lambda: ref.physical.get(site) is None)

            await tap("b1")
            await until(lambda: ref.touch.selected == "b1")
            await tap("d2")
            await until(lambda: [str(m) for m in ref.state.moves] == ["Ab1-d2"])
            # the firmware's strip shows what the daemon rendered for the Ash's new square
            led = daemon.session.layout.leds_of_site["d2"][0]
            firmware = board.firmware
            await until(lambda: firmware.leds()[led] == daemon.session.hardware.leds.shown[led]
                        != (0, 0, 0))

    asyncio.run(scenario())


def test_treeboard_replay_reads_every_kind_of_turn(tmp_path):
    f = tmp_path / "game.txt"
    f.write_text("Ab1-d2 h7-h6\ng2-f3/d2>f3,g2>f3 stop:h6>h5\nHe1^c3 retreat:h6\n"
                 "retreat:a2 a4-a5\n")
    out = subprocess.run([sys.executable, "-m", "board_driver.cli", "replay", "--game",
                          "game-for-the-trees", "--limit", "50", str(f)],
                         capture_output=True, text=True, timeout=scaled(60))
    assert out.returncode == 2 and out.stdout == ""
    assert "move 8 (a4-a5): a4 holds bare ground" in out.stderr
    f.write_text("Ab1-d2 h7-h6\ng2-f3/d2>f3,g2>f3 stop:h6>h5\nHe1^c3 retreat:h6\n")
    out = subprocess.run([sys.executable, "-m", "board_driver.cli", "replay", "--game",
                          "game-for-the-trees", "--limit", "50", str(f)],
                         capture_output=True, text=True, timeout=scaled(60))
    assert out.returncode == 0, out.stderr
    game = json.loads(out.stdout)
    assert game["moves"] == ["Ab1-d2", "h7-h6", "g2-f3/d2>f3,g2>f3", "stop:h6>h5", "He1^c3",
                             "retreat:h6"]
    assert game["limit"] == 50 and game["to_move"] == 0


TOUCH_KILLER = r"""
import sys
from board_driver.config import sim_config
from board_driver.referee.tracer import Tracer
t = Tracer(sim_config(layout="game-for-the-trees-matrix", journal=sys.argv[1]))
for src, dst in [("b1", "d2"), ("h7", "h6"), ("a2", "a3"), ("g7", "g6")]:
    for site in (src, dst):
        t.step("place", [site])
        t.step("lift", [site])
    print("ACCEPTED", " ".join(str(m) for m in t.referee.state.moves), flush=True)
sys.stdin.readline()  # wait here, mid-game, for the power to go
"""


def test_sigkill_mid_game_resumes_with_momentum(tmp_path):
    """The board process dies (SIGKILL: no clean-up at all) after four turns by touch; the
    next process resumes the game from the journal with every chain where it was."""
    journal = tmp_path / "j.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", TOUCH_KILLER, str(journal)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    accepted = []
    for _ in range(4):
        accepted = proc.stdout.readline().split()[1:]
    proc.kill()
    proc.wait(timeout=scaled(10))
    proc.stdout.close()
    proc.stdin.close()
    assert accepted == ["Ab1-d2", "h7-h6", "a2-a3", "g7-g6"]
    t = Tracer(sim_config(layout="game-for-the-trees-matrix", journal=str(journal)),
               new_game=False)
    try:
        state = t.referee.state
        assert [str(m) for m in state.moves] == accepted
        assert state.chains(0) == ["a3>a4"]          # the Ash's d2>f3 autostopped (f3 grass)
        assert state.chains(1) == ["g6>g5"]          # and Black's h6>h5 (h5 bare)
        record = play_by_touch(t, state.parse_move("b3-a4"))  # grass first: a4 becomes grass,
        assert record["game"]["moves"][-1] == "b3-a4"         # then the chain grows onto it
        assert state.square("a4")["terrain"] == "underbrush" and "a4>a5" in state.chains(0)
    finally:
        t.close()
