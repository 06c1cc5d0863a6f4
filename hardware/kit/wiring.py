"""The wiring diagram (`wiring.svg`) of a layout: the controller's pins with each line the layout
uses (the Pi's 40-pin header; on a bridge board the Pico's too, with the ROW_PINS and COL_PINS
its main.py must say), the sensors (direct pins, the matrix's rows and columns with a switch
and a diode at every crossing, drawn the way it must be soldered: anode to the column, band to
the row; the MCP3008s' channels), the LED chain in strip order with each LED's site, the data
line's resistor and level shifter, and the buttons.

A drawing for the screen and the bench (pixels, not millimetres). Each sensed site is one
element of class "sensor" with `data-site`; each LED one of class "led" with `data-led` and
`data-site` ("-" for an LED beside no site, its name in `data-name`).
"""

from __future__ import annotations

from hardware.kit import svg
from hardware.kit.board import Board
from hardware.kit.pins import (PI_HEADER, PI_PIN_OF_GPIO, PICO_HEADER, PICO_PIN_OF_GPIO,
                               SHIFT_REGISTER_BITS, bridge_matrix_pins, bridge_shape, pi_lines,
                               pico_lines)
from hardware.layout import ADC_CHANNELS, SPI_CLOCK, SPI_MISO, SPI_MOSI

INK = "#222222"
USED = "#c0392b"
FAINT = "#999999"
FONT = 11
ROLE_COLOURS = {"row": "#1f6fb2", "col": "#2e8b57", "pin": "#8e44ad", "led": "#d35400",
                "spi": "#7f8c8d", "select": "#7f8c8d", "button": "#b8860b", "strobe": "#7f8c8d",
                "jumper": "#7f8c8d"}
PAD = 24
HEADER_ROW = 16
CROSSING = 46
LED_BOX = (58, 34)
LEDS_A_ROW = 16
MCP3008_PINS = {"CLK": 13, "DOUT": 12, "DIN": 11, "CS": 10, "VDD": 16, "VREF": 15,
                "AGND": 14, "DGND": 9}


def wiring_svg(board: Board) -> str:
    """The layout's wiring diagram, as SVG text."""
    layout = board.layout
    root = svg.document(100, 100, unit="", title=f"treeboard wiring: {layout.name}")
    svg.add(root, "rect", x=0, y=0, width="100%", height="100%", fill="#ffffff")
    page = svg.add(root, "g", font_family="sans-serif", font_size=FONT, fill=INK)
    y = PAD
    svg.add(page, "text", f"{layout.name}: {layout.game or 'grid'} "
                          f"({', '.join(layout.sensor_types)}; {layout.led_count} LEDs)",
            x=PAD, y=y + 6, font_size=16, font_weight="bold")
    y += 30
    widths = []
    for section in _sections(board):
        w, h = section(page, PAD, y)
        widths.append(w)
        y += h + PAD
    width = max(widths) + 2 * PAD
    root.set("width", svg.num(width))
    root.set("height", svg.num(y))
    root.set("viewBox", f"0 0 {svg.num(width)} {svg.num(y)}")
    return svg.text(root)


def _sections(board: Board):
    layout = board.layout
    out = [lambda g, x, y: _header(g, x, y, "Raspberry Pi: 40-pin header (BCM GPIO numbers)",
                                   PI_HEADER, pi_lines(layout), "GPIO")]
    if layout.bridge is not None:
        out.append(lambda g, x, y: _header(g, x, y, "Raspberry Pi Pico (RP2040), on the Pi's USB: "
                                           + _firmware_settings(layout), PICO_HEADER,
                                           pico_lines(layout), "GP"))
    if layout.pins is not None:
        out.append(lambda g, x, y: _direct_pins(g, x, y, layout))
    if layout.matrix is not None:
        out.append(lambda g, x, y: _matrix(g, x, y, board, _pi_matrix_lines(layout)))
    if layout.bridge is not None:
        out.append(lambda g, x, y: _matrix(g, x, y, board, _bridge_matrix_lines(layout)))
    if layout.adc is not None:
        out.append(lambda g, x, y: _adcs(g, x, y, layout))
    out.append(lambda g, x, y: _led_chain(g, x, y, board))
    if layout.buttons:
        out.append(lambda g, x, y: _buttons(g, x, y, layout))
    return out


