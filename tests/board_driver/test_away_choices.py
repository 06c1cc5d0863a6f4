"""The choices about another board's player away, carried by the link (remote/away.py), without a
broker: a traced board's real referee and RemoteLink, the other board's signed messages handed
to the link as the broker would. The broker-backed scenarios: test_away_boards.py."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging

import pytest

from board_driver.config import sim_config
from board_driver.referee.absence import GRACE_S
from board_driver.referee.clock import parse_time_control
from board_driver.referee.tracer import Tracer
from board_driver.remote import protocol as rp
from board_driver.remote.link import RemoteLink, RemoteSettings

SECRET = "correct horse battery"
OTHER = "fedcba9876543210"   # the other board's nonce


@contextlib.contextmanager
def linked(tmp_path, remote_seat: int, layout: str = "tree-planting-4x4-matrix"):
    """A traced timed board (its journal in tmp_path) with its link to the other board, whose
    presence is heard (the epoch known); the link's outbox emptied."""
    players = ["human", "human"]
    players[remote_seat] = "remote"
    t = Tracer(sim_config(journal=str(tmp_path / "j.sqlite"), layout=layout,
                          players=tuple(players), time_control=parse_time_control("5")),
               new_game=not (tmp_path / "j.sqlite").exists())
    try:
        link = RemoteLink(RemoteSettings(host="h", port=1, tls=False, game_id="g1",
                                         secret=SECRET.encode(), seat=remote_seat,
                                         state_dir=str(tmp_path), journal_stem="j"),
                          t.referee, clock=lambda: t.clock.now)
        link._save_takebacks()   # (its nonce kept, as the link does on connecting)
        link.handle(rp.presence_topic("g1", remote_seat), rp.Signer(SECRET, "g1").encode(
            rp.presence_message(remote_seat, True, OTHER)))
        sent(link)
        yield t, link
    finally:
        t.close()


def sent(link) -> list[dict]:
    out = []
    while not link._outbox.empty():
        out.append(link.signer.decode(link._outbox.get_nowait()[1]))
    return out


def their_state(t, link, **fields) -> None:
    """The other board's retained state: this very game, with `fields`."""
    body = rp.state_message(t.referee.state, link.takebacks, link.settings.seat)
    link.handle(rp.state_topic("g1", link.settings.seat), link.signer.encode(dict(body, **fields)))


def test_the_claim_ends_the_game_here_once_the_other_board_ended_it_even_if_replaced(tmp_path):
    async def scenario():
        with linked(tmp_path, 1) as (t, link):
            t.step("place", ["h0.0"])                       # player 2 (the other board) to move
            t.door.seen(1, False, hosted=False)
            t.step("wait", [str(int(GRACE_S * 1000 + 500))])
            t.door.absent_choice("claim")
            [claim] = [m for m in sent(link) if m["type"] == "away"]
            assert (claim["choice"], claim["seq"], claim["index"]) == ("claim", 1, 1)
            t.door.absent_choice("wait")                    # replaced before it was heard...
            assert [m["seq"] for m in sent(link) if m["type"] == "away"] == [2]
            their_state(t, link, drawn_away=1)              # (a draw this board never sent)
            assert not t.referee.over
            their_state(t, link, forfeit=1)                 # ...but the other board heard it
            assert t.referee.over and t.referee.endings.ended == {"forfeit": 1}

    asyncio.run(scenario())


