"""benchmarks/solver_check.py, small: the independent search (benchmarks/solver_check.c: plain
alpha-beta with a table of bounds, none of the solver's machinery) agrees with the plain
minimax of benchmarks/solver.py where that reaches, and with the solver on random positions of
the 16-square board; the full run (32 free grooves) is the benchmark's (docs/ai.md, "Reach")."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from games.tree_planting import Board

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"

pytestmark = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_independent_search_agrees_with_the_plain_minimax(tmp_path):
    check, bench = _load("solver_check"), _load("solver")
    independent = check.Independent(Board.get("16"), tmp_path, log_entries=16)
    values = []
    for free in (6, 10, 13):
        for state in bench.reach_positions("16", free, 3, seed=7 + free):
            value = independent.value(state.position_key()[0])
            assert value == bench.plain_value(state.copy()), (free, hex(state.position_key()[0]))
            values.append(value)
    assert len(set(values)) > 1, values   # (not one value that any search would give)


def test_the_solver_agrees_with_the_independent_search_on_the_16_square_board():
    check = _load("solver_check")
    lines = []
    got = check.check("16", [20, 24], 4, budget=60, log_entries=20, say=lambda t, **k: lines.append(t))
    assert {free: row["positions checked"] for free, row in got.items()} == {"20": "4 of 4",
                                                                             "24": "4 of 4"}
    assert all(row["values agreeing"] == 4 for row in got.values()), lines
    assert len(lines) == 8 and '"independent": ' in lines[0]
