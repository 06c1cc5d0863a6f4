"""Colour in a terminal, only where there is one: ANSI 24-bit codes when the output is a
terminal, plain text when it is a pipe or a file (and when NO_COLOR is set)."""

from __future__ import annotations

import os
from typing import TextIO

from board_driver.views.base import Colour, legible


class Paint:
    def __init__(self, colour: bool):
        self.colour = colour

    @classmethod
    def for_stream(cls, out: TextIO) -> "Paint":
        tty = hasattr(out, "isatty") and out.isatty()
        return cls(tty and "NO_COLOR" not in os.environ and os.environ.get("TERM") != "dumb")

    def __call__(self, colour: Colour | None, text: str, *, bold: bool = False,
                 dim: bool = False) -> str:
        """`text` in a legible version of `colour` (None: the terminal's own colour)."""
        if not self.colour:
            return text
        codes = []
        if bold:
            codes.append("1")
        if dim:
            codes.append("2")
        if colour is not None:
            r, g, b = legible(colour)
            codes.append(f"38;2;{r};{g};{b}")
        if not codes:
            return text
        return f"\x1b[{';'.join(codes)}m{text}\x1b[0m"
