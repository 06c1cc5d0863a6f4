"""Remote play through a real Mosquitto broker: two daemons on simulated hardware, one game.

Each board's moves are made through its own simulated sensors; the other board is told the move
and shows it as pieces to put, which the test then puts, as the family at that board would."""

from __future__ import annotations

import asyncio
import logging
import random

import pytest

import games
from board_driver.remote import protocol as rp
from board_driver.remote.link import CONNECTED, WAITING
from board_driver.config import sim_config
from board_driver.daemon.loop import Daemon
from board_driver.daemon.notify import Notifier
from remote_board import ProcessBoard
from tests.broker import Broker
from tests.waits import Deadline, until

SECRET = "a shared secret"
GAME = "family-game"


def board(tmp_path, name: str, remote_seat: int, broker: Broker, layout: str, *, web=False,
          **remote) -> Daemon:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    players = ["human", "human"]
    players[remote_seat] = "remote"
    cfg = sim_config(journal=str(folder / "journal.sqlite"), layout=layout,
                     players=tuple(players),
                     remote={"broker": broker.url, "game": GAME, "secret": SECRET,
                             "keepalive": 2, **remote})
    cfg.web_port = 0
    return Daemon(cfg, notifier=Notifier(None), web=web)


def failed_connects(daemon: Daemon) -> list[str]:
    """What the link said after each time it re-told the board its status: while the broker is
    away, once per connection attempt that failed (the link re-lights the board after each)."""
    said: list[str] = []
    link = daemon.remote
    relight = link.after_change

    def after_change():
        said.append(link.status)
        relight()

    link.after_change = after_change
    return said


async def round_trip(asker: Daemon, other: Daemon) -> None:
    """A takeback asked by `asker` and refused by `other`: it changes neither game, and each
    leg follows, through the same connection, every message its sender published before it
    (one client's messages reach a subscriber in order). Once it is back, every message either
    board sent before it has been handled by the other."""
    asked = asker.remote.request_takeback()
    await until(lambda: other.remote.takeback_request == asked, what="the takeback request")
    other.remote.answer_takeback(False)
    await until(lambda: asker.remote.summary()["asked_to"] is None, what="the refusal")


def pair(tmp_path, broker: Broker, layout: str = "tree-planting-classic-pins"):
    """Two boards of one remote game: the first plays seat 0, the second seat 1."""
    return board(tmp_path, "a", 1, broker, layout), board(tmp_path, "b", 0, broker, layout)


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
            daemon.show()


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
    a, b = pair(tmp_path, broker, layout)   # a plays seat 0; seat 1 is across town

    async def scenario():
        reference = a.session.referee.state.copy()
        await play_through(a, b, reference, random.Random(seed))
        assert a.session.referee.state.summary() == b.session.referee.state.summary()
        assert a.session.referee.state.is_over()
        assert a.remote.conflict is None and b.remote.conflict is None

    run_pair(a, b, scenario)


def test_the_board_refuses_a_local_move_for_the_remote_seat(tmp_path, broker):
    b, a = pair(tmp_path, broker)      # a plays seat 1: seat 0, which moves first, is remote

    async def scenario():
        a.session.hardware.board.place("h0.0")   # seat 0 (remote for a) would move: refused
        await until(lambda: a.session.referee.corrections, what="the correction")
        assert moves(a) == [] and moves(b) == []
        assert [c.site for c in a.session.referee.corrections] == ["h0.0"]
        a.session.hardware.board.lift("h0.0")
        await until(lambda: not a.session.referee.corrections)

    run_pair(a, b, scenario)


