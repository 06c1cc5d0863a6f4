"""The menu: a board set up from the board, driven by traces on a pins, a matrix, an ADC, a
bridge and a touch layout: the gesture that opens it, a choice per site, apply, leave, the
timeout, and a lone corner piece that is still a move."""

from __future__ import annotations

import pytest

from board_driver.config import sim_config
from board_driver.referee.clock import parse_time_control
from board_driver.referee.menu import HOLD_S, MENU_TIMEOUT_S, PAIR_S
from board_driver.referee.tracer import Tracer

PIECE_LAYOUTS = [
    ("tree-planting-classic-pins", None),     # pins (and the grooves' matrix)
    ("fangqi-7x7-matrix", None),              # a scanned matrix
    ("treeblox-adc", "dark-leaf"),            # an ADC's classifying hall sensors
    ("tree-planting-classic-bridge", None),   # a microcontroller's sensors
]


@pytest.fixture
def board(tmp_path):
    made = []

    def make(layout):
        t = Tracer(sim_config(layout=layout, journal=str(tmp_path / f"{layout}.sqlite")))
        made.append(t)
        return t

    yield make
    for t in made:
        t.close()


def site_of(t, group, value=None):
    return next(s for s, c in t.referee.menu.sites.items()
                if c.group == group and (value is None or c.value == value))


def put(t, site, kind):
    return t.step("place", [site] + ([kind] if kind else []))


def open_menu(t, kind):
    """Both corner pieces within a second, then left alone for two: the menu's gesture."""
    first, last = t.referee.menu.corners
    put(t, first, kind)
    put(t, last, kind)
    return t.step("wait", [str(int(HOLD_S * 1000))])


@pytest.mark.parametrize("layout, kind", PIECE_LAYOUTS)
def test_the_menu_sets_who_plays_the_clock_and_the_hints_then_a_new_game(board, layout, kind):
    t = board(layout)
    first, last = t.referee.menu.corners
    opened = open_menu(t, kind)
    assert opened["menu"] == {"seats": "people", "level": "medium", "clock": "none",
                              "hints": t.referee.settings.moves}     # the board's settings now
    assert opened["game"]["moves"] == [] and opened["leds"][first] == opened["leds"][last]
    for group, value in (("seats", "computer-2"), ("level", "easy"), ("clock", "5+3"),
                         ("hints", "legal")):
        record = put(t, site_of(t, group, value), kind)
    assert record["menu"] == {"seats": "computer-2", "level": "easy", "clock": "5+3",
                              "hints": "legal"}
    chosen = record["leds"][site_of(t, "clock", "5+3")]
    assert chosen != record["leds"][site_of(t, "clock", "10")]   # the chosen one bright
    applied = put(t, site_of(t, "apply"), kind)
    assert "menu" not in applied
    ref = t.referee
    assert ref.seats == ("human", "computer:easy") and ref.settings.moves == "legal"
    assert ref.controls == parse_time_control("5+3") and applied["clocks"] == [300_000] * 2
    assert len(applied["corrections"]) == 7                      # the menu's pieces: lift them
    for site in applied["corrections"]:
        record = t.step("lift", [site])
    assert record["corrections"] == [] and record["game"]["moves"] == []
    assert t.step("wait", ["1000"])["clocks"][0] == 299_000       # the new game's clock runs


@pytest.mark.parametrize("layout, kind", PIECE_LAYOUTS[:2])
def test_lifting_both_corners_or_the_timeout_leaves_without_change(board, layout, kind):
    t = board(layout)
    first, last = t.referee.menu.corners
    before = (t.referee.seats, t.referee.controls, t.referee.settings.moves)
    open_menu(t, kind)
    put(t, site_of(t, "seats", "computer-1"), kind)
    t.step("lift", [first])
    left = t.step("lift", [last])
    assert "menu" not in left and (t.referee.seats, t.referee.controls,
                                   t.referee.settings.moves) == before
    assert left["corrections"] == [site_of(t, "seats", "computer-1")]   # to lift before play
    t.step("lift", [site_of(t, "seats", "computer-1")])
    open_menu(t, kind)
    assert "menu" in t.step("wait", [str(int(MENU_TIMEOUT_S * 1000) - 10)])
    timed_out = t.step("wait", ["20"])
    assert "menu" not in timed_out and sorted(timed_out["corrections"]) == sorted([first, last])


