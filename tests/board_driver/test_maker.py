"""`treeboard selftest` and `treeboard map` on the simulated board, the test acting as the maker's
hands between polls (`hands(step)`), on a fake clock that only the tools' `wait` moves."""

from __future__ import annotations

import io
import random
import textwrap
import tomllib

import pytest

from board_driver.cli import main
from board_driver.config import sim_config
from board_driver.cli.maker import EXIT_INTERRUPTED, discovery_layout, layout_toml, map_layout, selftest
from hardware.base import HardwareError
from hardware.layout import load_layout

DARK = (0, 0, 0)


class FakeClock:
    def __init__(self, now: float = 1000.0):
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        assert 0 <= seconds <= 0.5, f"the tools wait one poll at a time, not {seconds}"
        self.now += seconds


@pytest.fixture
def clock():
    return FakeClock()


#: A 2x2 grid: a1 on a direct pin, b1 a2 b2 on a 2x2 matrix with one empty crossing (r1c1).
SMALL = """
[board]
grid = "2x2"

[sensors]
debounce_ms = 20

[sensors.pins]
pull = "up"
[sensors.pins.sites]
a1 = 4

[sensors.matrix]
rows = [5, 6]
cols = [12, 13]
sites = ["b1 a2", "b2 -"]

[leds]
pin = 18
count = 5
chain = ["a1", "b1", "a2", "b2"]
named = { turn = 4 }

[buttons]
end_turn = 26
"""


@pytest.fixture
def small(tmp_path):
    path = tmp_path / "small.toml"
    path.write_text(textwrap.dedent(SMALL))
    return sim_config(layout=str(path))


def lit(frame) -> tuple[int, ...]:
    return tuple(i for i, px in enumerate(frame) if px != DARK)


def put(step, channel, present=True):
    """Close (or open) the switch at a channel, mapped or not, on the simulated board."""
    board = step.hardware.board
    name = board.layout.site_of_channel[channel]
    (board.place if present else board.lift)(name)


# --- selftest -------------------------------------------------------------------------------


def test_selftest_lights_every_led_exactly_once_in_order_and_names_its_owner(clock):
    out = io.StringIO()
    seen = {}

    def hands(step):
        seen.setdefault("hw", step.hardware)
        if step.phase == "led":
            times = seen.setdefault(step.led, [])
            times.append(step.now)

    assert selftest(sim_config(), seconds_per_led=0.3, listen_seconds=0, out=out, clock=clock,
                    wait=clock.advance, hands=hands) == 0
    strip = seen["hw"].board.strip
    lit_frames = [lit(f) for f in strip.frames if lit(f)]
    assert lit_frames == [(i,) for i in range(42)]
    assert strip.last == (DARK,) * 42  # dark at the end
    for i in range(42):  # each stays on for its time
        assert seen[i][-1] - seen[i][0] == pytest.approx(0.3)
    lines = out.getvalue().splitlines()
    led_lines = [ln for ln in lines if ln.startswith("LED ")]
    assert len(led_lines) == 42
    assert led_lines[0] == "LED 0: h0.0"
    assert led_lines[29] == "LED 29: t0.0"
    assert led_lines[40:] == ["LED 40: turn (named)", "LED 41: turn (named)"]


def test_selftest_prints_each_settled_change_and_sums_up(clock):
    out = io.StringIO()
    t0 = {}

    def hands(step):
        if step.phase == "led":
            if step.led == 3:
                put(step, 22)  # a peg on t2.2 before listening starts: where we start from
            return
        t = round(step.now - t0.setdefault("listen", step.now), 3)
        if t == 0.10:
            put(step, 4)            # t0.0, a direct pin
        elif t == 0.30:
            put(step, 4, False)
        elif t == 0.50:
            put(step, (0, 0))       # h0.0 on the matrix
        elif t == 0.60:
            put(step, 5)            # t0.1 bounces: on and off within the window
            put(step, 5, False)
        elif t == 0.70:
            put(step, (4, 5))       # a switch at the crossing the layout leaves empty
        elif t == 0.80:
            put(step, 22, False)

    assert selftest(sim_config(), seconds_per_led=0.01, listen_seconds=1.0, out=out, clock=clock,
                    wait=clock.advance, hands=hands) == 0
    lines = out.getvalue().splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("sensors, for 1 s"))
    assert lines[start + 1:start + 6] == [
        "GPIO4 -> t0.0: present",
        "GPIO4 -> t0.0: empty",
        "matrix r0c0 -> h0.0: present",
        "matrix r4c5 -> (no site): present",
        "GPIO22 -> t2.2: empty",
    ]
    summary = lines[start + 6:]
    assert summary[0] == ("sensors seen changing (4 of 41): GPIO4 -> t0.0, matrix r0c0 -> h0.0, "
                          "matrix r4c5 -> (no site), GPIO22 -> t2.2")
    assert summary[1].startswith("sites never seen (37): h0.1 ")
    never = summary[1].split(": ")[1].split()
    assert "t0.1" in never and "t0.0" not in never and "h0.0" not in never and "t2.2" not in never


