"""The maker's kit (hardware/kit/) for every shipped layout: the parts' counts agree with the
layout, both drawings are SVG with one element per site and per LED, the template is at true
scale, and the Pico's pins are the firmware's."""

from __future__ import annotations

import ast
import csv
import io
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import games
from games.plan import GROOVE, HOLE
from hardware.kit import FILES, KitError, build_board, kit_file, kit_files, parts
from hardware.kit import pins as kit_pins
from hardware.kit.diagnose import SiteCheck, diagnose, report
from hardware.layout import load_layout, shipped_layouts

ROOT = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"
LAYOUTS = shipped_layouts()


@pytest.fixture(scope="module")
def kits():
    return {name: kit_files(load_layout(name)) for name in LAYOUTS}


def _svg(text: str) -> ET.Element:
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == f"{SVG}svg"
    return root


def _of_class(root: ET.Element, cls: str) -> list[ET.Element]:
    return [e for e in root.iter() if cls in (e.get("class") or "").split()]


def _rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def _count(rows, starts: str) -> int:
    return sum(int(r["count"]) for r in rows if r["part"].startswith(starts))


@pytest.mark.parametrize("name", LAYOUTS)
def test_the_parts_counts_agree_with_the_layout(name, kits):
    layout = load_layout(name)
    rows = _rows(kits[name]["parts.csv"])
    assert list(rows[0]) == ["part", "count", "what for", "typical part number"]
    assert all(int(r["count"]) > 0 and r["what for"] and r["typical part number"] for r in rows)
    sensed = len(layout.site_of_channel)
    if layout.adc is not None:
        assert _count(rows, "linear hall sensor") == len(layout.adc.channels) == sensed
        assert _count(rows, "ADC") == len(layout.adc.selects)
        assert _count(rows, "reed switch") == 0
    else:
        assert _count(rows, "reed switch") == sensed
    matrix = sum(len(g.channels) for g in (layout.matrix, layout.bridge) if g is not None)
    assert _count(rows, "diode") == matrix
    assert _count(rows, "RGB LED") == layout.led_count
    assert _count(rows, "resistor, 330 ohm") == 1
    assert _count(rows, "capacitor, 1000 uF") == 1
    assert _count(rows, "level shifter") == 1
    assert _count(rows, "Raspberry Pi") == 1
    assert _count(rows, "microcontroller") == (layout.bridge is not None)
    assert _count(rows, "push button") == len(layout.buttons)
    shift = layout.bridge is not None and layout.bridge.matrix == "shift-register"
    rows_, cols = kit_pins.bridge_shape(layout) if shift else (0, 0)
    assert _count(rows, "shift register, serial in") == math.ceil(rows_ / 8)
    assert _count(rows, "shift register, parallel in") == math.ceil(cols / 8)
    # the pieces and their magnets, from the game's plan
    plan = build_board(layout).plan
    assert _count(rows, "magnet, ") == sum(p.count for p in plan.pieces if p.magnet)
    for piece in plan.pieces:
        assert any(r["part"].startswith(piece.name) and int(r["count"]) == piece.count for r in rows)


def test_the_pieces_are_the_games():
    tp = {p.name: p.count for p in build_board(load_layout("tree-planting-classic-matrix")).plan.pieces}
    assert tp == {"rod": 29, "tree peg, player 1": 11, "tree peg, player 2": 11}
    fq = {p.name: p.count for p in build_board(load_layout("fangqi-7x7-matrix")).plan.pieces}
    assert fq == {"counter, black": 25, "counter, white": 24}   # 49 points, black one more
    tb = build_board(load_layout("treeblox-adc")).plan.pieces
    assert len(tb) == 4 and {p.count for p in tb} == {16} and all(p.magnet for p in tb)
    ab = {p.name: p.count for p in build_board(load_layout("arbos-20x20-bridge")).plan.pieces}
    assert ab == {"spore, white": 80, "spore, black": 80, "seed, green": 20}


