"""The search plays as it did before its iterations were made cheaper (issue 40): the same
legal moves in the same order, and for fixed positions and seeds the same best move and the
same visits at the root, as recorded from main before the change (search_golden.py)."""

from __future__ import annotations

import json

import pytest

import games
from tests.games.search_golden import FILE, answers, digest

GOLDEN = json.loads(FILE.read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", GOLDEN["move_lists"], ids=lambda c: c["game"])
def test_the_same_legal_moves_in_the_same_order(case):
    state = games.load_state(case["position"])
    assert digest(state.legal_moves()) == case["moves"]


@pytest.mark.parametrize("case", GOLDEN["searches"],
                         ids=lambda c: f"{c['game']}-seed{c['seed']}")
def test_the_same_search(case):
    got = answers(case["game"], case["position"], case["iterations"], case["seed"])
    assert got["best"] == case["best"]
    assert got["visits"] == case["visits"]
