"""Files written whole or not at all (board_driver/files.py)."""

from __future__ import annotations

import os
import stat

import pytest

from board_driver import files
from tests.full_card import CardFills


def test_a_file_is_written_whole_with_its_mode_whatever_the_umask(tmp_path):
    path = tmp_path / "secret.json"
    old = os.umask(0o077)
    try:
        files.write_whole(path, "{}\n", mode=0o640)
    finally:
        os.umask(old)
    assert path.read_text(encoding="utf-8") == "{}\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    files.write_whole(path, b"new", mode=0o600)
    assert path.read_bytes() == b"new" and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["secret.json"]


def test_a_write_cut_short_leaves_the_old_file_and_no_part(tmp_path, monkeypatch):
    path = tmp_path / "board-name"
    files.write_whole(path, "old\n")

    monkeypatch.setattr(files, "os", CardFills(keep=1))
    with pytest.raises(OSError, match="No space"):
        files.write_whole(path, "new and longer\n")
    monkeypatch.undo()
    assert path.read_text(encoding="utf-8") == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board-name"]


def test_a_leftover_of_a_cut_write_is_replaced_and_the_owner_is_given_first(tmp_path):
    path = tmp_path / "unit"
    (tmp_path / ("unit" + files.PART)).write_text("half", encoding="utf-8")
    owned = []
    files.write_whole(path, "whole", own=lambda p: owned.append((p.name, p.read_text())))
    assert owned == [("unit" + files.PART, "whole")]
    assert path.read_text() == "whole" and sorted(p.name for p in tmp_path.iterdir()) == ["unit"]
