"""pyproject.toml lists its packages by hand (board_driver.systemd lives in the repository's
top-level systemd/, where discovery cannot see it): every package and data folder of the tree
must be listed, or a plain `pip install` would silently lack it."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOPS = ("treeboard", "games", "hardware", "firmware_bridge", "board_driver")


def _tree_packages() -> set[str]:
    found = set()
    for top in TOPS:
        for folder in [ROOT / top, *(ROOT / top).rglob("*")]:
            if not folder.is_dir() or folder.name == "__pycache__":
                continue
            # A package, or a folder of data a package reads (layouts, books, static files).
            if any(f.is_file() and not f.name.endswith(".pyc") for f in folder.iterdir()):
                found.add(".".join(folder.relative_to(ROOT).parts))
    return found


def test_every_package_and_data_folder_is_listed():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    mapped = config["package-dir"]
    assert listed - set(mapped) == _tree_packages()
    for package, folder in mapped.items():
        assert package in listed and (ROOT / folder).is_dir()
    assert mapped == {"board_driver.systemd": "systemd"}
    assert sorted(p.name for p in (ROOT / "systemd").iterdir()) == [
        "99-treeboard.rules", "treeboard-root.conf", "treeboard-update.path",
        "treeboard-update.service", "treeboard-update.timer", "treeboard.service"]