def _firmware_settings(layout) -> str:
    if layout.bridge.matrix == "shift-register":
        rows, cols = bridge_shape(layout)
        return f'main.py: MATRIX = "shift-register", ROWS, COLS = {rows}, {cols}, LED_COUNT = {layout.led_count}'
    rows, cols = bridge_matrix_pins(layout)
    return (f"main.py: ROW_PINS = {rows}, COL_PINS = {cols}, LED_COUNT = {layout.led_count}"
            .replace(",)", ")"))


def _header(g, x, y, title, header, lines, prefix) -> tuple[float, float]:
    """A 2x20 header drawn as the board shows it: odd pins on the left, even on the right (the
    Pi); or, for the Pico, pins 1-20 down its left edge and 40-21 down its right."""
    svg.add(g, "text", title, x=x, y=y, font_weight="bold")
    used = {line.gpio: line for line in lines}
    pico = header is PICO_HEADER
    col_x = (x + 300, x + 340)
    for pin, what in header.items():
        if pico:
            side, row = (0, pin - 1) if pin <= 20 else (1, 40 - pin)
        else:
            side, row = (pin - 1) % 2, (pin - 1) // 2
        px, py = col_x[side], y + 20 + row * HEADER_ROW
        line = used.get(what) if isinstance(what, int) else None
        name = f"{prefix}{what}" if isinstance(what, int) else what
        if line is not None:
            colour = ROLE_COLOURS[line.role]
        elif isinstance(what, int):
            colour = FAINT                  # a GPIO the layout leaves free
        else:
            colour = USED if what in ("5V", "VBUS", "VSYS") else INK   # a supply pin
        svg.add(g, "circle", cx=px, cy=py, r=5, fill=colour if line else "#ffffff", stroke=colour,
                class_="pin", data_pin=pin)
        svg.add(g, "text", str(pin), x=px, y=py + 3.5, font_size=7, text_anchor="middle",
                fill="#ffffff" if line else colour)
        label = f"{name}: {line.label}" if line else name
        anchor, lx = ("end", px - 10) if side == 0 else ("start", px + 10)
        svg.add(g, "text", label, x=lx, y=py + 4, text_anchor=anchor, fill=colour,
                font_weight="bold" if line else None, class_="line" if line else None,
                data_gpio=what if line else None)
    return 700, 20 + 20 * HEADER_ROW


def _direct_pins(g, x, y, layout) -> tuple[float, float]:
    svg.add(g, "text", "Direct pins: a reed switch from each GPIO to GND (the Pi's pull-up holds "
                       "the pin high until a piece closes it)", x=x, y=y, font_weight="bold")
    for n, (gpio, site) in enumerate(sorted(layout.pins.channels.items(), key=lambda kv: layout.sites.index(kv[1]))):
        row_y = y + 24 + n * 22
        item = svg.add(g, "g", class_="sensor", data_site=site, data_channel=f"GPIO{gpio}")
        svg.add(item, "text", f"GPIO{gpio} (pin {PI_PIN_OF_GPIO[gpio]})", x=x, y=row_y + 4)
        svg.add(item, "path", d=f"M{x + 110} {row_y}h30l16 -8M{x + 160} {row_y}h30", fill="none",
                stroke=INK)
        svg.add(item, "text", f"GND   {site}", x=x + 196, y=row_y + 4, font_weight="bold")
    return 400, 24 + len(layout.pins.channels) * 22


def _pi_matrix_lines(layout):
    m = layout.matrix
    return ("Diode matrix on the Pi: rows are driven low one at a time, columns read with pull-ups",
            [f"row {r}: GPIO{g} (pin {PI_PIN_OF_GPIO[g]})" for r, g in enumerate(m.rows)],
            [f"col {c}: GPIO{g}" for c, g in enumerate(m.cols)],
            len(m.rows), len(m.cols), dict(m.channels), lambda r, c: f"r{r}c{c}")


