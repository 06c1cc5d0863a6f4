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
from games.ai import mcts, tuning

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
    # docs/ai.md's table of the levels a game sets itself (its table's level_effort), row by
    # row.
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
        for level_name in tuning.of(game).level_effort:
            lvl = games.ai.game_level(game, games.ai.LEVELS[level_name])
            effort = f"{lvl.iterations:,} iterations"
            if lvl.slips:
                effort += f", {lvl.slips * 100:g}% of its moves a glance"
            effort += "".join(f", {option} {value}" for option, value in lvl.search)
            declared[game.short_title, level_name] = (
                effort, "no" if not lvl.exact or not tuning.of(game).exact_solver
                else "all" if lvl.exact_free is None else f"{lvl.exact_free} free")
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
    # Tree Planting 3x3 (24 grooves), as Tree Planting plays its levels (its level_effort:
    # easy, medium and hard exact from 15, 17 and 20 free): from empty only the strongest
    # solves (the search does not run); with 17 free, medium and hard too; with 16, easy
    # still searches; with 15 it solves.
    state = games.get_game("tree-planting").new_state(board="3x3")
    for free, solving in ((24, {"strongest"}), (17, {"medium", "hard", "strongest"}),
                          (16, {"medium", "hard", "strongest"}),
                          (15, {"easy", "medium", "hard", "strongest"})):
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


def test_the_shipped_ladders_climb_level_by_level():
    # What a family picks by name must not get weaker as the names get stronger: each rated
    # level above the one below it (the page and `treeboard games` show these numbers).
    for name in games.names():
        rated = [(level, entry["rating"]) for level, entry in games.ai.ratings(name).items()]
        assert rated, name
        for (lower, low), (upper, high) in zip(rated, rated[1:]):
            assert high > low, f"{name}: {upper} {high} not above {lower} {low}"


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


def test_a_match_plays_each_drawn_setup_with_both_colours():
    import random
    import sys

    sys.path.insert(0, str(DOC.parents[1] / "benchmarks"))
    import strength

    arbos, rng, drawn, seen = games.get_game("arbos"), random.Random(5), {}, []
    for i in range(6):
        drawn = strength.drawn_options(arbos, {}, rng, i, drawn)
        seen.append(drawn["setup_seed"])
    # Games 1 and 2 one setup (colours swapped), 3 and 4 another, ...
    assert seen[0::2] == seen[1::2] and len(set(seen)) == 3
    # The same seed draws the same setups: a run is repeated by its seed.
    again = [strength.drawn_options(arbos, {}, random.Random(5), 0, {})["setup_seed"]]
    assert again == seen[:1]
    # An option given is not drawn; a game that draws nothing draws nothing.
    assert strength.drawn_options(arbos, {"setup": "chosen"}, rng, 0, {}) == {}
    assert strength.drawn_options(arbos, {"setup_seed": "7"}, rng, 0, {}) == {}
    assert strength.drawn_options(games.get_game("fangqi"), {}, rng, 0, {}) == {}


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
    share = saved["pairs"]["greedy v random"]
    assert 0 <= share["first_share"] <= 1  # the first player's, whatever the colours
    second = tmp_path / "second.json"
    out = strength.ladder(args(pairs="beginner-random", out=str(second), merge=[str(first)]))
    assert set(out["pairs"]) == {"beginner v random", "greedy v random"}
    # (the file's name: a shipped table names no machine's path)
    assert out["pairs"]["greedy v random"]["from"] == first.name
    assert out["pairs"]["greedy v random"]["ci95"] == saved["pairs"]["greedy v random"]["ci95"]
    assert set(out["ratings"]) == {"greedy", "random", "beginner"}
    assert list(json.loads(second.read_text())["pairs"]) == ["beginner v random"]
    # --add: more games of a pair join the pair's (here the first run's 2 to these 2).
    more = strength.ladder(args(pairs="greedy-random", add=[str(first)]))
    assert more["pairs"]["greedy v random"]["games"] == 4
    added = more["pairs"]["greedy v random"]
    assert added["from"] == f"this run+{first.name}" and 0 <= added["first_share"] <= 1
    # Pairs that do not reach the anchor (greedy) are kept, not fitted (nothing to hold to).
    alone = strength.ladder(args(pairs="beginner-random"))
    assert "ratings" not in alone and list(alone["pairs"]) == ["beginner v random"]
    with pytest.raises(SystemExit, match="a ladder of 'treeblox', not 'fangqi'"):
        strength.ladder(args(game="fangqi", pairs="x-y", merge=[str(first)]))
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(SystemExit, match=r"bad.json: expected a ladder's JSON output"):
        strength.ladder(args(pairs="x-y", merge=[str(tmp_path / "bad.json")]))


