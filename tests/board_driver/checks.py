"""Small checks several board_driver test files share (imported as `from checks import ...`,
as web_harness and whole_games are)."""

from __future__ import annotations

import time


def wait_for(condition, timeout: float = 5.0) -> bool:
    """Poll a condition the daemon's threads will make true (bounded; never a fixed sleep)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return False


def one_line_error(capsys) -> str:
    """The one line a command wrote to stderr: no traceback, nothing else."""
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]