def test_broker_restart_and_a_cut_longer_than_the_keepalive_lose_and_double_nothing(
        tmp_path, broker, caplog):
    a, b = pair(tmp_path, broker)
    caplog.set_level(logging.DEBUG, logger="treeboard")

    async def scenario():
        reference = a.session.referee.state.copy()
        rng = random.Random(11)
        await play_through(a, b, reference, rng, count=4)
        retries = {d: failed_connects(d) for d in (a, b)}
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
        # ... and held through a long cut: both boards try the broker twice more and fail
        # (with the link's back-off the broker comes back after its third try, 3.5 s into the
        # cut, longer than the keepalive of 2 s).
        since = {d: len(said) for d, said in retries.items()}
        await until(lambda: all(len(said) >= since[d] + 2 and said[-1] == "no broker"
                                for d, said in retries.items()),
                    what="two failed connection attempts on each board")
        assert len(moves(other)) == len(reference.moves) - 1
        # One warning a board when the link went down, not one a retry (the sim's board
        # would scroll away); the retries are at debug level.
        retrying = [r for r in caplog.records if "retrying" in r.getMessage()]
        assert len(retrying) >= 6
        assert len([r for r in retrying if r.levelno >= logging.WARNING]) == 2
        broker.start()
        # ... and delivered once the broker is back (by the retained state; the move message
        # was queued with it), exactly once.
        await until(lambda: moves(other) == [str(m) for m in reference.moves], timeout=20,
                    what="the boards to agree after the broker came back")
        await round_trip(mover, other)   # whatever either board still had on its way is in
        assert moves(other) == moves(mover) == [str(m) for m in reference.moves]
        assert a.remote.conflict is None and b.remote.conflict is None
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

    a, b = pair(tmp_path, broker)      # b plays seat 1, which is remote for a
    caplog.set_level(logging.WARNING, logger="treeboard.remote")

    async def scenario():
        reference = a.session.referee.state.copy()
        rng = random.Random(2)
        await play_through(a, b, reference, rng, count=3)
        topic = rp.topics(GAME)["move"]
        good = a.remote.signer   # the secret and this playing's epoch: what b signs with
        assert good.epoch == b.remote.signer.epoch
        forger = rp.Signer("not the secret", GAME)
        nxt = reference.copy()
        assert nxt.to_move == 1, "3 moves of seed 2 leave seat 1 (a's remote seat) to move"
        legal = sorted(nxt.legal_moves(), key=str)[0]
        after = nxt.copy()
        after.play(legal)
        seen = a.remote.refused

        async def after_all_before(client, name: str) -> None:
            # A marker through the same client and topic as the messages before it: signed,
            # of a type no board knows, refused by name by both boards. One client's messages
            # on one topic arrive in order, and a link handles them one at a time: once both
            # boards refused the marker, each has handled every message published before it.
            await client.publish(topic, good.encode({"type": name}), qos=1)
            await until(lambda: caplog.text.count(f"unknown message type {name!r}") >= 2,
                        what=f"the marker {name} refused by both boards")

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
            await after_all_before(client, "marker-1")
        assert moves(a) == [str(m) for m in reference.moves]   # nothing was played by any
        # and the real next move still goes through, once
        a_move_message = good.encode(rp.move_message(after, 0, 1))
        async with aiomqtt.Client("127.0.0.1", broker.port) as client:
            await client.publish(topic, a_move_message, qos=1)
            await client.publish(topic, a_move_message, qos=1)
            await until(lambda: len(moves(a)) == len(after.moves), what="the genuine move")
            await after_all_before(client, "marker-2")    # the second copy too
        assert moves(a) == [str(m) for m in after.moves]
        assert a.remote.conflict is None
        text = caplog.text
        for reason in ("bad signature", "hash", "not legal", "not JSON"):
            assert reason in text, reason

    run_pair(a, b, scenario)


