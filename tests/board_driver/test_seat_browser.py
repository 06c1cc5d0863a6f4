"""A seat across the internet, with the real parts: Debian's Mosquitto with a WebSockets
listener serving the seat page (`treeboard seat-page`) from its http_dir, a board in
`treeboard sim` hosting the game (`--guest`), and headless chromium opening the invitation
(`treeboard invite`) and playing by tapping the picture's [data-site] elements. The board's
own moves, and the browser's moves put down on it, are typed into the sim as a family's hands
would make them."""

from __future__ import annotations

import json
import subprocess
import urllib.parse

import pytest

import games
from tests.board_driver.browser_harness import (TREEBOARD, browser, chromium,  # noqa: F401
                                                 page_reading, sims)
from tests.board_driver.test_lobby_acl import family  # noqa: F401
from tests.broker import Broker
from tests.waits import Deadline, ms, scaled, wait_for

SECRET = "kitchen-table-42"


@pytest.fixture
def ws_broker(tmp_path):
    site = tmp_path / "site"
    out = subprocess.run([TREEBOARD, "seat-page", "--out", str(site)], capture_output=True,
                         text=True, timeout=scaled(60))
    assert out.returncode == 0, out.stderr
    broker = Broker(tmp_path, websockets=site)
    broker.start()
    yield broker
    broker.stop()


def invite(broker: Broker, game: str, seat: int, **env) -> str:
    page = f"http://127.0.0.1:{broker.ws_port}/index.html"
    out = subprocess.run([TREEBOARD, "invite", "--page", page, "--broker", broker.ws_url,
                          "--game", game, "--seat", str(seat)], capture_output=True, text=True,
                         timeout=scaled(60), env=env)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip()


def host(sims, broker: Broker, game_id: str, *args: str):
    return sims("--remote", broker.url, "--join", game_id, "--seat", "0", "--guest", *args)


def hands(sim, game_name: str, options: dict, moves: list[str], new: str | None) -> None:
    """Type into the sim what a family's hands do: put the last move's pieces (the board's
    own move, or the browser's, lit to be put) on the simulated board."""
    state = games.get_game(game_name).new_state(**options)
    for text in moves:
        state.play(state.parse_move(text))
    before = state.occupancy()
    state.play(state.parse_move(new))
    after = state.occupancy()
    for site in sorted(before):
        if site not in after:
            sim.type(f"lift {site}")
    for site, kind in sorted(after.items()):   # (the sensors tell the game the kind)
        if before.get(site) != kind:
            sim.type(f"place {site}")


def moves_of(sim) -> list[str]:
    return sim.state()["game"]["moves"]


def seat_view(page) -> dict:
    """What the seat page shows: the moves so far (its index) and whether it is its turn."""
    return page.evaluate("({refused: document.getElementById('refused').textContent, "
                         "index: Number(document.body.dataset.index), "
                         "turn: document.body.dataset.turn, board: document.body.dataset.board, "
                         "link: document.body.dataset.link})")


def tap_a_move(page, rng) -> None:
    """Tap sites the picture lights until the page hands over a move (a button where the taps
    alone do not decide)."""
    start = page.evaluate("document.body.dataset.index")
    for _ in range(8):
        if page.evaluate("document.body.dataset.index") != start:
            return   # the move was played (and perhaps it is this seat's turn again)
        lit = page.eval_on_selector_all("#picture [data-site].tap-next",
                                        "els => els.map(e => e.getAttribute('data-site'))")
        buttons = page.eval_on_selector_all("#buttons button[data-move]",
                                            "els => els.map(e => e.dataset.move)")
        if buttons and not lit:
            page.click(f"#buttons button[data-move='{rng.choice(buttons)}']")
            return
        if not lit:
            return   # the move was handed over (the page waits for the board)
        # (the tap's event on the element itself: a groove's line may lie under a post)
        page.dispatch_event(f"#picture [data-site='{rng.choice(sorted(lit))}']", "click")
        if not page.query_selector("#buttons button[data-entry=undo]"):
            return   # the taps made a move: handed over