@pytest.mark.parametrize("name", LAYOUTS)
def test_both_drawings_are_svg_with_one_element_per_site_and_per_led(name, kits):
    layout = load_layout(name)
    for file in ("wiring.svg", "template.svg"):
        root = _svg(kits[name][file])
        leds = _of_class(root, "led")
        assert sorted(int(e.get("data-led")) for e in leds) == list(range(layout.led_count)), file
        for e in leds:
            i = int(e.get("data-led"))
            site = layout.site_of_led.get(i)
            # a named LED sits beside its square ("a1:kind") or none ("turn"); "-": nobody's
            named = next((n for n, ix in layout.named_leds.items() if i in ix), None)
            square = named.split(":")[0] if named and ":" in named else None
            assert e.get("data-site") == (site or square or "-"), (file, i)
            assert e.get("data-name") == (None if site else named or "-"), (file, i)
    wiring = _svg(kits[name]["wiring.svg"])
    sensors = [e.get("data-site") for e in _of_class(wiring, "sensor")]
    assert sorted(sensors) == sorted(layout.channels_of_site)   # one a sensed site
    template = _svg(kits[name]["template.svg"])
    sites = [e.get("data-site") for e in _of_class(template, "site")]
    assert sorted(sites) == sorted(layout.sites)               # one a site of the board
    pockets = [e.get("data-sensor") for e in _of_class(template, "sensor-pocket")]
    assert sorted(pockets) == sorted(layout.channels_of_site)


def _mm(root: ET.Element) -> float:
    """Millimetres per user unit, from the root's width and viewBox (both axes)."""
    width, height = root.get("width"), root.get("height")
    assert width.endswith("mm") and height.endswith("mm")
    _, _, vw, vh = map(float, root.get("viewBox").split())
    assert float(width[:-2]) / vw == pytest.approx(float(height[:-2]) / vh)
    return float(width[:-2]) / vw


@pytest.mark.parametrize("name", [n for n in LAYOUTS if n.startswith("tree-planting")])
def test_the_template_is_at_true_scale_a_groove_is_40_mm(name, kits):
    root = _svg(kits[name]["template.svg"])
    scale = _mm(root)
    assert scale == 1.0
    grooves = [e for e in _of_class(root, "site") if e.get("data-shape") == GROOVE]
    holes = [e for e in _of_class(root, "site") if e.get("data-shape") == HOLE]
    assert grooves and holes
    for e in grooves:
        long, short = sorted((float(e.get("width")), float(e.get("height"))), reverse=True)
        assert (long * scale, short * scale) == (40.0, 4.0)   # the rules' groove
        assert e.get("data-depth") == "2 mm"
    h = next(e for e in grooves if e.get("data-site") == "h0.0")
    t = next(e for e in holes if e.get("data-site") == "t0.0")
    # the hole at the centre of its square: below h0.0's middle by half a square's pitch
    assert float(t.get("cx")) == pytest.approx(float(h.get("x")) + 20)
    assert float(t.get("cy")) - (float(h.get("y")) + 2) == pytest.approx(24)
    bar = _of_class(root, "scale-bar")[0]
    assert bar.get("data-length") == "100 mm"


@pytest.mark.parametrize("name", LAYOUTS)
def test_the_template_has_the_layers_a_laser_cutter_reads(name, kits):
    root = _svg(kits[name]["template.svg"])
    assert _mm(root) == 1.0
    layers = {g.get("id"): g for g in root if g.get("{http://www.inkscape.org/namespaces/inkscape}groupmode") == "layer"}
    assert {"outline", "top-engrave", "top-cut", "sensor-cut", "marks", "labels", "pieces"} <= set(layers)
    assert len(_of_class(layers["outline"], "alignment-hole")) == 4
    assert len(_of_class(layers["marks"], "alignment-mark")) == 4
    assert all(layers[k].get("stroke") == "#ff0000" for k in ("outline", "top-cut", "sensor-cut", "pieces"))
    # every LED and sensor pocket lies inside the outline
    outline = _of_class(root, "outline")[0]
    w, h = float(outline.get("width")), float(outline.get("height"))
    for e in _of_class(root, "led"):
        assert 0 < float(e.get("cx")) < w and 0 < float(e.get("cy")) < h


def test_a_board_of_each_game_has_its_dimensions():
    fangqi = build_board(load_layout("fangqi-7x7-matrix")).plan
    assert {s.shape for s in fangqi.spots} == {"point"} and len(fangqi.lines) == 14
    assert {s.shape for s in build_board(load_layout("fangqi-8x8-matrix")).plan.spots} == {"cell"}
    arbos = build_board(load_layout("arbos-20x20-bridge")).plan
    assert (arbos.width, arbos.height) == (440.0, 440.0) and len(arbos.spots) == 400
    a1 = arbos.spot("A1")
    assert (a1.x, a1.y) == (11.0, 11.0)       # row A at the top
    treeblox = build_board(load_layout("treeblox-adc")).plan
    assert treeblox.spot("a1").y > treeblox.spot("a4").y and treeblox.spot("a1").shape == "hole"
    gftt = build_board(load_layout("game-for-the-trees-matrix")).plan
    assert (gftt.width, len(gftt.spots)) == (240.0, 64) and gftt.spot("a1").led == (0.0, 0.0)
    for plan in (fangqi, arbos, treeblox, gftt):
        assert any(where == "ours" for _, where in plan.dimensions)


