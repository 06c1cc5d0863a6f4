"""The remote game's small files beside the journal: written whole or not at all, readable by
this user only (they hold a nonce, a game's secret)."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

from board_driver.files import write_whole

log = logging.getLogger("treeboard.remote")


def write_private(path: Path, data: dict[str, Any]) -> None:
    """`data` as JSON, readable by this user only, whole or not at all (a power cut leaves the
    old file or the new one, never half of one)."""
    write_whole(path, json.dumps(data), mode=0o600)


def read_sidecar(path: Path) -> dict[str, Any]:
    """The agreed takeback count and this board's nonce, as kept beside the journal ({} when
    none are: a new game)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        out: dict[str, Any] = {"takebacks": int(data["takebacks"])}
        nonce = data.get("nonce")
        if isinstance(nonce, str) and re.fullmatch(r"[0-9a-f]{16}", nonce):
            out["nonce"] = nonce
        return out
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, KeyError, TypeError) as exc:
        log.error("%s: unreadable (%s); counting takebacks from 0", path, exc)
        return {}
