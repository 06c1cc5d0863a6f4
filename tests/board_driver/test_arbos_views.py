"""Arbos's view module: the SVG picture (parsed), the terminal drawing, and the LED frame's
layers (legal cells by kind, the pulse of trees over the limit, the time bar)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import games
from board_driver import views
from board_driver.config import DEFAULT_COLOURS
from board_driver.moment import Correction
from board_driver.views import Paint, Moment, render
from board_driver.views.arbos import border, frame, time_bar

SETUP = ["seed A1", "seed D4", "seed A7", "seed H8"]
FOUR_TREES = SETUP + ["B3", "pass", "B5", "pass", "F3", "pass", "F5"]


def state(*moves, board="8x8"):
    s = games.get_game("arbos").new_state(board=board, setup="chosen")
    s.play_all(moves)
    return s


def view(**kw) -> Moment:
    return Moment.still(dict(DEFAULT_COLOURS), **kw)


def sites_of(svg: str) -> dict[str, ET.Element]:
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg" and len(root.get("viewBox").split()) == 4
    return {e.get("data-site"): e for e in root.iter() if e.get("data-site")}


def test_the_view_is_found_and_names_the_players():
    assert views.view_of("arbos").__module__ == "board_driver.views.arbos"
    assert views.players("arbos") == ("White", "Black")


def test_svg_has_every_cell_with_its_token_hint_and_correction():
    s = state(*SETUP, "C3")
    v = view(moves="legal", corrections=[Correction("F2", None, "present"),
                                         Correction("D4", "seed:0", None)])
    cells = sites_of(views.svg(s, v))
    assert len(cells) == 64
    assert cells["C3"].get("data-kind") == "spore:0" and "last" in cells["C3"].get("class")
    assert cells["A1"].get("data-kind") == "seed:1" and "replace" in cells["A1"].get("class")
    assert "hint seed" in cells["B7"].get("class")  # black's spore next to black's seed A7
    assert "hint free" in cells["G2"].get("class")
    assert "fix" in cells["F2"].get("class") and "blink" not in cells["F2"].get("class")
    assert "blink" in cells["D4"].get("class")
    assert cells["D4"].get("data-fix") == "put White's seed here"
    assert all(c.find("{http://www.w3.org/2000/svg}title") is not None for c in cells.values())


def test_the_end_picture_marks_scoring_seeds_and_their_trees():
    s = state(*SETUP, "C3", "pass", "E5", "pass", "pass")
    cells = sites_of(views.svg(s, view()))
    assert "scoring" in cells["D4"].get("class") and "scoring" in cells["C3"].get("class")
    assert "scoring" not in cells["H8"].get("class")


def test_terminal_draws_labelled_rows_and_tokens_and_reads_without_colour():
    s = state(*FOUR_TREES)
    text = views.terminal(s, view(), Paint(False))
    lines = text.splitlines()
    assert lines[0].split()[:3] == ["1", "2", "3"] and lines[1].startswith(" A (b)")
    assert "~W~" in lines[6]  # F5: the tree over the limit
    assert "4 trees: lift your spores" in text
    assert "\x1b[" not in text and "\x1b[" in views.terminal(s, view(), Paint(True))


def test_trees_over_the_limit_pulse_and_the_frame_asks_to_be_redrawn():
    s = state(*FOUR_TREES)
    a, wake = frame(s, view(), 0.0)
    b, _ = frame(s, view(), 0.5)
    assert wake == 0.05 and a["F5"] != b["F5"] and a["B3"] == b["B3"]
    s.play("xB3")
    assert frame(s, view(), 0.0)[1] is None


def test_the_time_bar_runs_around_the_edge_in_the_last_30_seconds():
    s = state(*SETUP)
    ring = border(s)
    assert len(ring) == 28 and ring[:2] == ["A1", "A2"] and ring[7] == "A8" and ring[8] == "B8"
    assert time_bar(s, view(turn_left=45.0)) == []
    assert time_bar(s, view(turn_left=15.0)) == ring[:14]
    lit, _ = render(s, view(turn_left=15.0, moves="off"), 0.0)
    assert lit["A2"] == DEFAULT_COLOURS["player0"] and lit.get("A1") != lit["A2"]  # A1: a seed
    assert time_bar(s, view(turn_left=None)) == []


def test_the_20x20_frame_lights_only_cells():
    s = state(*[f"seed {r}{c}" for r in "AEIMQ" for c in (1, 5, 9, 13)], board="20x20")
    lit, _ = render(s, view(moves="legal"), 0.0)
    assert set(lit) <= set(s.sites()) and len(lit) > 300
