"""Game for the Trees over random games: every tree joined to its root, terrain adding up to
64, undo exact, notation and JSON round trips, and every generated turn checked against the
growth rules written out the slow, obvious way on the squares it changed."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games.base import IllegalMove
from games.game_for_the_trees import GAME

SETTINGS = settings(max_examples=8, deadline=None)
FILES = "abcdefgh"
SQUARES = [f"{f}{r}" for r in range(1, 9) for f in FILES]
LINKS = {  # a tree kind's links (reading 5): the steps it grows by, one square at a time
    "Birch": [(1, 0), (-1, 0), (0, 1), (0, -1)],
    "Beech": [(1, 1), (1, -1), (-1, 1), (-1, -1)],
    "Pine": [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy],
    "Ash": [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)],
}
LADDER = {"bare": 0, "grass": 1, "underbrush": 2, "huckleberry": 2, "tree": 3}


def squares(state) -> dict[str, dict]:
    return {name: state.square(name) for name in SQUARES}


def random_game(seed: int, limit: int = 60, leap: bool = True, position: str | None = None):
    """Yield each position of a random game. Growth is preferred over retreats and stops so
    that the forest fills up and trees meet. Without `leap`, nobody leaps (so that the leap
    stays to be tried at every position) and the Huckleberry grows more often (so that it
    has chains and several squares to leap from)."""
    rng = random.Random(seed)
    state = GAME.new_state(limit=limit) if position is None else \
        GAME.new_state(limit=limit, position=position)
    yield state
    while not state.is_over():
        moves = [m for m in state.legal_moves() if leap or m.action != "leap"] or \
            state.legal_moves()
        growths = [m for m in moves if m.action in ("grow", "leap")]
        if not leap and rng.random() < 0.5:
            growths = [m for m in growths if m.letter == "H"] or growths
        pool = growths if growths and rng.random() < 0.85 else moves
        state.play(rng.choice(pool))
        yield state


def neighbours(name: str, steps) -> list[str]:
    f, r = FILES.index(name[0]), int(name[1])
    out = []
    for dx, dy in steps:
        if 0 <= f + dx < 8 and 1 <= r + dy <= 8:
            out.append(f"{FILES[f + dx]}{r + dy}")
    return out


def check_trees_joined_to_roots(state) -> None:
    sq = squares(state)
    trees: dict[str, set[str]] = {}
    for name, s in sq.items():
        if s["terrain"] == "tree":
            trees.setdefault(s["root"], set()).add(name)
    for root, members in trees.items():
        assert root in members and sq[root]["is_root"], (root, members)
        kinds = {sq[m]["kind"] for m in members} | {sq[m]["owner"] for m in members}
        assert len(kinds) == 2  # one kind, one owner
        seen, todo = {root}, [root]
        while todo:
            for n in neighbours(todo.pop(), LINKS[sq[root]["kind"]]):
                if n in members and n not in seen:
                    seen.add(n)
                    todo.append(n)
        assert seen == members, f"{sq[root]['kind']} {root}: {sorted(members - seen)} cut off"


def check_turn_follows_the_rules(before: dict, after: dict, mover: int, move) -> None:
    """What a turn may change, square by square."""
    for name in SQUARES:
        b, a = before[name], after[name]
        if b == a:
            continue
        grew = a["owner"] == mover and (
            LADDER[a["terrain"]] > LADDER[b["terrain"]] or b["owner"] != mover
            or a["terrain"] == b["terrain"] == "tree" and a["root"] != b["root"])
        if {a["terrain"], b["terrain"]} == {"underbrush", "huckleberry"} and \
                a["owner"] == b["owner"] == mover:
            continue  # retreated to grass, then grown over again by the other underbrush
        if grew:
            # Something of the mover's grew here: up the ladder of the rules (a turn's growths
            # can climb a square more than one rung: grass, then underbrush, then a tree), or
            # a tree square taken in an attack (always by the mover's tree).
            if b["terrain"] == "tree":
                assert a["terrain"] == "tree" and a["root"] != b["root"], (move, name)
            else:
                assert LADDER[a["terrain"]] > LADDER[b["terrain"]], (move, name, b, a)
                if a["terrain"] == "grass":
                    assert b["terrain"] == "bare"
        else:
            # A loss: a retreat, a square killed or cut off. What it leaves is in the rules,
            # and a later growth of the same turn may have grown over that again.
            assert b["terrain"] != "bare", (move, name)
            if b["terrain"] == "tree":
                left = ("bare", None) if b["kind"] == "Pine" else ("underbrush", b["owner"])
            elif b["terrain"] in ("underbrush", "huckleberry"):
                left = ("grass", b["owner"])
            else:
                left = ("bare", None)
            if (a["terrain"], a["owner"]) == left:
                continue
            if b["terrain"] == "tree" and b["kind"] != "Pine" and a["terrain"] == "underbrush":
                assert a["owner"] in (None, b["owner"]), (move, name)  # killed: neutral
                continue
            assert a["owner"] == mover and LADDER[a["terrain"]] > LADDER[left[0]], \
                (move, name, b, a)


def view(state) -> tuple:
    return (state.to_json(), squares(state), state.chains(0), state.chains(1),
            state.leap_used(0), state.leap_used(1), state.is_over(), state.winner())


@SETTINGS
@given(seed=st.integers(0, 10**6))
def test_trees_stay_joined_and_terrain_adds_up(seed):
    for state in random_game(seed):
        check_trees_joined_to_roots(state)
        counts: dict[str, int] = {}
        for s in squares(state).values():
            counts[s["terrain"]] = counts.get(s["terrain"], 0) + 1
        assert sum(counts.values()) == 64
        a, b = state.scores()
        assert a + b + counts.get("bare", 0) + sum(
            1 for s in squares(state).values() if s["terrain"] == "underbrush"
            and s["owner"] is None) == 64


def check_counts(state) -> None:
    owners = [s["owner"] for s in squares(state).values()]
    hucks = [s["owner"] for s in squares(state).values() if s["terrain"] == "huckleberry"]
    assert state.scores() == (owners.count(0), owners.count(1))
    assert (state.huckleberry_count(0), state.huckleberry_count(1)) == \
        (hucks.count(0), hucks.count(1))


@SETTINGS
@given(seed=st.integers(0, 10**6))
def test_scores_and_huckleberry_squares_kept_by_the_turns_are_the_squares(seed):
    """The state keeps each player's squares and Huckleberry squares as its turns change them
    (not counted after every turn): after every turn, a playout's and each undo, they are what
    the squares say."""
    rng = random.Random(seed)
    for state in random_game(seed, limit=60):
        check_counts(state)
        probe = state.copy()
        probe.playout(rng, cap=6)
        check_counts(probe)
        while len(probe.moves) > len(state.moves):
            probe.undo()
            check_counts(probe)


@SETTINGS
@given(seed=st.integers(0, 10**6))
def test_a_growth_found_hopeless_at_once_has_no_turn_when_run(seed):
    """The engine passes over a candidate action it can tell is no turn (`_hopeless`: most
    candidate growths, in legal_moves and in playouts): running such a turn, in every order,
    finds no turn either."""
    from games import game_for_the_trees as engine

    found = 0
    for state in random_game(seed, limit=60):
        if state.is_over():
            continue
        chain_items = state._chain_items()
        for action, src, dst in state._actions():
            if not state._hopeless(action, src, dst, chain_items):
                continue
            found += 1
            letter = engine._letter(state._board[src]) if action == engine.GROW else ""
            with pytest.raises(engine._Fail):
                state._run(engine.Move(action, src, dst, letter))
            hopeless = engine.GameForTheTreesState._hopeless
            try:
                engine.GameForTheTreesState._hopeless = lambda *_: False
                assert state._turns_of(action, src, dst, {}, None, chain_items) == []
            finally:
                engine.GameForTheTreesState._hopeless = hopeless
    assert found


@SETTINGS
@given(seed=st.integers(0, 10**6), pick=st.integers(0, 10**6))
def test_every_generated_turn_is_legal_distinct_and_undoes_exactly(seed, pick):
    rng = random.Random(pick)
    for state in random_game(seed, limit=40):
        if state.is_over() or rng.random() > 0.25:
            continue
        before, snapshot = squares(state), view(state)
        mover = state.to_move
        results: dict[tuple, str] = {}
        for move in state.legal_moves():
            text = str(move)
            assert str(state.parse_move(text)) == text and state.parse_move(text) == move
            assert text.split() == [text]  # one word: `treeboard replay` reads words
            state.play(move)
            check_turn_follows_the_rules(before, squares(state), mover, move)
            check_trees_joined_to_roots(state)
            key = (move.action, move.src, move.dst, tuple(tuple(sorted(s.items())) for s in squares(state).values()),
                   tuple(state.chains(0)), tuple(state.chains(1)))
            assert key not in results, f"{text} and {results.get(key)} are one turn"
            results[key] = text
            assert str(state.undo()) == text
            assert view(state) == snapshot, text


@SETTINGS
@given(seed=st.integers(0, 10**6))
def test_json_and_copy_round_trip(seed):
    for state in random_game(seed, limit=50):
        pass
    again = games.load_state(state.to_json())
    assert view(again) == view(state)
    clone = state.copy()
    while clone.moves:
        clone.undo()
    assert view(clone) == view(GAME.new_state(limit=50))
    assert view(state) != view(clone) or not state.moves


def result(state) -> tuple:
    return (tuple(tuple(sorted(s.items())) for s in squares(state).values()),
            tuple(state.chains(0)), tuple(state.chains(1)),
            state.leap_used(0), state.leap_used(1))


HUCK_ROOM = "baepheab/uuuggguu/gggggggg/......../......../GGGGGGGG/UUUGGGUU/BAEPHEAB"


def brute_force(state, keys, rng=None, most=4) -> int:
    """Every order of each action's growths (`keys`: (action, src, dst) as listed), tried one
    by one with `play`, against what legal_moves lists: every listed turn plays, every order
    that plays gives a listed result, and each listed turn without a taker mark is one of those
    results. A leap is tried from every Huckleberry square of the mover (legal_moves names the
    first; any may be written). Returns how many actions were checked."""
    import itertools

    from games.game_for_the_trees import Move

    listed: dict[tuple, set] = {}
    plain: dict[tuple, set] = {}
    for move in state.legal_moves():
        state.play(move)  # every listed turn plays
        key = (move.action, move.src, move.dst)
        listed.setdefault(key, set()).add(result(state))
        if not move.order or all(mark != "x" for _, _, mark in move.order):
            plain.setdefault(key, set()).add(result(state))
        state.undo()
    hucks = [i for i, name in enumerate(SQUARES) if state.square(name)["terrain"] ==
             "huckleberry" and state.square(name)["owner"] == state.to_move]
    pool = sorted(listed) if keys is None else keys
    if keys is None and hucks and not state.leap_used(state.to_move):
        # Every leap, listed or not: a playable leap legal_moves lacks must show up.
        pool = sorted(set(pool) | {("leap", hucks[0], i) for i, name in enumerate(SQUARES)
                                   if state.square(name)["terrain"] == "grass" and
                                   state.square(name)["owner"] == state.to_move})
    if rng is not None:
        pool = rng.sample(pool, min(6, len(pool)))
    checked = 0
    for key in pool:
        action, src, dst = key
        sources = hucks if action == "leap" else [src]
        brute = set()
        for source in sources:
            _, items = state._start(action, source, dst)
            if len(items) > most:
                break
            orders = [None, *(tuple((it.src, it.dst, it.mark) for it in order)
                              for order in itertools.permutations(items))]
            for order in orders:  # the default order (no suffix), then every order written
                move = Move(action, source, dst, _letter_of(state, key), order)
                try:
                    state.play(move)
                except IllegalMove:
                    continue  # the new growth cannot happen in this order
                brute.add(result(state))
                state.undo()
        else:
            assert brute <= listed.get(key, set()), key
            assert plain.get(key, set()) <= brute, key
            checked += 1
    return checked


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_legal_moves_find_every_order_by_brute_force(seed):
    """Every order of a turn's growths, tried one by one, gives a result legal_moves lists,
    and each listed turn without a taker mark is one of those results."""
    rng = random.Random(seed)
    checked = 0
    for state in random_game(seed, limit=40):
        if state.is_over() or not state.chains(state.to_move) or rng.random() > 0.5:
            continue
        checked += brute_force(state, None, rng)
        if checked > 6:
            break
    assert checked > 0  # the seed's game gave positions with chains to brute-force


@pytest.mark.parametrize("seed", [5, 6, 7, 8])
def test_every_order_of_every_leap_by_brute_force(seed):
    """The same for leaps, from every Huckleberry square: in random games where the mover
    may leap and has chains, every leap target, listed or not, is tried. The start has grass
    beside the Huckleberry bushes, so that they grow (chains, several squares to leap from)."""
    rng = random.Random(seed)
    checked = 0
    for state in random_game(seed, limit=60, leap=False, position=HUCK_ROOM):
        if state.is_over() or not state.chains(state.to_move) or \
                state.leap_used(state.to_move) or rng.random() > 0.5:
            continue
        me = state.to_move
        grass = [SQUARES.index(n) for n in SQUARES
                 if state.square(n)["terrain"] == "grass" and state.square(n)["owner"] == me]
        first = next(i for i, n in enumerate(SQUARES) if state.square(n)["terrain"] ==
                     "huckleberry" and state.square(n)["owner"] == me)
        checked += brute_force(state, [("leap", first, g) for g in grass])
        if checked > 60:
            break
    assert checked > 0


@pytest.mark.parametrize("k", [0, 1, 2])
def test_issue_positions_by_brute_force(k):
    """The positions where a leap and a Huckleberry chain share their squares, every action."""
    from tests.games.test_game_for_the_trees import leap_and_chain

    state = leap_and_chain(k)
    assert brute_force(state, None, most=5) > 5


def _letter_of(state, key):
    action, src, _ = key
    if action == "leap":
        return "H"
    if action != "grow":
        return ""
    sq = state.square(src)
    return {"Birch": "B", "Ash": "A", "Beech": "E", "Pine": "P"}.get(sq["kind"]) or \
        ("H" if sq["terrain"] == "huckleberry" else "")
