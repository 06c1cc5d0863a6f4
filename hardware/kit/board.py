"""The board a layout is built as: its game's plan (games/plan.py), or a plain grid's, framed by
a margin, with every LED of the strip placed where it shines.

A site's own LEDs, with the named LEDs that belong to it ("a1:kind"), sit at the spot's LED
offset: one there, up to four in a 2x2 cluster (top left, top right, bottom right, bottom left,
in strip order), more on a ring. LEDs beside no site (`turn`, a score bar, a spare) sit in rows
below the playing area, in strip order, each group under its name.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from games.plan import Piece, Plan, chess_rows, grid_plan
from hardware.layout import NO_SITE, Layout
from treeboard.exc import TreeboardError

#: Around the playing area: room for the alignment holes and the board's edge.
MARGIN_MM = 15.0
#: LEDs beside no site: this far apart in their rows below the playing area, rows this far
#: apart (room for the group's name above).
NAMED_LED_PITCH_MM = 10.0
NAMED_ROW_MM = 16.0
#: The LEDs of one site: a 2x2 cluster this far apart, centre to centre (a WS2812B is 5 mm).
LED_CLUSTER_MM = 7.0
#: A layout with a bare grid (`[board] grid`, no game): cells of this side, and a piece with a
#: magnet for each.
GRID_CELL_MM = 30.0
GRID_PIECE_MM = 22.0
GRID_MAGNET = "6 x 2 mm neodymium disc (N42), in the piece's underside"
FILES = "abcdefghijklmnopqrstuvwxyz"


class KitError(TreeboardError, ValueError):
    """A layout the kit cannot draw or count (names the file and why)."""


@dataclass(frozen=True)
class LedPlace:
    """One LED of the strip on the board: its index, where it shines (mm, from the board's
    top-left corner), the site it is beside (None: no site) and what the layout calls it (a
    site, a named LED such as "turn" or "a1:kind", or "-")."""

    index: int
    x: float
    y: float
    site: str | None
    label: str


@dataclass(frozen=True)
class Board:
    """A layout's board: the plan, its offset inside the outline (`MARGIN_MM`), the outline's
    size, and each LED's place."""

    layout: Layout
    plan: Plan
    width: float
    height: float
    leds: tuple[LedPlace, ...]
    named_rows: tuple[tuple[str, float, float], ...]   # (group, x, y) of each group's name

    def at(self, x: float, y: float) -> tuple[float, float]:
        """A point of the plan (the playing area's coordinates) on the board."""
        return x + MARGIN_MM, y + MARGIN_MM


def layout_plan(layout: Layout) -> Plan:
    """The game's plan for the layout's options, or a bare grid's; every site of the layout
    must have a spot (KitError)."""
    if layout.game is None:
        cols, rows = layout.grid
        piece = Piece("piece", cols * rows, f"{GRID_PIECE_MM:g} mm across", GRID_MAGNET,
                      (GRID_PIECE_MM, GRID_PIECE_MM), round=True,
                      note="a bare grid: one for every cell")
        plan = grid_plan(chess_rows(FILES[:cols], rows), GRID_CELL_MM, pieces=(piece,),
                         dimensions=((f"cells {GRID_CELL_MM:g} mm", "ours: a bare grid"),))
    else:
        import games

        plan = games.get_game(layout.game).new_state(**layout.game_options).plan()
    spotted = {spot.site for spot in plan.spots}
    missing = [s for s in layout.sites if s not in spotted]
    if missing:
        raise KitError(f"{layout.path}: the board's plan has no place for {', '.join(missing[:5])}"
                       + (" ..." if len(missing) > 5 else ""))
    return plan


def _cluster(count: int) -> list[tuple[float, float]]:
    """Offsets of `count` LEDs around their anchor: one on it, up to four in a 2x2 square from
    the top left clockwise, more on a ring."""
    if count == 1:
        return [(0.0, 0.0)]
    half = LED_CLUSTER_MM / 2
    if count <= 4:
        return [(-half, -half), (half, -half), (half, half), (-half, half)][:count]
    radius = LED_CLUSTER_MM
    return [(radius * math.cos(2 * math.pi * i / count - 3 * math.pi / 4),
             radius * math.sin(2 * math.pi * i / count - 3 * math.pi / 4)) for i in range(count)]


def _owners(layout: Layout) -> dict[int, tuple[str | None, str]]:
    """LED index -> (the site it is beside, what the layout calls it)."""
    owners: dict[int, tuple[str | None, str]] = {}
    for site, indexes in layout.leds_of_site.items():
        for i in indexes:
            owners[i] = (site, site)
    for name, indexes in layout.named_leds.items():
        square = name.split(":", 1)[0] if ":" in name else None
        for i in indexes:
            owners[i] = (square if square in layout.sites else None, name)
    return owners


def build_board(layout: Layout) -> Board:
    """The layout's board: the plan framed by MARGIN_MM, every LED placed."""
    plan = layout_plan(layout)
    owners = _owners(layout)
    by_site: dict[str, list[int]] = {}
    loose: list[int] = []
    for i in range(layout.led_count):
        site, _ = owners.get(i, (None, NO_SITE))
        (by_site.setdefault(site, []) if site is not None else loose).append(i)
    places: dict[int, LedPlace] = {}
    for site, indexes in by_site.items():
        spot = plan.spot(site)
        for i, (dx, dy) in zip(indexes, _cluster(len(indexes))):
            x, y = spot.x + spot.led[0] + dx + MARGIN_MM, spot.y + spot.led[1] + dy + MARGIN_MM
            places[i] = LedPlace(i, x, y, site, owners[i][1])
    width = plan.width + 2 * MARGIN_MM
    rows, named = _named_rows(loose, owners, plan.width, plan.height + MARGIN_MM)
    for place in rows:
        places[place.index] = place
    below = len({p.y for p in rows}) * NAMED_ROW_MM
    return Board(layout, plan, width, plan.height + 2 * MARGIN_MM + below,
                 tuple(places[i] for i in range(layout.led_count)), tuple(named))


def _named_rows(loose: list[int], owners, width: float, top: float):
    """The LEDs beside no site in rows below the playing area (which ends at `top`), each
    group of one name together, its name above its first LED."""
    places: list[LedPlace] = []
    names: list[tuple[str, float, float]] = []
    usable = max(width, NAMED_LED_PITCH_MM)
    x, row, last = 0.0, 0, None
    for i in loose:
        label = owners.get(i, (None, NO_SITE))[1]
        if label != last and last is not None:
            x += NAMED_LED_PITCH_MM   # a gap between groups
        if x + NAMED_LED_PITCH_MM > usable + 1e-9:
            x, row = 0.0, row + 1
        y = top + row * NAMED_ROW_MM + NAMED_ROW_MM - NAMED_LED_PITCH_MM / 2
        cx = MARGIN_MM + x + NAMED_LED_PITCH_MM / 2
        if label != last or x == 0.0:
            names.append((label, cx - NAMED_LED_PITCH_MM / 2, y - 6.0))
        places.append(LedPlace(i, cx, y, None, label))
        x += NAMED_LED_PITCH_MM
        last = label
    return places, names
