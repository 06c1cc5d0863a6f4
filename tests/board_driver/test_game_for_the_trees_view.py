"""Game for the Trees shown: the LED legend (terrain by brightness, owner by hue, the rest by
time), the parts of a four-LED square, the SVG picture and its legend for the page, the terminal."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import games
from board_driver import views
from board_driver.config import DEFAULT_COLOURS
from board_driver.views import Paint, Moment
from board_driver.views import game_for_the_trees as gv

C = dict(DEFAULT_COLOURS)


def state_after(*moves):
    state = games.get_game("game-for-the-trees").new_state()
    state.play_all(moves)
    return state


def frame(state, now):
    return gv.frame(state, Moment.still(C), now)


def test_terrain_is_brightness_and_owner_is_hue():
    f, _ = frame(state_after(), 0.5)  # between the whole-second winks and flashes
    assert f["a4"] == (0, 0, 0)
    grass, under, tree = f["a3"], f["a2"], f["b1"]
    assert tree == C["player0"] and f["b8"] == C["player1"]
    assert sum(grass) < sum(under) < sum(tree)
    # the same hue at every level: a colour-blind player reads the owner the same way
    ratios = {round(v[2] / v[1], 1) for v in (grass, under, tree)}
    assert len(ratios) == 1


def test_huckleberry_breathes_roots_wink_and_momentum_flashes():
    state = state_after("Ab1-d2")
    a, wake = frame(state, 0.5)
    assert frame(state, 0.3)[0]["e1"] != frame(state, 0.9)[0]["e1"] and wake == 0.55  # breathing
    assert a["a1"] == C["player0"] and frame(state, 1.1)[0]["a1"] == (0, 0, 0)   # a wink
    assert frame(state, 2.05)[0]["d2"] == gv.WHITE != a["d2"]  # the chain's square flashes
    assert frame(state, 0.25)[0]["d2:momentum"] == C["player0"] and frame(state, 0.75)[0]["d2:momentum"] == (0, 0, 0)


def test_parts_of_a_four_led_square():
    f, _ = frame(state_after(), 0.5)
    assert f["a1:kind"] == gv.KIND_COLOURS["Birch"] and f["b8:kind"] == gv.KIND_COLOURS["Ash"]
    assert f["c1:kind"] == gv.KIND_COLOURS["Beech"] and f["d1:kind"] == gv.KIND_COLOURS["Pine"]
    assert f["e1:kind"] == gv.WHITE and f["a3:kind"] == (0, 0, 0)
    assert f["a1:root"] == gv.WHITE and f["a2:root"] == (0, 0, 0)
    assert len(set(gv.KIND_COLOURS.values())) == 4


def test_svg_has_every_square_the_chains_and_the_legend():
    state = state_after("Ab1-d2", "h7-h6")
    root = ET.fromstring(views.svg(state, Moment.still(C)))
    sites = {e.get("data-site"): e for e in root.iter() if e.get("data-site")}
    assert set(sites) == set(state.sites())
    assert sites["d2"].get("data-kind") == "tree:0" and sites["a4"].get("data-kind") == "bare"
    ns = "{http://www.w3.org/2000/svg}"
    assert sites["d2"].find(f"{ns}title").text == "d2: White Ash, part of the tree rooted at b1"
    chains = sorted(e.get("data-chain") for e in root.iter() if e.get("data-chain"))
    assert chains == ["d2>f3", "h6>h5"]
    # The legend is the page's, beside the picture: never drawn over the squares.
    assert not [e for e in root.iter() if e.get("class") == "legend"]
    width = float(root.get("viewBox").split()[2])
    assert width == gv.M + 8 * gv.U
    rows = views.picture_legend(state, Moment.still(C))
    assert [(r["what"], r["how"]) for r in rows] == gv.LEGEND
    by_what = {r["what"]: r["colours"] for r in rows}
    # the colours as the squares are drawn: a White tree square's fill is the legend's
    assert sites["d2"].find(f"{ns}rect").get("fill") in by_what["tree square"]
    assert by_what["tree kind (4 LEDs a square)"] == ["#56b4e9", "#d55e00", "#cc79a7", "#009e73"]


def test_terminal_reads_without_colour():
    text = views.terminal(state_after("Ab1-d2"), Moment.still(C), Paint(False))
    assert "\x1b" not in text
    lines = text.splitlines()
    assert lines[0].split() == list("abcdefgh")
    rank2 = next(line for line in lines if line.startswith(" 2 "))
    assert rank2.split()[1:6] == ["U", "U", "U", "A", ">"]
    rank1 = next(line for line in lines if line.startswith(" 1 "))
    assert rank1.split()[1:4] == ["B*", "A*", "E*"]
    assert "chains: d2>f3" in text and "chains: none" in text


def test_the_terrain_is_in_the_one_legend_the_sim_prints_and_the_page_lists():
    """One source: the game's own colours are entries of views.legend (with every colour the
    picture draws for them), which the sim prints and the page lists beside the picture."""

    from board_driver.cli.sim import legend_lines

    state = state_after("Ab1-d2")
    view = Moment.still(C)
    own = [e for e in views.legend(state, view) if "colours" in e]
    assert [(e["means"], e["label"]) for e in own] == gv.LEGEND
    assert own == [{"name": r["what"], "label": r["how"], "colour": r["colours"][0],
                    "colours": r["colours"], "means": r["what"]}
                   for r in views.picture_legend(state, view)]
    printed = "\n".join(legend_lines(Moment.still(C, state=state), Paint(False)))
    assert "the owner's colour, a quarter: grass" in printed
