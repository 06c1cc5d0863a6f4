"""Small checks several board_driver test files share (imported as `from checks import ...`,
as web_harness and whole_games are)."""

from __future__ import annotations


def one_line_error(capsys) -> str:
    """The one line a command wrote to stderr: no traceback, nothing else."""
    err = capsys.readouterr().err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]