def test_selftest_ctrl_c_stops_cleanly_with_the_summary(clock):
    out = io.StringIO()
    hws = []

    def hands(step):
        hws.append(step.hardware)
        if step.phase == "led" and step.led == 5:
            raise KeyboardInterrupt

    assert selftest(sim_config(), seconds_per_led=0.1, listen_seconds=10, out=out, clock=clock,
                    wait=clock.advance, hands=hands) == 0
    text = out.getvalue()
    assert "LED 5: v0.1" in text and "LED 6:" not in text
    assert "stopped" in text and "sensors seen changing (0 of 41)" in text
    strip = hws[0].board.strip
    assert strip.last == (DARK,) * 42
    with pytest.raises(HardwareError):  # released
        strip.show([DARK] * 42)


def test_selftest_refuses_a_bridge_backend():
    with pytest.raises(HardwareError, match="bridge"):
        selftest(sim_config(backend="bridge"), seconds_per_led=0, listen_seconds=0, out=io.StringIO())


# --- map ------------------------------------------------------------------------------------


class Maker:
    """Hands that put a piece where `wiring` says each site's sensor really is, then lift it."""

    def __init__(self, wiring, delay: float = 0.05):
        self.wiring, self.delay = wiring, delay
        self.prompted: dict[str, float] = {}

    def __call__(self, step):
        if step.phase == "place":
            since = self.prompted.setdefault(step.site, step.now)
            if step.now - since >= self.delay - 1e-9:
                put(step, self.wiring[step.site])
        elif step.phase == "lift":
            put(step, self.wiring[step.site], False)


def test_map_finds_a_scrambled_wiring_and_writes_a_layout_that_loads(tmp_path, clock):
    layout = load_layout("tree-planting-classic-pins")
    channels = list(discovery_layout(layout).site_of_channel)
    assert len(channels) == 41 and (4, 5) in channels  # every crossing, the empty one too
    rng = random.Random(7)
    rng.shuffle(channels)
    if (4, 5) not in channels[:40]:
        channels[0], channels[channels.index((4, 5))] = (4, 5), channels[0]
    wiring = dict(zip(layout.sites, channels))  # pins and crossings, all mixed up
    hands = Maker(wiring)
    frames = []
    original = hands.__call__

    def watch(step):  # what the LEDs show while the first site waits
        if step.site == "h0.0" and step.phase == "place":
            frames.append(lit(step.hardware.board.strip.last or (DARK,) * 42))
        original(step)

    hands.delay = 1.0
    output = tmp_path / "mapped.toml"
    out, err = io.StringIO(), io.StringIO()
    assert map_layout(sim_config(), output, out=out, err=err, clock=clock, wait=clock.advance,
                      hands=watch) == 0, err.getvalue()

    mapped = load_layout(output)
    assert mapped.site_of_channel == {ch: site for site, ch in wiring.items()}
    assert mapped.sites == layout.sites and mapped.game == layout.game
    assert mapped.game_options == layout.game_options
    assert mapped.leds == layout.leds and mapped.leds_of_site == layout.leds_of_site
    assert mapped.named_leds == layout.named_leds and mapped.buttons == layout.buttons
    assert mapped.pins.pull == layout.pins.pull and mapped.pins.active_low == layout.pins.active_low
    assert (mapped.matrix.rows, mapped.matrix.cols) == (layout.matrix.rows, layout.matrix.cols)
    assert mapped.debounce_s == layout.debounce_s

    prompts = [ln for ln in out.getvalue().splitlines() if ln.startswith("put a piece on ")]
    assert [p.split()[4] for p in prompts] == list(layout.sites)
    assert prompts[0] == "put a piece on h0.0 (1/40; LED 0 blinking)"
    assert f"  h0.0 = {'GPIO' if isinstance(wiring['h0.0'], int) else 'matrix r'}" in out.getvalue()
    # h0.0's LED blinked while it waited (on, then off, then on again) and nothing else was lit
    assert {(), (0,)} == set(frames)
    changes = [a for a, b in zip(frames, frames[1:]) if a != b]
    assert len(changes) >= 3
    assert f"wrote {output}: 40 sites mapped" in out.getvalue()


