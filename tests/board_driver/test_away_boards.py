"""Another board away in a timed game (referee/absence.py, remote/away.py), with the real parts:
two daemons on simulated hardware through a real Mosquitto (tests/broker.py); one board's
network cut by a relay the test cuts and mends (tests/board_driver/link_cut.py), or the board
stopped and started again on its journal. The present player chooses; the away board applies
the choice when it comes back; a claim is final only once the away board has heard it, and a
move made there during the cut wins over it."""

from __future__ import annotations

import asyncio

import pytest

import games
from board_driver.config import sim_config
from board_driver.daemon.loop import Daemon
from board_driver.daemon.notify import Notifier
from board_driver.records import library, sgf
from board_driver.referee.absence import CHOICES
from board_driver.referee.clock import parse_time_control
from board_driver.remote import protocol as rp
from board_driver.views.absence import absence_news_words, absent_words
from tests.board_driver.link_cut import LinkCut
from tests.board_driver.test_remote_broker import make_physically
from tests.waits import scaled, until

SECRET = "a shared secret"
GAME = "away-boards"
LAYOUT = "tree-planting-classic-pins"


def board(tmp_path, name: str, remote_seat: int, url: str) -> Daemon:
    folder = tmp_path / name
    folder.mkdir(exist_ok=True)
    players = ["human", "human"]
    players[remote_seat] = "remote"
    cfg = sim_config(journal=str(folder / "journal.sqlite"), layout=LAYOUT, players=tuple(players),
                     time_control=parse_time_control("5"), away_grace_seconds=1.0,
                     remote={"broker": url, "game": GAME, "secret": SECRET, "keepalive": 2})
    cfg.web_port = 0
    return Daemon(cfg, notifier=Notifier(None))


class Boards:
    """Board a (seat 0) and board b (seat 1) running on this loop; each may be restarted."""

    def __init__(self, tmp_path, broker, cut: LinkCut | None = None):
        self.tmp_path, self.broker, self.cut = tmp_path, broker, cut
        self.b_url = broker.url if cut is None else cut.url
        self.runs: dict[str, asyncio.Future] = {}
        self.a = self.start("a")
        self.b = self.start("b")
        self.reference = games.get_game("tree-planting").new_state(board="classic")

    def start(self, name: str) -> Daemon:
        daemon = board(self.tmp_path, name, 1 if name == "a" else 0,
                       self.broker.url if name == "a" else self.b_url)
        self.runs[name] = asyncio.ensure_future(daemon.run())
        setattr(self, name, daemon)
        return daemon

    async def stop(self, name: str) -> None:
        getattr(self, name).stop()
        await asyncio.gather(self.runs.pop(name), return_exceptions=True)

    async def close(self) -> None:
        for name in list(self.runs):
            await self.stop(name)
        if self.cut is not None:
            await self.cut.cut()   # (its relayed connections closed)

    def left(self, name: str, seat: int) -> float:
        daemon = getattr(self, name)
        return daemon.session.referee.clocks_left(daemon.loop.time())[seat]

    def face(self, name: str):
        daemon = getattr(self, name)
        return daemon.session.referee.moment(daemon.loop.time()).absent

    async def move(self, mover: str, put: bool = True) -> None:
        """The next legal move made on `mover`'s board; put on the other board when `put`."""
        ref = self.reference
        move = sorted(ref.legal_moves(), key=str)[0]
        before = ref.occupancy()
        ref.play(move)
        after = ref.occupancy()
        here = getattr(self, mover)
        make_physically(here, before, after, move)
        n = len(ref.moves)
        await until(lambda: len(here.session.referee.state.moves) == n, what=f"{move} made")
        if put:
            await self.put(mover, before, after)

    async def put(self, mover: str, before: dict, after: dict) -> None:
        other = self.b if mover == "a" else self.a
        n = len(self.reference.moves)
        await until(lambda: len(other.session.referee.state.moves) == n,
                    what="the move through the broker")
        make_physically(other, before, after, None)
        await until(lambda: not other.session.referee.corrections, what="the move put")


def run(tmp_path, broker, scenario, cut: bool = False) -> None:
    """`scenario(boards)` with both boards online; `cut`: board b's network through a LinkCut
    (boards.cut)."""
    async def main():
        relay = LinkCut(broker.port) if cut else None
        if relay is not None:
            await relay.mend()
        boards = Boards(tmp_path, broker, relay)
        try:
            await until(lambda: boards.a.remote is not None and boards.b.remote is not None)
            await until(lambda: boards.a.remote.peer_online and boards.b.remote.peer_online,
                        what="both boards online")
            await scenario(boards)
        finally:
            await boards.close()

    asyncio.run(main())


async def asked(boards: Boards) -> None:
    """Board a's player is asked about board b's player, away and to move."""
    await until(lambda: not boards.a.remote.peer_online, what="a to see b gone (its will)")
    await until(lambda: (f := boards.face("a")) is not None and f.asked, 20,
                "a's player asked")
    assert boards.face("a").choices == CHOICES and not boards.face("a").hosted


