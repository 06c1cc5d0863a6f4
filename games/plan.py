"""The physical board a game is played on: where each site lies, in millimetres, what is cut
there, the lines to engrave, and the pieces (`games.base.State.plan`).

A game's rules say what the board is; where they also give its dimensions (Tree Planting's
40 mm grooves), the game's module keeps them as constants, and where they give none the game
chooses one, as a named constant, and says so in the plan's `dimensions` (docs/building.md lists
them all). The maker's kit (`hardware/kit/`) draws its template and counts its parts from a
plan, so a sixth game gets a kit by declaring its plan, and nothing else.

Coordinates: millimetres from the playing area's top-left corner, x to the right, y down (as
SVG draws). Pure: numbers and names, no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

#: What is cut at a site. A groove is a slot a rod lies in (engraved `depth` deep, `length`
#: along it); a hole goes through the top plate (`length` is its diameter); a cell is a square
#: a piece stands in (its outline engraved); a point is a crossing of engraved lines.
GROOVE, HOLE, CELL, POINT = "groove", "hole", "cell", "point"
SHAPES = (GROOVE, HOLE, CELL, POINT)

#: The side of a cell in a game that declares no plan of its own (`State.plan`'s default).
DEFAULT_CELL_MM = 30.0
#: How far from a cell's or a point's centre its LED sits by default, along each axis, as a
#: fraction of the pitch: up and to the right, clear of a piece standing on the site.
LED_OFFSET_OF_PITCH = 0.35


@dataclass(frozen=True)
class Spot:
    """One site of the physical board: its centre, what is cut there, where its sensor and its
    LED sit (offsets from the centre, in mm)."""

    site: str
    x: float
    y: float
    shape: str
    length: float          # a groove's length; a hole's or a point's diameter; a cell's side
    width: float           # a groove's width; = length for the others
    depth: float = 0.0     # how deep a groove is engraved (a hole goes through)
    vertical: bool = False  # a groove along y
    led: tuple[float, float] = (0.0, 0.0)
    sensor: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class Piece:
    """A kind of piece the game is played with: how many a set needs, its size as made, the
    magnet it carries for the board's sensors (None: it needs none), and its outline on the
    template (`footprint`, width x height in mm; a circle when `round`)."""

    name: str
    count: int
    size: str
    magnet: str | None
    footprint: tuple[float, float]
    round: bool = False
    note: str = ""


@dataclass(frozen=True)
class Plan:
    """A game's physical board: the playing area (`width` x `height` mm), a spot per site, the
    lines to engrave (x1, y1, x2, y2), the pieces, and each dimension with where it comes from
    ("the rules" or "ours")."""

    width: float
    height: float
    spots: tuple[Spot, ...]
    lines: tuple[tuple[float, float, float, float], ...] = ()
    pieces: tuple[Piece, ...] = ()
    dimensions: tuple[tuple[str, str], ...] = ()

    def spot(self, site: str) -> Spot | None:
        for spot in self.spots:
            if spot.site == site:
                return spot
        return None


def grid_plan(rows: Sequence[Sequence[str]], pitch: float, *, shape: str = CELL,
              size: float | None = None, led: tuple[float, float] | None = None,
              sensor: tuple[float, float] = (0.0, 0.0), pieces: tuple[Piece, ...] = (),
              dimensions: tuple[tuple[str, str], ...] = ()) -> Plan:
    """A board of sites `pitch` mm apart on a square grid: `rows` holds the site names row by
    row, the top row first ("" for none). Cells (`shape` CELL) are `pitch` square (`size` for
    less) and holes (HOLE, `size` across) sit in such squares, their outlines engraved; points
    (POINT, a mark `size` across) get the grid's lines instead, half a pitch in from the edge
    so a piece on the edge fits. `led` is where each site's LED sits (default: up and to the
    right, clear of a piece)."""
    count_rows, count_cols = len(rows), max(len(r) for r in rows)
    width, height = count_cols * pitch, count_rows * pitch
    near = LED_OFFSET_OF_PITCH * pitch
    led = (near, -near) if led is None else led
    side = size if size is not None else (pitch / 4 if shape == POINT else pitch)
    spots = tuple(Spot(name, (c + 0.5) * pitch, (r + 0.5) * pitch, shape, side, side,
                       led=led, sensor=sensor)
                  for r, row in enumerate(rows) for c, name in enumerate(row) if name)
    if shape == POINT:
        half = pitch / 2
        lines = tuple((half, (r + 0.5) * pitch, width - half, (r + 0.5) * pitch)
                      for r in range(count_rows)) + tuple(
            ((c + 0.5) * pitch, half, (c + 0.5) * pitch, height - half) for c in range(count_cols))
    elif shape == HOLE:
        lines = tuple((0.0, r * pitch, width, r * pitch) for r in range(count_rows + 1)) + tuple(
            (c * pitch, 0.0, c * pitch, height) for c in range(count_cols + 1))
    else:   # a cell's outline is its own
        lines = ()
    return Plan(width, height, spots, lines, pieces, dimensions)


def chess_rows(files: str, ranks: int, name=lambda f, r: f"{f}{r}") -> list[list[str]]:
    """Site names of a board named as players read it, files from the left and ranks from the
    bottom (a1 lower left), as `grid_plan` takes them: the top rank first."""
    return [[name(f, r) for f in files] for r in range(ranks, 0, -1)]


def square_plan(sites: Sequence[str], pitch: float = DEFAULT_CELL_MM) -> Plan:
    """The plan of a game that declares none: its sites as cells of a square, in order, row by
    row from the top, `pitch` mm each (ours: the game gives no board)."""
    side = max(1, math.ceil(math.sqrt(len(sites))))
    rows = [list(sites[i:i + side]) for i in range(0, len(sites), side)]
    return grid_plan(rows, pitch, dimensions=((f"cells {pitch:g} mm", "ours: the game gives no board"),))
