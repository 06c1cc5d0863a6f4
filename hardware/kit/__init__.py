"""The maker's kit: from a layout, what to buy and make (`parts.csv`), how to wire it
(`wiring.svg`) and a true-scale template to cut (`template.svg`), derived so that they cannot
disagree with the layout the board will run.

    >>> from hardware.kit import kit_files
    >>> from hardware.layout import load_layout
    >>> files = kit_files(load_layout("tree-planting-classic-matrix"))
    >>> sorted(files)
    ['parts.csv', 'template.svg', 'wiring.svg']

Pure: it reads the layout and its game's plan (games/plan.py: where each site lies, in mm, and
the pieces) and returns text; the caller writes it (`treeboard kit`, the page's
`/api/kit/...`). `diagnose` judges what `treeboard selftest` saw while it walked a maker
through every site. Owns: nothing but these drawings and judgements; imports games and
hardware.layout, never the board driver.

  board.py     the layout's board: the game's plan framed by a margin, every LED placed
  parts.py     the parts list
  wiring.py    the wiring diagram
  template.py  the template to cut
  pins.py      the Pi's and the Pico's pins, and the lines a layout uses
  svg.py       a small SVG writer (layers a laser cutter reads)
  diagnose.py  selftest's walk: dead sensors, sensors that change by themselves, crossed wires
"""

from __future__ import annotations

from hardware.kit.board import Board, KitError, build_board
from hardware.kit.parts import Part, parts, parts_csv
from hardware.kit.template import template_svg
from hardware.kit.wiring import wiring_svg
from hardware.layout import Layout

__all__ = ["FILES", "Board", "KitError", "Part", "build_board", "kit_files", "parts", "parts_csv",
           "template_svg", "wiring_svg"]

#: The kit's files, in the order `treeboard kit` writes them, with their media types.
FILES = {"parts.csv": "text/csv", "wiring.svg": "image/svg+xml", "template.svg": "image/svg+xml"}


def kit_file(layout: Layout, name: str) -> str:
    """One of the kit's FILES for `layout`, as text (KeyError for another name)."""
    make = {"parts.csv": parts_csv, "wiring.svg": wiring_svg, "template.svg": template_svg}[name]
    return make(build_board(layout))


def kit_files(layout: Layout) -> dict[str, str]:
    """Every file of the kit for `layout`: name -> text."""
    board = build_board(layout)
    return {"parts.csv": parts_csv(board), "wiring.svg": wiring_svg(board),
            "template.svg": template_svg(board)}
