"""Game for the Trees: every reading of docs/games/game-for-the-trees.md and every example of
the rules text, move by move."""

from __future__ import annotations

import json

import pytest

import games
from games.base import BadOptions, GameError, IllegalMove, InvalidNotation
from games.game_for_the_trees import GAME, Move, start_position


def new(**options):
    return GAME.new_state(**options)


def terrain(state, name):
    sq = state.square(name)
    if sq["terrain"] == "tree":
        return f"{sq['kind']}:{sq['owner']}"
    return sq["terrain"] if sq["owner"] is None else f"{sq['terrain']}:{sq['owner']}"


def texts(state):
    return [str(m) for m in state.legal_moves()]


# Positions are written rank 8 first; every one gives each player a Huckleberry square.
DOUBLE_ATTACK = "g...h.../......../....e.../...U..../..EA..../......../......../G...H..."


# --- the start and the registry ---------------------------------------------------------------

def test_registered_and_start_position():
    state = games.get_game("game-for-the-trees").new_state()
    assert state.occupancy() == {}  # the board holds no pieces: the LEDs show the position
    assert len(state.sites()) == 64
    assert [terrain(state, f"{f}1") for f in "abcdefgh"] == [
        "Birch:0", "Ash:0", "Beech:0", "Pine:0", "huckleberry:0", "Beech:0", "Ash:0", "Birch:0"]
    assert [terrain(state, f"{f}8") for f in "abcdefgh"] == [
        "Birch:1", "Ash:1", "Beech:1", "Pine:1", "huckleberry:1", "Beech:1", "Ash:1", "Birch:1"]
    assert {terrain(state, f"{f}2") for f in "abcdefgh"} == {"underbrush:0"}
    assert {terrain(state, f"{f}3") for f in "abcdefgh"} == {"grass:0"}
    assert {terrain(state, f"{f}{r}") for f in "abcdefgh" for r in (4, 5)} == {"bare"}
    assert {terrain(state, f"{f}7") for f in "abcdefgh"} == {"underbrush:1"}
    assert {terrain(state, f"{f}6") for f in "abcdefgh"} == {"grass:1"}
    assert all(state.square(f"{f}1")["is_root"] for f in "abcdfgh")
    assert state.scores() == (24, 24) and state.to_move == 0 and not state.is_over()


# --- the examples of the text -----------------------------------------------------------------

def test_example_birch_a1_a7_is_illegal():
    state = new()
    with pytest.raises(IllegalMove) as exc:
        state.play("Ba1-a7")
    assert "a3" in exc.value.reason and "underbrush" in exc.value.reason
    assert "Ba1-a7" not in texts(state) and state.moves == []


def test_example_ash_autostops_without_underbrush():
    state = new()
    state.play("Ab1-d2")
    assert terrain(state, "d2") == "Ash:0" and terrain(state, "b1") == "Ash:0"
    assert state.chains(0) == ["d2>f3"]
    state.play("h7-h6")
    state.play("a3-a4")  # does not prepare f3, which is grass: the Ash autostops
    assert terrain(state, "f3") == "grass:0"
    assert "d2>f3" not in state.chains(0)


def test_example_underbrush_first_lets_the_ash_continue():
    state = new()
    state.play_all(["Ab1-d2", "h7-h6"])
    orders = [t for t in texts(state) if t.startswith("g2-f3")]
    assert orders == ["g2-f3", "g2-f3/d2>f3,g2>f3"]
    state.play("g2-f3")  # default order: the new growth first, then the Ash
    assert terrain(state, "f3") == "Ash:0" and state.chains(0) == ["f3>h4"]
    assert terrain(state, "g2") == "underbrush:0"
    state.undo()
    state.play("g2-f3/d2>f3,g2>f3")  # the Ash first: it autostops, then f3 becomes underbrush
    assert terrain(state, "f3") == "underbrush:0" and state.chains(0) == ["f3>e4"]


def test_example_birch_grows_two_ways():
    state = new()
    state.play_all(["a2-a3", "h7-h6", "Ba1-a2", "g7-g6"])
    assert terrain(state, "a2") == "Birch:0" and state.chains(0) == ["a2>a3"]
    with pytest.raises(IllegalMove, match="already growing that way"):
        state.copy().play("Ba2-a3")
    state.play("Ba2-b2")  # while momentum continues Ba2-a3
    assert [terrain(state, s) for s in ("a1", "a2", "a3", "b2")] == ["Birch:0"] * 4
    assert sorted(state.chains(0)) == ["a3>a4", "b2>c2"]
    # two growths, independent: one turn, whatever their order (reading 18)
    state.undo()
    assert [t for t in texts(state) if t.startswith("Ba2-b2")] == ["Ba2-b2"]


