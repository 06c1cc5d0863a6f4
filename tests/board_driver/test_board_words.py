"""Say what the board means: one legend for the LEDs, the sim and the page; colour words as
drawn; hints redrawn when they arrive; a pass on time says why; the mover's notice and which
player you are, in the page's state; what a refusal names. Traced boards (simulated time)."""

from __future__ import annotations

import io

import pytest

import games
from board_driver import views
from board_driver.cli.sim import Terminal, legend_lines
from board_driver.config import sim_config
from board_driver.referee.tracer import Tracer
from board_driver.views.base import Moment, colour_name, correction_words
from board_driver.moment import Correction
from board_driver.web.snapshot import page_state
from board_driver.config import DEFAULT_COLOURS
from tests.board_driver.test_arbos_board import SETUP, play


@pytest.fixture
def board(tmp_path):
    made = []

    def make(**overrides):
        t = Tracer(sim_config(journal=str(tmp_path / f"j{len(made)}.sqlite"), **overrides),
                   new_game=True)
        made.append(t)
        return t

    yield make
    for t in made:
        t.close()


def state_json(t):
    return page_state(t.referee, now=t.clock.now, layout_name=t.session.layout.name, token_required=False,
                      version=1, instance="x")


def test_one_legend_names_every_colour_shown_and_the_page_and_sim_read_it(board):
    t = board()
    t.door.set_hint_mode("best")
    legend = views.legend(t.referee.state, t.moment())
    by_name = {e["name"]: e for e in legend}
    assert by_name["best"]["label"] == "sky blue" and "best move" in by_name["best"]["means"]
    assert by_name["player0"]["label"] == "blue" and by_name["player1"]["label"] == "yellow"
    assert by_name["wrong"]["colour"] == "#ff0000"
    assert state_json(t)["legend"] == legend                      # the page reads the same
    printed = "\n".join(legend_lines(t.moment(), views.Paint(False)))
    assert "sky blue: the computer's best move" in printed         # and the sim prints it
    t.door.set_hint_mode("off")                                        # no hint colours then
    assert not {"best", "safe", "unsafe"} & {e["name"] for e in
                                             views.legend(t.referee.state, t.moment())}


def test_a_touch_game_legend_says_what_its_blinks_mean(board):
    t = board(layout="game-for-the-trees-matrix")
    t.door.set_hint_mode("off")
    means = {e["name"]: e["means"] for e in views.legend(t.referee.state, t.moment())}
    assert "may grow" in means["safe"] and "tap again to confirm" in means["unsafe"]
    assert "that tap did nothing" in means["wrong"]


def test_the_sim_redraws_when_the_hints_arrive(board):
    t = board()
    t.door.set_hint_mode("best")
    terminal = Terminal(io.StringIO(), clock=t.clock)
    terminal.start(t.session)
    terminal(t.session)
    assert "·*·" not in terminal.out.getvalue()
    t.referee.set_hints({"h0.0": "best", "v0.0": "loses"})   # the worker's answer comes back
    terminal(t.session)
    drawn = terminal.out.getvalue()
    assert "+·*·+" in drawn and "·*· the computer's best move" in drawn


def test_no_hints_light_while_the_other_seat_is_to_move(board):
    t = board()
    t.door.set_hint_mode("safe")
    t.referee.set_seats(("human", "remote"))
    safe = t.session.config.colours["safe"]
    frame, _ = t.referee.frame(t.clock())
    assert safe in frame.values()                                  # the player here: hints
    t.referee.set_seats(("remote", "human"))                          # the other family's turn
    frame, _ = t.referee.frame(t.clock())
    assert safe not in frame.values()


def test_colour_words_match_what_is_drawn():
    assert colour_name(DEFAULT_COLOURS["player0"]) == "blue"
    assert colour_name(DEFAULT_COLOURS["best"]) == "sky blue"
    assert correction_words(Correction("a1", "black", None), ("Black", "White")) == \
        "put a black counter here"
    view = Moment.still(dict(DEFAULT_COLOURS))
    arbos = games.get_game("arbos").new_state(board="8x8")
    assert "the LEDs show White in blue, Black in yellow" in \
        views.terminal(arbos, view, views.Paint(False))


