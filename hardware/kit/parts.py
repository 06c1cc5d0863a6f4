"""The parts list of a layout's board (`parts.csv`): what to buy and make, how many, what for,
and a typical part number. Every count comes from the layout (its sensors, matrix, ADCs, bridge,
LED strip and buttons) or from its game's plan (the pieces and their magnets), so the list
cannot disagree with the board it is for.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass

from hardware.kit.board import Board
from hardware.kit.pins import SHIFT_REGISTER_BITS, bridge_shape, pi_lines, pico_lines

#: The plates the board is made of (docs/building.md): the top, with the grooves, holes and
#: LED holes; the sensor plate under it, with a pocket for every sensor and LED; the base.
TOP_PLATE_MM = 4.0
SENSOR_PLATE_MM = 3.0
BASE_PLATE_MM = 3.0
#: A WS2812B lit dark still draws about 1 mA; a supply is chosen with a tenth to spare.
IDLE_MA_PER_LED = 1.0
SUPPLY_HEADROOM = 1.1

REED = ("reed switch, normally open, 14 mm glass",
        "Comus MKA-14103 (or a digital hall switch: DRV5032FB, A3144)")
LINEAR_HALL = ("linear hall sensor, ratiometric", "TI DRV5055A1QLPG (TO-92), or Honeywell SS49E")
CSV_HEADER = ("part", "count", "what for", "typical part number")


@dataclass(frozen=True)
class Part:
    part: str
    count: int
    what_for: str
    part_number: str


def parts(board: Board) -> list[Part]:
    """Every part of the board, in the order a maker builds it: the board and its pieces, the
    sensors and what they need, the LEDs and theirs, the controllers, the connectors."""
    return [*_board_and_pieces(board), *_sensors(board), *_leds(board), *_controllers(board)]


def parts_csv(board: Board) -> str:
    """`parts(board)` as CSV with a header row."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for p in parts(board):
        writer.writerow((p.part, p.count, p.what_for, p.part_number))
    return out.getvalue()


def _board_and_pieces(board: Board) -> list[Part]:
    size = f"{board.width:g} x {board.height:g} mm"
    out = [Part(f"top plate, {TOP_PLATE_MM:g} mm", 1, f"{size}: the playing surface; template.svg's "
                "top layers", "birch plywood or cast acrylic sheet"),
           Part(f"sensor plate, {SENSOR_PLATE_MM:g} mm", 1, f"{size}: a pocket for every sensor and "
                "LED; template.svg's sensor-plate layers", "birch plywood or acrylic sheet"),
           Part(f"base plate, {BASE_PLATE_MM:g} mm", 1, f"{size}: closes the back; template.svg's "
                "outline and alignment holes", "plywood or hardboard"),
           Part("dowel pin, 3 x 12 mm", 4, "through the alignment holes, to line the plates up",
                "steel dowel pin DIN 6325 3 x 12")]
    magnets: dict[str, list] = {}
    for piece in board.plan.pieces:
        out.append(Part(f"{piece.name} ({piece.size})", piece.count, piece.note or "a piece",
                        "make: its outline is on template.svg"))
        if piece.magnet:
            kind, _, where = piece.magnet.partition(", ")
            magnets.setdefault(kind, []).append((piece, where))
    for kind, uses in magnets.items():
        count = sum(piece.count for piece, _ in uses)
        said = "; ".join(f"{where or 'one'} ({piece.count} for {piece.name})" for piece, where in uses)
        out.append(Part(f"magnet, {kind}", count, said, f"neodymium disc magnet {kind.split(' neodymium')[0]}"))
    return out


