"""The views package: the registry, each game's SVG picture (parsed, not string-matched), its
terminal drawing, and the shared overlays."""

from __future__ import annotations

import io
import sys
import xml.etree.ElementTree as ET

import pytest

import games
from board_driver import views
from board_driver.config import DEFAULT_COLOURS
from board_driver.moment import Correction
from board_driver.views import GameView, Moment, Paint, game_view, render, svgkit
from board_driver.views.base import legible

NS = {"s": "http://www.w3.org/2000/svg"}


def view(**kw) -> Moment:
    return Moment.still(dict(DEFAULT_COLOURS), **kw)


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert len(root.get("viewBox").split()) == 4
    return root


def by_site(root: ET.Element) -> dict[str, ET.Element]:
    return {e.get("data-site"): e for e in root.iter() if e.get("data-site")}


# --- the registry ------------------------------------------------------------------------------

@pytest.mark.parametrize("name", games.names())
def test_every_game_has_a_view_with_the_interface(name):
    shown = views.view_of(name)
    assert issubclass(shown, GameView) and shown is not GameView
    state = games.get_game(name).new_state()
    parse(views.svg(state, view()))
    assert isinstance(views.terminal(state, view(), Paint(False)), str)
    frame, _ = render(state, view(), 0.0)
    assert isinstance(frame, dict)


def test_every_game_is_listed_once_and_every_listed_name_is_a_game():
    assert set(views.VIEWS) == set(games.names())


@pytest.mark.parametrize("name", list(views.VIEWS) + ["no-such-game"])
def test_a_view_defines_only_what_the_interface_declares(name):
    """A view's parts are read from its class with the base's defaults: a class that defines
    `HINT` or `say_moves` would silently get the default. Each listed view (and the generic
    one) is a GameView whose own names the base declares, the required ones its own."""
    shown = views.view_of(name)
    declared = {attr for attr in vars(GameView) if not attr.startswith("_")}
    below = shown.__mro__[:shown.__mro__.index(GameView)]
    own = {attr for klass in below for attr in vars(klass)
           if not (attr.startswith("__") and attr.endswith("__"))}
    assert own - declared == set(), shown
    assert set(game_view.REQUIRED) <= own, shown


@pytest.mark.parametrize("name", list(views.VIEWS) + ["no-such-game"])
def test_a_view_binds_every_part_its_module_defines(name):
    """A part written in the module but not bound in its class would silently be the default
    (Treeblox's 3D picture gone from the page): every module-level name the interface declares
    is its class's, the very object."""
    shown = views.view_of(name)
    module = vars(sys.modules[shown.__module__])
    defined = {attr for attr in module if attr in game_view.DECLARED}
    assert {attr: module[attr] for attr in defined} == \
        {attr: vars(shown)[attr].__func__ if isinstance(vars(shown)[attr], staticmethod)
         else vars(shown)[attr] for attr in defined if attr in vars(shown)}, shown


def test_a_game_without_a_view_of_its_own_is_shown_generically():
    from board_driver.views.generic import GenericView

    assert views.view_of("no-such-game") is GenericView


def test_a_view_missing_a_required_part_is_refused_when_defined():
    with pytest.raises(TypeError, match=r"HalfDone: a game's view must define svg, terminal"):
        class HalfDone(GameView):
            frame = staticmethod(lambda state, view, now: ({}, None))
    with pytest.raises(NotImplementedError):
        GameView.svg(games.get_game("treeblox").new_state(), view())


def test_a_view_naming_a_part_the_interface_does_not_declare_is_refused_when_defined():
    with pytest.raises(TypeError, match=r"Misspelt: HINT, say_moves is not part of a game's view"):
        class Misspelt(GameView):
            frame = staticmethod(lambda state, view, now: ({}, None))
            svg = staticmethod(lambda state, view: "")
            terminal = staticmethod(lambda state, view, paint: "")
            HINT = ("off",)
            say_moves = staticmethod(lambda state, move: move)


def test_a_listed_view_that_is_no_game_view_is_refused(monkeypatch):
    monkeypatch.setitem(views.VIEWS, "half-done", "board_driver.views.base:Moment")
    with pytest.raises(TypeError, match=r"board_driver.views.base:Moment: a game's view is a "
                                        r"GameView"):
        views.view_of("half-done")


def test_player_names_come_from_the_view():
    assert views.players("treeblox") == ("Dark", "Light")
    assert views.players("tree-planting") == ("player 1", "player 2")


# --- Tree Planting -----------------------------------------------------------------------------

def planting(*moves):
    state = games.get_game("tree-planting").new_state(board="classic")
    state.play_all(moves)
    return state


def test_tree_planting_svg_shows_every_site_rods_trees_and_the_last_move():
    state = planting("h0.0", "v0.0", "h1.0", "v0.1")  # player 2 closes square 0.0
    root = parse(views.svg(state, view()))
    sites = by_site(root)
    assert set(sites) == set(state.sites())
    assert sites["h0.0"].get("data-kind") == "rod" and "rod" in sites["h0.0"].get("class")
    assert "last" in sites["v0.1"].get("class")
    assert sites["t0.0"].get("data-kind") == "tree:1"
    assert sites["h2.0"].get("data-kind") is None
    title = sites["t0.0"].find("s:title", NS).text
    assert title == "t0.0: player 2's tree"


