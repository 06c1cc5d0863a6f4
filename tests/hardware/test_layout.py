"""Layouts: the shipped ones load and cover their boards; every kind of bad file is refused
with an error that names the file, the key and what was expected."""

import pytest

from hardware.layout import LayoutError, grid_sites, load_layout, shipped_layouts


SHIPPED = [
    "tree-planting-classic-pins", "tree-planting-classic-matrix", "tree-planting-4x4-matrix",
    "treeblox-adc", "grid-7x7-matrix", "grid-8x8-matrix", "grid-20x20-bridge",
    "tree-planting-classic-bridge",
    "fangqi-7x7-matrix", "fangqi-7x8-matrix", "fangqi-8x8-matrix", "fangqi-7x7-bridge",
    "arbos-20x20-bridge", "arbos-8x8-matrix",
    "game-for-the-trees-matrix", "game-for-the-trees-bridge",
    "game-for-the-trees-quad-matrix", "game-for-the-trees-quad-bridge",
]


def test_the_shipped_layouts_are_the_documented_ones():
    assert sorted(SHIPPED) == shipped_layouts()


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_layout_senses_and_lights_every_site_of_its_board(name):
    layout = load_layout(name)
    if layout.game is not None:
        import games

        sites = games.get_game(layout.game).new_state(**layout.game_options).sites()
    else:
        sites = grid_sites(*layout.grid)
    assert sorted(layout.sites) == sorted(sites)
    assert sorted(layout.channels_of_site) == sorted(sites)
    assert sorted(layout.leds_of_site) == sorted(sites)
    assert len(layout.site_of_channel) == len(sites)  # one sensor per site
    assert all(0 <= i < layout.led_count for leds in layout.leds_of_site.values() for i in leds)


def test_shipped_boards_have_the_expected_sizes():
    assert len(load_layout("tree-planting-classic-matrix").sites) == 29 + 11
    assert len(load_layout("tree-planting-4x4-matrix").sites) == 40 + 16
    treeblox = load_layout("treeblox-adc")
    assert treeblox.game == "treeblox" and treeblox.buttons == {"end_turn": 26}
    assert {k for k in treeblox.adc.kinds if k} == {"dark-leaf", "dark-branch", "light-leaf", "light-branch"}
    assert len(load_layout("grid-20x20-bridge").sites) == 400


def test_a_layout_loads_by_path_and_maps_both_ways(grid_layout):
    assert grid_layout.name == "grid3" and grid_layout.game is None and grid_layout.grid == (3, 3)
    assert grid_layout.site_of_channel[4] == "c3"
    assert grid_layout.site_of_channel[(1, 2)] == "c2"
    assert grid_layout.channels_of_site["a1"] == ((0, 0),)
    assert grid_layout.leds_of_site["c2"] == (3,)
    assert grid_layout.named_leds == {"turn": (9,)}
    assert grid_layout.sensor_types == ("pins", "matrix")
    assert grid_layout.leds.pin == 18 and grid_layout.leds.pixel_order == "GRB"
    assert grid_layout.debounce_s == pytest.approx(0.020)
    assert grid_layout.matrix.settle_s == pytest.approx(10e-6)


def test_grid_cells_are_named_chess_style_from_the_bottom_left():
    assert grid_sites(3, 2) == ["a1", "b1", "c1", "a2", "b2", "c2"]


