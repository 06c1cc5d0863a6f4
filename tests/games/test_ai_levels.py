"""The computer's levels: each one's search effort is what docs/ai.md says, the wall time is
only a cap, a beginner glances (and overlooks), and the ratings file is read or refused
clearly."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

import games
import games.ai
from games.ai import mcts

DOC = Path(__file__).resolve().parents[2] / "docs" / "ai.md"


def doc_levels() -> dict[str, tuple[str, str, str]]:
    """docs/ai.md's levels table: name -> (iterations, cap, exact solver)."""
    text = DOC.read_text()
    table = text[text.index("| level | search effort a move |"):]
    rows = {}
    for line in table.splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip().strip("`") for c in line.strip("|").split("|")]
        rows[cells[0]] = (cells[1], cells[2], cells[3])
    return rows


def test_each_levels_effort_is_what_the_doc_says():
    rows = doc_levels()
    assert list(rows) == list(games.ai.LEVELS)
    for name, lvl in games.ai.LEVELS.items():
        effort, cap, exact = rows[name]
        if lvl.iterations == 0:
            assert effort.startswith("none: a glance")
        else:
            assert int(re.match(r"[\d,]+", effort).group().replace(",", "")) == lvl.iterations
        assert float(cap.removesuffix(" s")) == lvl.seconds
        assert exact == ("no" if not lvl.exact else "all" if lvl.exact_free is None
                         else f"{lvl.exact_free} free")


def test_each_games_own_levels_are_what_the_doc_says():
    # docs/ai.md's table of the levels a game sets itself (Game.level_effort), row by row.
    text = DOC.read_text()
    table = text[text.index("| game | level | search effort a move | exact solver | why |"):]
    rows = {}
    for line in table.splitlines()[2:]:
        if not line.startswith("|"):
            break
        cells = [c.strip().strip("`") for c in line.strip("|").split("|")]
        rows[cells[0], cells[1]] = (cells[2], cells[3])
    declared = {}
    for name in games.names():
        game = games.get_game(name)
        for level_name in game.level_effort:
            lvl = games.ai.game_level(game, games.ai.LEVELS[level_name])
            declared[game.short_title, level_name] = (
                f"{lvl.iterations:,} iterations",
                "no" if not (lvl.exact and game.exact_solver) else "all"
                if lvl.exact_free is None else f"{lvl.exact_free} free")
    assert declared == rows


class Counting(mcts.Search):
    """The search, counting the iterations each move's search ran."""

    runs: list[int] = []

    def run(self, **kw):
        done = super().run(**kw)
        Counting.runs.append(done)
        return done


@pytest.fixture
def counting(monkeypatch):
    Counting.runs = []
    monkeypatch.setattr(games.ai, "Search", Counting)
    return Counting.runs


def test_a_level_searches_exactly_its_iterations_whatever_the_clock(counting):
    state = games.get_game("fangqi").new_state()
    state.play_all(["d4", "c3"])
    stopped = lambda: 0.0  # noqa: E731  (a clock that never moves: only the effort stops it)
    for name, lvl in games.ai.LEVELS.items():
        if lvl.iterations == 0:
            continue
        counting.clear()
        move = games.ai.play_level(state, lvl, seed=1, clock=stopped)
        assert move in state.legal_moves()
        assert counting == [games.ai.game_level(state.game, lvl).iterations], name


def test_the_wall_time_is_only_a_cap(counting):
    state = games.get_game("treeblox").new_state()
    ticks = iter(range(10**6))
    slow = lambda: float(next(ticks))  # noqa: E731  (a second passes at every reading)
    games.ai.play_level(state, games.ai.LEVELS["strongest"], seed=1, clock=slow)
    assert 0 < counting[0] < games.ai.LEVELS["strongest"].iterations