def test_tree_planting_svg_colours_free_grooves_by_the_hint_mode():
    state = planting("h0.0", "v0.0")
    safe = by_site(parse(views.svg(state, view(moves="safe"))))
    # h1.0 would leave square 0.0 on three sides: it hands a square over
    assert "unsafe" in safe["h1.0"].get("class")
    assert safe["h1.0"].get("stroke") == svgkit.hexc(DEFAULT_COLOURS["unsafe"])
    assert safe["h3.0"].get("stroke") == svgkit.hexc(DEFAULT_COLOURS["safe"])
    off = by_site(parse(views.svg(state, view(moves="off"))))
    assert "hint" not in off["h3.0"].get("class") and "unsafe" not in off["h1.0"].get("class")


def test_tree_planting_svg_shows_corrections_as_the_leds_do():
    state = planting("h0.0")
    fixes = [Correction("h0.0", "rod", None), Correction("h2.1", None, "present")]
    sites = by_site(parse(views.svg(state, view(corrections=fixes))))
    assert sites["h0.0"].get("class").split()[-2:] == ["fix", "blink"]
    assert sites["h0.0"].get("data-fix") == "put a rod here"
    assert "blink" not in sites["h2.1"].get("class")
    assert sites["h2.1"].get("stroke") == svgkit.hexc(DEFAULT_COLOURS["wrong"])
    assert sites["h2.1"].get("data-fix") == "take the piece off"


def test_tree_planting_terminal_labels_rows_and_columns_and_reads_without_colour():
    state = planting("h1.2")
    text = views.terminal(state, view(), Paint(False))
    assert "\x1b" not in text
    lines = text.splitlines()
    assert lines[0].split() == ["0", "1", "2", "3"]
    line1 = next(line for line in lines if line.startswith("h1  +"))
    # h1.2 is on line 1, under column 2's label: the rod is there and nowhere else
    col = lines[0].index("2")
    assert line1[col] == "━" and line1.count("━") == 3
    coloured = views.terminal(state, view(), Paint(True))
    assert "\x1b[" in coloured


def test_terminal_colours_are_legible_not_raw_led_levels():
    r, g, b = legible((0, 14, 21))
    assert max(r, g, b) >= 170 and r == 0 and g < b
    assert legible((0, 0, 0)) != (0, 0, 0)
    assert Paint.for_stream(io.StringIO()).colour is False


# --- Treeblox ----------------------------------------------------------------------------------

def treeblox(*moves):
    state = games.get_game("treeblox").new_state()
    state.play_all(moves)
    return state


def test_treeblox_top_view_shows_heights_owners_and_cubes_beside_the_board():
    state = treeblox("La1", "Lb2", "Ba2", "Lb3")
    sites = by_site(parse(views.svg(state, view())))
    assert sites["a1"].get("data-kind") == "dark-leaf"
    assert sites["b2"].get("data-height") == "1"
    assert "active" in sites["a1"].get("class")
    assert sites["c3"].get("data-kind") is None and len([s for s in sites if len(s) == 2]) == 16
    assert "last" in sites["b3"].get("class") and "last" not in sites["a1"].get("class")


def test_treeblox_top_view_grows_past_the_board():
    state = treeblox("La1", "Ld4")
    state.play("Ba2")          # Dark: rate 1, a branch on a2
    state.play("Bd3")          # Light
    state.play("B(-1,1,0)")    # Dark: a branch beside the board, off a2's west face
    root = parse(views.svg(state, view()))
    assert by_site(root)["(-1,1,0)"].get("data-kind") == "dark-branch"
    assert float(root.get("viewBox").split()[2]) > 4 * 60 + 52


def test_treeblox_3d_view_draws_cubes_and_clickable_places():
    state = treeblox("La1", "Ld4", "Ba2")
    places = ["a2+1", "(-1,1,0)"]
    root = parse(views.view_of("treeblox").svg_3d(state, view(), places))
    cubes = {e.get("data-site"): e.get("data-kind") for e in root.iter()
             if "cube" in (e.get("class") or "").split()}
    assert cubes == {"a1": "dark-leaf", "d4": "light-leaf", "a2": "dark-branch"}
    assert [e.get("data-site") for e in root.iter() if e.get("class") == "cube last"] == ["a2"]
    assert sorted(e.get("data-place") for e in root.iter() if e.get("data-place")) == sorted(places)


def test_treeblox_terminal_says_dark_and_light_and_draws_the_top_view():
    state = treeblox("La1", "Lb2")
    text = views.terminal(state, view(), Paint(False))
    assert "Dark" in text and "Light" in text and "player 0" not in text
    row1 = next(line for line in text.splitlines() if line.startswith("  1 "))
    row2 = next(line for line in text.splitlines() if line.startswith("  2 "))
    assert "D*1" in row1 and "L*1" in row2


# --- the shared overlays -----------------------------------------------------------------------