def test_map_refuses_a_channel_already_mapped_and_waits_again(tmp_path, small, clock):
    wiring = {"a1": (1, 1), "b1": 4, "a2": (0, 0), "b2": (0, 1)}
    out = io.StringIO()
    state = {}

    def hands(step):
        if step.site == "b1" and step.phase == "place" and "wrong" not in state:
            put(step, (1, 1))  # the piece goes where a1's sensor is: already mapped
            state["wrong"] = step.now
            return
        if step.site == "b1" and "wrong" in state and "lifted" not in state:
            if "already mapped" in out.getvalue():
                put(step, (1, 1), False)
                state["lifted"] = step.now
            return
        Maker(wiring, delay=0)(step)

    output = tmp_path / "mapped.toml"
    assert map_layout(small, output, out=out, err=out, clock=clock, wait=clock.advance, hands=hands) == 0
    text = out.getvalue()
    assert "  matrix r1c1 is already mapped to a1; lift that piece and put one on b1" in text
    assert text.count("already mapped") == 1
    assert load_layout(output).site_of_channel == {ch: s for s, ch in wiring.items()}


def test_map_asks_for_only_one_piece_when_two_sensors_are_on(tmp_path, small, clock):
    wiring = {"a1": 4, "b1": (0, 0), "a2": (0, 1), "b2": (1, 0)}
    out = io.StringIO()
    state = {}

    def hands(step):
        if step.site == "a2" and step.phase == "place" and "extra" not in state:
            put(step, (1, 1))  # a stray piece on an unmapped crossing
            put(step, wiring["a2"])  # and the right one
            state["extra"] = True
            return
        if "extra" in state and "removed" not in state and "leave only" in out.getvalue():
            put(step, (1, 1), False)
            state["removed"] = True
            return
        Maker(wiring, delay=0)(step)

    output = tmp_path / "mapped.toml"
    assert map_layout(small, output, out=out, err=out, clock=clock, wait=clock.advance, hands=hands) == 0
    assert "  2 sensors are on (matrix r0c1, matrix r1c1); leave only the piece on a2" in out.getvalue()
    assert load_layout(output).site_of_channel == {ch: s for s, ch in wiring.items()}


def test_map_times_out_per_site_and_writes_nothing(tmp_path, small, clock):
    out, err = io.StringIO(), io.StringIO()
    started = clock()
    output = tmp_path / "mapped.toml"
    hands = Maker({"a1": 4}, delay=0)

    def only_a1(step):
        if step.site == "a1":
            hands(step)

    assert map_layout(small, output, timeout=2.5, out=out, err=err, clock=clock, wait=clock.advance,
                      hands=only_a1) == 2
    assert err.getvalue().strip() == ("treeboard map: timed out after 2.5 s waiting for a piece on b1; "
                                      "1 of 4 sites mapped, nothing written")
    assert not output.exists()
    assert clock() - started == pytest.approx(2.5, abs=0.2)  # a1 took a few polls, b1 2.5 s


def test_map_times_out_when_a_piece_is_never_lifted(tmp_path, small, clock):
    err = io.StringIO()

    def hands(step):
        if step.phase == "place":
            put(step, 4)

    assert map_layout(small, tmp_path / "m.toml", timeout=1, out=io.StringIO(), err=err, clock=clock,
                      wait=clock.advance, hands=hands) == 2
    assert "timed out after 1 s waiting for the piece on a1 to be lifted" in err.getvalue()