@pytest.mark.timeout(180)
def test_a_pause_chosen_while_the_other_board_is_cut_off_gives_its_player_the_time_back(
        tmp_path, broker):
    async def scenario(boards: Boards):
        await boards.move("a")
        await until(lambda: boards.b.session.referee.clocks.running == 1, what="b's clock")
        await boards.cut.cut()                                    # b's network is down
        await until(lambda: boards.b.session.referee.absence.cut_off, what="b knows it")
        await asked(boards)
        boards.a.door.absent_choice("pause")
        paused = boards.left("a", 1)
        assert boards.a.session.referee.clocks.running is None
        assert absent_words("tree-planting", boards.face("a")) == (
            "player 2 is away: the clocks are paused until player 2 returns")
        # b's own clock runs on at b meanwhile (its player may be thinking there)
        await until(lambda: boards.left("b", 1) < paused - 1.0, what="b's clock running")
        sent = boards.a.remote.signer.encode(boards.a.remote.away.sent)   # (for the replay)
        loop = asyncio.get_running_loop()
        mended = loop.time()
        await boards.cut.mend()
        await until(lambda: boards.b.remote.away.heard.get("seq") == 1, 20, "b hears it")
        # the time given back: b's clock set to what a showed as it paused, running since
        # (at most since the mend); without it, it would show over a second less than that
        left, since = boards.left("b", 1), loop.time() - mended
        assert paused - since - 0.05 <= left <= paused + 0.001, (paused, left, since)
        assert absence_news_words("tree-planting", boards.face("b")) == (
            "player 1 paused the clocks while player 2 was away: the time since is given back")
        await until(lambda: boards.a.session.referee.clocks.running == 1, what="a's copy runs")
        # The same signed choice replayed, then a forgery: neither gives anything again.
        await until(lambda: boards.left("b", 1) < paused - 0.5, what="b's clock running on")
        forged = rp.Signer("not the secret", GAME, boards.b.remote.signer.epoch).encode(
            rp.away_message("claim", 99, 0, 0, 1))
        refused = boards.b.remote.refused
        await asyncio.get_running_loop().run_in_executor(
            None, publish, broker.port, [sent, forged])
        await until(lambda: boards.b.remote.refused > refused, what="the forgery refused")
        assert boards.left("b", 1) < paused - 0.5 and not boards.b.session.referee.over
        assert "bad signature" in boards.b.remote.last_refusal

    run(tmp_path, broker, scenario, cut=True)


def publish(port: int, payloads: list[bytes]) -> None:
    """Someone on the broker publishes `payloads` on the game's move topic, in order."""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        for payload in payloads:
            client.publish(rp.topics(GAME)["move"], payload, qos=1).wait_for_publish(scaled(30))
    finally:
        client.disconnect()
        client.loop_stop()


@pytest.mark.timeout(240)
def test_a_claim_is_final_once_the_away_board_hears_it_across_restarts_of_both(
        tmp_path, broker):
    async def scenario(boards: Boards):
        await boards.move("a")
        await boards.stop("b")                            # b's board is switched off
        await asked(boards)
        boards.a.door.absent_choice("claim")
        assert not boards.a.session.referee.over          # pending: b has not heard it
        assert absent_words("tree-planting", boards.face("a")) == (
            "player 2 is away: player 1 claimed the game; it ends when player 2's board hears "
            "it (a move made there meanwhile stands)")
        await boards.stop("a")                            # a restarts meanwhile: still pending
        boards.start("a")
        await until(lambda: boards.a.remote is not None, what="a again")
        assert boards.a.session.referee.absence.pending() == ("claim", 1)
        assert boards.face("a").pending == "claim"
        boards.start("b")                                 # b comes back on its journal
        await until(lambda: boards.b.remote is not None, what="b again")
        await until(lambda: boards.b.session.referee.over, 30, "b ends the game")
        await until(lambda: boards.a.session.referee.over, 30, "a ends it as b heard it")
        for daemon in (boards.a, boards.b):
            referee = daemon.session.referee
            assert referee.endings.ended == {"forfeit": 1}
            saved = daemon.session.journal.history(limit=1)[0]
            assert saved.status == "finished" and saved.summary["forfeit"] == 1
            [record] = library.export(daemon.session.journal, [saved.game_id])
            assert record.result == "B+F" and sgf.read(sgf.dumps([record])) == [record]
        assert [str(m) for m in boards.a.session.referee.state.moves] == \
            [str(m) for m in boards.b.session.referee.state.moves]

    run(tmp_path, broker, scenario)


@pytest.mark.timeout(180)
def test_a_move_made_at_the_away_board_during_the_cut_wins_over_the_claim(tmp_path, broker):
    async def scenario(boards: Boards):
        await boards.move("a")
        await boards.cut.cut()
        await asked(boards)
        boards.a.door.absent_choice("draw")
        assert boards.face("a").pending == "draw"
        before = boards.reference.occupancy()
        await boards.move("b", put=False)                 # b's player moves, cut off
        after = boards.reference.occupancy()
        await boards.cut.mend()
        await until(lambda: len(boards.a.session.referee.state.moves) == 2, 30,
                    "b's move reaches a")
        await until(lambda: boards.b.remote.away.heard.get("seq") == 1, 20, "b read the draw")
        for daemon in (boards.a, boards.b):
            assert not daemon.session.referee.over        # the move won: the game goes on
        assert boards.a.session.referee.absence.pending() is None
        assert absence_news_words("tree-planting", boards.face("a")) == (
            "player 2's board had moved meanwhile: the claim is withdrawn, the game goes on")
        await boards.put("b", before, after)
        await until(lambda: boards.a.session.referee.clocks.running == 0, what="a's clock")
        await boards.move("a")                            # and the game goes on
        assert boards.b.session.referee.state.moves == boards.a.session.referee.state.moves

    run(tmp_path, broker, scenario, cut=True)
