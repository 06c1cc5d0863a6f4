"""The entry model (board_driver/views/entry.py): in random positions of every game, every legal
move is reachable by tapping the pictures' [data-site] elements, and no tap sequence makes
anything but a legal move."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

import games
from board_driver import views
from board_driver.config import DEFAULT_COLOURS
from board_driver.views import Moment, entry
from board_driver.views.game_view import GameView, Way

#: Options that reach the parts of a game a fresh default game reaches late or never.
OPTIONS = {
    "tree-planting": [{}, {"board": "3x4"}],
    "treeblox": [{}],
    "fangqi": [{}, {"board": "8x8"}],
    "arbos": [{"board": "6x6"}, {"board": "6x6", "setup": "chosen"}],
    "game-for-the-trees": [{}],
}


def positions(name: str, seed: int, count: int = 12):
    """Positions met in random games of `name` (a copy of each), from the start to the end."""
    rng = random.Random(seed)
    found = []
    for options in OPTIONS[name]:
        state = games.get_game(name).new_state(**options)
        while True:
            if rng.random() < 0.3:
                found.append(state.copy())
            moves = state.legal_moves()
            if not moves:
                break
            state.play(rng.choice(moves))
        found.append(state.copy())
    rng.shuffle(found)
    return [s for s in found if not s.is_over()][:count] + [found[-1]]


def data_sites(state) -> set[str]:
    """Every data-site id of the game's pictures as the page draws them (the 3D picture with
    its places: the tapped sites no sensor sees)."""
    view = views.view_of(state.game.name)
    moment = Moment.still(dict(DEFAULT_COLOURS), state=state)
    svgs = [view.svg(state, moment)]
    if view.svg_3d is not None:
        places = sorted({t for c in entry.choices(state) for t in c["taps"]} - set(state.sites()))
        svgs.append(view.svg_3d(state, moment, places))
    return {e.get("data-site") for svg in svgs for e in ET.fromstring(svg).iter()
            if e.get("data-site")}


def walk(choices, taps, button=None):
    """Tap `taps` as a page does, then press `button` (a label) if given: the move made."""
    tapped = []
    for site in taps:
        step = entry.narrow(choices, tapped)
        assert step["made"] is None, f"{step['made']} was made before {site} was tapped"
        assert site in step["sites"], f"{site} is not lit after {tapped}"
        tapped.append(site)
    step = entry.narrow(choices, tapped)
    if step["made"] is not None:
        return step["made"]
    pressed = [c for c in step["buttons"] if c["label"] == button]
    assert len(pressed) == 1, f"after {tapped}, {button!r} is not one button of {step['buttons']}"
    return pressed[0]["move"]


@pytest.mark.parametrize("name", games.names())
def test_every_legal_move_is_reachable_by_its_taps(name):
    for state in positions(name, seed=hash(name) % 1000):
        choices = entry.choices(state)
        legal = {str(m) for m in state.legal_moves()}
        assert {c["move"] for c in choices} == legal
        sites = data_sites(state)
        for c in choices:
            assert set(c["taps"]) <= sites, f"{c} taps a site no picture has"
            assert walk(choices, c["taps"], c["label"]) == c["move"]
        # The buttons after the same taps say different things.
        by_taps: dict[tuple, list[str]] = {}
        for c in choices:
            by_taps.setdefault(tuple(c["taps"]), []).append(c["label"])
        for taps, labels in by_taps.items():
            assert len(labels) == len(set(labels)), f"{taps}: two buttons say the same"


@pytest.mark.parametrize("name", games.names())
def test_no_tap_sequence_makes_an_illegal_move(name):
    rng = random.Random(7)
    for state in positions(name, seed=11):
        choices = entry.choices(state)
        if not choices:
            assert state.is_over()
            continue
        for _ in range(30):
            tapped, made = [], None
            while made is None:
                step = entry.narrow(choices, tapped)
                made = step["made"]
                if made is not None:
                    break
                options = [("tap", s) for s in step["sites"]] + \
                    [("press", b["move"]) for b in step["buttons"]]
                assert options, f"after {tapped} nothing can be tapped or pressed"
                what, value = rng.choice(options)
                if what == "press":
                    made = value
                else:
                    tapped.append(value)
            probe = state.copy()
            probe.play(probe.parse_move(made))   # raises if it were not legal


def test_a_touch_games_hold_is_a_button_beside_its_targets():
    """Game for the Trees: a square whose piece may retreat lights its targets and offers the
    retreat as a button (the board's hold)."""
    for state in positions("game-for-the-trees", seed=3, count=40):
        choices = entry.choices(state)
        held = [c for c in choices if len(c["taps"]) == 1]
        for c in held:
            step = entry.narrow(choices, c["taps"])
            assert c in step["buttons"]
            if step["sites"]:
                return
    pytest.skip("no position with a retreat beside a growth came up")  # pragma: no cover


def test_end_turn_and_pass_are_buttons_from_the_start():
    state = games.get_game("treeblox").new_state()
    state.play("La1")
    state.play("Ld4")
    step = entry.narrow(entry.choices(state), [])
    assert [b["move"] for b in step["buttons"]] == ["end"]
    assert step["buttons"][0]["label"] == "End turn"
    assert "a2" in step["sites"] and step["made"] is None


def test_a_fangqi_slide_takes_its_captures_in_either_order():
    choices = [{"move": "d4-d7xf2xg5", "taps": t, "label": "x", "words": "x"}
               for t in (["d4", "d7", "f2", "g5"], ["d4", "d7", "g5", "f2"])]
    assert walk(choices, ["d4", "d7", "g5", "f2"]) == "d4-d7xf2xg5"
    assert entry.narrow(choices, ["d4", "d7"])["sites"] == ["f2", "g5"]


def test_the_model_says_whose_turn_and_is_empty_at_the_end():
    state = games.get_game("tree-planting").new_state()
    model = entry.model(state)
    assert model["mover"] == 0 and model["moves"] == 0 and model["choices"]
    while not state.is_over():
        state.play(state.legal_moves()[0])
    assert entry.model(state)["choices"] == []


def test_a_new_games_view_gets_the_default_from_its_own_file():
    """A view that says nothing of entries gets the default: a piece game's move at the sites it
    changes; a view may say otherwise in its own class."""
    class Plain(GameView):
        frame = svg = terminal = staticmethod(lambda *a: None)

    state = games.get_game("tree-planting").new_state()
    ways = Plain.entry_ways(state)
    assert all(len(w.taps) == 1 and w.taps[0] == str(w.move) for w in ways)

    class Own(Plain):
        entry_ways = staticmethod(lambda state: [Way("h0.0", ("h0.0",), "rod")])

    assert Own.entry_ways(state)[0].label == "rod"


@pytest.mark.parametrize("name", games.names())
def test_every_tapped_site_has_its_spoken_name_in_the_boards_language(name):
    """The entry model names each site its choices tap as a person says it (the view's
    `say_site`): a screen reader's name for the site, and the page builds no words."""
    from board_driver.views import words

    for state in positions(name, seed=5, count=4):
        made = entry.model(state)
        taps = {t for c in made["choices"] for t in c["taps"]}
        assert set(made["names"]) == taps
        for site, said in made["names"].items():
            assert said == views.say_site(state, site) and said.strip()
        assert set(made["keys"]) == {"typed", "play", "help"}
    state = games.get_game("tree-planting").new_state()
    with words.speaking("zh"):
        zh = entry.model(state)
    en = entry.model(state)
    assert zh["names"]["h0.1"] != en["names"]["h0.1"] == "the top groove of row zero, square one"
    assert zh["keys"]["typed"] != en["keys"]["typed"]