def test_fangqis_key_marks_the_letter_of_the_counters_that_may_be_taken():
    from hardware.base import PRESENT
    from tests.games.fangqi_positions import SLIDE, position

    state = position(SLIDE)          # c1-b1 made on the board: White's d1 d2 d3 may be taken
    view = Moment.still(dict(DEFAULT_COLOURS),
                completions=[Correction(s, None, PRESENT) for s in ("d1", "d2", "d3")])
    text = views.terminal(state, view, views.Paint(False))
    assert "[W] may be taken" in text and "B Black, W White" in text
    assert "the LEDs show Black in blue, White in yellow" in text
    view = Moment.still(dict(DEFAULT_COLOURS), completions=[Correction("a1", None, PRESENT)])
    assert "[B] may be taken" in views.terminal(state, view, views.Paint(False))   # Black's


def test_fangqis_refusal_suggests_a_slide_on_this_board():
    from tests.games.fangqi_positions import SLIDE, position

    state = position(SLIDE)          # a 4x4 board: there is no d5
    with pytest.raises(games.IllegalMove) as refused:
        state.play("d3")
    example = refused.value.reason.rsplit("e.g. ", 1)[1]
    state.copy().play(example)       # the example is a legal slide here


def test_a_pass_on_time_says_why_and_the_arbos_page_says_lift_your_spores(tmp_path):
    t = Tracer(sim_config(layout="arbos-8x8-matrix", journal=str(tmp_path / "j.sqlite"),
                          turn_seconds=60, game_options={"board": "8x8", "setup": "chosen"}),
               new_game=True)
    try:
        play(t, *SETUP)
        terminal = Terminal(io.StringIO(), clock=t.clock)
        terminal.start(t.session)
        t.step("wait", ["61000"])
        terminal(t.session)
        assert "move 5: pass (the turn's time ran out) (Black to move)" in \
            terminal.out.getvalue().splitlines()
        assert state_json(t)["notice"] is None
    finally:
        t.close()
    state = games.get_game("arbos").new_state(board="8x8", setup="chosen")
    state.play_all(["seed A1", "seed D4", "seed A7", "seed H8", "C3", "A6", "E5", "A8", "H8=",
                    "G7", "F8", "B5", "F2"])
    assert state.must_remove                  # a fourth tree (GAME of test_arbos_board)
    assert views.notice(state) == "4 trees: lift your spores until three remain"


def test_the_page_and_the_sim_say_which_player_this_board_plays(board):
    t = board(layout="arbos-8x8-matrix")
    assert state_json(t)["you"] is None                            # no remote game
    t.referee.set_seats(("remote", "human"))
    assert state_json(t)["you"] == "you play Black, drawn yellow"
    t.referee.set_seats(("remote", "remote"))
    assert state_json(t)["you"].startswith("you are watching")


def test_fangqis_drawing_shows_a_lifted_counter_as_lifted(tmp_path):
    t = Tracer(sim_config(layout="fangqi-7x7-matrix", journal=str(tmp_path / "j.sqlite")),
               new_game=True)
    try:
        state = t.referee.state
        while state.phase != "movement":      # placements and removals, as the rules pick
            move = sorted(state.legal_moves(), key=str)[0]
            before = state.occupancy()
            state.play(move)
            after = state.occupancy()
            state.undo()
            for site in sorted(before.keys() - after.keys()):
                t.step("lift", [site])
            for site in sorted(after.keys() - before.keys()):
                t.step("place", [site])
            assert len(state.moves) and str(state.moves[-1]) == str(move)
        mover = "black" if state.to_move == 0 else "white"
        source = next(str(m).split("-")[0] for m in sorted(state.legal_moves(), key=str))
        t.step("lift", [source])
        assert t.referee.completions and source in t.moment().lifted
        text = views.terminal(state, t.moment(), views.Paint(False))
        assert f"^{mover[0]}^" in text and "the counter lifted off" in text
    finally:
        t.close()


def test_a_seed_too_close_says_to_which_not_that_the_setup_comes_first():
    from board_driver.views.narrate import why_not   # the one narrator (sim, trace, voice)

    state = games.get_game("arbos").new_state(board="8x8", setup="chosen")
    state.play("seed C3")
    assert why_not(state, "D4").startswith("D4: D4 is too close to C3: seeds need")
    assert "setup comes first" in why_not(state, "C3")   # a taken cell: not a seed's reason
    drawn = games.get_game("arbos").new_state(board="8x8", setup_seed=7)  # draws B6 first
    assert why_not(drawn, "A1") == "A1: the board drew B6 for this seed: put Black's seed on B6"