def play_tree_planting(sim, page, options, rng, n_moves: int) -> None:
    game = "tree-planting"
    while len(moves_of(sim)) < n_moves and not sim.state()["game"]["over"]:
        summary = sim.state()["game"]
        moves = summary["moves"]
        if summary["to_move"] == 0:
            state = games.get_game(game).new_state(**options)
            for text in moves:
                state.play(state.parse_move(text))
            move = str(rng.choice(state.legal_moves()))
            hands(sim, game, options, moves, move)
            sim.wait(lambda s: len(s["game"]["moves"]) > len(moves), 15)
            assert len(moves_of(sim)) > len(moves), sim.said()[-2000:]
        else:
            page.wait_for_function(f"document.body.dataset.index == {len(moves)} && "
                                   "document.body.dataset.turn === 'yours'", timeout=ms(20))
            tap_a_move(page, rng)
            sim.wait(lambda s: len(s["game"]["moves"]) > len(moves), 15)
            after = moves_of(sim)
            assert len(after) == len(moves) + 1, (seat_view(page), sim.said()[-2000:])
            hands(sim, game, options, moves, after[-1])   # the family puts it down
            sim.wait(lambda s: not s["corrections"], 10)


def test_a_browser_plays_tree_planting_by_invitation_against_a_board(
        tmp_path, ws_broker, sims, browser, monkeypatch):
    import random

    monkeypatch.setenv("TREEBOARD_REMOTE_SECRET", SECRET)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    page_url = f"http://127.0.0.1:{ws_broker.ws_port}/index.html"
    sim = host(sims, ws_broker, "tp1", "--game", "tree-planting", "--page", page_url,
               "--ws-broker", ws_broker.ws_url)
    link = invite(ws_broker, "tp1", 1, TREEBOARD_REMOTE_SECRET=SECRET)
    assert SECRET not in link
    # The board's page makes the same invitation, with its QR code (a control action).
    board = page_reading(browser, sim, ["en"])
    board.click("#remote-invite")
    board.wait_for_selector("#invitation-qr svg")
    assert board.get_attribute("#invitation-link", "href") == link
    assert link.split("key=")[1] not in json.dumps(sim.state())   # not what every viewer gets
    board.close()
    page = browser.new_page()
    page.goto(link)
    page.wait_for_selector("#picture svg [data-site]", state="attached")
    page.wait_for_function("document.body.dataset.board === 'here'")
    wait_for(lambda: sim.state()["remote"]["peer_online"], 15, "the board to see the browser")
    assert sim.state()["remote"]["status"] == "connected"
    options = sim.state()["options"]
    rng = random.Random(7)
    play_tree_planting(sim, page, options, rng, 10_000)   # the whole game
    final = sim.state()
    assert final["game"]["over"] and final["result"], final["game"]
    page.wait_for_function(f"document.body.dataset.index == {len(final['game']['moves'])}")
    assert page.inner_text("#sentence") == final["result"]    # the board's words for the end
    assert page.eval_on_selector_all("#picture [data-site].tap-next", "els => els.length") == 0


def open_seat(browser, link: str):
    page = browser.new_page()
    page.goto(link)
    page.wait_for_selector("#picture svg [data-site]", state="attached")
    page.wait_for_function("document.body.dataset.board === 'here'")
    return page


def test_a_tab_closed_and_reopened_and_the_broker_restarted_lose_nothing(
        tmp_path, ws_broker, sims, browser, monkeypatch):
    import random

    monkeypatch.setenv("TREEBOARD_REMOTE_SECRET", SECRET)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    sim = host(sims, ws_broker, "tp2", "--game", "tree-planting")
    link = invite(ws_broker, "tp2", 1, TREEBOARD_REMOTE_SECRET=SECRET)
    page = open_seat(browser, link)
    options, rng = sim.state()["options"], random.Random(3)
    play_tree_planting(sim, page, options, rng, 2)
    # The tab closed: the board says the player is away (its will, or its goodbye), and waits.
    page.close()
    state = sim.wait(lambda s: not s["remote"]["peer_online"], 20)
    assert state["remote"]["status"] == "waiting for the player in the browser"
    # (the sim's terminal line, written by its own process: waited for, not read at once)
    wait_for(lambda: "other board: waiting for the player in the browser" in sim.said(), 10,
             "the board to say the player is away")
    # Reopened: the retained view brings the game back as it was, and the board sees it.
    page = open_seat(browser, link)
    assert seat_view(page)["index"] == 2
    wait_for(lambda: sim.state()["remote"]["peer_online"], 20, "the board to see the browser")
    play_tree_planting(sim, page, options, rng, 4)
    # The broker restarted (it keeps nothing: no persistence): both sides say so, reconnect,
    # and the game goes on from where it was.
    ws_broker.stop()
    page.wait_for_function("document.body.dataset.link === 'down'")
    sim.wait(lambda s: s["remote"]["status"].startswith("no broker"), 20)
    ws_broker.start()
    state = sim.wait(lambda s: s["remote"]["status"] == "connected", 30)
    assert state["remote"]["status"] == "connected", sim.said()[-1500:]
    page.wait_for_function("document.body.dataset.link === 'up' && "
                           "document.body.dataset.board === 'here'", timeout=ms(30))
    page.wait_for_function("document.body.dataset.index == 4")
    play_tree_planting(sim, page, options, rng, 6)
    assert len(moves_of(sim)) == 6