def test_every_game_declares_a_plan_covering_its_sites():
    for name in games.names():
        game = games.get_game(name)
        for board in game.boards() or [None]:
            state = game.new_state(**({"board": board} if board else {}))
            plan = state.plan()
            assert sorted(s.site for s in plan.spots) == sorted(state.sites()), (name, board)
            assert plan.pieces and plan.dimensions, name


def test_the_quad_boards_leds_sit_in_a_cluster_on_their_square():
    board = build_board(load_layout("game-for-the-trees-quad-matrix"))
    a1 = [led for led in board.leds if led.site == "a1"]
    assert [led.label for led in a1] == ["a1", "a1:kind", "a1:momentum", "a1:root"]
    xs, ys = [led.x for led in a1], [led.y for led in a1]
    assert xs[0] < xs[1] and ys[0] == ys[1] and ys[2] > ys[1] and xs[3] < xs[2]
    turn = [led for led in board.leds if led.label == "turn"]
    assert len(turn) == 2 and all(led.y > board.plan.height + 15 for led in turn)


def test_the_picos_pins_are_the_firmwares():
    tree = ast.parse((ROOT / "firmware_bridge/firmware/main.py").read_text())
    values = {t.id: ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
              for t in node.targets if isinstance(t, ast.Name) and isinstance(node.value, (ast.Constant, ast.Tuple))}
    values.update({t.id: ast.literal_eval(v) for node in tree.body if isinstance(node, ast.Assign)
                   and isinstance(node.targets[0], ast.Tuple)
                   for t, v in zip(node.targets[0].elts, node.value.elts)})
    assert values["ROW_PINS"] == kit_pins.FIRMWARE_ROW_PINS
    assert values["COL_PINS"] == kit_pins.FIRMWARE_COL_PINS
    assert (values["SCK_PIN"], values["MOSI_PIN"], values["MISO_PIN"]) == (
        kit_pins.FIRMWARE_SCK, kit_pins.FIRMWARE_MOSI, kit_pins.FIRMWARE_MISO)
    assert (values["RCLK_PIN"], values["PL_PIN"]) == (kit_pins.FIRMWARE_RCLK, kit_pins.FIRMWARE_PL)
    assert values["LED_PIN"] == kit_pins.FIRMWARE_LED_PIN
    assert values["MAINTENANCE_PIN"] == kit_pins.FIRMWARE_MAINTENANCE_PIN
    from firmware_bridge.board import SIM_COLS

    assert kit_pins.BRIDGE_COLS == SIM_COLS
    # the 5 x 8 default board keeps main.py's pins; a 7 x 8 one gets free pins, none twice
    assert kit_pins.bridge_matrix_pins(load_layout("tree-planting-classic-bridge")) == (
        kit_pins.FIRMWARE_ROW_PINS, kit_pins.FIRMWARE_COL_PINS)
    rows, cols = kit_pins.bridge_matrix_pins(load_layout("fangqi-7x7-bridge"))
    assert len(rows) == 7 and len(cols) == 8 and len(set(rows + cols)) == 15
    assert kit_pins.FIRMWARE_LED_PIN not in rows + cols
    wiring = kit_files(load_layout("fangqi-7x7-bridge"))["wiring.svg"]
    assert "ROW_PINS = (0, 1, 2, 3, 4, 5, 6), COL_PINS = (7, 8, 9, 10, 11, 12, 13, 14)" in wiring


def test_the_pis_header_uses_each_line_the_layout_names():
    layout = load_layout("tree-planting-classic-pins")
    root = _svg(kit_file(layout, "wiring.svg"))
    used = {int(e.get("data-gpio")) for e in _of_class(root, "line")}
    assert used == set(layout.pins.channels) | set(layout.matrix.rows) | set(layout.matrix.cols) | {10}
    assert set(kit_pins.PI_PIN_OF_GPIO) == set(range(28)) and set(kit_pins.PICO_PIN_OF_GPIO) == (
        set(range(23)) | {26, 27, 28})