def _bridge_matrix_lines(layout):
    rows, cols = bridge_shape(layout)
    channels = {divmod(ch, cols): site for ch, site in layout.bridge.channels.items()}
    if layout.bridge.matrix == "shift-register":
        letters = "ABCDEFGH"
        row_names = [f"row {r}: 74HC595 #{r // SHIFT_REGISTER_BITS} Q{letters[r % SHIFT_REGISTER_BITS]}"
                     for r in range(rows)]
        col_names = [f"col {c}: 74HC165 #{c // SHIFT_REGISTER_BITS} {letters[c % SHIFT_REGISTER_BITS]}"
                     for c in range(cols)]
        title = ("The Pico's matrix through shift registers (firmware_bridge/SHIFT-REGISTERS.md): "
                 "a 10 kohm pull-up on every column")
    else:
        row_pins, col_pins = bridge_matrix_pins(layout)
        row_names = [f"row {r}: GP{g} (pin {PICO_PIN_OF_GPIO[g]})" for r, g in enumerate(row_pins)]
        col_names = [f"col {c}: GP{g}" for c, g in enumerate(col_pins)]
        title = "The Pico's diode matrix: rows driven low one at a time, columns with pull-ups"
    return (title, row_names, col_names, rows, cols, channels,
            lambda r, c: f"bridge {r * cols + c}")


def _matrix(g, x, y, board, lines) -> tuple[float, float]:
    """Rows across, columns down, and at every crossing with a site a switch and a diode in
    series from the column to the row: the diode's anode at the switch, its band at the row."""
    title, row_names, col_names, rows, cols, channels, channel_name = lines
    svg.add(g, "text", title, x=x, y=y, font_weight="bold")
    svg.add(g, "text", "at each crossing: column -> reed switch -> 1N4148 (anode at the switch, "
                       "band toward the row) -> row", x=x, y=y + 16, fill=FAINT)
    left, top = x + 190, y + 140
    right, bottom = left + cols * CROSSING, top + rows * CROSSING
    for c, name in enumerate(col_names):
        cx = left + c * CROSSING + 8
        svg.add(g, "line", x1=cx, y1=top - 30, x2=cx, y2=bottom - 10, stroke=ROLE_COLOURS["col"])
        svg.add(g, "text", name, x=cx, y=top - 34, font_size=9, fill=ROLE_COLOURS["col"],
                transform=f"rotate(-60 {svg.num(cx)} {svg.num(top - 34)})")
    for r, name in enumerate(row_names):
        ry = top + r * CROSSING + 34
        svg.add(g, "line", x1=left - 10, y1=ry, x2=right, y2=ry, stroke=ROLE_COLOURS["row"])
        svg.add(g, "text", name, x=left - 14, y=ry + 4, font_size=9, text_anchor="end",
                fill=ROLE_COLOURS["row"])
    for (r, c), site in sorted(channels.items()):
        _crossing(g, left + c * CROSSING + 8, top + r * CROSSING + 34, site, channel_name(r, c))
    return right - x + 20, bottom - y + 10


def _crossing(g, cx, ry, site, channel) -> None:
    """A switch and a diode from the column at `cx` down to the row at `ry`."""
    item = svg.add(g, "g", class_="sensor", data_site=site, data_channel=channel)
    ax = cx + 14
    svg.add(item, "circle", cx=cx, cy=ry - 30, r=1.8, fill=INK)
    # the wire from the column, the switch (a lever across a gap), the wire to the diode
    svg.add(item, "path", d=f"M{cx} {ry - 30}H{ax}V{ry - 26}l-5 -4M{ax} {ry - 20}V{ry - 16}",
            fill="none", stroke=INK)
    # the diode pointing down to the row: its anode up, its band (the cathode) at the bottom
    svg.add(item, "path", d=f"M{ax - 4} {ry - 16}h8l-4 7z", fill=INK, class_="diode")
    svg.add(item, "path", d=f"M{ax - 4} {ry - 8.5}h8M{ax} {ry - 8.5}V{ry}", stroke=INK,
            class_="diode-band")
    svg.add(item, "circle", cx=ax, cy=ry, r=1.8, fill=INK)
    svg.add(item, "text", site, x=ax + 4, y=ry - 20, font_size=9, font_weight="bold")


