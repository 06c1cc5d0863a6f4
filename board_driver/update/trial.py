"""The running daemon's side of an update: it confirms its own trial, and it says what the last
update came to (once: the result file remembers it was told).

The daemon (board_driver/daemon/update_part.py) asks `Trial.mine()` at start; when this very
version is on trial it calls `confirm()` once it has sent READY, shown a frame, has its
sensors up and has fed the watchdog. Confirming writes the result ("confirmed") and then
removes the marker (a cut between the two: the boot check sees the result and removes it).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from board_driver.update.tree import RESULT, TRIAL, read_json, remove, write_json


class Trial:
    """The trial files beside one journal, for the version `version` (the one running)."""

    def __init__(self, journal: Path | str, version: str):
        state = Path(journal).parent
        self.marker, self.result, self.version = state / TRIAL, state / RESULT, version

    def mine(self) -> dict[str, Any] | None:
        """The marker, when this version is the one on trial."""
        marker = read_json(self.marker)
        return marker if marker is not None and marker.get("version") == self.version else None

    def confirm(self) -> None:
        marker = self.mine()
        if marker is None:
            return
        write_json(self.result, {"result": "confirmed", "version": self.version,
                                 "previous": marker.get("previous"), "at": time.time(),
                                 "told": False})
        remove(self.marker)

    def news(self) -> dict[str, Any] | None:
        """The last update's result if no one was told of it yet (and now it is marked told);
        a confirmation is news only to the version it confirmed."""
        result = read_json(self.result)
        if result is None or result.get("told"):
            return None
        if result.get("result") == "confirmed" and result.get("version") != self.version:
            return None
        write_json(self.result, {**result, "told": True})
        return result

    def last(self) -> dict[str, Any] | None:
        """What the page shows: the last result, told or not."""
        return read_json(self.result)
