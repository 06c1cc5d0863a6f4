"""Takebacks in a game with a seat in a browser, with the real parts (as test_seat_browser.py):
Debian's Mosquitto with a WebSockets listener serving the seat page, a board in `treeboard sim`
hosting the game, headless chromium on the invitation. The people at the board ask (the sim's
`takeback`) and the page answers with its buttons; the page asks and the people at the board
answer (`accept` / `refuse`); a forged answer on the broker is refused; with the browser gone,
asking is said to be useless and nothing changes."""

from __future__ import annotations

import json
import random

import games
from tests.board_driver.browser_harness import browser, chromium, sims  # noqa: F401
from tests.board_driver.test_seat_browser import (SECRET, host, invite, moves_of,  # noqa: F401
                                                  open_seat, tap_a_move, ws_broker)
from tests.waits import ms, wait_for

GAME = "tree-planting"


def position(options: dict, moves: list[str]) -> dict:
    state = games.get_game(GAME).new_state(**options)
    for text in moves:
        state.play(state.parse_move(text))
    return state.occupancy()


def put_right(sim, options: dict, shown: list[str], game: list[str]) -> None:
    """The family's hands: the board from the position after `shown` to the one after `game`
    (a move put down, or the pieces of moves taken back lifted)."""
    before, after = position(options, shown), position(options, game)
    for site in sorted(before):
        if before[site] is not None and after.get(site) is None:
            sim.type(f"lift {site}")
    for site in sorted(after):
        if after[site] is not None and before.get(site) != after[site]:
            sim.type(f"place {site}")
    sim.wait(lambda s: not s["corrections"] and s["game"]["moves"] == game, 15)
    assert sim.state()["corrections"] == [], sim.said()[-1500:]


def board_move(sim, options: dict, rng) -> None:
    moves = moves_of(sim)
    state = games.get_game(GAME).new_state(**options)
    for text in moves:
        state.play(state.parse_move(text))
    put_right(sim, options, moves, moves + [str(rng.choice(state.legal_moves()))])


def browser_move(sim, page, options: dict, rng) -> None:
    moves = moves_of(sim)
    page.wait_for_function(f"document.body.dataset.index == {len(moves)} && "
                           "document.body.dataset.turn === 'yours'", timeout=ms(20))
    tap_a_move(page, rng)
    after = sim.wait(lambda s: len(s["game"]["moves"]) > len(moves), 15)["game"]["moves"]
    assert len(after) == len(moves) + 1, sim.said()[-2000:]
    put_right(sim, options, moves, after)


def test_takebacks_both_ways_between_a_board_and_a_browser(tmp_path, ws_broker, sims, browser,
                                                          monkeypatch):
    import paho.mqtt.publish as publish

    monkeypatch.setenv("TREEBOARD_REMOTE_SECRET", SECRET)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    sim = host(sims, ws_broker, "tb1", "--game", GAME)
    page = open_seat(browser, invite(ws_broker, "tb1", 1, TREEBOARD_REMOTE_SECRET=SECRET))
    wait_for(lambda: sim.state()["remote"]["peer_online"], 20, "the board to see the browser")
    options, rng = sim.state()["options"], random.Random(5)
    board_move(sim, options, rng)
    browser_move(sim, page, options, rng)
    board_move(sim, options, rng)
    three = moves_of(sim)

    # The board asks; the page shows Accept and Refuse. A forged answer first: refused.
    sim.type("takeback")
    page.wait_for_selector("#takeback:not([hidden])")
    assert "move 3" in page.inner_text("#takeback-text")
    assert sim.wait(lambda s: s["remote"]["asked_to"] == 2)["remote"]["asked_to"] == 2
    forged = {"body": json.dumps({"type": "takeback-answer", "game_id": "tb1", "seat": 1,
                                  "epoch": "0" * 16, "index": 2, "ask": "0" * 16,
                                  "id": "1" * 16, "accept": True}), "sig": "0" * 64}
    publish.single("treeboard/v1/tb1/seat/1/takeback", json.dumps(forged), qos=1,
                   hostname="127.0.0.1", port=ws_broker.port)
    wait_for(lambda: "refused a message on treeboard/v1/tb1/seat/1/takeback: bad signature"
             in sim.said(), 15, "the forged answer refused")
    assert moves_of(sim) == three
    page.click("#takeback-refuse")
    state = sim.wait(lambda s: s["remote"]["asked_to"] is None, 15)
    assert "refused the takeback" in state["remote"]["takeback_said"][1]
    assert moves_of(sim) == three and state["corrections"] == []
    page.wait_for_selector("#takeback-said:not([hidden])")
    assert "refused" in page.inner_text("#takeback-said")
    assert page.is_hidden("#takeback")
    # Asked again, and accepted: the position goes back on both sides, the board lights what
    # to lift, and the hands lift it.
    sim.type("takeback")
    page.wait_for_selector("#takeback:not([hidden])")
    page.click("#takeback-accept")
    state = sim.wait(lambda s: s["game"]["moves"] == three[:2], 15)
    assert state["game"]["moves"] == three[:2], sim.said()[-1500:]
    assert state["corrections"], "the taken-back piece is lit to lift"
    page.wait_for_function("document.body.dataset.index == 2")
    put_right(sim, options, three, three[:2])

    # The page asks for its own last move back; the board says it; refused, then accepted.
    board_move(sim, options, rng)
    page.wait_for_function("document.body.dataset.index == 3")
    page.click("#ask-takeback")
    state = sim.wait(lambda s: s["remote"]["request"] is not None, 15)
    assert state["remote"]["request"] == 1, sim.said()[-1500:]
    assert "the player in the browser asks to take back move 2: accept or refuse" in sim.said()
    page.wait_for_selector("#takeback-said:not([hidden])")
    assert "waiting for the board" in page.inner_text("#takeback-said")
    sim.type("refuse")
    page.wait_for_selector("#refused:not([hidden])")
    assert page.inner_text("#refused") == "the board refused the takeback: nothing changed"
    before = moves_of(sim)
    assert len(before) == 3
    page.wait_for_selector("#ask-takeback:not([hidden])")
    page.click("#ask-takeback")
    sim.wait(lambda s: s["remote"]["request"] is not None, 15)
    sim.type("accept")
    state = sim.wait(lambda s: s["game"]["moves"] == before[:1], 15)
    assert state["game"]["moves"] == before[:1], sim.said()[-1500:]
    page.wait_for_function("document.body.dataset.index == 1 && "
                           "document.body.dataset.turn === 'yours'")
    put_right(sim, options, before, before[:1])
    assert sim.state()["remote"]["out_of_step"] is False

    # The browser gone: asking is said to reach no one, and nothing changes.
    browser_move(sim, page, options, rng)
    page.close()
    sim.wait(lambda s: not s["remote"]["peer_online"], 20)
    left = moves_of(sim)
    sim.type("takeback")
    wait_for(lambda: "the player in the browser is away" in sim.said(), 15, "the refusal said")
    assert moves_of(sim) == left and sim.state()["remote"]["asked_to"] is None

    # The board gone (its will: the power cut): the page says a takeback cannot be asked now,
    # and sends none.
    page = open_seat(browser, invite(ws_broker, "tb1", 1, TREEBOARD_REMOTE_SECRET=SECRET))
    page.wait_for_selector("#ask-takeback:not([hidden])")
    sim.proc.kill()
    page.wait_for_function("document.body.dataset.board === 'away'")
    page.click("#ask-takeback")
    page.wait_for_selector("#refused:not([hidden])")
    assert page.inner_text("#refused") == \
        "the board is away: a takeback can be asked once it is back"