def test_example_double_attack_on_e6():
    state = new(position=DOUBLE_ATTACK)
    state.play("Ec4-d5")
    assert terrain(state, "d5") == "Beech:0" and state.chains(0) == ["d5>e6"]
    state.play("a8-b8")
    both = [t for t in texts(state) if t.startswith("Ad4-e6")]
    assert both == ["Ad4-e6", "Ad4-e6/d4>e6,d5xe6"]
    state.play("Ad4-e6")  # the Ash takes e6 and keeps its momentum; the Beech stops
    assert terrain(state, "e6") == "Ash:0" and state.chains(0) == ["e6>f8"]
    state.undo()
    state.play("Ad4-e6/d4>e6,d5xe6")  # the Beech takes it and keeps growing to f7
    assert terrain(state, "e6") == "Beech:0" and state.chains(0) == ["e6>f7"]
    assert state.square("e6")["root"] == "c4"


# --- the readings -----------------------------------------------------------------------------

def test_reading_grass_is_one_piece_per_square():
    state = new()
    state.play("b2-b3")  # underbrush takes one grass square; its neighbours are untouched
    assert terrain(state, "a3") == "grass:0" and terrain(state, "c3") == "grass:0"
    state.play("h7-h6")
    state.play("retreat c3")  # one grass square retreats: bare ground; a3 stays grass
    assert terrain(state, "c3") == "bare" and terrain(state, "a3") == "grass:0"


def test_reading_huckleberry_grows_as_underbrush():
    state = new(position="....h.../......../......../......../......../......../....G.../....H...")
    assert "He1-e2" in texts(state)
    state.play("He1-e2")
    assert terrain(state, "e2") == "huckleberry:0" and state.huckleberry_count(0) == 2
    assert state.chains(0) == ["e2>e3"]


def test_reading_leap_once_per_game():
    state = new()
    assert "He1^c3" in texts(state)
    assert not any("^" in t and t.endswith(("6", "7", "8")) for t in texts(state))
    state.play("H^c3")  # the source may be left out
    assert terrain(state, "c3") == "huckleberry:0" and state.chains(0) == []
    assert state.moves[-1] == Move("leap", state.moves[-1].src, 18, "H")
    assert str(state.moves[-1]) == "He1^c3" and state.leap_used(0)
    state.play("h7-h6")
    assert not any("^" in t for t in texts(state))
    with pytest.raises(IllegalMove, match="once per game"):
        state.play("H e1^d3")
    with pytest.raises(IllegalMove, match="own grass"):
        new().play("H e1^e6")


# The issue-23 positions where the leap and a Huckleberry chain go from one square to another
# (the growths of a turn were keyed by from and to, so the two overwrote each other).
LEAP_AND_CHAIN = [
    dict(moves="a2-a3 retreat:f7 b2-b3 He8-f7 c2-c3 h6-h5 d2-d3"),
    dict(position="......../...H..../......../......../......../......../..gh..p./........",
         roots="g2", chains="g2>a2 d2>c2", first=1),
    dict(position="......../.......h/......../......../......../..e...../AP....HG/........",
         roots="a2 b2 c3", chains="a2>c3 b2>c3 g2>h2", first=0),
]


def leap_and_chain(k):
    options = dict(LEAP_AND_CHAIN[k])
    moves = options.pop("moves", "")
    state = new(**options)
    state.play_all(moves.split())
    return state


def test_reading_leap_and_chain_from_one_square_are_two_growths():
    state = leap_and_chain(0)  # Black: Huckleberry on g6 (its chain g6>h5), f7, e8; h5>h4
    # The leap onto h5 after h5 grew on to h4 is a turn of its own, written from g6 or e8.
    assert "Hg6^h5/h5>h4,g6^h5,g6>h5" in texts(state)
    for text in ("Hg6^h5/h5>h4,g6^h5,g6>h5", "He8^h5/h5>h4,e8^h5,g6>h5",
                 "H^h5/h5>h4,e8^h5,g6>h5"):
        state.play(text)
        assert terrain(state, "h4") == "grass:1" and terrain(state, "h5") == "huckleberry:1"
        state.undo()
    state = leap_and_chain(1)
    assert "Hd2^c2" in texts(state)
    state.play("Hd2^c2")
    state = leap_and_chain(2)
    assert "Hg2^h2/g2^h2,a2>c3,b2xc3,g2>h2" in texts(state)
    state.play("Hg2^h2/g2^h2,a2>c3,b2xc3,g2>h2")
    assert terrain(state, "c3") == "Pine:0" and terrain(state, "h2") == "huckleberry:0"
    for k in range(3):  # every listed turn plays
        state = leap_and_chain(k)
        for move in state.legal_moves():
            state.play(move)
            state.undo()