def test_a_board_killed_mid_game_comes_back_and_both_agree(tmp_path, broker):
    a = board(tmp_path, "a", 1, broker, "tree-planting-classic-pins")    # seat 0 here
    folder = tmp_path / "b"
    folder.mkdir()
    b = ProcessBoard({"journal": str(folder / "journal.sqlite"), "layout": "tree-planting-classic-pins",
                      "players": ["remote", "human"],
                      "remote": {"broker": broker.url, "game": GAME, "secret": SECRET,
                                 "keepalive": 2}})
    reference = games.get_game("tree-planting").new_state(board="classic")
    rng = random.Random(4)

    def change(move):
        before = reference.occupancy()
        reference.play(move)
        after = reference.occupancy()
        return [(s, after.get(s)) for s in sorted(before.keys() | after.keys())
                if before.get(s) != after.get(s)]

    async def make(on_a: bool, sites) -> None:
        for site, kind in sites:
            if on_a:
                (a.session.hardware.board.place(site) if kind else
                 a.session.hardware.board.lift(site))
            else:
                await b.ask(f"place {site}" if kind else f"lift {site}")

    async def b_has(n: int) -> bool:
        return len(await b.moves()) == n

    async def until_b(n: int, timeout=15.0) -> None:
        deadline = Deadline(timeout)
        while not await b_has(n):
            if deadline.passed():
                raise deadline.failure(f"b to reach {n} moves")
            await asyncio.sleep(0.02)

    async def one_move() -> None:
        move = rng.choice(sorted(reference.legal_moves(), key=str))
        a_moves = reference.to_move == 0
        sites = change(move)
        n = len(reference.moves)
        await make(a_moves, sites)                  # the mover's hands
        await until(lambda: len(moves(a)) == n, what=f"{move} at a")
        await until_b(n)
        await make(not a_moves, sites)              # the other board's family puts it
        await until(lambda: not a.session.referee.corrections, what="a in step")

    async def main():
        runner = asyncio.ensure_future(a.run())
        try:
            await until(lambda: a.remote is not None)
            await b.start()
            await until(lambda: a.remote.peer_online, what="b online")
            for _ in range(4):
                await one_move()
            # b makes its move and is killed at once: a power cut right after the move.
            while reference.to_move != 1:
                await one_move()
            move = rng.choice(sorted(reference.legal_moves(), key=str))
            sites = change(move)
            await make(False, sites)
            await until_b(len(reference.moves))
            await b.kill()
            await until(lambda: not a.remote.peer_online, what="a to see b gone (its will)")
            # The cut may have come before b published its move: b's journal has it either way.
            # If b published it, a has it now: the broker reads b's connection to its end before
            # it publishes b's will, and a hears both in that order.
            heard = len(moves(a)) == len(reference.moves)
            later = []
            if heard:
                await make(True, sites)
                if reference.to_move == 0:           # a plays on while b is dark
                    move = rng.choice(sorted(reference.legal_moves(), key=str))
                    later = change(move)
                    await make(True, later)
                    await until(lambda: len(moves(a)) == len(reference.moves))
            await b.start()                          # the same journal: b resumes its game
            await until_b(len(reference.moves))
            await until(lambda: len(moves(a)) == len(reference.moves), what="a caught up")
            assert await b.moves() == moves(a) == [str(m) for m in reference.moves]
            if not heard:
                await make(True, sites)              # b's move reached a only now
            sites = later
            await make(False, sites)                 # b's family puts a's move made meanwhile
            await until(lambda: a.remote.peer_online, what="b back online")
            for _ in range(3):
                await one_move()
            assert await b.moves() == moves(a) == [str(m) for m in reference.moves]
            assert a.remote.conflict is None
        finally:
            await b.close()
            a.stop()
            await asyncio.gather(runner, return_exceptions=True)

    asyncio.run(main())