def test_a_tampered_link_or_one_for_another_seat_is_refused(tmp_path, ws_broker, sims, browser,
                                                           monkeypatch):
    monkeypatch.setenv("TREEBOARD_REMOTE_SECRET", SECRET)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    sim = host(sims, ws_broker, "tp3", "--game", "tree-planting")
    link = invite(ws_broker, "tp3", 1, TREEBOARD_REMOTE_SECRET=SECRET)
    good = open_seat(browser, link)   # (so the view is surely there, retained)
    good.close()
    sim.wait(lambda s: not s["remote"]["peer_online"], 20)
    key = link.rsplit("key=", 1)[1]
    tampered = link.replace(key, ("0" if key[0] != "0" else "1") + key[1:])
    other_game = invite(ws_broker, "tp-other", 1, TREEBOARD_REMOTE_SECRET=SECRET)
    other_game = other_game.replace("game=tp-other", "game=tp3")   # its key, this game
    other_seat = invite(ws_broker, "tp3", 0, TREEBOARD_REMOTE_SECRET=SECRET).replace(
        "seat=0", "seat=1")                                         # seat 0's key, seat 1
    for bad in (tampered, other_game, other_seat):
        page = browser.new_page()
        page.goto(bad)
        page.wait_for_selector("#bad-link:not([hidden])")
        assert "does not open this game" in page.inner_text("#bad-link")
        assert page.eval_on_selector_all("#picture [data-site]", "els => els.length") == 0
        page.close()
    # Its presence was refused too: the board never took it for the player. (The page refused
    # its link by itself: the board's refusal comes by the broker, in its own time.)
    wait_for(lambda: "refused a message on treeboard/v1/tp3/seat/1/presence: bad signature"
             in sim.said(), 10, "the board to refuse the presence")
    state = sim.state()
    assert not state["remote"]["peer_online"] and state["game"]["moves"] == []


def test_the_page_signs_alike_with_webcrypto_and_the_vendored_library(ws_broker, browser):
    page = browser.new_page()
    page.goto(f"http://127.0.0.1:{ws_broker.ws_port}/index.html#nothing")
    page.wait_for_function("window.treeboardSeat !== undefined")
    import hashlib
    import hmac

    key = bytes(range(32))
    text = 'a body {"move":"h0.0"} é 中'
    want = hmac.new(key, text.encode(), hashlib.sha256).hexdigest()
    got = page.evaluate("async ([k, t]) => [await treeboardSeat.hmacHex(new Uint8Array(k), t), "
                        "await treeboardSeat.nobleHex(new Uint8Array(k), t), isSecureContext]",
                        [list(key), text])
    assert got == [want, want, True]
    assert "not a treeboard invitation" in page.inner_text("#bad-link")


#: How many moves of Game for the Trees the test plays at most (a whole game is rarely longer).
GFT_MOVES = 400


def board_touch_move(sim, state, rng) -> str:
    """Game for the Trees at the board: a move made by touch (tap its source, then its
    target), one whose two squares name it alone (no choice to cycle through, no retreat)."""
    from games.game_for_the_trees import square_name

    pairs: dict[tuple, list] = {}
    for move in state.legal_moves():
        if move.action != "retreat":
            pairs.setdefault((move.src, move.dst), []).append(move)
    alone = [ms[0] for ms in pairs.values() if len(ms) == 1]
    move = rng.choice(alone)
    sim.type(f"tap {square_name(move.src)}", f"tap {square_name(move.dst)}")
    return str(move)