def test_reading_slider_takes_the_squares_it_passes():
    state = new(position="....h.../......../......../........"
                         "/U......./U......./U......./B...H...")
    state.play("Ba1-a4")
    assert [terrain(state, f"a{r}") for r in (1, 2, 3, 4)] == ["Birch:0"] * 4
    assert state.chains(0) == ["a4>a7"]


def test_reading_two_connections_keep_a_branch_alive():
    # White Birch a1 (root), a2, b2, b1: b2 is linked to the root twice (via a2 and via b1).
    ring = ".......h/......../......../......../......../.ea...../BB....../BB..H..."
    state = new(position=ring, roots="a1", chains="b3>a2", first=1)
    state.play("Ac3-a2")  # Ash and Beech on a2: killed
    assert terrain(state, "a2") == "Ash:1"
    assert terrain(state, "b2") == "Birch:0" and terrain(state, "b1") == "Birch:0"
    # Without b1 the branch b2 has one connection, through a2: it dies, neutral underbrush.
    line = ".......h/......../......../......../......../.ea...../BB....../B...H..."
    state = new(position=line, roots="a1", chains="b3>a2", first=1)
    state.play("Ac3-a2")
    assert terrain(state, "b2") == "underbrush" and terrain(state, "a1") == "Birch:0"


def test_reading_you_may_kill_your_own_trees():
    pos = "....h..g/......../......../......../......../.EA...../B......./B...H..."
    state = new(position=pos, roots="a1", chains="b3>a2")
    state.play("Ac3-a2")  # White's Ash and Beech on White's own Birch at a2
    assert terrain(state, "a2") == "Ash:0" and terrain(state, "a1") == "Birch:0"
    # the Beech's chain stopped; the Ash's next leap, a2 + (-2, -1), leaves the board
    assert state.chains(0) == []


def test_reading_killing_the_root_kills_the_tree():
    pos = ".......h/......../......../......../..P...../a.Pe..../..P...../....H..."
    state = new(position=pos, roots="c2", chains="d3>c2", first=1)
    state.play("Aa3-c2")
    assert terrain(state, "c2") == "Ash:1"
    assert terrain(state, "c3") == "bare" and terrain(state, "c4") == "bare"  # a Pine: bare


def test_reading_a_direction_is_one_way():
    # The Pine on d4 grows d4>d5 by momentum: north is taken (d5, d6 too: the same way),
    # south is another direction (reading 10).
    state = new(position="h......./......../......../...U..../...P..../...U..../......../.......H",
                chains="d4>d5")
    assert [t for t in texts(state) if t.startswith("Pd4")] == ["Pd4-d3"]
    with pytest.raises(IllegalMove, match="already growing that way"):
        state.play("Pd4-d5")


def test_reading_momentum_is_all_or_nothing():
    pos = "....h..g/......../......../......../U......./U......./U......./B...H..G"
    state = new(position=pos)
    state.play("Ba1-a3")
    assert state.chains(0) == ["a3>a5"]
    state.play("h8-g8")
    state.play("h1-h2")  # the Birch's step a3-a5 needs a5: bare, so it stops, a4 untouched
    assert terrain(state, "a4") == "underbrush:0" and state.chains(0) == ["h2>h3"]


def test_reading_chain_off_the_board_stops_at_once():
    state = new(position="....h..g/......../......../......../......../U......./......../.A..H...")
    state.play("Ab1-a3")
    assert terrain(state, "a3") == "Ash:0"
    assert state.chains(0) == []  # a3 + (-1, 2) is off the board


def test_reading_chain_waits_for_a_prepared_square():
    state = new()
    state.play_all(["a2-a3", "h7-h6"])
    assert state.chains(0) == ["a3>a4"]
    state.play("b3-a4")  # grass onto bare a4 first, then the underbrush chain grows onto it
    assert terrain(state, "a4") == "underbrush:0" and "a4>a5" in state.chains(0)


