"""Files written whole or not at all.

A board loses power without warning and a reader may list a folder at any moment, so a file
the board writes is never seen half written: its bytes go to a new name beside it, then a
rename puts it in place (atomic on one filesystem), and a durable write syncs the file before
the rename and the folder after it, so a power cut leaves the old file or the new one.

(board_driver/update/tree.py keeps its own copy of this: it runs as the boot check with the
system's Python and the standard library alone, never importing the version on trial.)
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

#: The suffix of a file being written (a leftover of a cut write is replaced by the next one).
PART = ".treeboard-new"


def write_whole(path: Path, data: str | bytes, *, mode: int = 0o644, durable: bool = True,
                own: Callable[[Path], None] | None = None) -> None:
    """`data` (text as UTF-8) at `path`, with permissions `mode` from its first byte (never
    readable by more, even for a moment, whatever the umask), `own` called on the new file
    before it takes the name (to give it its owner). `durable`: on disk before this returns."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    new = path.with_name(path.name + PART)
    new.unlink(missing_ok=True)   # (created afresh below, with `mode`)
    fd = os.open(new, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        try:
            view = memoryview(raw)
            while view:
                view = view[os.write(fd, view):]
            os.fchmod(fd, mode)   # (whatever the umask took away)
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        if own is not None:
            own(new)
        os.replace(new, path)
    except BaseException:
        new.unlink(missing_ok=True)
        raise
    if durable:
        folder = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