def test_map_never_overwrites_an_existing_file(tmp_path, small):
    output = tmp_path / "mapped.toml"
    output.write_text("mine\n")
    err = io.StringIO()
    assert map_layout(small, output, out=io.StringIO(), err=err) == 2
    assert "exists; not overwriting" in err.getvalue()
    assert output.read_text() == "mine\n"


def test_map_ctrl_c_writes_nothing_and_leaves_the_leds_dark(tmp_path, small, clock):
    out = io.StringIO()
    hws = []

    def hands(step):
        hws.append(step.hardware)
        if step.site == "b1":
            raise KeyboardInterrupt
        Maker({"a1": 4}, delay=0)(step)

    output = tmp_path / "mapped.toml"
    assert map_layout(small, output, out=out, err=out, clock=clock, wait=clock.advance,
                      hands=hands) == EXIT_INTERRUPTED
    assert "stopped after 1 of 4 sites; nothing written" in out.getvalue()
    assert not output.exists()
    assert hws[0].board.strip.last == (DARK,) * 5


def test_map_on_adc_hall_sensors_maps_every_channel_of_each_chip(tmp_path, clock):
    layout = load_layout("treeblox-adc")
    channels = [(chip, ch) for chip in (0, 1) for ch in range(8)]
    random.Random(3).shuffle(channels)
    wiring = dict(zip(layout.sites, channels))

    def hands(step):
        board = step.hardware.board
        name = board.layout.site_of_channel[wiring[step.site]]
        if step.phase == "place":
            board.place(name, "light-leaf")
        else:
            board.lift(name)

    output = tmp_path / "treeblox.toml"
    assert map_layout(sim_config(layout="treeblox-adc"), output, out=io.StringIO(), clock=clock,
                      wait=clock.advance, hands=hands) == 0
    mapped = load_layout(output)
    assert mapped.site_of_channel == {ch: s for s, ch in wiring.items()}
    assert mapped.adc.kinds == layout.adc.kinds and mapped.adc.thresholds == layout.adc.thresholds


def test_the_written_layout_keeps_every_section_of_the_input(small, tmp_path):
    layout = load_layout(small.layout)
    text = layout_toml(layout, {4: "b2", (0, 0): "a1", (1, 1): "b1"})
    assert '[buttons]\nend_turn = 26' in text
    assert 'named = { turn = 4 }' in text
    data = tomllib.loads(text)
    assert data["sensors"]["matrix"]["sites"] == ["a1 -", "-  b1"]
    assert data["sensors"]["pins"] == {"pull": "up", "sites": {"b2": 4}}
    out = tmp_path / "partial.toml"
    out.write_text(text)
    assert load_layout(out).unsensed_sites == ("a2",)  # a site never mapped is left unsensed


def test_cli_selftest_and_map_run_on_the_simulated_board(tmp_path, capsys):
    # No --listen: a simulated selftest finishes by itself (nothing can change there).
    assert main(["selftest", "--sim", "--led-seconds", "0"]) == 0
    out = capsys.readouterr().out
    assert "LED 41: turn (named)" in out and "sensors, for" not in out
    existing = tmp_path / "x.toml"
    existing.write_text("")
    assert main(["map", "--sim", "--output", str(existing)]) == 2


def test_selftest_and_map_use_the_real_board_unless_told_sim(tmp_path, capsys, monkeypatch):
    # No config installed and no --layout: say what to do, do not test a simulated board.
    monkeypatch.setattr("board_driver.cli.board.DEFAULT_PATH", tmp_path / "none.toml")
    assert main(["selftest"]) == 2
    assert "--layout NAME" in capsys.readouterr().err
    # --layout alone means the real board on this machine's GPIO, which it has none of.
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "none-here")
    for argv in (["selftest", "--layout", "tree-planting-classic-pins"],
                 ["map", "--layout", "tree-planting-classic-pins", "--output", str(tmp_path / "m.toml")]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert 'backend "gpio" needs a Raspberry Pi' in err and "--sim" in err
    # A config file's backend decides, as for `treeboard run`.
    config = tmp_path / "config.toml"
    config.write_text('backend = "sim"\nlayout = "tree-planting-4x4-matrix"\n')
    assert main(["selftest", "--config", str(config), "--led-seconds", "0", "--listen", "0"]) == 0
    assert "selftest of tree-planting-4x4-matrix (sim)" in capsys.readouterr().out