# (change to GRID_LAYOUT, the key the error must name, words of what was expected)
BAD = {
    "channel used twice": (('c3 = 4', 'c3 = 4\nb3x = 4'), "sites.b3x", "a site of"),
    "pin channel used twice": (("[sensors.pins.sites]\nc3 = 4", "[sensors.pins.sites]\nc3 = 4\n"), None, None),
    "site the board lacks": (('"a3 b3 -"', '"a3 b3 d9"'), "sites[2] column 2", "a site of a 3x3 grid"),
    "site sensed twice": (('"a3 b3 -"', '"a3 b3 c3"'), "sites[2] column 2", "each site sensed once"),
    "pin that does not exist": (("c3 = 4", "c3 = 28"), "[sensors.pins] sites.c3", "a BCM GPIO number 0..27"),
    "pin given as text": (("c3 = 4", 'c3 = "GPIO4"'), "[sensors.pins] sites.c3", "a BCM GPIO number"),
    "pin used twice across sections": (("end_turn = 26", "end_turn = 5"), "[buttons] end_turn", "a GPIO no other key uses"),
    "led pin on a matrix line": (("pin = 18", "pin = 13"), "[leds] pin", "a GPIO no other key uses"),
    "led index past the end": (("named = { turn = 9 }", "named = { turn = 10 }"), "[leds] named.turn", "an LED index below the strip's length 10"),
    "led used twice": (("named = { turn = 9 }", "named = { turn = 3 }"), "[leds] named.turn", "an LED no other key uses"),
    "led chain longer than the strip": (("count = 10", "count = 8"), "[leds] chain", "at most 8 entries"),
    "led chain names an unknown site": (('"b3", "c3"]', '"b3", "z9"]'), "[leds] chain[8]", "a site of"),
    "bad toml": (("[leds]", "[leds"), "file", "valid TOML"),
    "duplicate key": (("c3 = 4", "c3 = 4\nc3 = 5"), "file", "valid TOML"),
    "unknown section": (("[buttons]", "[button]"), "button", "one of the sections"),
    "unknown led key": (("gamma = 1.0", "gama = 1.0"), "[leds] gama", "count, pin"),
    "bad grid": (('grid = "3x3"', 'grid = "3by3"'), "[board] grid", '"COLSxROWS"'),
    "grid too big": (('grid = "3x3"', 'grid = "27x3"'), "[board] grid", "1..26 columns and rows"),
    "unknown game": (('grid = "3x3"', 'game = "chess"'), "[board] game", "a game whose rules module loads"),
    "matrix rows mismatch": (('    "a3 b3 -",\n', ""), "[sensors.matrix] sites", "a list of 3 strings"),
    "matrix row too short": (('"a3 b3 -"', '"a3 b3"'), "[sensors.matrix] sites[2]", "3 site names"),
    "bad pull": (('pull = "up"', 'pull = "sideways"'), "[sensors.pins] pull", '"up", "down" or "none"'),
    "bad settle": (("settle_us = 10", "settle_us = -1"), "[sensors.matrix] settle_us", "a number from 0"),
    "bad pixel order": (('pixel_order = "GRB"', 'pixel_order = "XYZ"'), "[leds] pixel_order", "one of RGB"),
    "brightness above one": (("brightness = 1.0", "brightness = 1.5"), "[leds] brightness", "a number from 0"),
    "no sensors": (("[sensors.pins]", "[unused_pins]"), "unused_pins", "one of the sections"),
}


@pytest.mark.parametrize("case", [k for k in BAD if BAD[k][1]])
def test_a_bad_layout_is_refused_naming_file_key_and_expectation(case, write_layout, grid_text):
    (old, new), key, expected = BAD[case]
    assert old in grid_text, "the test's change must apply"
    path = write_layout(grid_text.replace(old, new, 1))
    with pytest.raises(LayoutError) as err:
        load_layout(path)
    message = str(err.value)
    assert str(path) in message
    assert key in message, message
    assert "expected " + expected in message, message


def test_the_same_pin_for_two_sites_is_refused(write_layout, grid_text):
    path = write_layout(grid_text.replace('"a3 b3 -"', '"a3 -  -"').replace("c3 = 4", "c3 = 4\nb3 = 4"))
    with pytest.raises(LayoutError, match=r"\[sensors.pins\] sites.b3: expected a GPIO no other key uses, got 4 \(already used by \[sensors.pins\] sites.c3\)"):
        load_layout(path)


def test_a_site_on_both_pins_and_matrix_is_refused(write_layout, grid_text):
    path = write_layout(grid_text.replace("c3 = 4", "a1 = 4\nc3 = 27"))
    with pytest.raises(LayoutError, match=r"sites\[0\] column 0: expected each site sensed once, got 'a1' \(already sensed by \[sensors.pins\] sites.a1\)"):
        load_layout(path)


def test_bad_game_options_are_refused(write_layout, grid_text):
    text = grid_text.replace('grid = "3x3"', 'game = "tree-planting"\noptions = { board = "moon" }')
    with pytest.raises(LayoutError, match=r"\[board\] options: expected options tree-planting accepts"):
        load_layout(write_layout(text))


def test_an_unknown_name_lists_the_shipped_layouts():
    with pytest.raises(LayoutError, match="expected a shipped layout name.*shipped: arbos-20x20-bridge, .*game-for-the-trees-bridge, .*grid-20x20-bridge"):
        load_layout("no-such-board")


def test_a_missing_path_is_refused(tmp_path):
    with pytest.raises(LayoutError, match="expected a readable layout file"):
        load_layout(tmp_path / "missing.toml")


ADC_LAYOUT = """
[board]
grid = "2x1"
[sensors.adc]
selects = [8]
thresholds = [0.3, 0.7]
kinds = ["dark", "", "light"]
[sensors.adc.sites]
a1 = [0, 0]
b1 = [0, 1]
[leds]
pin = 18
count = 2
chain = ["a1", "b1"]
"""