def test_a_browser_plays_game_for_the_trees_against_a_board(tmp_path, ws_broker, sims, browser,
                                                           monkeypatch):
    import random

    monkeypatch.setenv("TREEBOARD_REMOTE_SECRET", SECRET)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    sim = host(sims, ws_broker, "gft1", "--game", "game-for-the-trees")
    page = open_seat(browser, invite(ws_broker, "gft1", 1, TREEBOARD_REMOTE_SECRET=SECRET))
    options, rng = sim.state()["options"], random.Random(11)
    game = games.get_game("game-for-the-trees")
    for _ in range(GFT_MOVES):
        summary = sim.state()["game"]
        moves = summary["moves"]
        if summary["over"]:
            break
        state = game.new_state(**options)
        for text in moves:
            state.play(state.parse_move(text))
        if summary["to_move"] == 0:
            board_touch_move(sim, state, rng)
        else:
            page.wait_for_function(f"document.body.dataset.index == {len(moves)} && "
                                   "document.body.dataset.turn === 'yours'", timeout=ms(20))
            tap_a_move(page, rng)
        after = sim.wait(lambda s: len(s["game"]["moves"]) > len(moves), 20)["game"]["moves"]
        assert len(after) == len(moves) + 1, (seat_view(page), sim.said()[-2000:])
    final = sim.state()
    assert final["game"]["over"] and final["result"], final["game"]   # a whole game
    page.wait_for_function(f"document.body.dataset.index == {len(final['game']['moves'])}")
    assert page.inner_text("#sentence") == final["result"]


def test_the_lobby_lists_an_offer_a_browser_takes_it_and_it_goes(tmp_path, ws_broker, sims,
                                                                 browser, monkeypatch):
    monkeypatch.setenv("TREEBOARD_REMOTE_SECRET", SECRET)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    page_url = f"http://127.0.0.1:{ws_broker.ws_port}/index.html"
    out = subprocess.run([TREEBOARD, "invite", "--lobby", "--page", page_url, "--broker",
                          ws_broker.ws_url], capture_output=True, text=True, timeout=scaled(60),
                         env={"TREEBOARD_REMOTE_SECRET": SECRET, "PATH": "/usr/bin"})
    assert out.returncode == 0, out.stderr
    lobby_link = out.stdout.strip()
    assert SECRET not in lobby_link and "game=" not in lobby_link
    sim = host(sims, ws_broker, "lobby1", "--game", "tree-planting", "--offer")
    watcher = browser.new_page()     # a second lobby page, to see the offer go
    watcher.goto(lobby_link)
    watcher.wait_for_selector("#offers li[data-game=lobby1]")
    page = browser.new_page()
    page.goto(lobby_link)
    page.wait_for_selector("#offers li[data-game=lobby1]")
    assert "Tree Planting" in page.inner_text("#offers li[data-game=lobby1]")
    page.click("#offers li[data-game=lobby1] button")
    page.wait_for_selector("#picture svg [data-site]", state="attached")
    assert "game=lobby1" in page.url and "seat=1" in page.url
    wait_for(lambda: sim.state()["remote"]["peer_online"], 20, "the board to see the browser")
    watcher.wait_for_selector("#offers li[data-game=lobby1]", state="detached")
    # A board that offers and leaves: its offer goes with it.
    second = sims("--remote", ws_broker.url, "--join", "lobby2", "--seat", "0", "--guest",
                  "--offer", "--journal", str(tmp_path / "second.sqlite"))
    watcher.wait_for_selector("#offers li[data-game=lobby2]")
    second.stop()
    watcher.wait_for_selector("#offers li[data-game=lobby2]", state="detached")


def test_a_hostile_client_of_the_broker_changes_nothing(tmp_path, ws_broker, sims, browser,
                                                        monkeypatch):
    """A client with no key: a 1 MB message and a flood of forged proposals on the seat's
    topic, a forged view for the browser. The board refuses them (its log bounded), the page
    keeps the real game, and a real move still goes through."""
    import random

    import paho.mqtt.client as paho

    from board_driver.remote import seat as sp

    monkeypatch.setenv("TREEBOARD_REMOTE_SECRET", SECRET)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    sim = host(sims, ws_broker, "tp4", "--game", "tree-planting", "--verbose")
    page = open_seat(browser, invite(ws_broker, "tp4", 1, TREEBOARD_REMOTE_SECRET=SECRET))
    options, rng = sim.state()["options"], random.Random(5)
    play_tree_planting(sim, page, options, rng, 1)
    hostile = paho.Client(paho.CallbackAPIVersion.VERSION2, client_id="hostile")
    hostile.connect("127.0.0.1", ws_broker.port)
    hostile.loop_start()
    try:
        forged_key = bytes(32)
        play = sp.seat_topic("tp4", 1, "play")
        hostile.publish(play, b"x" * (1024 * 1024), qos=1).wait_for_publish(scaled(10))
        for i in range(300):
            body = {"type": "play", "game_id": "tp4", "seat": 1, "epoch": "0" * 16, "index": 1,
                    "move": "h0.0", "id": f"{i:010x}"}
            hostile.publish(play, sp.seal(forged_key, body), qos=1)
        view = {"type": "view", "game_id": "tp4", "seat": 1, "svg": "<svg></svg>", "index": 99,
                "sentence": "forged", "title": "forged", "you": "", "moves": []}
        hostile.publish(sp.seat_topic("tp4", 1, "view"), sp.seal(forged_key, view), qos=1,
                        retain=True).wait_for_publish(scaled(10))
    finally:
        hostile.loop_stop()
        hostile.disconnect()
    wait_for(lambda: "more refused and not logged" in sim.said() or
             sim.said().count("refused a message on treeboard/v1/tp4/seat/1/play") >= 20,
             20, "the board to refuse the forgeries")
    assert sim.said().count("refused a message on treeboard/v1/tp4/seat/1/play") <= 21
    assert page.inner_text("#sentence") != "forged" and seat_view(page)["index"] == 1
    assert page.is_hidden("#bad-link")
    play_tree_planting(sim, page, options, rng, 3)    # the board still plays the real seat
    assert len(moves_of(sim)) == 3