def test_a_takeback_is_asked_and_carried_out_on_both_boards_or_refused(tmp_path, broker):
    a, b = pair(tmp_path, broker)

    async def scenario():
        reference = a.session.referee.state.copy()
        rng = random.Random(8)
        await play_through(a, b, reference, rng, count=3)
        last = str(reference.moves[-1])
        mover_of_last = reference.copy()
        mover_of_last.undo()
        asker = a if mover_of_last.to_move == 0 else b
        other = b if asker is a else a
        # Refused: nothing changes on either board.
        asker.remote.request_takeback()
        await until(lambda: other.remote.takeback_request == 2, what="the request to arrive")
        other.remote.answer_takeback(False)
        await until(lambda: asker.remote._asked_to is None, what="the refusal to arrive")
        assert moves(a) == moves(b) == [str(m) for m in reference.moves]
        # Accepted: both boards take the move back, and light the pieces to lift.
        asker.remote.request_takeback()
        await until(lambda: other.remote.takeback_request == 2)
        other.remote.answer_takeback(True)
        await until(lambda: len(moves(asker)) == 2, what="the takeback at the asker")
        assert moves(a) == moves(b) == [str(m) for m in reference.moves[:2]]
        assert a.remote.takebacks == b.remote.takebacks == 1
        for d in (a, b):
            assert [(c.site, c.want) for c in d.session.referee.corrections] == [(last, None)]
            d.session.hardware.board.lift(last)
        await until(lambda: not a.session.referee.corrections and not b.session.referee.corrections)
        reference.undo()
        # A takeback not asked for (forged with the right secret but no request) is refused.
        stale = other.remote
        with pytest.raises(games.IllegalMove):
            stale.answer_takeback(True)
        # The game goes on after it.
        await play_through(a, b, reference, rng, count=2)
        assert a.remote.conflict is None and b.remote.conflict is None

    run_pair(a, b, scenario)


def test_the_page_shows_the_link_and_carries_takebacks_between_boards(tmp_path, broker):
    import json

    import aiohttp

    a = board(tmp_path, "a", 1, broker, "tree-planting-classic-pins", web=True)
    b = board(tmp_path, "b", 0, broker, "tree-planting-classic-pins", web=True)

    async def scenario():
        reference = a.session.referee.state.copy()
        await play_through(a, b, reference, random.Random(3), count=1)   # a's move 1
        headers = {"Content-Type": "application/json"}

        def url(d, path):
            return f"http://127.0.0.1:{d.web.port}{path}"

        async with aiohttp.ClientSession() as http:
            async def post(d, path, body=None):
                async with http.post(url(d, path), data=json.dumps(body or {}),
                                     headers=headers) as r:
                    return r.status, await r.json()

            async with http.get(url(a, "/api/state")) as r:
                state = await r.json()
            assert state["seats"] == ["human", "remote"]
            assert state["remote"]["status"] == "connected" and state["remote"]["seat"] == 0
            # A new game on one board alone is refused; a takeback is asked of the other board.
            status, body = await post(a, "/api/new-game")
            assert status == 409 and "one game on both boards" in body["error"]
            status, body = await post(b, "/api/takeback-answer", {"answer": "accept"})
            assert status == 409 and "has not asked" in body["error"]
            status, body = await post(a, "/api/takeback")
            assert status == 200 and body["remote"]["asked_to"] == 0
            assert body["game"]["moves"] == [str(reference.moves[0])]   # nothing taken back yet
            await until(lambda: b.remote.takeback_request == 0, what="the request at b")
            async with http.get(url(b, "/api/state")) as r:
                assert (await r.json())["remote"]["request"] == 0
            status, body = await post(b, "/api/takeback-answer", {"answer": "maybe"})
            assert status == 400
            status, body = await post(b, "/api/takeback-answer", {"answer": "accept"})
            assert status == 200 and body["game"]["moves"] == []
            await until(lambda: moves(a) == [], what="the takeback at a")

    run_pair(a, b, scenario)