def test_reading_chain_dies_with_its_square():
    pos = "....h..g/......../......../......../......../...U..../...PP.../...PH..."
    state = new(position=pos, roots="d1", chains="d2>d3")
    state.play("retreat e2")  # another square of the Pine: its momentum goes on
    assert terrain(state, "e2") == "bare" and terrain(state, "d3") == "Pine:0"
    assert state.chains(0) == ["d3>d4"]
    state = new(position=pos, roots="d1", chains="d2>d3")
    state.play("retreat d2")  # the chain's own square: the chain is gone
    assert state.chains(0) == [] and terrain(state, "d3") == "underbrush:0"


def test_reading_a_knight_grows_in_eight_directions():
    # The Ash growing d4-e6 still starts d4-f5 (another leap), but not d4-e6 again.
    pos = "....h..g/......../....U.../.....U../...A..../......../......../....H..."
    state = new(position=pos, chains="d4>e6")
    assert "Ad4-f5" in texts(state) and not any(t.startswith("Ad4-e6") for t in texts(state))
    state.play("Ad4-f5")
    assert sorted(state.chains(0)) == ["e6>f8", "f5>h6"]


def test_reading_new_growth_must_grow():
    pos = "g...h.../......../....e.../......../...A..../......../......../G...H..."
    state = new(position=pos)
    with pytest.raises(IllegalMove, match="second tree"):
        state.play("Ad4-e6")
    assert "Ad4-e6" not in texts(state)


def test_reading_one_attacker_is_not_enough():
    state = new(position=DOUBLE_ATTACK)
    state.play_all(["Ec4-d5", "a8-b8"])
    state.play("a1-a2")  # the Beech's chain alone on e6: no kill, the chain stops
    assert terrain(state, "e6") == "Beech:1" and state.chains(0) == ["a2>a3"]


def test_reading_retreat_is_an_action():
    state = new()
    with pytest.raises(IllegalMove, match="root"):
        state.copy().play("retreat a1")
    with pytest.raises(IllegalMove, match="last Huckleberry"):
        state.copy().play("retreat e1")
    state.play("retreat a2")
    assert terrain(state, "a2") == "grass:0"
    pos = "....h..g/......../......../......../......../......../...PPP../...PH..."
    state = new(position=pos, roots="d1")
    state.play("retreat e2")  # the Pine's e2 retreats: bare ground, and f2, cut off, too
    assert terrain(state, "e2") == "bare" and terrain(state, "f2") == "bare"
    assert terrain(state, "d2") == "Pine:0"
    state.play("h8-g8")
    with pytest.raises(IllegalMove, match="root"):
        state.copy().play("retreat d1")


def test_reading_deciduous_retreat_leaves_own_underbrush():
    state = new()
    state.play_all(["Ab1-d2", "h7-h6", "retreat d2"])
    assert terrain(state, "d2") == "underbrush:0" and state.chains(0) == []


def test_reading_stalemate_loses():
    state = new(position=".......h/......../......../......../......../......../......../G...H...")
    assert "pass" not in " ".join(texts(state))
    with pytest.raises(InvalidNotation):
        state.parse_move("pass")
    state.play("a1-a2")
    # Black: one Huckleberry square (it may not retreat), nothing it can grow onto, no grass
    # to leap onto, no chain: stalemated, and loses.
    assert state.is_over() and state.end_reason == "stalemate" and state.winner() == 0
    assert state.legal_moves() == []


def test_reading_stop_before_growth():
    state = new()
    state.play_all(["Ab1-d2", "h7-h6"])
    with pytest.raises(IllegalMove, match="no chain"):
        state.copy().play("stop h6>h5")  # Black's chain
    state.play("stop d2>f3")
    assert state.chains(0) == [] and terrain(state, "f3") == "grass:0"


def test_reading_trees_take_huckleberry():
    pos = "....h..g/......../...A..../......../......../......../......../....H..."
    state = new(position=pos)
    state.play("Ad6-e8")  # one tree alone takes underbrush, and a Huckleberry is underbrush
    assert state.is_over() and state.end_reason == "huckleberry" and state.winner() == 0


