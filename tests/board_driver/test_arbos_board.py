"""Arbos on the simulated 8x8 matrix board (gpiozero mock pins, presence sensors, an end-turn
button): a whole game through `treeboard trace`, the seed-replacement gesture (also a swap
faster than the debounce), the turn time limit, trees over the limit, the end's lights, and
the power budget of the 20x20 layout."""

from __future__ import annotations

import json
import re

import pytest

import games
from board_driver import cli
from board_driver.config import sim_config
from board_driver.referee.tracer import Tracer
from board_driver.views.arbos import SEED_GREEN, SEED_LEVEL, border, hint_colours
from board_driver import views
from board_driver.views.base import scale
from board_driver.views.paint import Paint
from hardware.base import PRESENT, SensorEvent
from hardware.layout import load_layout
from hardware.leds import Leds, RecordingStrip, estimate_milliamps

LAYOUT = "arbos-8x8-matrix"
CHOSEN = {"board": "8x8", "setup": "chosen"}
SETUP = ["seed A1", "seed D4", "seed A7", "seed H8"]  # black's A1 A7, white's D4 H8
# A whole game: trees, a replacement with its follow-ups, a fourth tree and a removal, then two
# passes. White's D4 links C3 and E5; black's A7 links A6(-B5) and A8: 1 to 1, black wins.
GAME = SETUP + ["C3", "A6", "E5", "A8", "H8=", "G7", "F8", "B5", "F2", "xF2", "pass", "pass"]


def actions(move: str) -> list[str]:
    """What a player does on the board for a move."""
    if move == "pass":
        return ["press end_turn"]
    if move.startswith("seed "):
        return [f"place {move[5:]}"]
    if move.endswith("="):
        return [f"lift {move[:-1]}", f"place {move[:-1]}"]
    if move.startswith("x"):
        return [f"lift {move[1:]}"]
    return [f"place {move}"]


@pytest.fixture
def tracer(tmp_path):
    made = []

    def make(**overrides):
        overrides.setdefault("turn_seconds", 0)  # off in tests unless asked
        overrides.setdefault("game_options", CHOSEN)  # these tests choose the seeds' cells
        t = Tracer(sim_config(layout=LAYOUT, journal=str(tmp_path / f"j{len(made)}.sqlite"),
                              **overrides))
        made.append(t)
        return t

    yield make
    for t in made:
        t.close()


def shown(t, site):
    return tuple(t.referee.site_colours()[site])


def as_strip(t, colour):
    return t.session.hardware.leds.correct([colour])[0]


def colour(t, name):
    return t.session.config.colours[name]


def play(t, *moves):
    record = None
    for move in moves:
        for line in actions(move):
            verb, site = line.split()
            record = t.step(verb, [site])
    return record