def test_a_login_and_tls_broker_and_what_the_board_says_when_refused(tmp_path):
    """mqtts with the broker's own certificate, a login from a file only the service user can
    read; a wrong password or an untrusted certificate is said plainly, not as "no broker"."""
    import os

    broker = Broker(tmp_path, users={"grandma": "tea-and-trees"}, tls=True)
    broker.start()
    logins = {}
    for name, text in (("good", "grandma:tea-and-trees"), ("bad", "grandma:coffee")):
        path = tmp_path / f"{name}.login"
        path.write_text(text + "\n")
        os.chmod(path, 0o600)
        logins[name] = str(path)
    try:
        a = board(tmp_path, "a", 1, broker, "tree-planting-classic-pins",
                  credentials_file=logins["good"], ca_file=str(broker.ca_file))
        b = board(tmp_path, "b", 0, broker, "tree-planting-classic-pins",
                  credentials_file=logins["good"], ca_file=str(broker.ca_file))

        async def scenario():
            reference = a.session.referee.state.copy()
            await play_through(a, b, reference, random.Random(5), count=2)

        run_pair(a, b, scenario)

        for extra, words in (({"credentials_file": logins["bad"], "ca_file": str(broker.ca_file)},
                              "refused this board"),
                             ({"credentials_file": logins["good"]}, "certificate is not trusted")):
            lone = board(tmp_path, f"lone{len(words)}", 1, broker, "tree-planting-classic-pins",
                         **extra)

            async def refused(lone=lone, words=words):
                runner = asyncio.ensure_future(lone.run())
                try:
                    await until(lambda: lone.remote is not None and words in
                                (lone.remote.shown_status or ""), what=words)
                finally:
                    lone.stop()
                    await asyncio.gather(runner, return_exceptions=True)

            asyncio.run(refused())
    finally:
        broker.stop()


def test_remote_settings_refuse_bad_files_and_values_by_name(tmp_path):
    import os

    from board_driver.config import ConfigError, parse_config
    from board_driver.remote.link import settings_from_config

    secret = tmp_path / "secret"
    secret.write_text("a long enough secret\n")
    os.chmod(secret, 0o644)
    base = {"players": ["human", "remote"], "journal": str(tmp_path / "j.sqlite"),
            "remote": {"broker": "mqtt://127.0.0.1", "game": "g1", "secret_file": str(secret)}}

    def settings(**remote):
        data = {**base, "remote": {**base["remote"], **remote}}
        data["remote"] = {k: v for k, v in data["remote"].items() if v is not None}
        return settings_from_config(parse_config(data, "board.toml"))

    with pytest.raises(ConfigError, match=r"board.toml: remote: .*secret.*readable by others"):
        settings()
    os.chmod(secret, 0o600)
    assert settings().secret == b"a long enough secret" and settings().port == 1883
    assert settings(broker="mqtts://example.net").port == 8883
    for remote, words in [({"broker": "http://x"}, "remote.broker: .*mqtt://host"),
                          ({"broker": "mqtt://h:notaport"}, "remote.broker: .*port"),
                          ({"game": "a/b"}, "remote.game: .*game id"),
                          ({"secret_file": str(tmp_path / "none")}, "cannot read the secret"),
                          ({"secret_file": None, "secret": "short"}, "at least 8 bytes")]:
        with pytest.raises(ConfigError, match=words):
            settings(**remote)
    login = tmp_path / "login"
    login.write_bytes(b"\xff\xfe")
    os.chmod(login, 0o600)
    with pytest.raises(ConfigError, match="not UTF-8"):
        settings(credentials_file=str(login))
    login.write_text("no-colon-here")
    with pytest.raises(ConfigError, match="username:password"):
        settings(credentials_file=str(login))
    for data, words in [({"remote": {"game": "g"}}, "remote.broker"),
                        ({"remote": {**base["remote"], "secret": "also"}}, "exactly one of"),
                        ({"remote": {**base["remote"], "keepalive": 1}}, "remote.keepalive"),
                        ({"players": ["human", "human"]}, "players"),
                        ({"players": ["human", "robot"]}, "players"),
                        ({"remote": {**base["remote"], "brokr": "x"}}, "remote.brokr")]:
        with pytest.raises(ConfigError, match=words):
            parse_config({**base, **data}, "board.toml")


