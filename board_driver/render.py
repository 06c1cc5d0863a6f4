"""Kept for old imports: the LED frame now lives in `board_driver.views` (one module per game,
shared overlays in the package)."""

from board_driver.views import FRAME_S, OFF, Colour, View, render  # noqa: F401
from board_driver.views.base import blink_on, kind_colour, next_blink, scale  # noqa: F401