def test_reading_mutual_annihilation_is_a_draw():
    pos = "....h..g/......../...A..../......../......../......../......../...PH..."
    state = new(position=pos, chains="d6>e8")
    state.play("Pd1-e1")  # White grows over its own last Huckleberry, the Ash takes Black's
    assert state.is_over() and state.end_reason == "mutual" and state.winner() is None
    state = new(position=pos)
    state.play("Pd1-e1")  # suicide alone: White loses
    assert state.end_reason == "huckleberry" and state.winner() == 1


def test_reading_orders_that_change_nothing_are_one_move():
    state = new()
    state.play_all(["a2-a3", "h7-h6", "Ba1-a2", "g7-g6"])
    listed = texts(state)
    assert len(listed) == len(set(listed))
    assert not any(" / " in t for t in listed)  # no two growths of this turn interact


# Eight chains of five White trees converging on three squares of a Black Birch (d5 e5 f5,
# root e5), and White grass for more actions: legal_moves() took minutes here when every
# order of the attacks was a different "order" until the end of the turn.
CONVERGING = "h......./.....A../..E...E./...bbb../..ABP.../GG....A./GGG...../GGG....H"
CONVERGING_CHAINS = "e4>d5 e4>e5 e4>f5 c4>e5 f7>e5 g3>f5 c6>d5 d4>d5"


def test_orders_that_meet_collapse_before_they_are_enumerated(monkeypatch):
    """Counted in growths tried, not timed: orders that reach the same position are merged
    as they meet, and growths that commute are not ordered at all (reading 18)."""
    from games import game_for_the_trees as engine

    tried = 0
    grow = engine._Turn.grow

    def counting(turn, item):
        nonlocal tried
        tried += 1
        if tried > 200_000:  # the old enumeration tried millions; stop it early
            raise AssertionError("legal_moves() tried more than 200,000 growths")
        return grow(turn, item)

    state = new(position=CONVERGING, roots="e5", chains=CONVERGING_CHAINS)
    monkeypatch.setattr(engine._Turn, "grow", counting)
    moves = state.legal_moves()
    assert tried < 50_000  # 16,411 when written (benchmarks/gftt_orders.py times it)
    monkeypatch.setattr(engine._Turn, "grow", grow)
    assert len(moves) == len(set(moves)) == 315
    results = set()
    for move in moves:  # each a different turn (reading 18), and every one plays
        state.play(move)
        results.add((move.action, move.src, move.dst,
                     tuple(tuple(sorted(state.square(n).items())) for n in state.sites()),
                     tuple(state.chains(0)), tuple(state.chains(1))))
        state.undo()
    assert len(results) == len(moves)


def test_reading_move_limit():
    state = new(limit=2)
    state.play_all(["a3-a4", "h7-h6"])
    assert state.is_over() and state.end_reason == "limit"
    assert state.scores() == (25, 24) and state.winner() == 0


# --- notation, options, saving ----------------------------------------------------------------

@pytest.mark.parametrize("text, canonical", [
    ("ab1-d2", "Ab1-d2"), ("b1-d2", "Ab1-d2"), ("  A b1 - d2 ", "Ab1-d2"),
    ("u a2-a3", "a2-a3"), ("H e1^c3", "He1^c3"), ("he1^c3", "He1^c3"),
    ("STOP d2>f3", "stop:d2>f3"), ("stop:d2>f3", "stop:d2>f3"), ("retreat D5", "retreat:d5"),
    ("retreat:d5", "retreat:d5"), ("g2-f3 / d2>f3 g2>f3", "g2-f3/d2>f3,g2>f3"),
    ("g2-f3/d2>f3,g2>f3", "g2-f3/d2>f3,g2>f3"),
])
def test_notation_is_canonical(text, canonical):
    state = new()
    assert str(state.parse_move(text)) == canonical
    assert state.parse_move(canonical) == state.parse_move(text)


@pytest.mark.parametrize("text, words", [
    ("Ba1-i9", "a turn is"), ("stop d2>d9", "a turn is"), ("Xb1-d2", "a turn is"), ("pass", "a turn is"),
    ("Eb1-d2", "Ash"), ("g2-f3 / d2>f3 zz", "order"), ("g2-f3 /", "order"), (42, "a turn"),
])
def test_bad_notation_says_what_a_move_looks_like(text, words):
    with pytest.raises(InvalidNotation) as exc:
        new().parse_move(text)
    assert words in exc.value.reason