BAD_ADC = {
    "thresholds not increasing": (("[0.3, 0.7]", "[0.7, 0.3]"), "[sensors.adc] thresholds", "increasing numbers between 0 and 1"),
    "threshold out of range": (("[0.3, 0.7]", "[0.3, 1.2]"), "[sensors.adc] thresholds", "increasing numbers"),
    "kinds do not match bands": (('["dark", "", "light"]', '["dark", "light"]'), "[sensors.adc] kinds", "3 piece kinds"),
    "no empty band": (('["dark", "", "light"]', '["dark", "mid", "light"]'), "[sensors.adc] kinds", 'each kind in one band, and one band "" for an empty hole'),
    "channel past the chip": (("b1 = [0, 1]", "b1 = [0, 8]"), "[sensors.adc] sites.b1", "[chip, channel] with chip 0..0 and channel 0..7"),
    "chip not wired": (("b1 = [0, 1]", "b1 = [1, 1]"), "[sensors.adc] sites.b1", "[chip, channel] with chip 0..0"),
    "adc channel used twice": (("b1 = [0, 1]", "b1 = [0, 0]"), "[sensors.adc] sites.b1", "a channel no other site uses"),
    "bad chip select": (("selects = [8]", "selects = [5]"), "[sensors.adc] selects", "a list of chip-select GPIOs from 8 (CE0) and 7 (CE1)"),
    "spi pin clash": (("pin = 18", "pin = 11"), "[leds] pin", "a GPIO no other key uses"),
    "bridge mixed with adc": (("[leds]", "[sensors.bridge]\nsites = {}\n[leds]"), "[sensors.bridge]", "a bridge alone"),
}


@pytest.mark.parametrize("case", list(BAD_ADC))
def test_a_bad_adc_layout_is_refused(case, write_layout):
    (old, new), key, expected = BAD_ADC[case]
    assert old in ADC_LAYOUT
    path = write_layout(ADC_LAYOUT.replace(old, new, 1))
    with pytest.raises(LayoutError) as err:
        load_layout(path)
    message = str(err.value)
    assert str(path) in message and key in message and "expected " + expected in message, message


def test_adc_classification_bands_include_their_lower_edge(write_layout):
    adc = load_layout(write_layout(ADC_LAYOUT)).adc
    assert [adc.classify(v) for v in (0.0, 0.2999, 0.3, 0.6999, 0.7, 1.0)] == ["dark", "dark", None, None, "light", "light"]
    assert adc.level_of("light") == pytest.approx(0.85)
    with pytest.raises(ValueError, match="no band for piece kind 'grey'"):
        adc.level_of("grey")


def test_a_bridge_layout_needs_no_led_pin(write_layout):
    text = """
    [board]
    grid = "2x1"
    [sensors.bridge.sites]
    a1 = 0
    b1 = 7
    [leds]
    count = 2
    chain = ["b1", "a1"]
    """
    layout = load_layout(write_layout(text))
    assert layout.site_of_channel == {0: "a1", 7: "b1"} and layout.leds.pin is None
    assert layout.leds_of_site == {"b1": (0,), "a1": (1,)}


@pytest.mark.parametrize("name,board,points,bar", [
    ("fangqi-7x7-matrix", "6x6", 49, 25), ("fangqi-7x8-matrix", "6x7", 56, 28),
    ("fangqi-8x8-matrix", "8x8", 64, 32), ("fangqi-7x7-bridge", "6x6", 49, 25),
])
def test_fangqi_layouts_have_turn_leds_and_a_score_bar_as_long_as_the_counters(name, board, points, bar):
    layout = load_layout(name)
    assert layout.game == "fangqi" and layout.game_options == {"board": board}
    assert len(layout.sites) == points
    assert len(layout.named_leds["turn"]) == 2
    assert len(layout.named_leds["score0"]) == len(layout.named_leds["score1"]) == bar
    assert layout.led_count == points + 2 + 2 * bar


def test_a_layout_that_is_not_utf8_is_one_clear_line(tmp_path, grid_text):
    # What `treeboard trace --layout` prints for it: tests/board_driver/test_bad_input.py.
    path = tmp_path / "latin1.toml"
    path.write_bytes(("# Brett für Bäume\n" + grid_text).encode("latin-1"))
    with pytest.raises(LayoutError) as info:
        load_layout(path)
    assert str(info.value) == (f"{path}: file: expected a text file in UTF-8 "
                               "(byte 0xfc at offset 9 is not UTF-8)")
