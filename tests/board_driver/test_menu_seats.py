"""The menu keeps the seats it does not choose (referee/menu.py, `applied_seats`): a web seat
stays a web seat where the menu's choice puts a person, the computer takes it where the choice
puts the computer, and a game with a remote seat (another board's, or a browser's) never opens
the menu, so its seats are the join's. Driven by traces, as test_menu.py."""

from __future__ import annotations

from board_driver.referee.menu import applied_seats
from tests.board_driver.test_menu import board, open_menu, put, site_of  # noqa: F401


def test_applied_seats_keep_what_the_menu_does_not_choose():
    fits = lambda seats: True   # noqa: E731
    assert applied_seats(("human", "web"), "people", "easy", fits) == ("human", "web")
    assert applied_seats(("web", "web"), "people", "easy", fits) == ("web", "web")
    assert applied_seats(("human", "web"), "computer-2", "hard", fits) == \
        ("human", "computer:hard")
    assert applied_seats(("human", "web"), "computer-1", "hard", fits) == \
        ("computer:hard", "web")
    assert applied_seats(("computer:easy", "web"), "people", "easy", fits) == ("human", "web")
    # Kept seats the game cannot play: the choice as made (web against the computer in a
    # piece game: no hands at the board for the web seat's pieces).
    assert applied_seats(("human", "web"), "computer-1", "hard", lambda s: False) == \
        ("computer:hard", "human")


def test_the_menu_applied_keeps_a_web_seat_in_a_piece_game(board):
    t = board("tree-planting-classic-pins")
    t.door.set_seat(1, "web")
    assert t.referee.seats == ("human", "web")
    opened = open_menu(t, None)
    assert opened["menu"]["seats"] == "people"
    put(t, site_of(t, "apply"), None)
    assert t.referee.seats == ("human", "web")          # not lost to ("human", "human")
    # The computer chosen for player 1 in a piece game: web against the computer cannot be,
    # so the menu's choice is taken as made.
    for site in list(t.moment().corrections):
        t.step("lift", [site.site])
    open_menu(t, None)
    put(t, site_of(t, "seats", "computer-1"), None)
    put(t, site_of(t, "apply"), None)
    assert t.referee.seats == ("computer:medium", "human")


def test_the_menu_on_a_touch_board_keeps_web_seats_and_gives_one_to_the_computer(board):
    t = board("game-for-the-trees-matrix")
    t.door.set_seat(0, "web")
    t.door.set_seat(1, "web")
    first, last = t.referee.menu.corners

    def tap(site):
        t.step("place", [site])
        return t.step("lift", [site])

    def menu(*choices):
        t.step("place", [first])
        assert "menu" in t.step("place", [last])      # both corners touched at once
        t.step("lift", [first])
        t.step("lift", [last])
        for group, value in choices:
            tap(site_of(t, group, value))
        assert "menu" not in tap(site_of(t, "apply"))

    menu()
    assert t.referee.seats == ("web", "web")            # two people, both on the page
    menu(("seats", "computer-2"), ("level", "easy"))
    assert t.referee.seats == ("web", "computer:easy")   # the lights show it whole: it fits


def test_a_game_with_a_remote_seat_never_opens_the_menu(board):
    t = board("tree-planting-classic-pins")
    t.referee.set_seats(("human", "remote"))      # (a browser's seat, or another board's)
    first, last = t.referee.menu.corners
    put(t, first, None)
    put(t, last, None)
    record = t.step("wait", ["3000"])
    assert "menu" not in record and t.referee.seats == ("human", "remote")
