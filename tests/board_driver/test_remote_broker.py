"""Remote play through a real Mosquitto broker: two daemons on simulated hardware, one game.

Each board's moves are made through its own simulated sensors; the other board is told the move
and shows it as pieces to put, which the test then puts, as the family at that board would."""

from __future__ import annotations

import asyncio
import logging
import random

import pytest

import games
from board_driver import remote_protocol as rp
from board_driver.config import sim_config
from board_driver.daemon import Daemon
from board_driver.notify import Notifier
from tests.broker import Broker

SECRET = "a shared secret"
GAME = "family-game"


@pytest.fixture
def broker(tmp_path):
    b = Broker(tmp_path)
    b.start()
    yield b
    b.stop()


def board(tmp_path, name: str, remote_seat: int, broker: Broker, layout: str, **remote) -> Daemon:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    players = ["human", "human"]
    players[remote_seat] = "remote"
    cfg = sim_config(journal=str(folder / "journal.sqlite"), layout=layout,
                     players=tuple(players),
                     remote={"broker": broker.url, "game": GAME, "secret": SECRET,
                             "keepalive": 2, **remote})
    return Daemon(cfg, notifier=Notifier(None))


async def until(condition, timeout: float = 10.0, what: str = "") -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        await asyncio.sleep(0.01)


def moves(daemon: Daemon) -> list[str]:
    return [str(m) for m in daemon.session.referee.state.moves]


def make_physically(daemon: Daemon, before: dict, after: dict, move) -> None:
    """Make on this board what a move changes: sensed sites by hand, the rest entered, and a
    move that changes nothing (Treeblox's end of turn) by the button."""
    session = daemon.session
    sensed = session.layout.channels_of_site
    changed = {s for s in before.keys() | after.keys() if before.get(s) != after.get(s)}
    for site in sorted(changed):
        if site in sensed:
            if after.get(site) is None:
                session.hardware.board.lift(site)
            else:
                session.hardware.board.place(site, after[site])
    if not changed & sensed.keys():
        if not changed:
            daemon._press("end_turn")
        else:
            for site in changed:
                session.referee.enter(site, after[site], daemon.loop.time())
            daemon._show()


async def play_through(a: Daemon, b: Daemon, reference: games.State, rng: random.Random,
                       count: int | None = None) -> None:
    """Play random legal moves: the seat to move makes each on its board; the other board gets it
    through the broker and its family puts the pieces it shows."""
    by_seat = {0: a if a.session.referee.at_board(0) else b,
               1: a if a.session.referee.at_board(1) else b}
    played = 0
    while not reference.is_over() and (count is None or played < count):
        mover = by_seat[reference.to_move]
        other = b if mover is a else a
        move = rng.choice(sorted(reference.legal_moves(), key=str))
        before = reference.occupancy()
        reference.play(move)
        after = reference.occupancy()
        n = len(reference.moves)
        make_physically(mover, before, after, move)
        await until(lambda: len(moves(mover)) == n, what=f"{move} on the mover's board")
        await until(lambda: len(moves(other)) == n, what=f"{move} through the broker")
        assert moves(other) == moves(mover) == [str(m) for m in reference.moves]
        if not reference.is_over():
            # The other board shows the move as pieces to put, until they are put.
            sensed_change = {s for s in before.keys() | after.keys()
                             if before.get(s) != after.get(s)} & other.session.layout.channels_of_site.keys()
            assert {c.site for c in other.session.referee.corrections} == sensed_change
        for site in sorted(set(before) | set(after)):
            if before.get(site) != after.get(site) and site in other.session.layout.channels_of_site:
                if after.get(site) is None:
                    other.session.hardware.board.lift(site)
                else:
                    other.session.hardware.board.place(site, after[site])
        if not reference.is_over():
            await until(lambda: not other.session.referee.corrections and
                        not mover.session.referee.corrections, what="both boards in step")
        played += 1


def run_pair(a: Daemon, b: Daemon, scenario) -> None:
    async def main():
        ra = asyncio.ensure_future(a.run())
        rb = asyncio.ensure_future(b.run())
        try:
            await until(lambda: a.remote is not None and b.remote is not None, what="start")
            await until(lambda: a.remote.peer_online and b.remote.peer_online, what="both online")
            await scenario()
        finally:
            a.stop()
            b.stop()
            await asyncio.gather(ra, rb, return_exceptions=True)

    asyncio.run(main())


@pytest.mark.parametrize("layout, game, seed", [("tree-planting-classic-pins", "tree-planting", 3),
                                                ("treeblox-adc", "treeblox", 5)])
def test_two_boards_play_a_whole_game_through_the_broker(tmp_path, broker, layout, game, seed):
    a = board(tmp_path, "a", 1, broker, layout)   # a plays seat 0; seat 1 is across town
    b = board(tmp_path, "b", 0, broker, layout)

    async def scenario():
        reference = a.session.referee.state.copy()
        await play_through(a, b, reference, random.Random(seed))
        assert a.session.referee.state.summary() == b.session.referee.state.summary()
        assert a.session.referee.state.is_over()
        assert a.remote.conflict is None and b.remote.conflict is None

    run_pair(a, b, scenario)