def test_corrections_win_over_the_game_and_blink():
    state = planting("h0.0")
    fixes = [Correction("h1.1", "rod", None), Correction("h0.0", None, "present")]
    v = view(corrections=fixes)
    on, wake = render(state, v, 0.0)
    off, _ = render(state, v, 0.3)
    assert on["h0.0"] == off["h0.0"] == DEFAULT_COLOURS["wrong"]
    assert on["h1.1"] != (0, 0, 0) and off["h1.1"] == (0, 0, 0)
    assert wake == 0.25


def test_the_winner_animation_starts_bright_at_the_end_of_the_game():
    state = planting("h0.0", "v0.0", "h1.0", "v0.1")
    while not state.is_over():
        state.play(state.legal_moves()[0])
    winner = state.winner()
    assert winner is not None
    v = view(over_since=100.0)
    frame, wake = render(state, v, 100.0)
    trees = [s for s, k in state.occupancy().items() if k == f"tree:{winner}"]
    assert all(frame[t] == DEFAULT_COLOURS[f"player{winner}"] for t in trees)
    assert wake == pytest.approx(100.05)
    later, wake = render(state, v, 200.0)
    assert wake is None


def test_svg_text_is_escaped():
    out = svgkit.el("text", svgkit.esc('<a href="x">&'), data_site='"><script>')
    root = ET.fromstring(f'<svg xmlns="http://www.w3.org/2000/svg">{out}</svg>')
    child = root[0]
    assert child.text == '<a href="x">&' and child.get("data-site") == '"><script>'


def test_the_generic_view_lists_every_site_and_piece():
    from board_driver.views import generic

    state = planting("h0.0")
    fixes = [Correction("h1.1", None, "present")]
    sites = by_site(parse(generic.svg(state, view(corrections=fixes))))
    assert set(sites) == set(state.sites())
    assert sites["h0.0"].get("data-kind") == "rod"
    assert sites["h1.1"].get("data-fix") == "take the piece off"
    assert "h0.0: rod" in generic.terminal(state, view(), Paint(False))
    # its labels in the board's language, too
    from board_driver.views import words

    with words.speaking("zh"):
        picture = generic.svg(state, view())
        empty = generic.terminal(planting(), view(), Paint(False))
    assert "h0.0：小棍" in picture and "h1.1：空" in picture and "棋盘" in picture
    assert empty.strip() == "（棋盘是空的）"


def test_treeblox_3d_view_turns_to_show_the_other_side():
    state = treeblox("La1", "Ld4", "Ba2")
    module = views.view_of("treeblox")

    def corners(turn):
        root = parse(module.svg_3d(state, view(), ["a2+1"], turn))
        assert root.get("data-turn") == str(turn % 4)
        cube = next(e for e in root.iter() if e.get("data-site") == "a1")
        return cube.find("s:polygon", NS).get("points"), \
            [e.get("data-place") for e in root.iter() if e.get("data-place")]

    assert corners(0) == corners(4)
    assert corners(1)[0] != corners(0)[0] and corners(1)[1] == ["a2+1"]
    assert len({corners(t)[0] for t in range(4)}) == 4


def test_treeblox_cells_beside_the_board_in_player_words():
    """The page never shows lattice coordinates: a cell beside the board is told from the hole
    it is next to; holes and cells above them keep their names."""
    assert views.site_words("treeblox", "(2,4,0)") == "beyond c4, on the table"
    assert views.site_words("treeblox", "(-1,0,0)") == "left of a1, on the table"
    assert views.site_words("treeblox", "(1,-1,2)") == "in front of b1, 2 up"
    assert views.site_words("treeblox", "(4,4,1)") == "right of and beyond d4, 1 up"
    assert views.site_words("treeblox", "(2,5,0)") == "2 cells beyond c4, on the table"
    assert views.site_words("treeblox", "b2+1") == "b2+1"
    assert views.site_words("fangqi", "d4") == "d4"   # a game without its own words
    assert views.move_words("treeblox", ["La1", "L(2,4,0)", "B(-1,0,1)", "end"]) == \
        ["La1", "L beyond c4", "B left of a1, 1 up", "end"]
    assert views.move_words("fangqi", ["d4"]) == ["d4"]


def test_no_hints_while_the_player_to_move_is_not_at_this_board():
    """The computer thinking or the other family's turn on a remote board: the board lights no
    moves (LEDs, page and sim draw `Moment.shown()`); a player here to move sees their hints."""
    state = games.get_game("tree-planting").new_state(board="2x2")
    for seats, lit in ((("human", "human"), True), (("human", "remote"), True),
                       (("remote", "human"), False), (("computer:easy", "human"), False)):
        view = Moment.still(dict(DEFAULT_COLOURS), moves="best", hints={"h0.0": "best"},
                            state=state, seats=seats)
        shown = view.shown()
        assert (shown.settings.moves, bool(shown.hints)) == \
            (("best", True) if lit else ("off", False))
        assert view.settings.moves == "best" and view.hints  # the moment itself is unchanged
        frame, _ = views.render(state, shown, 0.0)
        assert (frame.get("h0.0") == view.settings.colours["best"]) == lit
