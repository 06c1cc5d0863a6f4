"""selftest's walk through every site on the simulated board, broken as a maker might break it
(hardware/sim.py's Faults: a dead reed, a diode in backwards, two crossed wires, a broken row,
and a reed that closes by itself), and the typed actions of `selftest --sim` and `map --sim`
(board_driver/cli/typed_hands.py): `map --sim` finished by typed actions on every shipped
layout writes the layout it was given."""

from __future__ import annotations

import dataclasses
import io
import sys
import textwrap

import pytest

from board_driver.cli import main
from board_driver.cli.maker import map_layout, selftest
from board_driver.cli.typed_hands import TypedHands
from board_driver.config import sim_config
from hardware.layout import load_layout, shipped_layouts
from test_maker import FakeClock


@pytest.fixture
def clock():
    return FakeClock()


class Maker:
    """Hands that put a piece on each site the walk asks for (through whatever faults the board
    has), lift it when asked, and break the board first with `breaking(board)`."""

    def __init__(self, breaking=None, delay: float = 0.05, skip=()):
        self.breaking, self.delay, self.skip = breaking, delay, set(skip)
        self.asked: dict[str, float] = {}
        self.board = None

    def __call__(self, step):
        board = step.hardware.board
        if self.board is None:
            self.board = board
            if self.breaking:
                self.breaking(board)
        if step.phase == "place" and step.site not in self.skip:
            since = self.asked.setdefault(step.site, step.now)
            if step.now - since >= self.delay - 1e-9:
                board.place(step.site)
        elif step.phase == "lift":
            board.lift(step.site)


def walk(clock, hands, layout="tree-planting-classic-pins", **kw) -> list[str]:
    out = io.StringIO()
    kw = {"site_seconds": 1.0, "quiet_seconds": 1.0, **kw}
    assert selftest(sim_config(layout=layout), seconds_per_led=0, listen_seconds=0, walk=True,
                    out=out, clock=clock, wait=clock.advance, hands=hands, **kw) == 0
    return out.getvalue().splitlines()


def findings(lines: list[str]) -> list[str]:
    start = next(i for i, ln in enumerate(lines) if ln.startswith("walk: "))
    return lines[start:]


def test_a_healthy_board_answers_for_every_site(clock):
    lines = walk(clock, Maker())
    assert "leave the board empty for 1 s: a sensor that changes now changes by itself" in lines
    assert "put a piece on h0.0 (1/40; LED 0 lit)" in lines
    assert "  seen: matrix r0c0; lift it" in lines and "  seen: GPIO4; lift it" in lines
    assert findings(lines) == ["walk: 40 of 40 sites seen on their own sensor",
                               "  every sensor answered for its own site, and none changed by itself"]


def test_each_site_is_lit_while_its_piece_is_asked_for(clock):
    lit = {}

    def hands(step):
        if step.phase == "place":
            frame = step.hardware.board.strip.last
            lit.setdefault(step.site, tuple(i for i, px in enumerate(frame) if px != (0, 0, 0)))
        maker(step)

    maker = Maker()
    walk(clock, hands)
    layout = load_layout("tree-planting-classic-pins")
    assert lit == {site: layout.leds_of_site[site] for site in layout.sites}


def test_a_dead_reed_and_a_diode_in_backwards_never_change(clock):
    def breaking(board):
        board.faults.dead.add(4)            # t0.0's reed on GPIO4
        board.faults.backwards.add((1, 3))  # h1.0's diode, the band toward the column

    lines = walk(clock, Maker(breaking))
    assert "put a piece on t0.0 (30/40; LED 29 lit)" in lines
    assert lines[lines.index("put a piece on t0.0 (30/40; LED 29 lit)") + 1] == "  not seen within 1 s"
    assert findings(lines) == [
        "walk: 38 of 40 sites seen on their own sensor",
        "  never changed: h1.0 (matrix r1c3): a dead reed, its diode in backwards (the band must "
        "face the row), or a broken joint at that crossing",
        "  never changed: t0.0 (GPIO4): a dead reed, or a broken wire between the GPIO, the reed "
        "and GND"]


def test_two_crossed_wires_answer_for_each_other(clock):
    def breaking(board):
        board.faults.crossed.update({(0, 1): (0, 2), (0, 2): (0, 1)})   # h0.1 and h0.2 swapped
        board.faults.crossed.update({5: 6, 6: 5})                       # t0.1 and t0.2 swapped

    lines = walk(clock, Maker(breaking))
    assert "  seen on matrix r0c2, which the layout gives to h0.2; lift it" in lines
    assert findings(lines) == [
        "walk: 36 of 40 sites seen on their own sensor",
        "  crossed: a piece on h0.1 answers on h0.2's sensor and one on h0.2 on h0.1's: their "
        "wires are swapped; swap them back, or write the board as wired with `treeboard map`",
        "  crossed: a piece on t0.1 answers on t0.2's sensor and one on t0.2 on t0.1's: their "
        "wires are swapped; swap them back, or write the board as wired with `treeboard map`"]