def test_each_level_sees_the_endgame_exactly_from_its_free_grooves_on(counting):
    # Tree Planting 3x3 (24 grooves): from empty only the strongest solves (the search does
    # not run); with 15 grooves free, medium (15) and hard (18) solve, easy (12) searches.
    state = games.get_game("tree-planting").new_state(board="3x3")
    for free, solving in ((24, {"strongest"}), (15, {"medium", "hard", "strongest"}),
                          (12, {"easy", "medium", "hard", "strongest"})):
        while len(state.legal_moves()) > free:
            state.play(sorted(state.legal_moves(), key=str)[0])
        for name, lvl in games.ai.LEVELS.items():
            if lvl.iterations == 0:
                continue
            counting.clear()
            games.ai.play_level(state, lvl, seed=3)
            assert (counting == []) == (name in solving), (free, name)


def test_a_beginner_does_not_search_and_sometimes_overlooks_a_capture(counting):
    # Fangqi, movement: Black's slide d5-e5 completes a square and takes a counter.
    state = games.get_game("fangqi").new_state()
    state.play_all(("g3 c2 g4 c7 d1 f1 e6 b2 b5 e7 e1 g6 e3 c1 e2 d6 c6 d2 b3 g1 d5 e4 b1 a6 g2 "
                    "a4 d7 f7 a7 a2 g7 e5 f2 d4 a1 c5 d3 c4 f5 f3 b7 c3 g5 f4 f6 b4 a3 a5 b6 xe1 "
                    "xe5 xd7").split())
    captures = {m for m in state.legal_moves() if m.captures}
    assert captures
    beginner = games.ai.LEVELS["beginner"]
    moves = [games.ai.play_level(state, beginner, seed=s) for s in range(50)]
    assert counting == []  # a glance, never a search
    assert all(m in state.legal_moves() for m in moves)
    # Nothing overlooked: a glance always takes. All overlooked: it plays as if blind to it.
    rng = random.Random(1)
    assert all(games.ai.glance_move(state, rng, miss=0.0) in captures for _ in range(50))
    blind = [games.ai.glance_move(state, rng, miss=1.0) for _ in range(100)]
    assert any(m not in captures for m in blind)


def test_ratings_are_read_from_the_ladders_file_or_refused_naming_it(tmp_path, monkeypatch):
    path = tmp_path / "ratings.json"
    monkeypatch.setattr(games.ai, "RATINGS_FILE", path)
    assert games.ai.ratings("treeblox") == {} and games.ai.level_label("treeblox", "easy") == "easy"
    path.write_text(json.dumps({"treeblox": {"ratings": {
        "hard": {"rating": 1410.4, "ci95": [1300, 1520]},
        "easy": {"rating": 1100, "ci95": [1000, 1200]}}}}))
    assert list(games.ai.ratings("treeblox")) == ["easy", "hard"]  # in the ladder's order
    assert games.ai.level_label("treeblox", "hard") == "hard (1410)"
    assert games.ai.level_label("fangqi", "hard") == "hard"
    path.write_text('{"treeblox": {"ratings": {"easy": 3}}}')
    with pytest.raises(ValueError, match=r"ratings.json: treeblox: expected ratings"):
        games.ai.ratings("treeblox")
    path.write_text("{not json")
    with pytest.raises(ValueError, match=r"ratings.json: expected the JSON"):
        games.ai.ratings("treeblox")


def test_the_shipped_ratings_name_only_levels():
    for name in games.names():
        assert set(games.ai.ratings(name)) <= set(games.ai.LEVELS)


def test_the_ladders_fit_gives_elo_differences_and_intervals():
    import sys

    sys.path.insert(0, str(DOC.parents[1] / "benchmarks"))
    import strength

    # 3 of 4: 400 log10(3) = 191 points; the interval from the information, 1.96 x 200.6.
    fit = strength.fit_ratings({("a", "b"): [1, 1, 1, 0]}, anchor="b", prior_draws=0)
    assert fit["b"]["rating"] == 1000 and fit["a"]["rating"] == 1191
    assert fit["a"]["ci95"] == [798, 1584]
    # A chain: a over b, b over c, each 3 of 4: c sits two steps below a.
    fit = strength.fit_ratings({("a", "b"): [1, 1, 1, 0], ("b", "c"): [1, 1, 1, 0]},
                               anchor="b", prior_draws=0)
    assert (fit["a"]["rating"], fit["c"]["rating"]) == (1191, 809)
    # A clean sweep stays finite with the virtual draws.
    fit = strength.fit_ratings({("a", "b"): [1] * 8}, anchor="b")
    assert 1300 < fit["a"]["rating"] < 1800