def test_a_whole_game_through_treeboard_trace(tmp_path, capsys):
    trace = tmp_path / "game.trace"
    trace.write_text("# a whole Arbos game on the 8x8 matrix board\n"
                     + "\n".join(a for m in GAME for a in actions(m)) + "\n")
    assert cli.main(["trace", "--layout", LAYOUT, "--setup", "chosen", str(trace)]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    reference = games.get_game("arbos").new_state(**CHOSEN)
    reference.play_all(GAME)
    # every action is accepted at once, but the replacement's lift, which asks for the spore
    assert [r["action"] for r in records if r["corrections"]] == ["lift H8"]
    final = records[-1]["game"]
    assert final == reference.summary()
    assert final["over"] and final["scores"] == [1, 1] and final["winner"] == 1


def test_setup_lights_where_the_next_seed_may_go(tracer):
    t = tracer()
    t.step("place", ["A1"])
    state = t.referee.state
    # black puts down one of white's seeds: the cells it may go glow faintly in white's colour
    hint = as_strip(t, hint_colours(t.session.config.colours, 1)["setup"])
    assert shown(t, "A4") == hint and shown(t, "H8") == hint
    assert shown(t, "B2") == (0, 0, 0) and shown(t, "A3") == (0, 0, 0)  # too close to A1
    assert shown(t, "A1") == as_strip(t, scale(colour(t, "player1"), SEED_LEVEL))  # black's seed
    assert set(state.legal_cells()) == {s for s in state.sites()
                                        if shown(t, s) == hint}


def test_play_lights_legal_cells_by_kind(tracer):
    t = tracer(moves="legal")
    play(t, *SETUP, "C3")  # black to move; C3 is white's
    hints = {k: as_strip(t, v) for k, v in hint_colours(t.session.config.colours, 1).items()}
    assert shown(t, "B7") == hints["seed"]  # next to A7
    assert shown(t, "F2") == hints["free"]  # free-standing
    assert shown(t, "C4") == (0, 0, 0)  # beside white's spore C3 by a side: not for black
    assert shown(t, "A1") == hints["replace"]  # a seed black may replace
    # on the strip (gamma, the layout's brightness) every kind is visible and told apart
    seed = as_strip(t, scale(colour(t, "player1"), SEED_LEVEL))
    assert len({*hints.values(), seed}) == 5 and min(max(v) for v in hints.values()) >= 4
    t2 = tracer(moves="off")
    play(t2, *SETUP, "C3")
    assert shown(t2, "F2") == (0, 0, 0) and shown(t2, "B7") == (0, 0, 0)


def test_the_replacement_gesture_blinks_then_lights_the_follow_ups(tracer):
    t = tracer()
    play(t, *SETUP, "C3", "A6")
    record = t.step("lift", ["D4"])  # white lifts their own seed: the replacement
    assert record["game"]["moves"][-1] == "D4=" and record["corrections"] == ["D4"]
    seen = set()
    for _ in range(4):
        t.step("wait", ["250"])
        seen.add(shown(t, "D4"))
    assert seen == {as_strip(t, colour(t, "player0")), (0, 0, 0)}  # "put your spore here"
    record = t.step("place", ["D4"])
    assert record["corrections"] == [] and t.referee.state.follow_ups_left == 2
    assert shown(t, "E5") != (0, 0, 0)  # a follow-up may go there
    play(t, "E5", "F6")
    assert t.referee.state.to_move == 1 and [str(m) for m in t.referee.state.moves[-3:]] == \
        ["D4=", "E5", "F6"]


def test_a_seed_lifted_when_it_may_not_be_replaced_blinks_until_put_back(tracer):
    t = tracer()
    play(t, *SETUP)
    record = t.step("lift", ["A1"])  # black's seed, on white's turn: no move takes it off
    assert record["corrections"] == ["A1"] and record["game"]["moves"] == SETUP
    seen = set()
    for _ in range(4):
        t.step("wait", ["250"])
        seen.add(shown(t, "A1"))
    assert seen == {as_strip(t, colour(t, "player1")), (0, 0, 0)}  # blinks: put it back
    assert t.step("place", ["A1"])["corrections"] == []
    play(t, "D4=")
    record = t.step("lift", ["H8"])  # white's other seed, during the follow-ups: no move
    assert record["corrections"] == ["H8"] and record["game"]["moves"][-1] == "D4="
    record = t.step("place", ["H8"])
    assert record["corrections"] == []


def test_a_swap_faster_than_the_debounce_is_a_replacement(tracer):
    t = tracer()
    play(t, *SETUP)
    ref = t.referee
    channel = t.session.layout.channels_of_site["D4"][0]
    now = t.clock.now
    ref.feed(SensorEvent(channel, None, now))            # the seed out ...
    ref.feed(SensorEvent(channel, PRESENT, now + 0.005))  # ... the spore in, 5 ms later
    assert ref.debouncer.pending() == {}  # the debouncer saw a bounce
    t.clock.now = ref.next_deadline()
    assert ref.tick(t.clock.now)
    assert [str(m) for m in ref.state.moves][-1] == "D4=" and ref.corrections == []
    assert ref.state.follow_ups_left == 2
    play(t, "E5", "C5")
    assert ref.state.to_move == 1


def test_two_tokens_at_once_are_corrected_then_one_is_played(tracer):
    t = tracer()
    play(t, *SETUP)
    t.board.place("C3")
    t.board.place("F6")
    t.settle()
    assert [c.site for c in t.referee.corrections] == ["C3", "F6"]
    record = t.step("lift", ["F6"])
    assert record["game"]["moves"][-1] == "C3" and record["corrections"] == []


def test_a_fourth_tree_pulses_until_a_spore_comes_off(tracer):
    t = tracer()
    play(t, *SETUP, "B3", "pass", "B5", "pass", "F3", "pass")
    record = play(t, "F5")
    assert record["game"]["to_move"] == 0 and t.referee.state.must_remove
    levels = set()
    for _ in range(5):
        t.step("wait", ["200"])
        levels.add(shown(t, "F5"))
    assert len(levels) >= 3  # F5, the smallest tree beyond three (reading order), pulses
    assert len({shown(t, "B3")}) == 1
    record = t.step("lift", ["B3"])  # any spore of white's
    assert record["game"]["moves"][-1] == "xB3" and record["game"]["to_move"] == 1
    a = shown(t, "F5")
    t.step("wait", ["300"])
    assert shown(t, "F5") == a


def test_scoring_seeds_are_lit_at_the_end(tracer):
    t = tracer()
    play(t, *SETUP, "C3", "pass", "E5", "pass", "pass")
    state = t.referee.state
    assert state.is_over() and state.scores() == (1, 0) and state.winner() == 0
    t.step("wait", ["7000"])  # after the winner's show
    assert shown(t, "D4") == as_strip(t, SEED_GREEN)
    assert shown(t, "C3") == shown(t, "E5") == as_strip(t, colour(t, "player0"))
    assert shown(t, "H8") == as_strip(t, scale(colour(t, "player0"), SEED_LEVEL))  # no score


def test_10_an_expired_turn_is_a_pass_and_the_last_30_seconds_run_out(tracer):
    t = tracer(turn_seconds=60)
    play(t, *SETUP)
    ring = border(t.referee.state)
    t.step("wait", ["29000"])
    assert all(shown(t, s) != as_strip(t, colour(t, "player0")) for s in ring if s not in
               t.referee.state.occupancy())
    t.step("wait", ["16000"])  # 15 s left: half the border, in white's colour
    lit = [s for s in ring if shown(t, s) == as_strip(t, colour(t, "player0"))]
    assert 0.3 * len(ring) < len(lit) < 0.7 * len(ring)
    record = t.step("wait", ["16000"])
    assert record["game"]["moves"][-1] == "pass" and record["game"]["to_move"] == 1
    # a begun turn (a replacement) is cut short too: its follow-ups are forfeited (`time`)
    play(t, "A1=")
    # (the pass fell at its exact deadline, 1 s before the wait's end: 59 s are left)
    assert t.referee.clocks.left(1, t.clock.now) == pytest.approx(59, abs=0.1)
    record = t.step("wait", ["58000"])
    assert record["game"]["moves"][-1] == "A1=" and record["game"]["to_move"] == 1
    record = t.step("wait", ["2000"])
    assert record["game"]["moves"][-2:] == ["A1=", "time"] and record["game"]["to_move"] == 0
    assert record["corrections"] == [] and t.referee.state.occupancy()["A1"] == "spore:1"


def test_10_a_timed_out_fourth_tree_comes_off_and_the_board_asks_to_lift_it(tracer):
    t = tracer(turn_seconds=60)
    play(t, *SETUP, "C3", "pass", "E5", "pass", "G2", "pass", "B8")
    state = t.referee.state
    assert state.must_remove and state.tree_count(0) == 4
    record = t.step("wait", ["61000"])
    # the smallest trees beyond three come off; among equals the last in reading order (G2)
    assert record["game"]["moves"][-1] == "time" and record["game"]["to_move"] == 1
    assert record["corrections"] == ["G2"] and "G2" not in state.occupancy()
    assert shown(t, "G2") == as_strip(t, colour(t, "wrong"))
    record = t.step("lift", ["G2"])
    assert record["corrections"] == [] and record["game"]["moves"][-1] == "time"


def test_the_20x20_layout_keeps_an_all_white_frame_under_its_supply():
    layout = load_layout("arbos-20x20-bridge")
    assert "5 V 10 A" in layout.path.read_text() and layout.leds.max_milliamps == 8000
    strip = RecordingStrip(layout.led_count, layout.leds.pixel_order)
    leds = Leds(layout, strip, brightness=1.0)
    leds.show({site: (255, 255, 255) for site in layout.sites})
    assert leds.limited
    assert estimate_milliamps(leds.shown) <= layout.leds.max_milliamps
    assert estimate_milliamps([(255, 255, 255)] * 400) == 24_000  # what it would have drawn


@pytest.mark.parametrize("value, message", [
    (-1, "turn_seconds: expected a number of seconds from 0 (no limit) to 86400; got -1"),
    ("5m", "turn_seconds: expected a number of seconds from 0 (no limit) to 86400; got '5m'"),
    (True, "turn_seconds: expected a number of seconds"),
])
def test_a_bad_turn_limit_in_the_config_is_refused_by_name(value, message):
    from board_driver.config import ConfigError, parse_config

    with pytest.raises(ConfigError, match="^board.toml: " + re.escape(message)):
        parse_config({"turn_seconds": value}, "board.toml")
    assert parse_config({"turn_seconds": 0}, "board.toml").turn_seconds == 0.0


def test_a_knocked_piece_in_another_game_is_still_nothing(tmp_path):
    """The referee's memory of quick lifts keeps only a move: a Tree Planting rod whose
    sensor blinks open (a knock) is neither taken back nor corrected."""
    t = Tracer(sim_config(journal=str(tmp_path / "tp.sqlite")))
    try:
        t.step("place", ["h0.0"])
        ref = t.referee
        channel = t.session.layout.channels_of_site["h0.0"][0]
        ref.feed(SensorEvent(channel, None, t.clock.now))
        ref.feed(SensorEvent(channel, PRESENT, t.clock.now + 0.004))
        t.clock.now = ref.next_deadline()
        ref.tick(t.clock.now)
        assert [str(m) for m in ref.state.moves] == ["h0.0"] and ref.corrections == []
        assert t.session.journal.current().moves == ["h0.0"]
    finally:
        t.close()


# --- reading 13: the drawn setup on the board ------------------------------------------------

DRAWN = {"board": "8x8", "setup_seed": 7}  # draws B6, D2, H7, E7 (tests/games/test_arbos.py)
# A whole game from the drawn setup: white's D2 links C1 and E3, black's H7 links G6 and H8;
# white's E7 only F6. 1:1, a tie: black wins.
DRAWN_GAME = ["seed B6", "seed D2", "seed H7", "seed E7", "C1", "G6", "E3", "H8", "F6", "pass",
              "pass"]


def test_13_a_whole_game_from_the_drawn_setup_through_treeboard_trace(tmp_path, capsys):
    trace = tmp_path / "game.trace"
    trace.write_text("# a seed misplaced first: the board drew B6\nplace A1\nlift A1\n"
                     + "\n".join(a for m in DRAWN_GAME for a in actions(m)) + "\n")
    assert cli.main(["trace", "--layout", LAYOUT, "--setup-seed", "7", str(trace)]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    reference = games.get_game("arbos").new_state(**DRAWN)
    reference.play_all(DRAWN_GAME)
    assert records[0]["corrections"] == ["A1"] and records[0]["game"]["moves"] == []
    assert [r["action"] for r in records if r["corrections"]] == ["place A1"]
    final = records[-1]["game"]
    assert final == reference.summary() and final["setup_seed"] == 7
    assert final["over"] and final["scores"] == [1, 1] and final["winner"] == 1


@pytest.mark.parametrize("moves", ["off", "legal"])
def test_13_the_drawn_cell_is_lit_in_the_seeds_owners_colour_whatever_the_hints(tracer, moves):
    t = tracer(game_options=DRAWN, moves=moves)
    # white puts black's seed: B6 in black's colour, at full strength; no other cell is lit
    assert shown(t, "B6") == as_strip(t, colour(t, "player1"))
    assert [s for s, c in t.referee.site_colours().items() if any(c)] == ["B6"]
    t.step("place", ["B6"])
    assert shown(t, "D2") == as_strip(t, colour(t, "player0"))  # black puts white's seed
    assert shown(t, "B6") == as_strip(t, scale(colour(t, "player1"), SEED_LEVEL))
    record = t.step("place", ["C3"])  # not the drawn cell: a correction, nothing played
    assert record["corrections"] == ["C3"] and record["game"]["moves"] == ["seed B6"]
    svg = views.svg(t.referee.state, t.moment())
    assert ">Put White's seed on D2</text>" in svg and "seed on D2: the board drew it" in svg
    assert "put White's seed on D2" in views.terminal(t.referee.state, t.moment(), Paint(False))
    assert views.notice(t.referee.state) == "put White's seed on D2 (the board drew it)"  # the page


def test_13_a_resumed_game_draws_the_same_and_a_new_game_draws_again(tmp_path):
    journal = str(tmp_path / "j.sqlite")
    t = Tracer(sim_config(layout=LAYOUT, journal=journal, turn_seconds=0))
    seed = t.referee.state.options()["setup_seed"]
    first = t.referee.state.drawn_cell()
    t.step("place", [first])
    second = t.referee.state.drawn_cell()
    t.close()
    # a restart (a power cut): the journal's game, with its seed, goes on where it was
    t = Tracer(sim_config(layout=LAYOUT, journal=journal, turn_seconds=0), new_game=False)
    try:
        state = t.referee.state
        assert state.options()["setup_seed"] == seed and [str(m) for m in state.moves] == [
            f"seed {first}"]
        assert state.drawn_cell() == second
        # a new game on the same board draws again (its own seed, kept in the journal)
        t.door.new_game()
        t.step("lift", [first])
        assert t.referee.state.moves == []
        seeds = {t.referee.state.options()["setup_seed"]}
        for _ in range(3):
            t.door.new_game()
            seeds.add(t.referee.state.options()["setup_seed"])
        assert len(seeds) == 4 and seed not in seeds
        assert t.session.journal.current().options["setup_seed"] in seeds
    finally:
        t.close()