def test_a_game_may_declare_its_own_effort_for_a_level(counting, monkeypatch):
    # Through the game's table (level_effort), never a test of the game's name: Fangqi
    # declaring 100 iterations for `medium` searches 100 there; the other levels, and a game
    # declaring none, keep the common ones.
    fangqi = games.get_game("fangqi")
    table = type(tuning.of(fangqi))  # its Tuning class
    monkeypatch.setattr(table, "level_effort", {"medium": {"iterations": 100}})
    state = fangqi.new_state()
    state.play_all(["d4", "c3"])
    stopped = lambda: 0.0  # noqa: E731
    for name, want in (("medium", 100), ("hard", games.ai.LEVELS["hard"].iterations)):
        counting.clear()
        games.ai.play_level(state, games.ai.LEVELS[name], seed=1, clock=stopped)
        assert counting == [want], name
    assert games.ai.game_level(fangqi, games.ai.level("2")).iterations is None  # seconds
    monkeypatch.setattr(table, "level_effort", {})
    assert games.ai.game_level(fangqi, games.ai.LEVELS["medium"]) is games.ai.LEVELS["medium"]
    monkeypatch.setattr(table, "level_effort", {"medium": {"iterations": 1, "noise": 2}})
    with pytest.raises(ValueError, match="fangqi: level_effort\\['medium'\\] names 'noise'"):
        games.ai.play_level(state, games.ai.LEVELS["medium"], seed=1)


def test_a_game_may_declare_how_a_level_searches(monkeypatch):
    # A table's level_effort "search": options over the game's own search_options for that
    # level only (Arbos's strongest keeps more to its prior); the other levels search as the game
    # does, and a name that is no search option is refused, naming the game and the level.
    seen = []

    class Recording(games.ai.Search):
        def __init__(self, state, seed=None, **options):
            seen.append(options)
            super().__init__(state, seed=seed, **options)

    monkeypatch.setattr(games.ai, "Search", Recording)
    fangqi = games.get_game("fangqi")
    table = type(tuning.of(fangqi))  # its Tuning class
    monkeypatch.setattr(table, "level_effort",
                        {"hard": {"iterations": 8, "search": {"prior_bias": 3.0}}})
    state = fangqi.new_state()
    state.play_all(["d4", "c3"])
    for name in ("medium", "hard"):
        games.ai.play_level(state, games.ai.LEVELS[name], seed=1)
    own = tuning.of(fangqi).search_options
    assert seen[0] == dict(own)
    assert seen[1] == {**own, "prior_bias": 3.0}
    # "slips": that share of the level's moves a glance instead of the search.
    monkeypatch.setattr(table, "level_effort", {"hard": {"iterations": 8, "slips": 0.5}})
    seen.clear()
    for seed in range(40):
        games.ai.play_level(state, games.ai.LEVELS["hard"], seed=seed)
    assert 10 < len(seen) < 30  # the others glanced
    for wrong in (1.5, -0.1, True, "half"):
        monkeypatch.setattr(table, "level_effort", {"hard": {"slips": wrong}})
        with pytest.raises(ValueError, match=r"fangqi: level_effort\['hard'\]\['slips'\] is "
                                             r".*: expected a share from 0 to 1"):
            games.ai.play_level(state, games.ai.LEVELS["hard"], seed=1)
    monkeypatch.setattr(table, "level_effort", {"hard": {"search": {"prior_bais": 3}}})
    with pytest.raises(ValueError, match=r"fangqi: level_effort\['hard'\]\['search'\] names "
                                         r"'prior_bais': expected search options \(.*prior_bias"):
        games.ai.play_level(state, games.ai.LEVELS["hard"], seed=1)