def _sensors(board: Board) -> list[Part]:
    layout = board.layout
    out = []
    switches = sum(len(g.channels) for g in (layout.pins, layout.matrix, layout.bridge) if g is not None)
    if switches:
        where = []
        if layout.pins is not None:
            where.append(f"{len(layout.pins.channels)} on the Pi's own pins")
        if layout.matrix is not None:
            where.append(f"{len(layout.matrix.channels)} in the diode matrix")
        if layout.bridge is not None:
            where.append(f"{len(layout.bridge.channels)} in the Pico's matrix")
        out.append(Part(REED[0], switches, "one under every sensed site: " + ", ".join(where), REED[1]))
    diodes = sum(len(g.channels) for g in (layout.matrix, layout.bridge) if g is not None)
    if diodes:
        out.append(Part("diode, small signal", diodes, "one in series with every matrix switch: "
                        "anode to the column, band (cathode) to the row", "1N4148 (DO-35)"))
    chips = 0
    if layout.adc is not None:
        out.append(Part(LINEAR_HALL[0], len(layout.adc.channels), "one under every hole, powered "
                        "from 3.3 V, its output to an MCP3008 channel", LINEAR_HALL[1]))
        chips = len(layout.adc.selects)
        out.append(Part("ADC, 8 channels, SPI", chips, "the hall sensors' readings, on SPI0",
                        "Microchip MCP3008-I/P (DIP-16)"))
    if layout.bridge is not None and layout.bridge.matrix == "shift-register":
        rows, cols = bridge_shape(layout)
        drivers, readers = math.ceil(rows / SHIFT_REGISTER_BITS), math.ceil(cols / SHIFT_REGISTER_BITS)
        chips += drivers + readers
        out += [Part("shift register, serial in, parallel out", drivers, f"drive the {rows} rows",
                     "74HC595N (DIP-16)"),
                Part("shift register, parallel in, serial out", readers, f"read the {cols} columns",
                     "74HC165N (DIP-16)"),
                Part("resistor, 10 kohm", cols, "a pull-up on every column, to 3.3 V",
                     "1/4 W metal film (or 10 kohm resistor networks)")]
    chips += 1   # the level shifter
    out.append(Part("capacitor, 100 nF ceramic", chips, "across every chip's supply pins, close to "
                    "the chip", "100 nF X7R, 5 mm pitch"))
    return out


def _leds(board: Board) -> list[Part]:
    leds = board.layout.leds
    amps = math.ceil((leds.max_milliamps + IDLE_MA_PER_LED * leds.count) / 1000 * SUPPLY_HEADROOM)
    return [Part("RGB LED, addressable", leds.count, "one beside each site, plus the named ones "
                 "(wiring.svg's LED chain, in its order)", "WS2812B 5050 (a strip at 60/m, or "
                 "single pixels on breakouts)"),
            Part("resistor, 330 ohm", 1, "in the data line at the first LED", "1/4 W metal film"),
            Part("capacitor, 1000 uF 10 V electrolytic", 1, "across the strip's 5 V supply at its "
                 "start", "Panasonic EEU-FR1A102 (or any 1000 uF, 10 V or more)"),
            Part("level shifter, 3.3 V to 5 V", 1, "the controller's 3.3 V data to the strip's 5 V",
                 "74AHCT125N (DIP-14)"),
            Part(f"power supply, 5 V {amps} A", 1, f"the strip alone: the layout's budget is "
                 f"{leds.max_milliamps:g} mA ([leds] max_milliamps); join its ground to the Pi's",
                 f"5 V {amps} A, with a barrel jack or screw terminals")]


def _controllers(board: Board) -> list[Part]:
    layout = board.layout
    out = [Part("Raspberry Pi", 1, "runs treeboard: the rules, the page, the voice",
                "Raspberry Pi Zero 2 W, 3, 4 or 5, with its own USB supply and a microSD card")]
    lines = pi_lines(layout)
    if layout.bridge is not None:
        pico = pico_lines(layout)
        out += [Part("microcontroller board", 1, "scans the sensors and drives the strip "
                     "(firmware_bridge), on the Pi's USB", "Raspberry Pi Pico (RP2040)"),
                Part("USB cable, micro-B", 1, "the Pico to the Pi", "USB-A to micro-B, 0.5 m"),
                Part("female header, 1x20", 2, "a socket for the Pico", "2.54 mm pitch")]
        wires = len(pico) + len(lines) + 2
    else:
        out.append(Part("female header, 2x20 (or a GPIO ribbon and breakout)", 1,
                        "the Pi's 40-pin header to the board", "2.54 mm pitch, 40-pin IDC ribbon"))
        wires = len(lines) + 2
    out += [Part("JST SM 3-pin connector pair", 1, "the strip: 5 V, data, GND", "JST SM 3P pigtails"),
            Part("jumper wire, female-female", wires, "one per controller line used (wiring.svg) and "
                 "two for the grounds", "Dupont 20 cm")]
    for name in layout.buttons:
        out.append(Part("push button, momentary", 1, f"the {name} button: from its GPIO to GND",
                        "12 mm tactile or 16 mm panel-mount push button"))
    return out