def test_a_spectator_board_follows_the_game_read_only(tmp_path, broker):
    a, b = pair(tmp_path, broker)
    folder = tmp_path / "watcher"
    folder.mkdir()
    watcher = Daemon(sim_config(journal=str(folder / "journal.sqlite"),
                                layout="tree-planting-classic-pins", players=("remote", "remote"),
                                remote={"broker": broker.url, "game": GAME, "secret": SECRET,
                                        "keepalive": 2}), notifier=Notifier(None))

    async def scenario():
        reference = a.session.referee.state.copy()
        rng = random.Random(6)
        await play_through(a, b, reference, rng, count=3)
        runner = asyncio.ensure_future(watcher.run())    # joins mid-game
        try:
            await until(lambda: watcher.remote is not None and moves(watcher) == moves(a),
                        what="the spectator to catch up")
            assert watcher.remote.status == "watching"
            await play_through(a, b, reference, rng, count=2)
            await until(lambda: moves(watcher) == moves(a), what="the spectator to follow")
            # It plays no seat: nothing it does reaches the game.
            with pytest.raises(games.IllegalMove, match="watches"):
                watcher.remote.request_takeback()
            free = str(sorted(reference.legal_moves(), key=str)[0])
            watcher.session.hardware.board.place(free)
            await until(lambda: any(c.site == free for c in watcher.session.referee.corrections))
            assert moves(a) == moves(b) == [str(m) for m in reference.moves]
            assert watcher.remote._outbox.empty()
            # An agreed takeback reaches it through the boards' states.
            mover_of_last = reference.copy()
            mover_of_last.undo()
            asker = a if mover_of_last.to_move == 0 else b
            other = b if asker is a else a
            n = len(reference.moves)
            asker.remote.request_takeback()
            await until(lambda: other.remote.takeback_request == n - 1)
            other.remote.answer_takeback(True)
            await until(lambda: len(moves(watcher)) == n - 1, what="the takeback at the spectator")
        finally:
            watcher.stop()
            await asyncio.gather(runner, return_exceptions=True)

    run_pair(a, b, scenario)


def test_joining_and_leaving_a_remote_game_from_the_page_survives_a_restart(tmp_path, broker):
    import json

    import aiohttp

    folder = tmp_path / "a"
    folder.mkdir()
    journal = str(folder / "journal.sqlite")

    def plain_board():
        cfg = sim_config(journal=journal, layout="tree-planting-classic-pins")
        cfg.web_port = 0
        return Daemon(cfg, notifier=Notifier(None), web=True)

    async def session(daemon, act):
        b = board(tmp_path, "b", 0, broker, "tree-planting-classic-pins")   # seat 1, by config
        runners = [asyncio.ensure_future(daemon.run()), asyncio.ensure_future(b.run())]
        try:
            # b's link connected before anything may stop it: a stop while aiomqtt connects
            # (in a thread) leaves the socket it opens to the garbage collector.
            await until(lambda: daemon.web is not None and b.remote is not None
                        and b.remote.status in (WAITING, CONNECTED), what="b's link to connect")
            async with aiohttp.ClientSession() as http:
                async def post(path, body=None):
                    async with http.post(f"http://127.0.0.1:{daemon.web.port}{path}",
                                         data=json.dumps(body or {}),
                                         headers={"Content-Type": "application/json"}) as r:
                        return r.status, await r.json()
                await act(post, b)
        finally:
            daemon.stop()
            b.stop()
            await asyncio.gather(*runners, return_exceptions=True)

    a = plain_board()

    async def join(post, b):
        a.session.hardware.board.place("h0.0")          # a local game in progress...
        await until(lambda: moves(a) == ["h0.0"])
        join = {"broker": broker.url, "game": GAME, "seat": "0", "secret": SECRET}
        for bad, words in [({"broker": "ftp://x"}, "broker: "), ({"secret": "short"}, "8 bytes"),
                           ({"seat": "2"}, "seat must be"), ({"game": "a b"}, "game: ")]:
            status, body = await post("/api/remote/join", {**join, **bad})
            assert status == 400 and words in body["error"], body
        assert a.remote is None and moves(a) == ["h0.0"]  # nothing changed by any of them
        status, body = await post("/api/remote/join", join)
        assert status == 200 and body["seats"] == ["human", "remote"]
        assert body["game"]["moves"] == []                # ...is closed: a remote game starts anew
        status, body = await post("/api/remote/join", join)
        assert status == 409 and "already" in body["error"]
        await until(lambda: a.remote.peer_online and b.remote.peer_online, what="joined")
        a.session.hardware.board.lift("h0.0")
        await until(lambda: not a.session.referee.corrections)
        a.session.hardware.board.place("v0.0")
        await until(lambda: moves(b) == ["v0.0"], what="a's move at b")

    asyncio.run(session(a, join))
    # A restart: the board is still in the game, and catches up with nothing lost.
    a = plain_board()

    async def after_restart(post, b):
        await until(lambda: a.remote is not None and a.remote.peer_online, what="rejoined")
        assert moves(a) == ["v0.0"] and a.session.referee.seats == ("human", "remote")
        status, body = await post("/api/remote/leave")
        assert status == 200 and body["remote"] is None and body["seats"] == ["human", "human"]
        status, body = await post("/api/remote/leave")
        assert status == 409

    asyncio.run(session(a, after_restart))
    a = plain_board()

    async def left(post, b):
        await until(lambda: a.session is not None and a.web is not None)
        assert a.remote is None and a.session.referee.seats == ("human", "human")

    asyncio.run(session(a, left))


