"""The template to cut (`template.svg`): the layout's board at true scale, one user unit a
millimetre (`width="...mm"` with a viewBox in mm), in layers a laser cutter's software lists by
name. Cut layers are red hairlines, engraved lines blue, engraved pockets filled black (the
colours LightBurn and most laser software map to operations).

The board is three plates (hardware/kit/parts.py): the top (grooves engraved to their depth,
holes and LED holes cut through, lines and points engraved), the sensor plate under it (a
pocket cut for every sensor, under its site, and for every LED), and the base; all three share
the outline and four alignment holes for dowel pins. Below the board, one of each piece with
its magnet pocket, and a 100 mm bar to check a print's scale.

Each site is one element of class "site" with `data-site`; each LED one of class "led" with
`data-led` and `data-site` (its site, or "-" for a named LED beside none, with `data-name`).
"""

from __future__ import annotations

import re

from games.plan import CELL, GROOVE, HOLE, POINT, Spot
from hardware.kit import svg
from hardware.kit.board import MARGIN_MM, Board

CUT = "#ff0000"
ENGRAVE = "#0000ff"
POCKET = "#000000"
HAIRLINE = 0.1
#: A WS2812B shines through a hole this wide in the top plate, and sits in a square pocket of
#: the sensor plate (a 5050 package, bare or cut from a strip).
LED_HOLE_MM = 5.0
LED_POCKET_MM = 5.4
#: The sensor plate's pockets: a 14 mm glass reed with its leads bent down lies along its
#: groove (across a hole, cell or point: along x); a TO-92 hall sensor stands in a small one.
REED_POCKET_MM = (16.0, 3.0)
HALL_POCKET_MM = (5.2, 4.2)
#: Dowel pins through every plate, at each corner of the margin.
ALIGNMENT_HOLE_MM = 3.0
#: The registration crosses at the playing area's corners.
MARK_MM = 6.0
#: The strip under the board: one of each piece, a scale bar.
PIECES_GAP_MM = 12.0
SCALE_BAR_MM = 100.0
LABEL_MM = 3.0


def template_svg(board: Board) -> str:
    """The layout's true-scale template, as SVG text."""
    pieces_height = _pieces_height(board)
    width = max(board.width, SCALE_BAR_MM + 2 * MARGIN_MM,
                MARGIN_MM + sum(_piece_step(p) for p in board.plan.pieces) + MARGIN_MM)
    height = board.height + pieces_height
    layout = board.layout
    root = svg.document(width, height, unit="mm",
                        title=f"treeboard template: {layout.name}, true scale (1 unit = 1 mm)")
    _outline(board, svg.layer(root, "outline", "cut: outline and alignment holes, every plate",
                              fill="none", stroke=CUT, stroke_width=HAIRLINE))
    engrave = svg.layer(root, "top-engrave", "engrave: top plate (grooves, lines, points)",
                        fill="none", stroke=ENGRAVE, stroke_width=HAIRLINE)
    cut = svg.layer(root, "top-cut", "cut: top plate (holes, LED holes)",
                    fill="none", stroke=CUT, stroke_width=HAIRLINE)
    for x1, y1, x2, y2 in board.plan.lines:
        (ax, ay), (bx, by) = board.at(x1, y1), board.at(x2, y2)
        svg.add(engrave, "line", x1=ax, y1=ay, x2=bx, y2=by, class_="line")
    for spot in board.plan.spots:
        _site(board, spot, engrave, cut)
    for led in board.leds:
        svg.add(cut, "circle", cx=led.x, cy=led.y, r=LED_HOLE_MM / 2, class_="led",
                data_led=led.index, data_site=led.site or "-",
                data_name=None if led.label == led.site else led.label)
    _sensor_plate(board, svg.layer(root, "sensor-cut", "cut: sensor plate (sensor and LED pockets)",
                                   fill="none", stroke=CUT, stroke_width=HAIRLINE))
    _marks(board, svg.layer(root, "marks", "engrave: alignment marks and scale bar",
                            fill="none", stroke=ENGRAVE, stroke_width=HAIRLINE))
    _labels(board, svg.layer(root, "labels", "engrave: labels (site names, sensor plate)",
                             fill=ENGRAVE, stroke="none", font_family="sans-serif",
                             font_size=LABEL_MM))
    _pieces(board, svg.layer(root, "pieces", "cut: one of each piece, its magnet pocket engraved",
                             fill="none", stroke=CUT, stroke_width=HAIRLINE))
    return svg.text(root)


def _outline(board: Board, g) -> None:
    svg.add(g, "rect", x=0.0, y=0.0, width=board.width, height=board.height, rx=3.0,
            class_="outline")
    inset = MARGIN_MM / 2
    for x in (inset, board.width - inset):
        for y in (inset, board.height - inset):
            svg.add(g, "circle", cx=x, cy=y, r=ALIGNMENT_HOLE_MM / 2, class_="alignment-hole")


