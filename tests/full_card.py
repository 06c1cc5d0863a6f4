"""A storage card that fills mid-write, for tests of files written whole or not at all."""

from __future__ import annotations

import os


class CardFills:
    """Stands for the os module in board_driver.files: a write puts down `keep` bytes, then
    the card is full (ENOSPC)."""

    def __init__(self, keep: int = 2):
        self.keep = keep

    def __getattr__(self, name):
        return getattr(os, name)

    def write(self, fd, data):
        os.write(fd, bytes(data[:self.keep]))
        raise OSError(28, "No space left on device")