def test_a_lone_corner_piece_is_a_move_at_once_and_its_pair_later_is_play(board):
    t = board("fangqi-7x7-matrix")
    first, last = t.referee.menu.corners
    assert t.step("place", [first])["game"]["moves"] == [first]     # no waiting for a pair
    t.step("wait", [str(int(PAIR_S * 1000) + 10)])
    t.step("place", [last])
    record = t.step("wait", ["5000"])
    assert "menu" not in record and record["game"]["moves"] == [first, last]


def test_a_quick_pair_is_played_then_taken_back_into_the_menu(board):
    t = board("fangqi-7x7-matrix")
    first, last = t.referee.menu.corners
    t.step("place", [first])
    played = t.step("place", [last])             # at machine speed: play goes on
    assert "menu" not in played and played["game"]["moves"] == [first, last]
    assert "menu" not in t.step("wait", [str(int(HOLD_S * 1000) - 20)])
    record = t.step("wait", ["20"])
    assert "menu" in record and record["game"]["moves"] == []
    saved = t.session.journal.current()
    assert saved.moves == [] and saved.events == 4          # two moves, two takebacks


def test_the_gesture_in_play_is_play(board):
    t = board("fangqi-7x7-matrix")
    first, last = t.referee.menu.corners
    t.step("place", ["d4"])
    t.step("place", [first])
    t.step("place", [last])
    record = t.step("wait", ["5000"])
    assert "menu" not in record and record["game"]["moves"] == ["d4", first, last]


def test_the_menu_on_a_touch_board(board):
    t = board("game-for-the-trees-matrix")
    first, last = t.referee.menu.corners
    t.step("place", [first])
    opened = t.step("place", [last])          # both corners touched at once
    assert "menu" in opened
    t.step("lift", [first])
    t.step("lift", [last])

    def tap(site):
        t.step("place", [site])
        return t.step("lift", [site])

    tap(site_of(t, "seats", "computer-1"))
    tap(site_of(t, "level", "hard"))
    record = tap(site_of(t, "clock", "10"))
    assert record["menu"]["seats"] == "computer-1" and record["menu"]["clock"] == "10"
    applied = tap(site_of(t, "apply"))
    assert "menu" not in applied and applied["clocks"] == [600_000, 600_000]
    assert t.referee.seats == ("computer:hard", "human") and applied["corrections"] == []
    # and both corners again, with the menu open, leave it without change
    t.step("place", [first])
    assert "menu" in t.step("place", [last])
    t.step("lift", [first])
    t.step("lift", [last])
    t.step("place", [first])
    left = t.step("place", [last])
    assert "menu" not in left and t.referee.seats == ("computer:hard", "human")


def test_after_the_first_move_the_corners_are_play_or_a_correction(board):
    t = board("tree-planting-classic-pins")
    first, last = t.referee.menu.corners         # h0.0 and the tree hole t2.2
    t.step("place", [first])
    assert t.step("wait", ["1100"])["game"]["moves"] == [first]
    t.step("place", [last])                      # a peg in an open square: no move...
    record = t.step("wait", ["5000"])            # ...and, a second late, no menu
    assert "menu" not in record and record["corrections"] == [last]


def test_a_touch_board_opens_the_setup_menu_only_between_games(board):
    t = board("game-for-the-trees-matrix")
    t.referee.state.play(t.referee.state.legal_moves()[0])   # (a move made, as if by taps)
    first, last = t.referee.menu.corners
    t.step("place", [first])
    # mid-game the corners open the game menu (resign, a draw, put away), not the set-up
    assert t.step("place", [last])["menu"] == {} and t.referee.menu.game
    assert {c.group for c in t.referee.menu.sites.values()} == {"ending", "apply"}