def test_the_ladder_saves_each_pair_as_it_goes_and_merges_earlier_runs(tmp_path):
    import argparse
    import sys

    sys.path.insert(0, str(DOC.parents[1] / "benchmarks"))
    import strength

    def args(**kw):
        base = dict(game="treeblox", option=None, games=2, pairs=None, max_moves=600,
                    merge=None, add=None, out=None, write=False, seed=3)
        return argparse.Namespace(**{**base, **kw})

    first = tmp_path / "first.json"
    strength.ladder(args(pairs="greedy-random", out=str(first)))
    saved = json.loads(first.read_text())  # written after the pair, before any fit
    assert saved["game"] == "treeblox" and list(saved["pairs"]) == ["greedy v random"]
    assert saved["pairs"]["greedy v random"]["games"] == 2
    second = tmp_path / "second.json"
    out = strength.ladder(args(pairs="beginner-random", out=str(second), merge=[str(first)]))
    assert set(out["pairs"]) == {"beginner v random", "greedy v random"}
    # (the file's name: a shipped table names no machine's path)
    assert out["pairs"]["greedy v random"]["from"] == first.name
    assert set(out["ratings"]) == {"greedy", "random", "beginner"}
    assert list(json.loads(second.read_text())["pairs"]) == ["beginner v random"]
    # --add: more games of a pair join the pair's (here the first run's 2 to these 2).
    more = strength.ladder(args(pairs="greedy-random", add=[str(first)]))
    assert more["pairs"]["greedy v random"]["games"] == 4
    # Pairs that do not reach the anchor (greedy) are kept, not fitted (nothing to hold to).
    alone = strength.ladder(args(pairs="beginner-random"))
    assert "ratings" not in alone and list(alone["pairs"]) == ["beginner v random"]
    with pytest.raises(SystemExit, match="a ladder of 'treeblox', not 'fangqi'"):
        strength.ladder(args(game="fangqi", pairs="x-y", merge=[str(first)]))
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(SystemExit, match=r"bad.json: expected a ladder's JSON output"):
        strength.ladder(args(pairs="x-y", merge=[str(tmp_path / "bad.json")]))


def test_a_game_may_declare_its_own_effort_for_a_level(counting, monkeypatch):
    # Through the game contract (Game.level_effort), never a test of the game's name: Fangqi
    # declaring 100 iterations for `medium` searches 100 there; the other levels, and a game
    # declaring none, keep the common ones.
    fangqi = games.get_game("fangqi")
    monkeypatch.setattr(type(fangqi), "level_effort", {"medium": {"iterations": 100}})
    state = fangqi.new_state()
    state.play_all(["d4", "c3"])
    stopped = lambda: 0.0  # noqa: E731
    for name, want in (("medium", 100), ("hard", games.ai.LEVELS["hard"].iterations)):
        counting.clear()
        games.ai.play_level(state, games.ai.LEVELS[name], seed=1, clock=stopped)
        assert counting == [want], name
    assert games.ai.game_level(fangqi, games.ai.level("2")).iterations is None  # seconds
    monkeypatch.setattr(type(fangqi), "level_effort", {})
    assert games.ai.game_level(fangqi, games.ai.LEVELS["medium"]) is games.ai.LEVELS["medium"]
    monkeypatch.setattr(type(fangqi), "level_effort", {"medium": {"iterations": 1, "noise": 2}})
    with pytest.raises(ValueError, match="fangqi: level_effort\\['medium'\\] names 'noise'"):
        games.ai.play_level(state, games.ai.LEVELS["medium"], seed=1)