def test_an_offer_goes_by_its_will_when_its_board_vanishes(tmp_path, ws_broker, sims, browser,
                                                          monkeypatch):
    """A board killed (no goodbye): the broker publishes the offer connection's will, an empty
    retained message, and the offer leaves every lobby page (keepalive 2 s: the broker gives
    up on a silent client after 1.5 times that)."""
    import os
    import signal

    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    config = tmp_path / "board.toml"
    config.write_text(f'''backend = "sim"
layout = "tree-planting-4x4-matrix"
players = ["human", "remote"]
[remote]
broker = "{ws_broker.url}"
game = "vanish"
secret = "{SECRET}"
guest = true
offer = true
keepalive = 2
''')
    config.chmod(0o600)   # (it holds the secret: the board refuses it readable by others)
    out = subprocess.run([TREEBOARD, "invite", "--lobby", "--page", "http://127.0.0.1/x",
                          "--broker", ws_broker.ws_url], capture_output=True, text=True,
                         timeout=scaled(60), env={"TREEBOARD_REMOTE_SECRET": SECRET})
    lobby = out.stdout.strip().replace("http://127.0.0.1/x",
                                       f"http://127.0.0.1:{ws_broker.ws_port}/index.html")
    sim = sims("--config", str(config))
    page = browser.new_page()
    page.goto(lobby)
    page.wait_for_selector("#offers li[data-game=vanish]")
    os.kill(sim.proc.pid, signal.SIGKILL)    # no goodbye: only the will can clear the offer
    page.wait_for_selector("#offers li[data-game=vanish]", state="detached", timeout=ms(30))
    assert page.is_visible("#no-offers")


def test_the_familys_broker_with_passwords_and_the_seats_acl(family, sims, browser):
    """docs/remote.md's set-up (test_lobby_acl.py's `family`: its passwords, its ACL, the
    board's config): the invitation carries the seat's own account (`--game-login`); the
    browser plays through it; that account cannot publish the board's presence, and what it
    may publish on its seat reaches the board (refused there as unsigned)."""
    import random

    from tests.board_driver.test_lobby_acl import Client

    home = family("acl1")
    sim = sims("--config", str(home.config))
    page = open_seat(browser, home.invite("--game", "acl1", "--seat", "1", "--game-login"))
    play_tree_planting(sim, page, sim.state()["options"], random.Random(2), 3)
    # The seat's account publishes a forged "board offline" presence, on the board's topics
    # and its seat's: the ACL drops both; its probe on its seat's play topic reaches the board.
    watcher = Client(home.broker, "board")
    guest = Client(home.broker, *home.seat_login)
    try:
        watcher.subscribe("treeboard/v1/acl1/presence/0")
        watcher.subscribe("treeboard/v1/acl1/seat/1/host")
        wait_for(lambda: len(watcher.got) == 2, 10, "the board's retained presence")
        before = dict(watcher.got)
        guest.publish("treeboard/v1/acl1/presence/0", b"forged")
        guest.publish("treeboard/v1/acl1/seat/1/host", b"forged")
        guest.publish("treeboard/v1/acl1/seat/1/play", b"probe", retain=False)
        wait_for(lambda: "seat/1/play: message is not a signed envelope" in sim.said(), 10,
                 "the probe on a seat topic to reach the board (the ACL lets it)")
        assert watcher.got == before and all(b"seat_sig" in p for p in before.values())
    finally:
        for c in (guest, watcher):
            c.close()
    assert sim.state()["remote"]["status"] == "connected"