def test_a_layout_with_a_menu_button_opens_and_leaves_it_by_the_button(tmp_path):
    from pathlib import Path

    import hardware

    # the shipped classic board, with a button named menu
    shipped = Path(hardware.__file__).parent / "layouts" / "tree-planting-classic-pins.toml"
    layout = tmp_path / "with-menu-button.toml"
    layout.write_text(shipped.read_text() + "\n[buttons]\nmenu = 14\n")
    t = Tracer(sim_config(layout=str(layout), journal=str(tmp_path / "j.sqlite")))
    try:
        opened = t.step("press", ["menu"])
        assert opened["menu"]["seats"] == "people"
        t.step("place", [site_of(t, "clock", "10")])
        assert t.step("place", [site_of(t, "apply")])["clocks"] == [600_000, 600_000]
        assert "menu" in t.step("press", ["menu"])     # (no move yet: it opens again)
        left = t.step("press", ["menu"])
        assert "menu" not in left and t.referee.controls == parse_time_control("10")
        t.step("lift", [site_of(t, "clock", "10")])
        t.step("lift", [site_of(t, "apply")])
        t.step("place", ["h1.1"])
        # mid-game: the game menu (resign, a draw, put away: test_endings.py), not the set-up
        assert t.step("press", ["menu"])["menu"] == {} and t.referee.menu.game
    finally:
        t.close()


def test_the_computer_does_not_play_while_the_board_is_being_set_up(board):
    from concurrent.futures import Future

    import games
    from board_driver.referee.seats import ComputerSeat

    t = board("fangqi-7x7-matrix")
    t.referee.set_seats(("computer:easy", "human"))     # the computer would move first
    asked = []

    def submit(fn, *args):
        asked.append(args)
        return Future()

    seat = ComputerSeat(t.referee, {0: games.ai.level("easy")}, submit=submit,
                        call_soon=lambda fn, *a: fn(*a), clock=t.clock)
    t.referee.set_seats(("human", "human"))             # (the corners are the people's pieces)
    open_menu(t, None)
    t.referee.set_seats(("computer:easy", "human"))
    seat.poke()
    assert t.referee.menu.open and asked == []


def test_the_board_says_its_menu_aloud(board):
    """With no screen, the voice says what the menu has chosen after each choice, and that it
    closed (trace's "said": what the daemon's voice says)."""
    t = board("fangqi-7x7-matrix")
    opened = open_menu(t, None)
    assert opened["said"][-1] == ("menu: two people play, clock none, hints safe; put a piece on "
                                  "a lit site to choose, on the blinking green one to apply; "
                                  "lift both corner pieces to leave")
    chosen = put(t, site_of(t, "seats", "computer-2"), None)
    assert chosen["said"] == [opened["said"][-1].replace(
        "two people play", "the computer plays White (medium)")]
    assert put(t, site_of(t, "seats", "computer-2"), None)["said"] == []   # nothing new
    applied = put(t, site_of(t, "apply"), None)
    assert applied["said"][0] == ("menu applied, a new game: the computer plays White (medium), "
                                  "clock none, hints safe")


def test_the_menus_apply_keeps_its_settings_once(board):
    """Apply keeps the seats, the clock and the hints chosen in one write of the journal's
    settings (each change kept on its own wrote them twice, the first a half-applied mix)."""
    t = board("tree-planting-classic-pins")
    open_menu(t, None)
    for group, value in (("seats", "computer-2"), ("level", "easy"), ("clock", "5+3"),
                         ("hints", "legal")):
        put(t, site_of(t, group, value), None)
    journal = t.session.journal
    written, save = [], journal.save_setting
    journal.save_setting = lambda key, value: (written.append((key, value)), save(key, value))
    put(t, site_of(t, "apply"), None)
    assert [key for key, _ in written] == ["board"]
    assert written[0][1]["values"] == {"seats": ["human", "computer:easy"], "moves": "legal",
                                       "clock": "5+3"}
