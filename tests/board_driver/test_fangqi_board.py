"""Fangqi on the simulated 7x7-point board: presence sensors in a diode matrix on gpiozero's
mock pins, the referee, the journal, and the LEDs read back from the strip. Every gesture of
docs/games/fangqi.md is made with the board's hands (place, lift), never entered."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest

from board_driver.config import sim_config
from board_driver.referee.session import open_session
from board_driver.referee.tracer import Tracer
from board_driver.views.base import scale
from games.fangqi import GAME
from tests.waits import scaled

LAYOUT = "fangqi-7x7-matrix"


@pytest.fixture
def tracer(tracer):
    """A simulated Fangqi board on the 7x7-point layout."""
    return lambda **overrides: tracer(layout=LAYOUT, **overrides)


def colours(t):
    return t.session.config.colours


def lit(t) -> dict:
    """The frame the referee renders now (before gamma and brightness)."""
    return t.referee.frame(t.clock.now)[0]


def is_choice(t, colour) -> bool:
    """Is `colour` the "choice" colour ("you may take this") at some brightness?"""
    choice = colours(t)["choice"]
    top = max(colour)
    return top > 0 and all(abs(v / top - w / max(choice)) < 0.05 for v, w in zip(colour, choice))


def completions(t) -> list[str]:
    return [c.site for c in t.referee.completions]


def corrections(t) -> list[str]:
    return [c.site for c in t.referee.corrections]


def moves(t) -> list[str]:
    return [str(m) for m in t.referee.state.moves]


def act(t, move, check=True):
    """Make `move` on the board the way a player does. Returns the record of the last step."""
    if move.kind == "place":
        return t.step("place", [move.to])
    if move.kind == "remove":
        return t.step("lift", [move.captures[0]])
    before = len(t.referee.state.moves)
    record = t.step("lift", [move.frm])
    if check and not t.referee.state.is_over():
        # a lifted counter lights every point it may slide to, and is not a move yet
        assert len(t.referee.state.moves) == before
        assert move.to in completions(t) and corrections(t) == []
    record = t.step("place", [move.to])
    for i, cap in enumerate(move.captures):
        if check and len(t.referee.state.moves) == before:
            # a square formed: the counters that may be taken breathe until one is lifted
            assert cap in completions(t) and corrections(t) == []
            assert all(is_choice(t, lit(t)[s]) for s in completions(t))
        record = t.step("lift", [cap])
    return record


def policy(rng, state):
    """Random moves, but captures whenever a square can be formed (games end sooner)."""
    moves = state.legal_moves()
    capturing = [m for m in moves if m.captures]
    return rng.choice(capturing or moves)


# --- a whole game --------------------------------------------------------------------------

def test_a_whole_7x7_game_with_every_phase_through_the_sensors(tracer):
    t = tracer()
    rng = random.Random(6)  # a game with squares for both players and capture choices
    reference = GAME.new_state()
    phases = []
    choices = 0
    while not reference.is_over():
        move = policy(rng, reference)
        if reference.phase not in phases:
            phases.append(reference.phase)
            # the turn LEDs pulse once per phase number; between pulses they glow dim
            assert t.referee.state.phase == reference.phase
        if move.captures and move.kind == "slide":
            choices += len([m for m in reference.legal_moves()
                            if (m.frm, m.to) == (move.frm, move.to)]) > 1
        if reference.phase in ("first-removal", "square-removal"):
            takeable = set(reference.takeable())
            frame = lit(t)
            assert all(is_choice(t, frame[s]) for s in takeable)
            assert not any(is_choice(t, frame[s]) for s in reference.occupancy() if s not in takeable)
        reference.play(move)
        record = act(t, move)
        assert record["corrections"] == [] or reference.is_over(), (str(move), record)
        assert moves(t) == [str(m) for m in reference.moves]
        if not reference.is_over():
            frame = lit(t)
            # the score bars: one LED per counter each player still has
            bar = t.session.layout.named_leds["score0"]
            assert sum(frame[i] != (0, 0, 0) for i in bar) == reference.scores()[0]
            bar = t.session.layout.named_leds["score1"]
            assert sum(frame[i] != (0, 0, 0) for i in bar) == reference.scores()[1]
            mover = colours(t)[f"player{reference.to_move}"]
            assert frame["turn"] in (mover, scale(mover, 0.25))
    assert phases == ["placement", "first-removal", "square-removal", "movement"]
    assert choices > 0
    assert t.referee.state.summary() == reference.summary()
    winner = reference.winner()
    assert lit(t)["turn"] == colours(t)[f"player{winner}"]
    # the winner's counters breathe, then the board is cleared for the next game
    t.step("wait", ["7000"])
    for site in reference.occupancy():
        record = t.step("lift", [site])
    assert record["game"]["moves"] == [] and record["game"]["over"] is False
    assert t.session.journal.history(limit=1)[0].summary["winner"] == winner


def test_the_turn_leds_pulse_the_phase(tracer):
    t = tracer()
    mover = colours(t)["player0"]
    seen = []
    for ms in range(0, 2000, 50):
        seen.append(t.referee.frame(1000.0 + ms / 1000)[0]["turn"] == mover)
    # placement is phase 1: one pulse every two seconds
    assert sum(1 for a, b in zip(seen, seen[1:]) if b and not a) + seen[0] == 1


# --- reaching a phase on the board ---------------------------------------------------------

FOUR_SQUARES = [  # a 7x7 placement, top row first: Black's squares a1 and c6; White's e3 f3
    "BWBBWBW",
    "WBBBWWB",
    "BWBWBWB",
    "WBWBWWW",
    "BWBWWWB",
    "BBWBWBW",
    "BBWBWBW",
]


def fill(t, picture):
    black, white = [], []
    for r, line in enumerate(reversed(picture)):
        for c, ch in enumerate(line):
            (black if ch == "B" else white).append(f"{'abcdefg'[c]}{r + 1}")
    order = [m for pair in zip(black, white) for m in pair] + black[len(white):]
    for site in order:
        record = t.step("place", [site])
        assert record["corrections"] == [], (site, record)
    return t.referee.state


def test_placement_fills_the_board_then_the_first_removal_lights_every_opponent_counter(tracer):
    t = tracer()
    state = fill(t, FOUR_SQUARES)
    assert state.phase == "first-removal" and state.to_move == 1  # odd board: White first
    assert state.removals_due(1) == 2
    frame = lit(t)
    assert all(is_choice(t, frame[s]) for s, k in state.occupancy().items() if k == "black")
    assert not any(is_choice(t, frame[s]) for s, k in state.occupancy().items() if k == "white")


def to_square_removal(t):
    state = fill(t, FOUR_SQUARES)
    for site in ["a7", "g7", "f1"]:  # White takes, Black, White
        t.step("lift", [site])
    assert state.phase == "square-removal", state
    return state


def test_a_square_member_lifted_in_the_square_removal_blinks_and_loses_nothing(tracer):
    t = tracer()
    state = to_square_removal(t)
    mover = state.to_move
    theirs = "white" if mover == 0 else "black"
    member = state.in_squares(1 - mover)[0]
    before = moves(t)
    record = t.step("lift", [member])
    assert record["corrections"] == [member] and moves(t) == before
    # it blinks in its owner's colour: on, then off
    seen = set()
    for _ in range(4):
        t.step("wait", ["250"])
        seen.add(tuple(lit(t)[member]))
    assert colours(t)["player0" if theirs == "black" else "player1"] in seen and (0, 0, 0) in seen
    record = t.step("place", [member])
    assert record["corrections"] == [] and moves(t) == before
    # a takeable one is the removal
    site = state.takeable()[0]
    t.step("lift", [site])
    assert moves(t) == before + ["x" + site]


def test_two_counters_lifted_at_once_are_a_correction_until_one_goes_back(tracer):
    t = tracer()
    state = to_square_removal(t)
    a, b = state.takeable()[:2]
    before = moves(t)
    t.board.lift(a)
    t.board.lift(b)
    t.settle()
    assert sorted(corrections(t)) == sorted([a, b]) and moves(t) == before
    t.step("place", [a])
    assert moves(t) == before + ["x" + b] and corrections(t) == []


def test_taking_back_a_removal_puts_the_counter_back(tracer):
    t = tracer()
    state = to_square_removal(t)
    site = state.takeable()[0]
    before = moves(t)
    t.step("lift", [site])
    assert moves(t) == before + ["x" + site]
    record = t.step("place", [site])
    assert moves(t) == before and record["corrections"] == []
    assert t.session.journal.current().moves == before


# --- movement gestures ----------------------------------------------------------------------

def to_movement(t):
    state = to_square_removal(t)
    while state.phase == "square-removal":
        t.step("lift", [state.takeable()[0]])
    assert state.phase == "movement"
    return state


def test_lifting_a_counter_lights_its_targets_and_putting_it_back_is_no_move(tracer):
    t = tracer()
    state = to_movement(t)
    move = next(m for m in state.legal_moves() if not m.captures)
    before = moves(t)
    t.step("lift", [move.frm])
    assert sorted(completions(t)) == sorted(state.targets(move.frm))
    assert corrections(t) == [] and moves(t) == before
    mover = colours(t)[f"player{state.to_move}"]
    assert all(lit(t)[s] == mover for s in completions(t))
    t.step("place", [move.frm])
    assert moves(t) == before and completions(t) == [] and corrections(t) == []
    # a counter that cannot move, lifted, must go back
    stuck = next((s for s, k in state.occupancy().items()
                  if k == ("black", "white")[state.to_move] and not state.targets(s)), None)
    if stuck is not None:
        t.step("lift", [stuck])
        assert corrections(t) == [stuck] and completions(t) == []
        t.step("place", [stuck])
    t.step("lift", [move.frm])
    t.step("place", [move.to])
    assert moves(t) == before + [str(move)]


def test_a_diagonal_move_and_a_slide_through_a_counter_are_lit_and_recovered(tracer):
    t = tracer()
    state = to_movement(t)
    occ = state.occupancy()
    mine = ("black", "white")[state.to_move]
    before = moves(t)
    files = "abcdefg"

    def at(site, dx, dy):
        x, y = files.index(site[0]) + dx, int(site[1:]) + dy
        return f"{files[x]}{y}" if 0 <= x < 7 and 1 <= y <= 7 else None

    diagonal = next((s, d) for s, k in occ.items() if k == mine and state.targets(s)
                    for d in [at(s, dx, dy) for dx in (-1, 1) for dy in (-1, 1)]
                    if d and d not in occ)
    t.step("lift", [diagonal[0]])
    record = t.step("place", [diagonal[1]])
    # the counter landed wrong: that point is red (take it off); where it may go still lights
    assert record["corrections"] == [diagonal[1]] and moves(t) == before
    assert sorted(completions(t)) == sorted(state.targets(diagonal[0]))
    assert lit(t)[diagonal[1]] == colours(t)["wrong"]
    t.step("lift", [diagonal[1]])
    t.step("place", [diagonal[0]])
    assert corrections(t) == [] and moves(t) == before
    # through an occupied point: two steps along a line, the first one taken (play on until
    # the mover has a counter that can move and has such a line)
    rng = random.Random(1)

    def slide_through():
        occ, mine = state.occupancy(), ("black", "white")[state.to_move]
        return next(((s, at(s, 2 * dx, 2 * dy)) for s, k in occ.items()
                     if k == mine and state.targets(s)
                     for dx, dy in ((0, 1), (0, -1), (1, 0), (-1, 0))
                     if at(s, dx, dy) in occ and at(s, 2 * dx, 2 * dy)
                     and at(s, 2 * dx, 2 * dy) not in occ), None)

    while slide_through() is None:
        act(t, rng.choice(state.legal_moves()), check=False)
    frm, beyond = slide_through()
    before = moves(t)
    t.step("lift", [frm])
    record = t.step("place", [beyond])
    assert record["corrections"] == [beyond] and moves(t) == before
    assert sorted(completions(t)) == sorted(state.targets(frm))
    t.step("lift", [beyond])
    t.step("place", [frm])
    assert corrections(t) == [] and moves(t) == before


def play_until(t, rng, wanted):
    """Play random moves on the board until `wanted(state, move)` holds for the next move."""
    state = t.referee.state
    while not state.is_over():
        move = rng.choice(state.legal_moves())
        if wanted(state, move):
            return move
        act(t, move, check=False)
    raise AssertionError("the game ended first")


def test_a_square_formed_lights_the_takeable_counters_until_one_is_lifted(tracer):
    t = tracer()
    state = to_movement(t)
    rng = random.Random(2)

    def choice_of_captures(state, move):
        return move.captures and sum((m.frm, m.to) == (move.frm, move.to)
                                     for m in state.legal_moves()) > 1

    move = play_until(t, rng, choice_of_captures)
    takeable = sorted({c for m in state.legal_moves() if (m.frm, m.to) == (move.frm, move.to)
                       for c in m.captures})
    before = moves(t)
    t.step("lift", [move.frm])
    t.step("place", [move.to])
    assert moves(t) == before and corrections(t) == []
    assert completions(t) == takeable
    t.step("wait", ["1000"])  # still lit a second later, breathing
    assert completions(t) == takeable and all(is_choice(t, lit(t)[s]) for s in takeable)
    t.step("lift", [move.captures[0]])
    assert moves(t)[:len(before)] == before and len(moves(t)) == len(before) + (
        len(move.captures) == 1)
    for cap in move.captures[1:]:
        t.step("lift", [cap])
    assert moves(t) == before + [str(move)]
    # take the whole move back: the counters it took go back, the counter slides back
    for cap in move.captures:
        t.step("place", [cap])
    t.step("lift", [move.to])
    record = t.step("place", [move.frm])
    assert moves(t) == before and record["corrections"] == []


# --- power cut -----------------------------------------------------------------------------

def test_a_power_cut_mid_removal_resumes_where_it_was(tmp_path):
    journal = str(tmp_path / "j.sqlite")
    t = Tracer(sim_config(layout=LAYOUT, journal=journal))
    state = to_square_removal(t)
    t.step("lift", [state.takeable()[0]])
    played = moves(t)
    phase, due = state.phase, (state.removals_due(0), state.removals_due(1))
    t.session.close()  # the plug is pulled: nothing more is written
    # Power back: the counters are where they were; the journal has every removal made.
    session = open_session(sim_config(layout=LAYOUT, journal=journal), clock=lambda: 5.0,
                           autoscan=False)
    try:
        ref = session.referee
        assert [str(m) for m in ref.state.moves] == played
        assert ref.state.phase == phase
        assert (ref.state.removals_due(0), ref.state.removals_due(1)) == due
        assert ref.corrections == [] and ref.completions == []
        frame = ref.frame(5.0)[0]
        assert all(max(frame[s]) > 0 for s in ref.state.takeable())
        # the next removal is made on the resumed board
        site = ref.state.takeable()[0]
        session.hardware.source.start(ref.feed)
        session.hardware.board.lift(site)
        session.hardware.board.scan_once()
        now = 5.0
        while (deadline := ref.next_deadline()) is not None:
            now = deadline + 0.001
            session.hardware.board.scan_once()
            ref.tick(now)
        assert [str(m) for m in ref.state.moves] == played + ["x" + site]
    finally:
        session.close()


def power_cut(t, physical: dict):
    """Pull the plug on `t`'s board and power it up again with `physical` on it (the pieces
    stay where the hands left them). Returns the new session, in sync with the sensors."""
    config = t.session.config
    t.session.close()
    session = open_session(sim_config(layout=LAYOUT, journal=config.journal), clock=lambda: 5.0,
                           autoscan=False, restore_pieces=False)
    board = session.hardware.board
    for site, kind in physical.items():
        board.place(site, kind)
    board.scan_once()
    session.referee.resync(session.hardware.source.snapshot(), 5.0)
    return session


def test_a_counter_lifted_while_the_power_was_off_is_the_removal(tmp_path):
    t = Tracer(sim_config(layout=LAYOUT, journal=str(tmp_path / "j.sqlite")))
    state = to_square_removal(t)
    played = moves(t)
    site = state.takeable()[0]
    physical = {s: k for s, k in state.occupancy().items() if s != site}
    session = power_cut(t, physical)
    try:
        assert [str(m) for m in session.referee.state.moves] == played + ["x" + site]
    finally:
        session.close()


def test_a_power_cut_while_captures_are_chosen_shows_the_choice_again(tmp_path):
    t = Tracer(sim_config(layout=LAYOUT, journal=str(tmp_path / "j.sqlite")))
    state = to_movement(t)

    def choice_of_captures(state, move):
        return move.captures and sum((m.frm, m.to) == (move.frm, move.to)
                                     for m in state.legal_moves()) > 1

    move = play_until(t, random.Random(2), choice_of_captures)
    takeable = sorted({c for m in state.legal_moves() if (m.frm, m.to) == (move.frm, move.to)
                       for c in m.captures})
    played = moves(t)
    t.step("lift", [move.frm])
    t.step("place", [move.to])
    physical = {s: k for s, k in state.occupancy().items() if s != move.frm}
    physical[move.to] = "present"
    session = power_cut(t, physical)
    try:
        ref = session.referee
        # the slide was no move yet: the journal has none of it, the board shows it in progress
        assert [str(m) for m in ref.state.moves] == played
        assert sorted(c.site for c in ref.completions) == takeable and ref.corrections == []
    finally:
        session.close()


# --- treeboard trace -----------------------------------------------------------------------

def test_a_whole_game_through_treeboard_trace(tmp_path):
    """A whole game as a trace file, on a 4x4-point board (`--board 4x4`: the other points of
    the 7x7 board stay empty) to keep it short; the in-process tests above play 7x7 games."""
    rng = random.Random(3)
    state = GAME.new_state(board="4x4")
    lines = []
    while not state.is_over():
        move = policy(rng, state)
        if move.kind == "place":
            lines.append(f"place {move.to}")
        elif move.kind == "remove":
            lines.append(f"lift {move.captures[0]}")
        else:
            lines += [f"lift {move.frm}", f"place {move.to}"] + [f"lift {c}" for c in move.captures]
        state.play(move)
    assert {m.kind for m in state.moves} == {"place", "remove", "slide"}
    path = tmp_path / "fangqi.trace"
    path.write_text("# a whole game of Fangqi\n" + "\n".join(lines) + "\n")
    out = subprocess.run([sys.executable, "-m", "board_driver.cli", "trace", "--layout", LAYOUT,
                          "--board", "4x4", str(path)], capture_output=True, text=True,
                         timeout=scaled(120))
    assert out.returncode == 0, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(records) == len(lines)
    assert records[-1]["game"] == state.summary()
    assert records[-1]["game"]["over"] and records[-1]["game"]["winner"] == state.winner()


# --- treeboard sim, on the bridge ----------------------------------------------------------

def test_a_whole_game_through_treeboard_sim_on_the_bridge(tmp_path):
    """`treeboard sim --bridge --layout fangqi-7x7-bridge`, actions piped in: the daemon, the
    simulated RP2040 on its pty, and the terminal drawing. A 3x3-point game on the 7x7 board
    (the other points stay empty) keeps it short: placement, then the first removal ends it."""
    import io

    from board_driver.cli.sim import run_sim

    cfg = sim_config(layout="fangqi-7x7-bridge", backend="bridge", bridge_port="sim",
                     journal=str(tmp_path / "j.sqlite"), game_options={"board": "3x3"})
    actions = [f"place {s}" for s in ["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"]]
    actions += ["lift a1", "lift b1", "quit"]
    out = io.StringIO()
    assert run_sim(cfg, new_game=True, stdin=io.StringIO("\n".join(actions) + "\n"), out=out) == 0
    text = out.getvalue()
    assert "first removal: White to move, 2 to take" in text
    assert "game over (reduced): Black wins" in text