def test_the_board_refuses_a_local_move_for_the_remote_seat(tmp_path, broker):
    a = board(tmp_path, "a", 0, broker, "tree-planting-classic-pins")  # seat 0 is remote

    async def scenario():
        pass

    b = board(tmp_path, "b", 1, broker, "tree-planting-classic-pins")

    async def scenario():
        a.session.hardware.board.place("h0.0")   # seat 0 (remote for a) would move: refused
        await until(lambda: a.session.referee.corrections, what="the correction")
        assert moves(a) == [] and moves(b) == []
        assert [c.site for c in a.session.referee.corrections] == ["h0.0"]
        a.session.hardware.board.lift("h0.0")
        await until(lambda: not a.session.referee.corrections)

    run_pair(a, b, scenario)


def test_broker_restart_and_a_cut_longer_than_the_keepalive_lose_and_double_nothing(
        tmp_path, broker):
    a = board(tmp_path, "a", 1, broker, "tree-planting-classic-pins")
    b = board(tmp_path, "b", 0, broker, "tree-planting-classic-pins")

    async def scenario():
        reference = a.session.referee.state.copy()
        rng = random.Random(11)
        await play_through(a, b, reference, rng, count=4)
        broker.stop()
        await until(lambda: a.remote.status == "no broker" and b.remote.status == "no broker",
                    what="both boards to see the broker gone")
        # While the broker is away the board whose turn it is plays on: accepted here...
        mover = a if reference.to_move == 0 else b
        other = b if mover is a else a
        move = rng.choice(sorted(reference.legal_moves(), key=str))
        before = reference.occupancy()
        reference.play(move)
        make_physically(mover, before, reference.occupancy(), move)
        await until(lambda: len(moves(mover)) == len(reference.moves))
        await asyncio.sleep(2.5)   # longer than the keepalive
        assert len(moves(other)) == len(reference.moves) - 1
        broker.start()
        # ... and delivered once the broker is back (by the retained state; the move message
        # was queued with it), exactly once.
        await until(lambda: moves(other) == [str(m) for m in reference.moves], timeout=20,
                    what="the boards to agree after the broker came back")
        await asyncio.sleep(0.3)
        assert moves(other) == moves(mover) == [str(m) for m in reference.moves]
        await until(lambda: a.remote.peer_online and b.remote.peer_online, timeout=20)
        for site, kind in reference.occupancy().items():
            if site in other.session.layout.channels_of_site and not \
                    other.session.hardware.board.source.snapshot().get(
                        other.session.layout.channels_of_site[site][0]):
                other.session.hardware.board.place(site, kind)
        await play_through(a, b, reference, rng, count=3)

    run_pair(a, b, scenario)


def test_forged_replayed_reordered_and_wrong_messages_are_refused_with_a_reason(
        tmp_path, broker, caplog):
    import aiomqtt

    a = board(tmp_path, "a", 1, broker, "tree-planting-classic-pins")   # seat 1 is remote
    b = board(tmp_path, "b", 0, broker, "tree-planting-classic-pins")
    caplog.set_level(logging.WARNING, logger="treeboard.remote")

    async def scenario():
        reference = a.session.referee.state.copy()
        rng = random.Random(2)
        await play_through(a, b, reference, rng, count=3)
        topic = rp.topics(GAME)["move"]
        good = rp.Signer(SECRET, GAME)
        forger = rp.Signer("not the secret", GAME)
        nxt = reference.copy()
        assert nxt.to_move == 1, "3 moves of seed 2 leave seat 1 (a's remote seat) to move"
        legal = sorted(nxt.legal_moves(), key=str)[0]
        after = nxt.copy()
        after.play(legal)
        seen = a.remote.refused
        async with aiomqtt.Client("127.0.0.1", broker.port) as client:
            # a forged move, a move with a wrong hash, an illegal move, a replay of move 1
            await client.publish(topic, forger.encode(rp.move_message(after, 0, 1)), qos=1)
            await client.publish(topic, good.encode(dict(rp.move_message(after, 0, 1),
                                                         hash="0" * 32)), qos=1)
            await client.publish(topic, good.encode(dict(rp.move_message(after, 0, 1),
                                                         move="h99.99")), qos=1)
            await client.publish(topic, b"\x00garbage", qos=1)
            await until(lambda: a.remote.refused >= seen + 4, what="four refusals")
            # A replay of the other board's real move 2, and the same message twice: harmless.
            second = reference.copy()
            while len(second.moves) > 2:
                second.undo()
            replay = good.encode(rp.move_message(second, 0, 1))
            await client.publish(topic, replay, qos=1)
            await client.publish(topic, replay, qos=1)
            # A move 5 before move 3 (reordered): waits; it is refused with its reason.
            ahead = after.copy()
            ahead.play(sorted(ahead.legal_moves(), key=str)[0])
            if ahead.to_move == 1:
                ahead.play(sorted(ahead.legal_moves(), key=str)[0])
                await client.publish(topic, good.encode(rp.move_message(ahead, 0, 1)), qos=1)
                await until(lambda: "came before" in caplog.text, what="the early move refused")
            await asyncio.sleep(0.3)
        assert moves(a) == [str(m) for m in reference.moves]   # nothing was played by any
        # and the real next move still goes through, once
        a_move_message = good.encode(rp.move_message(after, 0, 1))
        async with aiomqtt.Client("127.0.0.1", broker.port) as client:
            await client.publish(topic, a_move_message, qos=1)
            await client.publish(topic, a_move_message, qos=1)
        await until(lambda: len(moves(a)) == len(after.moves), what="the genuine move")
        await asyncio.sleep(0.3)
        assert moves(a) == [str(m) for m in after.moves]
        text = caplog.text
        for reason in ("bad signature", "hash", "not legal", "not JSON"):
            assert reason in text, reason

    run_pair(a, b, scenario)