def test_a_matrix_diode_points_from_its_column_to_its_row():
    root = _svg(kit_file(load_layout("tree-planting-classic-matrix"), "wiring.svg"))
    crossing = next(e for e in _of_class(root, "sensor") if e.get("data-site") == "h0.0")
    diode = next(e for e in crossing if e.get("class") == "diode")
    band = next(e for e in crossing if e.get("class") == "diode-band")
    dots = [float(e.get("cy")) for e in crossing if e.tag == f"{SVG}circle"]
    # the column's joint above, the row's below: the triangle's tip and the band face the row
    assert diode.get("d").endswith("z") and "l-4 7" in diode.get("d")
    band_y = float(band.get("d").split()[1].split("h")[0])
    assert min(dots) < band_y < max(dots)


def test_a_layout_the_kit_cannot_draw_says_why(tmp_path):
    text = (ROOT / "hardware/layouts/fangqi-7x7-bridge.toml").read_text()
    big = tmp_path / "big.toml"
    big.write_text(text.replace('"g7" = 48', '"g7" = 255'))   # a 32 x 8 matrix on the Pico's pins
    with pytest.raises(KitError, match="needs 40 lines and a Pico has 24 free"):
        kit_files(load_layout(big))
    assert issubclass(KitError, ValueError)


def test_the_kits_files_are_the_ones_listed():
    files = kit_files(load_layout("treeblox-adc"))
    assert list(files) == list(FILES)
    assert files["wiring.svg"] == kit_file(load_layout("treeblox-adc"), "wiring.svg")
    assert [p.part for p in parts(build_board(load_layout("treeblox-adc")))][:3] == [
        "top plate, 4 mm", "sensor plate, 3 mm", "base plate, 3 mm"]


# --- diagnose: the walk's findings ----------------------------------------------------------


def test_diagnose_names_dead_chattering_and_crossed_sensors():
    layout = load_layout("tree-planting-classic-matrix")
    ch = {s: layout.channels_of_site[s][0] for s in layout.sites}
    checks = [SiteCheck("h0.0", ch["h0.0"]), SiteCheck("h0.1", ch["h0.2"]), SiteCheck("h0.2", ch["h0.1"]),
              SiteCheck("h0.3", None), SiteCheck("v0.0", ch["v0.0"], {ch["t0.0"]: 2}),
              SiteCheck("v0.1", ch["v0.1"], {ch["t0.0"]: 2})]
    changed = {ch[s] for s in ("h0.0", "h0.1", "h0.2", "v0.0", "v0.1", "t0.0")}
    found = diagnose(layout, checks, {}, changed)
    assert found.seen == ["h0.0", "v0.0", "v0.1"]
    assert found.crossed == [("h0.1", "h0.2")]
    assert found.dead == [("h0.3", ch["h0.3"])]
    assert found.chatter == {ch["t0.0"]: 4}
    text = "\n".join(report(layout, found, lambda c: f"r{c[0]}c{c[1]}"))
    assert "walk: 3 of 6 sites seen on their own sensor" in text
    assert "crossed: a piece on h0.1 answers on h0.2's sensor and one on h0.2 on h0.1's" in text
    assert "never changed: h0.3 (r0c3): a dead reed, its diode in backwards" in text
    assert "changed by itself: r4c1 -> t0.0 (4 changes with no piece on it)" in text


# --- the docs' kits -------------------------------------------------------------------------

DOCS_KIT = ROOT / "docs" / "kit"


@pytest.mark.parametrize("name", sorted(p.name for p in DOCS_KIT.iterdir()))
def test_the_kits_in_the_docs_are_what_the_kit_draws_today(name):
    files = kit_files(load_layout(name))
    for file in FILES:
        assert (DOCS_KIT / name / file).read_text(encoding="utf-8") == files[file], (
            f"docs/kit/{name}/{file} is stale: treeboard kit --layout {name} --out docs/kit/{name} --force")
    building = (ROOT / "docs" / "building.md").read_text()
    assert f"](kit/{name}/wiring.svg)" in building and f"](kit/{name}/template.svg)" in building


def test_the_docs_show_a_board_of_every_game_and_every_kind_of_sensor():
    layouts = [load_layout(p.name) for p in DOCS_KIT.iterdir()]
    assert {layout.game for layout in layouts} == set(games.names())
    assert {kind for layout in layouts for kind in layout.sensor_types} == {"pins", "matrix", "adc", "bridge"}