def test_a_switch_at_a_crossing_the_layout_leaves_empty_answers_for_the_wrong_site(clock):
    def breaking(board):
        board.faults.crossed[(4, 4)] = (4, 5)   # h3.2's switch soldered one column over

    lines = walk(clock, Maker(breaking))
    assert "  seen on matrix r4c5, which the layout gives no site; lift it" in lines
    assert findings(lines)[1] == ("  wrong site: a piece on h3.2 answers on matrix r4c5 (a crossing "
                                  "the layout gives no site): a wire or a switch at the wrong place; "
                                  "fix it, or run `treeboard map`")


def test_a_broken_row_wire_is_named_as_the_row(clock):
    layout = load_layout("tree-planting-classic-pins")
    row0 = [ch for ch in layout.matrix.channels if ch[0] == 0]

    lines = walk(clock, Maker(lambda board: board.faults.dead.update(row0)))
    sites = " ".join(layout.matrix.channels[ch] for ch in sorted(row0))
    assert findings(lines) == [
        "walk: 34 of 40 sites seen on their own sensor",
        f"  matrix row 0 (GPIO23): none of its 6 sensors ever changed ({sites}): check that row's "
        "wire from the Pi to the first switch"]


@pytest.mark.parametrize("every", [0.3, 2.5])   # a flicker, and a reed on for seconds at a time
def test_a_reed_that_closes_by_itself_is_named(clock, every):
    maker = Maker()
    state = {"next": None, "on": False}

    def hands(step):
        board = step.hardware.board
        if step.site == "t0.1":   # its own turn: it rests, open, and the maker's piece comes
            if state["on"]:
                board.lift("t0.1")
                state["on"] = False
        elif state["next"] is None or step.now >= state["next"]:
            state["on"] = not state["on"]
            (board.place if state["on"] else board.lift)("t0.1")
            state["next"] = step.now + every
        maker(step)

    lines = walk(clock, hands, quiet_seconds=6.0)
    assert any(ln == "  GPIO5 -> t0.1: present, by itself" for ln in lines)
    found = findings(lines)
    assert found[0] == "walk: 40 of 40 sites seen on their own sensor"   # each site's own first
    chatter = [ln for ln in found if ln.startswith("  changed by itself: GPIO5 -> t0.1 (")]
    assert len(chatter) == 1 and chatter[0].endswith("changes with no piece on it): a bouncing reed, "
                                                     "a loose wire or a magnet left nearby")
    assert not any("wrong site" in ln for ln in found)


def test_ctrl_c_in_the_walk_still_reports_what_was_walked(clock):
    maker = Maker(lambda board: board.faults.dead.add((0, 1)))

    def hands(step):
        if step.site == "h0.3":
            raise KeyboardInterrupt
        maker(step)

    lines = walk(clock, hands)
    assert "stopped" in lines
    assert findings(lines) == [
        "walk: 2 of 3 sites seen on their own sensor",
        "  never changed: h0.1 (matrix r0c1): a dead reed, its diode in backwards (the band must "
        "face the row), or a broken joint at that crossing"]


def test_the_walk_on_hall_sensors(clock):
    def hands(step):
        if step.phase == "place":
            step.hardware.board.place(step.site, "dark-leaf")
        elif step.phase == "lift":
            step.hardware.board.lift(step.site)

    lines = walk(clock, hands, layout="treeblox-adc")
    assert "  seen: adc chip0 ch0; lift it" in lines
    assert findings(lines)[0] == "walk: 16 of 16 sites seen on their own sensor"


# --- typed actions --------------------------------------------------------------------------


def typed(lines: list[str], **kw) -> TypedHands:
    return TypedHands(iter(lines), out=kw.pop("out", io.StringIO()), err=kw.pop("err", io.StringIO()), **kw)


def script(layout) -> list[str]:
    kind = next((k for k in layout.adc.kinds if k), None) if layout.adc else None
    return [line for site in layout.sites
            for line in (f"place {site}" + (f" {kind}" if kind else ""), f"lift {site}")]


MAPPABLE = [n for n in shipped_layouts() if load_layout(n).bridge is None]