def test_the_away_board_applies_a_choice_once_and_only_to_its_position(tmp_path):
    async def scenario():
        with linked(tmp_path, 0) as (t, link):              # this board plays seat 1
            t.door.seen(0, True, hosted=False)
            theirs = t.referee.state.copy()
            theirs.play(theirs.parse_move("h0.0"))
            link.handle(rp.topics("g1")["move"], link.signer.encode(
                rp.move_message(theirs, 0, 0, clock_ms=299_000)))
            t.step("place", ["h0.0"])                       # (the family puts it)
            assert t.referee.state.to_move == 1
            t.step("wait", ["30000"])                       # this board's clock runs 30 s
            before = t.referee.clocks_left(t.clock.now)[1]
            pause = link.signer.encode(rp.away_message("pause", 1, 0, 0, 1, clock_ms=295_000))
            link.handle(rp.topics("g1")["move"], pause)
            assert t.referee.clocks_left(t.clock.now)[1] == pytest.approx(295.0)
            assert before < 272
            t.step("wait", ["10000"])
            link.handle(rp.topics("g1")["move"], pause)     # a replay: nothing again
            assert t.referee.clocks_left(t.clock.now)[1] == pytest.approx(285.0)
            # about another position (before this board's last move): dropped
            link.handle(rp.topics("g1")["move"], link.signer.encode(
                rp.away_message("claim", 2, 0, 0, 0)))
            assert not t.referee.over
            link.handle(rp.topics("g1")["move"], link.signer.encode(
                rp.away_message("claim", 3, 0, 0, 1)))
            assert t.referee.over and t.referee.endings.ended == {"forfeit": 1}
            [state] = [m for m in sent(link) if m["type"] == "state"][-1:]
            assert state["forfeit"] == 1                    # what tells the other board
            link.detach()
        with linked(tmp_path, 0) as (t, link):              # restarted: the seq is kept
            assert link.away.heard == {"nonce": OTHER, "seq": 3}

    asyncio.run(scenario())


def test_a_claim_heard_while_the_game_menu_is_open_is_applied_as_it_closes(tmp_path):
    from tests.board_driver.test_endings import _with_menu_button

    async def scenario():
        with linked(tmp_path, 0, _with_menu_button(tmp_path)) as (t, link):
            theirs = t.referee.state.copy()
            theirs.play(theirs.parse_move("h0.0"))
            link.handle(rp.topics("g1")["move"], link.signer.encode(
                rp.move_message(theirs, 0, 0, clock_ms=299_000)))
            t.step("place", ["h0.0"])
            t.step("press", ["menu"])                       # the game menu open here
            assert t.referee.menu.open
            link.handle(rp.topics("g1")["move"], link.signer.encode(
                rp.away_message("claim", 1, 0, 0, 1)))
            assert not t.referee.over and link.away.heard == {}
            t.step("press", ["menu"])                       # left: the claim is read again
            for _ in range(3):
                await asyncio.sleep(0)
            assert t.referee.over and t.referee.endings.ended == {"forfeit": 1}
            assert link.away.heard["seq"] == 1

    asyncio.run(scenario())


@pytest.mark.parametrize("damage", [b"\xff\xfe not UTF-8", b'{"nonce": "', b"[1, 2]"])
def test_a_damaged_kept_choice_is_logged_with_its_file_and_the_link_starts(tmp_path, caplog,
                                                                           damage):
    """The choices kept beside the journal, mangled by the card: the link starts with none
    (nothing sent, nothing heard), says which file, and the next choice writes it afresh."""
    async def scenario():
        with linked(tmp_path, 1) as (t, link):
            path = link.away._path
        path.write_bytes(damage)
        with caplog.at_level(logging.ERROR, logger="treeboard.remote"), \
                linked(tmp_path, 1) as (t, link):
            assert link.away._path == path
            assert (link.away.sent, link.away.heard, link.away.ended_by) == (None, {}, {})
            assert any(str(path) in r.getMessage() and "unreadable" in r.getMessage()
                       for r in caplog.records), caplog.text
            t.step("place", ["h0.0"])
            t.door.seen(1, False, hosted=False)
            t.step("wait", [str(int(GRACE_S * 1000 + 500))])
            t.door.absent_choice("pause")
            assert [m["seq"] for m in sent(link) if m["type"] == "away"] == [1]
            assert json.loads(path.read_text(encoding="utf-8"))["sent"]["choice"] == "pause"

    asyncio.run(scenario())