def _adcs(g, x, y, layout) -> tuple[float, float]:
    adc = layout.adc
    svg.add(g, "text", "MCP3008 ADCs on SPI0, and a linear hall sensor (3.3 V, GND, output) on "
                       "each channel", x=x, y=y, font_weight="bold")
    spi = (f"every chip: CLK (pin {MCP3008_PINS['CLK']}) to GPIO{SPI_CLOCK}, DIN "
           f"({MCP3008_PINS['DIN']}) to GPIO{SPI_MOSI}, DOUT ({MCP3008_PINS['DOUT']}) to "
           f"GPIO{SPI_MISO}; VDD and VREF (16, 15) to 3.3 V; AGND and DGND (14, 9) to GND")
    svg.add(g, "text", spi, x=x, y=y + 16, fill=FAINT)
    sites = {ch: site for ch, site in adc.channels.items()}
    top = y + 36
    for chip, select in enumerate(adc.selects):
        cx = x + chip * 330
        svg.add(g, "rect", x=cx + 120, y=top, width=120, height=ADC_CHANNELS * 20 + 20,
                fill="none", stroke=INK)
        svg.add(g, "text", f"MCP3008 #{chip}", x=cx + 180, y=top + 14, text_anchor="middle",
                font_weight="bold")
        svg.add(g, "text", f"CS (pin {MCP3008_PINS['CS']}): GPIO{select}", x=cx + 180,
                y=top + ADC_CHANNELS * 20 + 36, text_anchor="middle", fill=ROLE_COLOURS["select"])
        for ch in range(ADC_CHANNELS):
            py = top + 30 + ch * 20
            site = sites.get((chip, ch))
            svg.add(g, "text", f"CH{ch} (pin {ch + 1})", x=cx + 124, y=py + 4, font_size=9)
            if site is None:
                continue
            item = svg.add(g, "g", class_="sensor", data_site=site, data_channel=f"adc{chip}.{ch}")
            svg.add(item, "line", x1=cx + 40, y1=py, x2=cx + 120, y2=py, stroke=INK)
            svg.add(item, "circle", cx=cx + 30, cy=py, r=8, fill="#ffffff", stroke=INK)
            svg.add(item, "text", "H", x=cx + 30, y=py + 4, text_anchor="middle", font_size=9)
            svg.add(item, "text", site, x=cx + 16, y=py + 4, text_anchor="end", font_weight="bold")
    return len(adc.selects) * 330, 36 + ADC_CHANNELS * 20 + 50


def _led_chain(g, x, y, board) -> tuple[float, float]:
    layout = board.layout
    data = (f"GPIO{layout.leds.pin} (pin {PI_PIN_OF_GPIO[layout.leds.pin]})"
            if layout.leds.pin is not None else "the Pico's GP16")
    svg.add(g, "text", f"LED chain ({layout.led_count} WS2812B, {layout.leds.pixel_order}), in strip "
                       f"order: data from {data} -> 74AHCT125 (1A in, 1Y out, 1OE to GND, VCC 5 V) "
                       "-> 330 ohm -> DIN of LED 0", x=x, y=y, font_weight="bold")
    svg.add(g, "text", "5 V and GND from the strip's own supply, 1000 uF across them at LED 0; "
                       "the supply's GND joined to the controller's", x=x, y=y + 16, fill=FAINT)
    w, h = LED_BOX
    top = y + 32
    for led in board.leds:
        row, col = divmod(led.index, LEDS_A_ROW)
        bx, by = x + col * (w + 10), top + row * (h + 12)
        named = led.label != led.site
        item = svg.add(g, "g", class_="led", data_led=led.index, data_site=led.site or "-",
                       data_name=led.label if named else None)
        svg.add(item, "rect", x=bx, y=by, width=w, height=h, rx=4,
                fill="#fff4e5" if led.site else "#eeeeee", stroke=ROLE_COLOURS["led"])
        svg.add(item, "text", str(led.index), x=bx + 4, y=by + 11, font_size=9, fill=FAINT)
        svg.add(item, "text", led.label, x=bx + w / 2, y=by + 26, font_size=10,
                text_anchor="middle", font_weight="bold" if led.site else None)
        if col < LEDS_A_ROW - 1 and led.index < layout.led_count - 1:
            svg.add(g, "path", d=f"M{bx + w} {by + h / 2}h10", stroke=ROLE_COLOURS["led"])
    rows = -(-layout.led_count // LEDS_A_ROW)
    return min(layout.led_count, LEDS_A_ROW) * (w + 10), 32 + rows * (h + 12)


def _buttons(g, x, y, layout) -> tuple[float, float]:
    svg.add(g, "text", "Buttons: from the GPIO to GND (gpiozero's pull-up)", x=x, y=y,
            font_weight="bold")
    for n, (name, gpio) in enumerate(layout.buttons.items()):
        svg.add(g, "text", f"GPIO{gpio} (pin {PI_PIN_OF_GPIO[gpio]}) --[ {name} ]-- GND", x=x,
                y=y + 22 + n * 20, fill=ROLE_COLOURS["button"])
    return 400, 22 + len(layout.buttons) * 20