def test_two_arbos_boards_draw_the_same_setup_from_the_game_id(tmp_path, broker):
    """Arbos draws where each seed goes (docs/games/arbos.md, reading 13) from a seed kept with
    the game; two boards of one remote game take it from the game id, so both light the same
    cell and play the same setup."""
    a, b = pair(tmp_path, broker, "arbos-8x8-matrix")

    async def scenario():
        sa, sb = a.session.referee.state, b.session.referee.state
        assert sa.options() == sb.options()
        assert sa.options()["setup_seed"] == rp.drawn_options(sa, GAME)["setup_seed"]
        assert sa.drawn_cell() == sb.drawn_cell()
        reference = sa.copy()
        # The last seed is White's, put by Black's board: on White's board it is owed by the
        # remote move until it is put, never read as White lifting her seed (a replacement).
        await play_through(a, b, reference, random.Random(7), count=4)
        assert a.session.referee.state.summary() == b.session.referee.state.summary()
        assert a.session.referee.state.phase == "play"
        assert a.remote.conflict is None and b.remote.conflict is None

    run_pair(a, b, scenario)


def test_a_board_that_quits_cleanly_says_it_is_gone(tmp_path, broker):
    """A clean stop sends MQTT's DISCONNECT, after which the broker does not publish the will:
    the board's retained presence said "here" after it had quit, so the other board (or a
    browser's seat page) went on waiting for a board that was gone. It says "gone" as it
    stops; a SIGKILL leaves that to its will (the killed-board test above)."""
    from tests.board_driver.test_lobby_boards import retained

    folder = tmp_path / "b"
    folder.mkdir()
    b = ProcessBoard({"journal": str(folder / "journal.sqlite"),
                      "layout": "tree-planting-classic-pins", "players": ["remote", "human"],
                      "remote": {"broker": broker.url, "game": GAME, "secret": SECRET}})
    topic = rp.presence_topic(GAME, 1)
    marker = "treeboard/test/marker"
    from tests.board_driver.test_remote_attack import publish

    def presence() -> bool | None:
        publish(broker.port, marker, b"m", retain=True)
        payload = retained(broker, topic, marker)
        return None if payload is None else rp.Signer(SECRET, GAME).decode(payload)["online"]

    async def scenario() -> None:
        await b.start()
        try:
            # (its presence retained as "here": it is connected, not still connecting)
            loop = asyncio.get_running_loop()
            deadline = Deadline(30)
            while not await loop.run_in_executor(None, presence):
                if deadline.passed():
                    raise deadline.failure("the board's presence to say it is here")
                await asyncio.sleep(0.05)
        finally:
            await b.close()    # stdin closed: the daemon stops as a service's stop would

    asyncio.run(scenario())
    assert b.proc.returncode == 0
    assert presence() is False
