"""The touch input mode on its own: gestures on a minimal LED-only game (any game that
declares input_mode = "touch" and answers touch_moves), and its parts of the frame."""

from __future__ import annotations

from dataclasses import dataclass, field

import games
from board_driver.referee.touch import FLASH_S, TouchInput, is_touch_game
from board_driver.views.frame import SELECTED, fit_parts, touch_selection

COLOURS = {"safe": (0, 158, 115), "unsafe": (230, 159, 0)}
WITH_WRONG = {**COLOURS, "wrong": (255, 0, 0)}


class _Game:
    input_mode = "touch"


@dataclass
class Lamps:
    """A stand-in LED-only game: tap a lamp, then a neighbour, to pass the light along;
    hold a lamp to put it out. Two ways to pass to "c" from "b" (a choice)."""

    lit: set = field(default_factory=lambda: {"a"})
    played: list = field(default_factory=list)
    over: bool = False
    game = _Game()
    to_move = 0

    def touch_moves(self, site):
        if site not in self.lit:
            return []
        nxt = chr(ord(site) + 1)
        moves = [(f"{site}-{nxt}", nxt), (f"out {site}", None)]
        if site == "b":
            moves.append((f"{site}-{nxt} slowly", nxt))
        return moves

    def touch_stops(self, move):
        return False

    def is_over(self):
        return self.over

    def winner(self):
        return 1  # passing the light to "z" loses at once (the only way the game ends)

    @property
    def moves(self):
        return self.played

    def copy(self):
        return Lamps(set(self.lit), list(self.played), self.over)

    def play(self, move):
        self.played.append(move)
        self.over = self.over or move.endswith("-z")


def touch(t, state, site, start, length=0.1):
    assert t.sensor(site, True, start, state) is None
    return t.sensor(site, False, start + length, state)


def test_a_game_declares_touch_input():
    assert is_touch_game(Lamps())
    assert not is_touch_game(games.get_game("tree-planting").new_state())


def test_tap_source_then_target_plays():
    t, s = TouchInput(), Lamps()
    assert touch(t, s, "a", 1.0) is None and t.selected == "a"
    assert t.describe()["targets"] == ["b"] and t.describe()["hold"] == ["out a"]
    assert touch(t, s, "b", 2.0) == "a-b" and t.selected is None


def test_tap_the_source_again_cancels_and_a_dead_site_selects_nothing():
    t, s = TouchInput(), Lamps()
    touch(t, s, "a", 1.0)
    assert touch(t, s, "a", 2.0) is None and t.selected is None
    assert touch(t, s, "z", 3.0) is None and t.selected is None


def test_hold_is_told_from_tap_by_its_length():
    t, s = TouchInput(hold_s=1.0), Lamps()
    assert touch(t, s, "a", 1.0, length=0.99) is None  # a tap: selects
    assert touch(t, s, "a", 3.0, length=1.0) is None  # a hold only offers its move...
    assert t.confirming and t.offered == "out a" and s.played == []
    assert touch(t, s, "a", 4.0) == "out a"               # ...a second tap confirms it
    s.over = True
    assert touch(t, s, "a", 5.0, length=0.2) is None
    assert touch(t, s, "a", 6.0, length=1.5) == "new-game"


def test_a_choice_cycles_on_the_source_and_plays_on_the_target():
    t, s = TouchInput(), Lamps(lit={"b"})
    touch(t, s, "b", 1.0)
    assert touch(t, s, "c", 2.0) is None
    assert t.describe()["choice"] == ["b-c", "b-c slowly"] and t.offered == "b-c"
    assert t.shown_state(s).played == ["b-c"] and s.played == []  # a preview, not a move
    touch(t, s, "b", 3.0)
    assert t.offered == "b-c slowly"
    touch(t, s, "b", 4.0)
    assert t.offered == "b-c"  # round again
    touch(t, s, "b", 5.0)
    assert touch(t, s, "c", 6.0) == "b-c slowly"
    touch(t, s, "b", 7.0)
    touch(t, s, "c", 8.0)
    assert touch(t, s, "q", 9.0) is None and not t.choice  # anywhere else: cancelled


def test_a_touch_that_began_before_a_resync_is_ignored():
    t, s = TouchInput(), Lamps()
    t.sensor("a", True, 1.0, s)
    t.forget_touches()
    assert t.sensor("a", False, 1.1, s) is None and t.selected is None