def _site(board: Board, spot: Spot, engrave, cut) -> None:
    x, y = board.at(spot.x, spot.y)
    common = {"class_": "site", "data_site": spot.site, "data_shape": spot.shape}
    if spot.shape == GROOVE:
        w, h = (spot.width, spot.length) if spot.vertical else (spot.length, spot.width)
        svg.add(engrave, "rect", x=x - w / 2, y=y - h / 2, width=w, height=h, fill=POCKET,
                stroke="none", data_depth=f"{spot.depth:g} mm", **common)
    elif spot.shape == HOLE:
        svg.add(cut, "circle", cx=x, cy=y, r=spot.length / 2, **common)
    elif spot.shape == CELL:
        svg.add(engrave, "rect", x=x - spot.length / 2, y=y - spot.width / 2, width=spot.length,
                height=spot.width, **common)
    else:
        assert spot.shape == POINT, spot.shape
        svg.add(engrave, "circle", cx=x, cy=y, r=spot.length / 2, **common)


def _sensor_plate(board: Board, g) -> None:
    layout = board.layout
    for spot in board.plan.spots:
        if spot.site not in layout.channels_of_site:
            continue
        x, y = board.at(spot.x + spot.sensor[0], spot.y + spot.sensor[1])
        hall = layout.adc is not None and all(ch in layout.adc.channels for ch in layout.channels_of_site[spot.site])
        w, h = HALL_POCKET_MM if hall else REED_POCKET_MM
        if spot.shape == GROOVE and spot.vertical:
            w, h = h, w
        svg.add(g, "rect", x=x - w / 2, y=y - h / 2, width=w, height=h, class_="sensor-pocket",
                data_sensor=spot.site)
    half = LED_POCKET_MM / 2
    for led in board.leds:
        svg.add(g, "rect", x=led.x - half, y=led.y - half, width=LED_POCKET_MM, height=LED_POCKET_MM,
                class_="led-pocket", data_led=led.index)


def _marks(board: Board, g) -> None:
    plan = board.plan
    arm = MARK_MM / 2
    for px in (0.0, plan.width):
        for py in (0.0, plan.height):
            x, y = board.at(px, py)
            svg.add(g, "path", d=f"M{svg.num(x - arm)} {svg.num(y)}H{svg.num(x + arm)}"
                                 f"M{svg.num(x)} {svg.num(y - arm)}V{svg.num(y + arm)}",
                    class_="alignment-mark")
    y = board.height + PIECES_GAP_MM / 2
    svg.add(g, "path", d=f"M{svg.num(MARGIN_MM)} {svg.num(y - 2)}v2h{svg.num(SCALE_BAR_MM)}v-2",
            class_="scale-bar", data_length=f"{SCALE_BAR_MM:g} mm")


def _labels(board: Board, g) -> None:
    layout = board.layout
    svg.add(g, "text", f"{layout.name}: {layout.game or 'grid'}, {board.width:g} x "
                       f"{board.height:g} mm", x=MARGIN_MM, y=MARGIN_MM * 0.6)
    for spot in board.plan.spots:
        x, y = board.at(spot.x + spot.sensor[0], spot.y + spot.sensor[1])
        svg.add(g, "text", spot.site, x=x + 1.0, y=y - 2.0, class_="site-label")
    for name, x, y in board.named_rows:
        svg.add(g, "text", name, x=x, y=y)
    y = board.height + PIECES_GAP_MM / 2 + LABEL_MM + 1
    svg.add(g, "text", f"{SCALE_BAR_MM:g} mm: measure it on the print to check the scale",
            x=MARGIN_MM, y=y)


def _pieces_height(board: Board) -> float:
    tallest = max((p.footprint[1] for p in board.plan.pieces), default=0.0)
    return PIECES_GAP_MM + LABEL_MM + tallest + 3 * LABEL_MM + MARGIN_MM


def _magnet_mm(magnet: str | None) -> float | None:
    """A magnet's diameter from its description ("3 x 2 mm ..."), None when it says none."""
    m = re.match(r"\s*(\d+(?:\.\d+)?)\s*x", magnet or "")
    return float(m.group(1)) if m else None


def _piece_step(piece) -> float:
    """How far along the pieces' strip one piece takes, with its label."""
    return max(piece.footprint[0], 28.0) + 6.0


def _pieces(board: Board, g) -> None:
    x = MARGIN_MM
    top = board.height + PIECES_GAP_MM + LABEL_MM
    for piece in board.plan.pieces:
        w, h = piece.footprint
        if piece.round:
            svg.add(g, "circle", cx=x + w / 2, cy=top + h / 2, r=w / 2, class_="piece",
                    data_piece=piece.name)
        else:
            svg.add(g, "rect", x=x, y=top, width=w, height=h, class_="piece", data_piece=piece.name)
        diameter = _magnet_mm(piece.magnet)
        if diameter is not None:
            svg.add(g, "circle", cx=x + w / 2, cy=top + h / 2, r=diameter / 2, stroke=ENGRAVE,
                    class_="magnet-pocket", data_magnet=piece.magnet)
        label = svg.add(g, "text", x=x, y=top + h + LABEL_MM + 1, fill=ENGRAVE, stroke="none",
                        font_size=LABEL_MM * 0.8, font_family="sans-serif")
        label.text = f"{piece.name} x {piece.count}"
        x += _piece_step(piece)