def test_an_illegal_move_changes_nothing():
    state = new()
    state.play_all(["Ab1-d2", "h7-h6"])
    before = state.to_json(), state.chains(0), [state.square(s) for s in state.sites()]
    for bad in ("Ba1-a7", "Pd1-d8", "a4-a5", "stop a3>a4", "retreat a8",
                "g2-f3 / g2>f3", "g2-f3 / g2xf3 d2>f3", "Ab1-c3 / b1>c3 d2>f3 b1>c3"):
        with pytest.raises(IllegalMove):
            state.play(bad)
        assert (state.to_json(), state.chains(0), [state.square(s) for s in state.sites()]) \
            == before, bad


def test_json_round_trip_with_position_options():
    state = new(position=DOUBLE_ATTACK, limit=50)
    state.play_all(["Ec4-d5", "a8-b8", "Ad4-e6/d4>e6,d5xe6"])
    again = games.load_state(state.to_json())
    assert again == state and again.chains(0) == state.chains(0)
    assert json.loads(state.to_json())["moves"][-1] == "Ad4-e6/d4>e6,d5xe6"


@pytest.mark.parametrize("options, words", [
    ({"limit": 0}, "limit"), ({"limit": "x"}, "limit"), ({"colour": 1}, "no option 'colour'"),
    ({"position": "abc"}, "8 ranks"),
    ({"position": start_position().replace("H", "Z")}, "e1 is 'Z'"),
    ({"position": start_position().replace("H", "G")}, "White needs a Huckleberry"),
    ({"position": "....h.../8/8/8/8/8/8/BB..H..."}, "8 ranks"),
    ({"position": "....h.../......../......../......../......../......../B......./B...H..."},
     "a1 a2 has no root"),
    ({"position": DOUBLE_ATTACK, "roots": "a5"}, "a5 holds no tree"),
    ({"position": DOUBLE_ATTACK, "chains": "c4-d5"}, "from>to"),
    ({"position": DOUBLE_ATTACK, "chains": "c4>c5"}, "no growth"),
    ({"position": DOUBLE_ATTACK, "first": 2}, "first"),
    ({"first": 1}, "give one"),
])
def test_bad_options_name_the_option(options, words):
    with pytest.raises(BadOptions) as exc:
        new(**options)
    assert words in str(exc.value)


def test_a_saved_game_that_does_not_replay_says_which_move():
    data = json.loads(new().to_json())
    data["moves"] = ["Ab1-d2", "Ba1-a7"]
    with pytest.raises(GameError, match=r"saved move 2 \('Ba1-a7'\)"):
        GAME.state_from_json(data)


def test_undo_restores_and_raises_when_empty():
    state = new()
    with pytest.raises(IndexError):
        state.undo()
    state.play("Ab1-d2")
    assert str(state.undo()) == "Ab1-d2" and state == new() and state.chains(0) == []


def test_every_test_the_rules_document_names_exists():
    import re
    from pathlib import Path

    doc = (Path(__file__).parents[2] / "docs" / "games" / "game-for-the-trees.md").read_text()
    named = set(re.findall(r"`(test_\w+)`", doc))
    assert len(named) >= 20
    missing = [n for n in named if n not in globals()]
    assert not missing


def test_playout_finishes_with_legal_turns_that_undo_takes_back():
    import random

    state = new(limit=60)
    state.play("Ab1-d2")
    scores = state.playout(random.Random(3))
    assert state.is_over() and scores == state.scores()
    replay = new(limit=60)
    for move in state.moves:  # every turn it chose is a legal one, by the rules' own check
        replay.play(str(move))
    assert replay == state
    while len(state.moves) > 1:
        state.undo()
    after_one = new(limit=60)
    after_one.play("Ab1-d2")
    assert state == after_one and state.chains(0) == ["d2>f3"]


def test_a_turn_played_after_listing_the_legal_moves_has_the_result_it_has_unlisted():
    # play() reuses the result legal_moves() found for a turn (the search plays every legal
    # move right after listing them); it must be what running the turn gives: every legal
    # move of random positions, played listed and unlisted, the same position after it.
    import random

    rng = random.Random(5)
    checked = 0
    for game in range(3):
        state = GAME.new_state()
        while not state.is_over() and len(state.moves) < 60:
            legal = state.legal_moves()
            fresh = state.copy()  # never listed: every play runs the turn
            for move in legal:
                state.play(move)
                fresh.play(move)
                # board, chains, leap, mover, turns, end and winner alike
                assert state._snapshot() == fresh._snapshot(), move
                state.undo()
                fresh.undo()
                checked += 1
            state.play(rng.choice(legal))
    assert checked > 1000