def test_overlay_lights_the_selection_and_whole_squares():
    t, s = TouchInput(), Lamps()
    frame = {"a": (1, 1, 1), "a:kind": (2, 2, 2), "b": (3, 3, 3)}
    assert touch_selection(t, frame, None, COLOURS, 0.0) == (frame, None)
    touch(t, s, "a", 1.0)
    lit, wake = touch_selection(t, frame, None, COLOURS, 10.0)  # blink on at whole seconds
    assert lit["a"] == lit["a:kind"] == SELECTED and lit["b"] == COLOURS["safe"]
    assert wake == 10.25
    dark, _ = touch_selection(t, frame, 12.0, COLOURS, 10.3)  # the target blinks off between
    assert dark["b"] == (3, 3, 3) and dark["a"] == SELECTED


def test_fit_parts_keeps_only_the_parts_a_layout_has():
    frame = {"a": 1, "a:kind": 2, "a:root": 3, 7: 4, "turn": 5}
    assert fit_parts(frame, {"a:kind": (1,), "turn": (9,)}) == {"a": 1, "a:kind": 2, 7: 4,
                                                                "turn": 5}


def test_a_move_made_another_way_ends_the_selection():
    t, s = TouchInput(), Lamps()
    touch(t, s, "a", 1.0)
    s.played.append("a-b")  # the page played a move (or took one back)
    assert t.shown_state(s) is s and t.selected is None


def test_the_selection_in_words_for_sim():
    t, s = TouchInput(), Lamps(lit={"b"})
    assert t.words("lamps") is None
    touch(t, s, "b", 1.0)
    assert t.words("lamps") == ("selected b: tap c to grow there; hold b: out b; "
                         "tap b again to cancel")
    touch(t, s, "c", 2.0)
    assert t.words("lamps") == ("2 turns lead to c; offered b-c (1 of 2): tap c to play it, "
                         "b for the next")


def test_a_hold_is_cancelled_by_any_other_tap_and_says_so():
    t, s = TouchInput(hold_s=1.0), Lamps(lit={"a", "b"})
    assert touch(t, s, "a", 1.0, length=1.5) is None and t.offered == "out a"
    assert t.words("lamps") == "out a? tap a again to confirm; any other square cancels"
    assert touch(t, s, "b", 3.0) is None and t.selected is None and s.played == []
    assert t.note_words(("W", "B")) == "tap on b: cancelled, nothing is selected"
    assert t.flash == ("b", 3.1 + FLASH_S)


def test_a_move_that_loses_at_once_waits_for_a_second_tap():
    t, s = TouchInput(), Lamps(lit={"y"})
    touch(t, s, "y", 1.0)
    assert touch(t, s, "z", 2.0) is None and t.confirming and s.played == []
    assert t.words("lamps") == "y-z and loses the game? tap z again to confirm; any other square cancels"
    assert touch(t, s, "z", 3.0) == "y-z"


def test_a_tap_that_does_nothing_is_said_and_flashes():
    t, s = TouchInput(), Lamps()
    assert t.note_words(("W", "B")) is None
    assert touch(t, s, "q", 1.0) is None
    number, what, site, _ = t.note
    assert (what, site) == ("nothing", "q")
    assert t.note_words(("W", "B")) == "tap on q: nothing of W's grows from there"
    frame, wake = touch_selection(t, {"q": (1, 1, 1)}, None, WITH_WRONG, 1.2)
    assert frame["q"] == WITH_WRONG["wrong"] and wake == 1.1 + FLASH_S
    assert touch_selection(t, {"q": (1, 1, 1)}, None, WITH_WRONG, 1.8)[0]["q"] == (1, 1, 1)
    touch(t, s, "q", 2.0)
    assert t.note[0] == number + 1  # the same words again are a new note


def test_a_hold_blinks_in_the_unsafe_colour_until_confirmed():
    t, s = TouchInput(hold_s=1.0), Lamps()
    touch(t, s, "a", 1.0, length=1.5)
    lit, _ = touch_selection(t, {"a": (1, 1, 1)}, None, WITH_WRONG, 10.0)
    assert lit["a"] == WITH_WRONG["unsafe"]
