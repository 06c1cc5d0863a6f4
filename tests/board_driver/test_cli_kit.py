"""`treeboard kit`: a shipped layout, a mapped one or a config's, written to a folder, never over
a kit already there unless told."""

from __future__ import annotations

import csv
import io

import pytest

from board_driver.cli import main
from hardware.layout import LAYOUT_DIR


def test_kit_writes_the_three_files_of_a_shipped_layout(tmp_path, capsys):
    out = tmp_path / "kit" / "classic"
    assert main(["kit", "--layout", "tree-planting-classic-matrix", "--out", str(out)]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"wrote the kit of tree-planting-classic-matrix to {out}/: parts.csv (")
    assert sorted(p.name for p in out.iterdir()) == ["parts.csv", "template.svg", "wiring.svg"]
    rows = list(csv.DictReader(io.StringIO((out / "parts.csv").read_text())))
    assert next(int(r["count"]) for r in rows if r["part"].startswith("reed switch")) == 40


def test_kit_of_a_mapped_layout_file_and_of_a_config(tmp_path, capsys):
    mapped = tmp_path / "mine.toml"   # as `treeboard map` writes one: any layout file
    mapped.write_text((LAYOUT_DIR / "fangqi-7x7-matrix.toml").read_text())
    assert main(["kit", "--layout", str(mapped), "--out", str(tmp_path / "a")]) == 0
    assert "wrote the kit of mine to" in capsys.readouterr().out
    config = tmp_path / "config.toml"
    config.write_text(f'backend = "sim"\nlayout = "{mapped}"\n')
    assert main(["kit", "--config", str(config), "--out", str(tmp_path / "b")]) == 0
    assert (tmp_path / "a" / "template.svg").read_text() == (tmp_path / "b" / "template.svg").read_text()


def test_kit_never_overwrites_a_kit_unless_forced(tmp_path, capsys):
    out = tmp_path / "kit"
    out.mkdir()
    (out / "parts.csv").write_text("my notes\n")
    assert main(["kit", "--layout", "treeblox-adc", "--out", str(out)]) == 2
    assert f"treeboard: {out} already holds parts.csv; not overwriting" in capsys.readouterr().err
    assert (out / "parts.csv").read_text() == "my notes\n"
    assert main(["kit", "--layout", "treeblox-adc", "--out", str(out), "--force"]) == 0
    assert (out / "parts.csv").read_text().startswith("part,count,what for,typical part number\n")


@pytest.mark.parametrize("argv, says", [
    (["--layout", "no-such-board"], "expected a shipped layout name or a .toml path"),
    (["--config", "/nonexistent/config.toml"], "/nonexistent/config.toml"),
])
def test_kit_refuses_what_names_no_board(tmp_path, capsys, argv, says):
    assert main(["kit", *argv, "--out", str(tmp_path / "k")]) == 2
    assert says in capsys.readouterr().err
    assert not (tmp_path / "k").exists()


def test_kit_without_a_layout_or_a_config_says_what_to_give(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("board_driver.cli.kit.DEFAULT_PATH", tmp_path / "none.toml")
    assert main(["kit", "--out", str(tmp_path / "k")]) == 2
    assert "name the board's layout with --layout NAME" in capsys.readouterr().err


def test_kit_says_when_it_cannot_write(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["kit", "--layout", "treeblox-adc", "--out", str(blocker / "kit")]) == 2
    assert f"cannot write the kit to {blocker / 'kit'}" in capsys.readouterr().err