def third_sides(state) -> set:
    """Tree Planting: the free grooves that draw a square's third side (hand it over)."""
    return {g for g in state.legal_moves() if state.gives_away(g)}


def test_a_glance_that_sees_the_answer_keeps_off_a_squares_third_side():
    # Tree Planting 1x2, square 0 on two sides (top and bottom): v0.0 and v0.1 each draw its
    # third side and hand it over; v0.2, h0.1 and h1.1 hand nothing over. No square to close,
    # so nothing to overlook: the answer alone decides.
    state = games.get_game("tree-planting").new_state(board="1x2")
    state.play_all(["h0.0", "h1.0"])
    unsafe = third_sides(state)
    assert {str(g) for g in unsafe} == {"v0.0", "v0.1"}
    rng = random.Random(2)
    assert not any(games.ai.glance_move(state, rng, answer=1.0) in unsafe for _ in range(200))
    blind = [games.ai.glance_move(state, rng, answer=0.0) for _ in range(200)]
    assert any(m in unsafe for m in blind)
    # Sometimes: a quarter of the glances look, the others play as if blind to it.
    some = [games.ai.glance_move(state, rng, answer=0.25) in unsafe for _ in range(400)]
    assert 0.22 < sum(some) / len(some) < 0.38  # blind: 2 of 5 of 3/4 of them, 0.3; all, 0.4
    # Every groove hands something over: the glance still plays one.
    state = games.get_game("tree-planting").new_state(board="1x1")
    state.play_all(["h0.0", "h1.0"])
    assert games.ai.glance_move(state, rng, answer=1.0) in state.legal_moves()


def test_the_beginner_glances_as_its_game_declares(monkeypatch):
    # Through the game's table (glance), never a test of the game's name.
    planting = games.get_game("tree-planting")
    table = type(tuning.of(planting))  # its Tuning class
    state = planting.new_state(board="1x2")
    state.play_all(["h0.0", "h1.0"])
    unsafe = third_sides(state)
    beginner = games.ai.LEVELS["beginner"]
    monkeypatch.setattr(table, "glance", {"answer": 1.0})
    assert games.ai.game_glance(planting) == {"answer": 1.0}
    assert not any(games.ai.play_level(state, beginner, seed=s) in unsafe for s in range(100))
    monkeypatch.setattr(table, "glance", {})
    assert any(games.ai.play_level(state, beginner, seed=s) in unsafe for s in range(100))
    monkeypatch.setattr(table, "glance", {"answr": 1.0})
    with pytest.raises(ValueError, match=r"tree-planting: glance names 'answr': expected only"):
        games.ai.play_level(state, beginner, seed=1)
    monkeypatch.setattr(table, "glance", {"miss": 1.5})
    with pytest.raises(ValueError, match=r"tree-planting: glance\['miss'\] is 1.5: expected a sh"):
        games.ai.play_level(state, beginner, seed=1)


#: Each other game's beginner as it played before a game's own glance (recorded from the glance of
#: commit 64c2914): the moves to a position (the glance itself, seeded 5), then the beginner's
#: move there for seeds 0-7. A change to the common glance, one draw of its rng more, fails.
BEFORE_GAME_GLANCE = {
    "treeblox": ("Lc1 Lb2 La3 La2 Lc2 Ld3 Lc4 Lc3 La4 Lb4 Lb3 La1 Lb1 Ld1",
                 "Ld4 Ld4 Ld4 Ld2 Ld2 Ld2 Bd4 end"),
    "fangqi": ("e2 b5 a2 g4 f6 f5 a3 g1 b1 c1 e5 g3 d7 f7 d1 a4 e7 g7 d3 a5 a7 e4 c2 e1",
               "c5 b4 d2 b3 c7 b2 f3 f4"),
    "arbos": ("seed F10 seed P1 seed G2 seed K16 seed S13 seed C2 seed C17 seed K19 seed O17 "
              "seed J10 seed L2 seed B14 seed F5 seed S17 seed G18 seed C20 seed K7 seed J13 "
              "seed B5 seed E14 B2 F18 D2 H19", "O19 S9 C13 Q17 G10 T12 D1 E2"),
    "game-for-the-trees": ("retreat:d3 a6-a5 c3-b4 a6-b5 c3-c4 g6-h5 e3-d4 g6-g5 d4-e5 c6-d5 "
                           "e5-f4 f6-f5 h3-h4 e4-d3 c2-d3 He8^h5 He1^c3 Hh5-h4 e4-d5 Hh4-g3 "
                           "Bh1-h5 d7-e6 c6-d6 Pd8-d5",
                           "g6-h6 c6-b6 f5-g5 Ec1-d2 g6-g5 c6-b5 g6-h6 f5-g5"),
}


