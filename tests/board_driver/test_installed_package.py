"""A plain, non-editable install (a wheel in a new venv), run from another directory: the
package data (layouts, default config, the systemd unit and udev rules) must be inside it.

The wheel is built once per test session from a copy of the tracked sources, without build
isolation (the dev venv's setuptools), and installed without dependencies into a venv that
borrows the dev venv's site-packages for them; so the test downloads nothing and takes
seconds."""

from __future__ import annotations

import json
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from tests.board_driver.release_tree import build_project_wheel
from tests.waits import scaled

REPO = Path(__file__).resolve().parents[2]


def _run(argv, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                          timeout=scaled(120), **kw)


@pytest.fixture(scope="session")
def installed(tmp_path_factory) -> Path:
    """The bin/ directory of a new venv with treeboard installed from a wheel."""
    base = tmp_path_factory.mktemp("installed")
    wheel = build_project_wheel(base)   # (release_tree.py: the update's tests build it so too)
    env = base / "venv"
    venv.create(env, with_pip=False)
    purelib = Path(sysconfig.get_paths(vars={"base": env, "platbase": env})["purelib"])
    # The dependencies (gpiozero, pyserial, pixelbuf) from the dev venv; treeboard itself from
    # the wheel, which comes first on sys.path.
    (purelib / "dev-deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    done = _run([sys.executable, "-m", "pip", "--python", env / "bin" / "python", "install", "-q",
                 "--no-deps", wheel])
    assert done.returncode == 0, done.stderr
    return env / "bin"


def test_it_is_the_wheel_that_runs(installed, tmp_path):
    out = _run([installed / "python", "-c", "import board_driver; print(board_driver.__file__)"],
               cwd=tmp_path)
    assert str(installed.parent) in out.stdout, out


def test_games_trace_and_sim_run_from_another_directory(installed, tmp_path):
    assert "treeblox" in _run([installed / "treeboard", "games"], cwd=tmp_path).stdout
    actions = tmp_path / "actions.txt"
    actions.write_text("place h0.0\n")
    out = _run([installed / "treeboard", "trace", actions], cwd=tmp_path)
    assert out.returncode == 0 and '"moves": ["h0.0"]' in out.stdout, out.stderr
    out = _run([installed / "treeboard", "sim", "--journal", tmp_path / "j.sqlite"], cwd=tmp_path,
               input="place h0.0\nquit\n")
    assert out.returncode == 0 and "h0.0" in out.stdout, out.stderr


def test_the_makers_kit_and_a_typed_map_from_the_wheel(installed, tmp_path):
    out = _run([installed / "treeboard", "kit", "--layout", "treeblox-adc", "--out", "kit"],
               cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in (tmp_path / "kit").iterdir()) == ["parts.csv", "template.svg",
                                                                     "wiring.svg"]
    script = "".join(f"place {s} dark-leaf\nlift {s}\n" for s in
                     [f"{c}{r}" for r in range(1, 5) for c in "abcd"])
    out = _run([installed / "treeboard", "map", "--sim", "--layout", "treeblox-adc", "--output",
                "mine.toml"], cwd=tmp_path, input=script)
    assert out.returncode == 0 and "wrote mine.toml: 16 sites mapped" in out.stdout, out.stderr


def test_install_service_dry_run_from_the_wheel(installed, tmp_path):
    root = tmp_path / "image"
    out = _run([installed / "treeboard", "install-service", "--dry-run", "--root", root], cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert f"would: write {root}/etc/systemd/system/treeboard.service (ExecStart={installed}/treeboard)" in out.stdout
    assert f"would: write {root}/etc/udev/rules.d/99-treeboard-bridge.rules" in out.stdout
    assert not root.exists()


def test_the_opening_book_is_in_the_wheel(installed, tmp_path):
    # Without its book file the classic board's solve fails naming the missing file.
    out = _run([installed / "treeboard", "solve", "--board", "classic"], cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    from games.ai.book import book_for
    from games.tree_planting import Board

    assert json.loads(out.stdout)["value"] == book_for(Board.get("classic")).value(0)
    code = "import games.ai.book as b; print(b.__file__)"
    out = _run([installed / "python", "-c", code], cwd=tmp_path)
    assert str(installed.parent) in out.stdout, out
