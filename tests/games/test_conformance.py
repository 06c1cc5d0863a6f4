"""Every game in `games.names()` keeps the promises of the common interface (games/base.py),
over random games with random options: move notation round-trips through `str` and
`parse_move`, `undo` restores every earlier position exactly, a copy is independent, JSON
save/load gives the same game, a playout is a legal recorded game that `undo` takes back,
`occupancy` agrees with `sites`, `moves_at` and `owner_of`, and the declared extras keep
their types. A new game is covered by adding it to the registry; its own test files keep
only what is particular to it.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games

SETTINGS = settings(max_examples=15, deadline=None)

# The options each game is played with. A game not listed here is played with its default
# options and each of its named boards.
OPTIONS = {
    "tree-planting": st.fixed_dictionaries({"board": st.sampled_from(
        ["1x1", "1x3", "2x2", "3x3", "classic", "##./.##/..#", "16", "#.#/###"])}),
    "treeblox": st.fixed_dictionaries({"cubes": st.integers(1, 16)}),
    "fangqi": st.fixed_dictionaries({
        "board": st.tuples(st.integers(2, 6), st.integers(2, 6)).map(
            lambda rc: f"{rc[0]}x{rc[1]}p"),
        "extra_removal": st.booleans(),
        "repeat_squares": st.booleans(),
        "quiet_limit": st.integers(1, 30),
        "quiet_result": st.sampled_from(["draw", "counters"]),
    }),
    "arbos": st.fixed_dictionaries({"board": st.sampled_from(["6x6", "8x8", "7x10", "20x20"])}).flatmap(
        lambda o: st.one_of(st.just({**o, "setup": "chosen"}),
                            st.integers(0, 2**32 - 1).map(lambda n: {**o, "setup_seed": n}))),
    "game-for-the-trees": st.fixed_dictionaries({"limit": st.integers(1, 60)}),
}


def options_of(name: str) -> st.SearchStrategy:
    if name in OPTIONS:
        return OPTIONS[name]
    return st.sampled_from([{}] + [{"board": b} for b in games.get_game(name).boards()])


def snapshot(state) -> tuple:
    """What a position is, through the common interface only."""
    return (state.summary(), state.occupancy(), sorted(str(m) for m in state.legal_moves()),
            state.position_key())


def changes(state, move) -> set[str]:
    """The sites whose piece `move` changes."""
    before = state.occupancy()
    state.play(move)
    after = state.occupancy()
    state.undo()
    return {s for s in before.keys() | after.keys() if before.get(s) != after.get(s)}


def check_position(state, sites: list[str], *, deep: bool) -> None:
    game = state.game
    legal = state.legal_moves()
    for move in legal[:40]:  # an Arbos position has hundreds; the first ones will do
        text = str(move)
        assert state.parse_move(text) == move and str(state.parse_move(text)) == text
        if " " in text:
            # Moves written one after another read back unambiguously (`treeboard replay`):
            # a move of words has a first word that alone names no move (games/base.py).
            with pytest.raises(games.InvalidNotation):
                state.parse_move(text.split()[0])
    assert state.sites() == sites  # the board's sensed sites do not change during a game
    occupancy = state.occupancy()
    assert all(isinstance(k, str) and k for k in occupancy.values())
    assert all(game.owner_of(k) in (0, 1, None) for k in occupancy.values())
    if game.input_mode == "touch":
        assert occupancy == {}  # the position lives on the LEDs
    if deep and not state.is_over():
        # moves_at(site) narrows the legal moves, but reconcile still finds every move that
        # changes a sensed site from one of the sites it changes (Tree Planting: a rod's move
        # at its groove, not at the hole its tree fills)
        at = {site: {str(m) for m in state.moves_at(site)} for site in sites}
        texts = {str(m) for m in legal}
        assert all(found <= texts for found in at.values())
        sensed = set(sites)
        for move in legal:
            changed = changes(state, move) & sensed
            assert not changed or any(str(move) in at[s] for s in changed), move


@pytest.mark.parametrize("name", games.names())
def test_the_contract_is_declared(name):
    game = games.get_game(name)
    assert game.input_mode in ("pieces", "touch")
    assert game.turn_seconds is None or game.turn_seconds > 0
    assert (game.match_rules is None) == (type(game).play_match is games.Game.play_match)
    assert game.short_title and game.description
    assert game.title == f"{game.short_title}: {game.description}"
    state = game.new_state()
    for move in (state.end_turn_move(), state.pass_move(), state.timeout_move()):
        assert move is None or state.parse_move(str(move)) == move
    assert isinstance(game.drawn_options, frozenset)
    assert game.drawn_options <= set(game.options())
    with pytest.raises(IndexError):
        state.undo()


@pytest.mark.parametrize("name", games.names())
@SETTINGS
@given(data=st.data())
def test_random_games_keep_the_interface_promises(name, data):
    game = games.get_game(name)
    options = data.draw(options_of(name), label="options")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    stop = data.draw(st.integers(0, 80), label="moves")
    rng = random.Random(seed)
    state = game.new_state(**options)
    sites = state.sites()
    assert len(set(sites)) == len(sites)
    snapshots = [snapshot(state)]
    copies = []  # (a copy taken along the way, its snapshot then)
    check_position(state, sites, deep=True)
    while not state.is_over() and len(state.moves) < stop:
        move = rng.choice(state.legal_moves())
        state.play(move)
        snapshots.append(snapshot(state))
        check_position(state, sites, deep=len(state.moves) % 16 == 0)
        if rng.random() < 0.1:
            copies.append((state.copy(), snapshots[-1]))

    # JSON: the saved game loads as the same game, in the same position
    again = games.load_state(state.to_json())
    assert again == state and snapshot(again) == snapshots[-1]

    # a copy is the same game, and independent: it plays on, and the original does not move
    twin = state.copy()
    assert twin == state
    if not twin.is_over():
        twin.play(twin.legal_moves()[0])
        assert snapshot(state) == snapshots[-1]

    # a playout is a legal game, recorded: a fresh game replays its moves, undo takes them back
    start = len(state.moves)
    scores = state.playout(random.Random(seed))
    assert scores == state.scores() and (state.is_over() or len(state.moves) > start)
    replay = game.new_state(**options)
    replay.play_all([str(m) for m in state.moves])
    assert replay == state and replay.occupancy() == state.occupancy()
    while len(state.moves) > start:
        state.undo()
    assert snapshot(state) == snapshots[-1]

    # undo restores every earlier position exactly, back to the start, and returns the move
    moves = [str(m) for m in state.moves]
    for expected in reversed(snapshots[:-1]):
        assert str(state.undo()) == moves.pop()
        assert snapshot(state) == expected
    assert state == game.new_state(**options)
    with pytest.raises(IndexError):
        state.undo()
    for copy, expected in copies:  # the undos did not reach the copies
        assert snapshot(copy) == expected
