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
from tests.board_driver.browser_harness import TREEBOARD, browser, chromium, sims  # noqa: F401
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
    state = games.get_game(game_name).new_state(options)
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
    return page.evaluate("({index: Number(document.body.dataset.index), "
                         "turn: document.body.dataset.turn, board: document.body.dataset.board, "
                         "link: document.body.dataset.link})")


def tap_a_move(page, rng) -> None:
    """Tap sites the picture lights until the page hands over a move (a button where the taps
    alone do not decide)."""
    for _ in range(8):
        lit = page.eval_on_selector_all("#picture [data-site].tap-next",
                                        "els => els.map(e => e.getAttribute('data-site'))")
        buttons = page.eval_on_selector_all("#buttons button[data-move]",
                                            "els => els.map(e => e.dataset.move)")
        if buttons and not lit:
            page.click(f"#buttons button[data-move='{rng.choice(buttons)}']")
            return
        if not lit:
            return   # the move was handed over (the page waits for the board)
        page.click(f"#picture [data-site='{rng.choice(sorted(lit))}']", force=True)


def play_tree_planting(sim, page, options, rng, n_moves: int) -> None:
    game = "tree-planting"
    while len(moves_of(sim)) < n_moves and not sim.state()["game"]["over"]:
        summary = sim.state()["game"]
        moves = summary["moves"]
        if summary["to_move"] == 0:
            state = games.get_game(game).new_state(options)
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
    sim = host(sims, ws_broker, "tp1", "--game", "tree-planting")
    link = invite(ws_broker, "tp1", 1, TREEBOARD_REMOTE_SECRET=SECRET)
    assert SECRET not in link
    page = browser.new_page()
    page.goto(link)
    page.wait_for_selector("#picture svg [data-site]")
    page.wait_for_function("document.body.dataset.board === 'here'")
    wait_for(lambda: sim.state()["remote"]["peer_online"], 15, "the board to see the browser")
    assert sim.state()["remote"]["status"] == "connected"
    options = {k: v for k, v in sim.state()["game"].items()
               if k not in ("game", "moves", "scores", "to_move", "over", "winner")}
    rng = random.Random(7)
    play_tree_planting(sim, page, options, rng, 8)
    assert len(moves_of(sim)) >= 8
    # A proposal the rules refuse comes back with the reason, and changes nothing.
    # (the page's tap surface offers only moves; a program with the key could send anything)