@pytest.mark.parametrize("name", MAPPABLE)
def test_map_sim_finished_by_typed_actions_writes_the_shipped_layout(name, tmp_path, clock):
    shipped = load_layout(name)
    output = tmp_path / f"{name}.toml"
    out, err = io.StringIO(), io.StringIO()
    assert map_layout(sim_config(layout=name), output, out=out, err=err, clock=clock,
                      wait=clock.advance, hands=typed(script(shipped), err=err)) == 0, err.getvalue()
    mapped = load_layout(output)
    # everything that decides how the board plays is the shipped layout's
    assert dataclasses.replace(mapped, name=shipped.name, path=shipped.path) == shipped
    assert f"wrote {output}: {len(shipped.sites)} sites mapped" in out.getvalue()
    assert err.getvalue() == ""


def test_typed_actions_that_end_early_write_nothing(tmp_path, clock):
    err = io.StringIO()
    output = tmp_path / "m.toml"
    assert map_layout(sim_config(layout="tree-planting-4x4-matrix"), output, out=io.StringIO(),
                      err=err, clock=clock, wait=clock.advance,
                      hands=typed(["place h0.0", "lift h0.0"])) == 2
    assert err.getvalue() == ("treeboard map: the typed actions ended after 1 of 56 sites; nothing "
                              "written\n")
    assert not output.exists()


def test_typed_actions_refused_are_said_and_the_next_one_is_taken(tmp_path, clock):
    err, out = io.StringIO(), io.StringIO()
    lines = ["# a comment", "jump h0.0", "tap h0.0", "place z9", "place h0.0", "lift h0.0"]
    hands = typed(lines, out=out, err=err, echo=True)
    map_layout(sim_config(layout="tree-planting-4x4-matrix"), tmp_path / "m.toml", out=out,
               err=io.StringIO(), clock=clock, wait=clock.advance, hands=hands)
    said = err.getvalue().splitlines()
    assert said[0].startswith("  jump h0.0: unknown action 'jump'; expected place, lift")
    assert said[1] == "  tap h0.0: tap is a touch game's gesture on the sim; here say place and lift"
    assert said[2] == "  place z9: 'z9' is no site of layout tree-planting-4x4-matrix"
    assert "> place h0.0\n  h0.0 = matrix r0c0; lift the piece\n> lift h0.0\n" in out.getvalue()


def test_a_wait_holds_the_next_action(tmp_path, clock):
    out = io.StringIO()
    times = {}

    class Timed(TypedHands):
        def _do(self, line, step):
            times.setdefault(line, step.now)
            return super()._do(line, step)

    hands = Timed(iter(["place h0.0", "wait 2000", "lift h0.0"]), out=out, err=io.StringIO())
    map_layout(sim_config(layout="tree-planting-4x4-matrix"), tmp_path / "m.toml", out=out,
               err=io.StringIO(), clock=clock, wait=clock.advance, hands=hands)
    assert times["lift h0.0"] - times["wait 2000"] == pytest.approx(2.0, abs=0.02)


SMALL = """
[board]
grid = "2x2"

[sensors.pins]
[sensors.pins.sites]
a1 = 4
b1 = 5
a2 = 6
b2 = 12

[leds]
pin = 18
count = 4
chain = ["a1", "b1", "a2", "b2"]
"""


def test_cli_map_sim_reads_the_typed_actions_on_stdin(tmp_path, capsys, monkeypatch):
    layout = tmp_path / "small.toml"
    layout.write_text(textwrap.dedent(SMALL))
    monkeypatch.setattr(sys, "stdin", io.StringIO(
        "place a1\nlift a1\nplace b1\nlift b1\nplace a2\nlift a2\nplace b2\nlift b2\n"))
    output = tmp_path / "mapped.toml"
    assert main(["map", "--sim", "--layout", str(layout), "--output", str(output)]) == 0
    text = capsys.readouterr().out
    assert text.startswith("type the sim's actions to move the simulated pieces: place SITE [KIND]")
    assert "put a piece on a1 (1/4; LED 0 blinking)\n> place a1\n  a1 = GPIO4; lift the piece" in text
    assert load_layout(output).site_of_channel == load_layout(layout).site_of_channel


def test_cli_selftest_sim_listens_to_typed_actions(tmp_path, capsys, monkeypatch):
    layout = tmp_path / "small.toml"
    layout.write_text(textwrap.dedent(SMALL))
    monkeypatch.setattr(sys, "stdin", io.StringIO("place b1\nlift b1\n"))
    assert main(["selftest", "--sim", "--layout", str(layout), "--led-seconds", "0",
                 "--listen", "30"]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = lines.index("sensors, for 30 s (Ctrl-C to stop): channel -> site: value")
    assert lines[start + 1:start + 6] == ["> place b1", "GPIO5 -> b1: present", "> lift b1",
                                          "GPIO5 -> b1: empty", "stopped: the typed actions ended"]
    assert "sensors seen changing (1 of 4): GPIO5 -> b1" in lines
