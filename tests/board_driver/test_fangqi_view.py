"""Fangqi's view: the LED frame, the SVG picture and the terminal drawing of a position."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from board_driver.config import DEFAULT_COLOURS
from board_driver.moment import Correction
from board_driver.views import Moment, render, svg, terminal
from board_driver.views.paint import Paint
from games.fangqi import GAME


def view(**kw):
    return Moment.still(dict(DEFAULT_COLOURS), **kw)


def removal_state():
    state = GAME.new_state(board="3x3")
    state.play_all(["a1", "b1", "c1", "a2", "b2", "c2", "a3", "b3", "c3"])
    return state  # odd: White takes first


def test_frame_lights_takeable_counters_and_the_phase_on_the_turn_leds():
    state = removal_state()
    frame, wake = render(state, view(), 1000.0)
    choice = DEFAULT_COLOURS["choice"]
    for site in state.takeable():  # Black's counters
        top = max(frame[site])
        assert top and abs(frame[site][1] / top - choice[1] / max(choice)) < 0.05
    assert frame["b1"] != frame["a1"]  # White's own counter is just shown, dimly
    assert wake is not None  # breathing, and the phase pulses
    assert frame["turn"][2] > 0  # White's yellow, pulsing or dim


def test_completions_and_corrections_are_drawn_over_the_game():
    state = removal_state()
    v = view(completions=[Correction("a1", None, "present")],
             corrections=[Correction("b2", "black", None)])
    picture = svg(state, v)
    root = ET.fromstring(picture)
    groups = {g.get("data-site"): g for g in root.iter("{http://www.w3.org/2000/svg}g")}
    assert set(groups) == set(state.sites())
    assert "choice" in groups["a1"].get("class")
    assert groups["b2"].get("class") == "fix blink" and "put" in groups["b2"].get("data-fix")
    assert groups["b1"].get("data-kind") == "white"


def test_terminal_drawing_reads_without_colour():
    state = removal_state()
    text = terminal(state, view(corrections=[Correction("c3", "black", None)]), Paint(False))
    lines = text.splitlines()
    assert lines[0].split() == ["a", "b", "c"]
    assert lines[1].split()[0] == "3" and "!B!" in lines[1]
    assert "[B]" in lines[3]  # a1: may be taken
    assert "first removal: White to move, 2 to take; Black 5, White 4 counters" in text
    state.play_all(["xa1", "xb1"])
    assert "game over (reduced): Black wins" in terminal(state, view(), Paint(False))