@pytest.mark.parametrize("name", sorted(BEFORE_GAME_GLANCE))
def test_the_other_games_beginners_glance_as_before(name):
    game = games.get_game(name)
    assert games.ai.game_glance(game) == {}
    state = game.new_state(**{k: 7 for k in game.drawn_options})
    rng = random.Random(5)
    for _ in range({"treeblox": 14}.get(name, 24)):
        state.play(games.ai.glance_move(state, rng))
    path, answers = BEFORE_GAME_GLANCE[name]
    assert " ".join(map(str, state.moves)) == path
    beginner = games.ai.LEVELS["beginner"]
    assert [str(games.ai.play_level(state, beginner, seed=s)) for s in range(8)] == answers.split()


@pytest.mark.parametrize("name", games.names())
def test_each_games_table_is_its_own_and_holds_together(name):
    # How the computer plays a game is its table, games/ai/tuning/<module>.py, found by the
    # game's name; every key is one the computer reads, every level one it has.
    import importlib

    game = games.get_game(name)
    table = tuning.of(game)
    module = importlib.import_module(f"games.ai.tuning.{name.replace('-', '_')}")
    assert table is module.TUNING and isinstance(table, tuning.Tuning)
    assert type(table.search_effort) is int and table.search_effort >= 1
    assert set(table.search_options) <= games.ai.SEARCH_OPTIONS
    assert set(table.level_effort) <= set(games.ai.LEVELS)
    for lvl in games.ai.LEVELS.values():
        games.ai.game_level(game, lvl)  # raises, naming the key, for one it does not know
    games.ai.game_glance(game)
    solver = tuning.exact_solver(game)
    assert (solver is None) == (table.exact_solver is None)
    if solver is not None:  # what games.ai and `treeboard solve` ask of it
        for asked in ("exact_values", "out_of_reach", "solve", "OutOfTime", "BookError"):
            assert hasattr(solver, asked), asked


def test_a_game_without_a_table_plays_with_the_defaults():
    from types import SimpleNamespace

    table = tuning.of(SimpleNamespace(name="a-sixth-game"))
    assert type(table) is tuning.Tuning
    assert (table.search_effort, dict(table.search_options), dict(table.level_effort),
            dict(table.glance), table.exact_solver) == (1, {}, {}, {}, None)


def test_a_ladder_says_how_many_moves_the_cap_cut(tmp_path, monkeypatch):
    # The cap is wall time: a machine too loaded (or a run stopped mid-move) cuts a level's
    # search short, and that move is weaker than the level; the pair says how many it had.
    import argparse
    import dataclasses
    import sys

    sys.path.insert(0, str(DOC.parents[1] / "benchmarks"))
    import strength

    easy = games.ai.LEVELS["easy"]

    def pair(seconds):
        monkeypatch.setitem(games.ai.LEVELS, "easy", dataclasses.replace(easy, seconds=seconds))
        out = strength.ladder(argparse.Namespace(
            game="treeblox", option=None, games=1, pairs="easy-greedy", max_moves=6,
            merge=None, add=None, out=None, write=False, seed=3))
        return out["pairs"]["easy v greedy"]["cut_by_cap"]

    assert pair(0.0) >= 3   # every search of easy's (3 of the 6 moves) cut at once
    assert pair(easy.seconds) == 0
