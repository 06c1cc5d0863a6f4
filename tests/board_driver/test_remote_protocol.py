"""Remote play's protocol, without a broker: signing, and what each message means for the game."""

from __future__ import annotations

import json

import pytest

import games
from board_driver.remote import protocol as rp

SECRET = "correct horse battery"


def tp(*moves):
    state = games.get_game("tree-planting").new_state(board="2x2")
    state.play_all(moves)
    return state


EPOCH = "0123456789abcdef.fedcba9876543210"   # both boards' nonces: this playing of g1


def test_signed_messages_round_trip_and_anything_else_is_refused():
    signer = rp.Signer(SECRET, "g1", EPOCH)
    body = rp.move_message(tp("h0.0"), 0, 0)
    payload = signer.encode(body)
    assert signer.decode(payload) == dict(body, game_id="g1")

    with pytest.raises(rp.RemoteError, match="bad signature"):
        rp.Signer("another secret!", "g1").decode(payload)
    with pytest.raises(rp.RemoteError, match="bad signature"):   # same secret, other game
        rp.Signer(SECRET, "g2", EPOCH).decode(payload)
    with pytest.raises(rp.RemoteError, match="another playing of this game id"):
        rp.Signer(SECRET, "g1", "1111111111111111.fedcba9876543210").decode(payload)
    # Presence (which carries the nonces) is signed with the game's key alone, and nothing
    # else is taken under that key.
    base = rp.Signer(SECRET, "g1")
    hello = rp.presence_message(1, True, "fedcba9876543210")
    assert base.decode(base.encode(hello)) == dict(hello, game_id="g1")
    for wrong, why in [(base, body), (signer, hello)]:
        with pytest.raises(rp.RemoteError, match="signed (without|for) a"):
            wrong.decode(wrong.encode(why))
    with pytest.raises(rp.RemoteError, match="nonce is not 16 hex digits"):
        base.decode(base.encode(dict(hello, nonce="../../x")))
    assert rp.epoch_of(["0123456789abcdef", None]) is None
    assert rp.epoch_of(["0123456789abcdef", "fedcba9876543210"]) == EPOCH
    altered = json.loads(payload)
    altered["move"] = "v0.0"
    with pytest.raises(rp.RemoteError, match="bad signature"):
        signer.decode(json.dumps(altered).encode())
    for junk, why in [(b"\xff\xfe", "not JSON"), (b"[1, 2]", "not a signed object"),
                      (b"{}", "not a signed object"), (b"x" * (rp.MAX_MESSAGE + 1), "over")]:
        with pytest.raises(rp.RemoteError, match=why):
            signer.decode(junk)
    # Well signed but not one of ours: an unknown type, a missing field, an out-of-range seat.
    for bad, why in [({"type": "chat", "takebacks": 0, "seat": 0, "index": 0}, "unknown"),
                     ({"type": "move", "takebacks": 0, "seat": 0, "index": 0}, "'move' missing"),
                     (dict(body, seat=5), "out of range"), (dict(body, index=True), "wrong type")]:
        with pytest.raises(rp.RemoteError, match=why):
            signer.decode(signer.encode(bad))


def test_a_short_secret_and_a_game_id_that_is_no_topic_are_refused():
    with pytest.raises(rp.RemoteError, match="at least 8"):
        rp.Signer("short", "g1")
    for bad in ["", "a/b", "+", "#", "x" * 65]:
        with pytest.raises(rp.RemoteError, match="game id"):
            rp.Signer(SECRET, bad)


def test_the_next_move_of_the_remote_seat_is_played_and_a_duplicate_is_harmless():
    here = tp()                         # this board plays seat 1; the other board seat 0
    there = tp("h0.0")
    msg = rp.move_message(there, 0, 0)
    verdict = rp.on_move(here, 0, msg, remote_seat=0)
    assert [str(m) for m in verdict.moves] == ["h0.0"] and not verdict.refused
    here.play(verdict.moves[0])
    again = rp.on_move(here, 0, msg, remote_seat=0)
    assert again.moves == [] and not again.refused and not again.conflict


def test_a_move_for_this_boards_seat_an_illegal_move_and_a_wrong_hash_are_refused():
    here = tp("h0.0")                   # seat 1 (this board) to move
    there = tp("h0.0", "v0.0")
    verdict = rp.on_move(here, 0, rp.move_message(there, 0, 0), remote_seat=0)
    assert "this board's seat" in verdict.refused

    here = tp()
    illegal = {"type": "move", "takebacks": 0, "seat": 0, "index": 0, "move": "h9.9", "hash": "0"}
    assert "not legal" in rp.on_move(here, 0, illegal, remote_seat=0).refused
    wrong = dict(rp.move_message(tp("h0.0"), 0, 0), hash="f" * 32)
    assert "hash" in rp.on_move(here, 0, wrong, remote_seat=0).refused
    assert here.moves == []   # nothing was played by any of it


def test_a_move_ahead_of_a_gap_waits_and_the_state_fills_the_gap():
    # Seat 0 remote: moves 1 and 3 are theirs. A Tree Planting rod that closes no square passes.
    here = tp()
    there = tp("h0.0", "v0.0", "h2.0")
    early = rp.move_message(there, 0, 0)          # move 3 before move 1 arrived
    assert "before move 1" in rp.on_move(here, 0, early, remote_seat=0).refused
    # Their state holds move 2, which is this board's seat's: not theirs to make.
    verdict = rp.on_state(here, 0, rp.state_message(there, 0, 0), remote_seat=0)
    assert "this board's seat" in verdict.conflict
    # With move 2 made here, the state brings move 3 in.
    here.play_all(["h0.0", "v0.0"])
    verdict = rp.on_state(here, 0, rp.state_message(there, 0, 0), remote_seat=0)
    assert [str(m) for m in verdict.moves] == ["h2.0"]


def test_a_lagging_or_own_state_changes_nothing_and_a_diverging_one_is_a_conflict():
    here = tp("h0.0", "v0.0")
    assert rp.on_state(here, 0, rp.state_message(tp("h0.0"), 0, 0), 0).moves == []
    assert rp.on_state(here, 0, rp.state_message(tp("h0.0", "v0.0"), 0, 1), 0) == rp.Verdict()
    verdict = rp.on_state(here, 0, rp.state_message(tp("h1.0"), 0, 0), 0)
    assert "disagree from move 1" in verdict.conflict
    other = games.get_game("tree-planting").new_state(board="3x3")
    assert "plays tree-planting" in rp.on_state(here, 0, rp.state_message(other, 0, 0), 0).conflict
    other = games.get_game("treeblox").new_state()
    assert "plays treeblox" in rp.on_state(here, 0, rp.state_message(other, 0, 0), 0).conflict


def test_takebacks_only_when_asked_and_stale_messages_from_before_one_are_ignored():
    here = tp("h0.0", "v0.0")            # this board (seat 1) made v0.0 and asks to take it back
    there_after = tp("h0.0")             # the other board agreed: one takeback, one move fewer
    msg = rp.state_message(there_after, 1, 0)
    assert "did not agree" in rp.on_state(here, 0, msg, 0, asked_to=None).conflict
    verdict = rp.on_state(here, 0, msg, 0, asked_to=1)
    assert verdict.undo_to == 1 and verdict.takebacks == 1 and verdict.moves == []
    # The old state and the old move (from before the takeback) come in late: ignored.
    here.undo()
    assert rp.on_state(here, 1, rp.state_message(tp("h0.0", "v0.0"), 0, 0), 0) == rp.Verdict()
    assert rp.on_move(here, 1, rp.move_message(tp("h0.0", "v0.0"), 0, 0), 0) == rp.Verdict()
    # A move made after a takeback this board has not heard of yet waits for the state.
    assert "takeback" in rp.on_move(tp(), 0, rp.move_message(tp("h0.0"), 1, 0), 0).refused


def test_position_hash_covers_game_options_and_every_move():
    a, b = tp("h0.0"), tp("h0.0")
    assert rp.position_hash(a) == rp.position_hash(b)
    assert rp.position_hash(a) != rp.position_hash(tp("v0.0"))
    assert rp.position_hash(tp()) != rp.position_hash(
        games.get_game("tree-planting").new_state(board="3x3"))


def test_the_turn_leds_show_the_link_when_it_is_not_flowing(tracer):
    """Waiting for the other board breathes in the remote player's colour; no broker flashes the
    "wrong" colour; connected (or watching) shows whose turn it is, as ever."""
    t = tracer(players=("human", "remote"))
    ref, colours = t.referee, t.session.config.colours

    def turn(now, link):
        return ref.frame(now, link)[0]["turn"]

    assert turn(0.0, "connected") == colours["player0"]
    assert turn(0.0, "watching") == colours["player0"]
    waiting = "waiting for the other board"
    levels = {turn(x / 10, waiting) for x in range(40)}
    assert len(levels) > 5                                 # it breathes...
    assert all(max(c) <= max(colours["player1"]) for c in levels)   # ...in player 2's colour
    frame, wake = ref.frame(1.0, waiting)
    assert wake is not None                                # and keeps the board animating
    refused = "no broker: it refused this board (Not authorized)"
    flashes = [turn(x / 8, refused) for x in range(8)]
    assert colours["wrong"] in flashes and (0, 0, 0) in flashes


def test_a_finished_game_is_not_taken_back_by_either_board(tmp_path):
    """Asked after the last move, or asked before it and answered after: refused, with the
    agreed takeback count (kept on disk) unchanged on the board that would have done it."""
    import asyncio
    from types import SimpleNamespace

    from board_driver.remote.link import RemoteLink, RemoteSettings

    finished = tp()
    while not finished.is_over():
        finished.play(sorted(finished.legal_moves(), key=str)[0])
    referee = SimpleNamespace(state=finished, listeners=[], flagged=None, over=True,
                              endings=SimpleNamespace(ended=None),
                              takeback=lambda now, origin: pytest.fail("took a move back"))

    async def scenario():
        link = RemoteLink(RemoteSettings(host="h", port=1, tls=False, game_id="g1",
                                         secret=SECRET.encode(), seat=0, state_dir=str(tmp_path)),
                          referee, clock=lambda: 0.0)
        with pytest.raises(games.IllegalMove, match="game is over"):
            link.request_takeback()
        # the other board (seat 0) says it is here: the game's epoch is then known
        link.handle(rp.presence_topic("g1", 0), rp.Signer(SECRET, "g1").encode(
            rp.presence_message(0, True, "fedcba9876543210")))
        assert link.signer.epoch == f"fedcba9876543210.{link.nonce}"
        while not link._outbox.empty():  # (this board's state, republished for the epoch)
            link._outbox.get_nowait()
        asked = link.signer.encode(
            rp.takeback_message(0, 0, len(finished.moves) - 1))
        link.handle(rp.topics("g1")["takeback"], asked)
        assert link.takeback_request is None                  # refused at once...
        answer = link.signer.decode(link._outbox.get_nowait()[1])
        assert answer["type"] == "takeback-answer" and answer["accept"] is False
        link.takeback_request = len(finished.moves) - 1       # ...or asked before the end
        link.answer_takeback(True)
        assert link.takebacks == 0
        answer = link.signer.decode(link._outbox.get_nowait()[1])
        assert answer["accept"] is False
        assert not list(tmp_path.glob("*.remote-g1-*.json"))  # nothing agreed, nothing written

    asyncio.run(scenario())


def test_an_arbos_setup_is_drawn_from_the_game_id_so_both_boards_draw_the_same(tmp_path):
    """Arbos draws its setup from a seed kept with the game (reading 13): two boards joining one
    game id each start their game again with the seed drawn from the id, and agree."""
    from board_driver.config import sim_config
    from board_driver.referee.tracer import Tracer
    from board_driver.remote.link import RemoteLink, RemoteSettings

    boards = [Tracer(sim_config(layout="arbos-8x8-matrix", turn_seconds=0,
                                journal=str(tmp_path / f"j{seat}.sqlite"),
                                players=("human", "remote") if seat == 0 else ("remote", "human")))
              for seat in (0, 1)]
    try:
        states = [b.referee.state for b in boards]
        assert states[0].options()["setup_seed"] != states[1].options()["setup_seed"]
        for seat, board in enumerate(boards):
            RemoteLink(RemoteSettings(host="h", port=1, tls=False, game_id="table-7",
                                      secret=SECRET.encode(), seat=1 - seat,
                                      state_dir=str(tmp_path)), board.referee, clock=lambda: 0.0)
        a, b = (board.referee.state for board in boards)
        seed = rp.drawn_options(a, "table-7")["setup_seed"]
        assert a.options() == b.options() and a.options()["setup_seed"] == seed
        assert rp.drawn_options(a, "table-8") != rp.drawn_options(a, "table-7")
        assert rp.position_hash(a) == rp.position_hash(b) and a.drawn_cell() == b.drawn_cell()
        # a game already begun (a restart in the middle of it) is never started again
        boards[0].step("place", [a.drawn_cell()])
        begun = boards[0].referee.state
        RemoteLink(RemoteSettings(host="h", port=1, tls=False, game_id="table-8",
                                  secret=SECRET.encode(), seat=1, state_dir=str(tmp_path)),
                   boards[0].referee, clock=lambda: 0.0)
        assert boards[0].referee.state is begun and len(begun.moves) == 1
    finally:
        for board in boards:
            board.close()


def test_a_stop_that_comes_with_the_brokers_answer_still_stops_the_link(tracer, tmp_path,
                                                                        monkeypatch):
    """Python 3.11's asyncio.wait_for drops a cancellation that arrives together with the
    result it waits for (the broker's CONNACK, SUBACK or PUBACK, in aiomqtt): the link went on
    to wait for messages for ever, and the board's stop (leaving a remote game on the page, a
    shutdown) waited for the link; on a busy machine, a test hung until its timeout."""
    import asyncio

    import aiomqtt

    from board_driver.remote.link import RemoteLink, RemoteSettings
    from tests.waits import within

    class Connecting:
        """aiomqtt's Client whose connect returns as the stop arrives, the stop dropped."""
        entered = None

        def __init__(self, *args, **kwargs):
            pass

        async def __aenter__(self):
            Connecting.entered.set()
            try:
                await asyncio.Event().wait()      # the broker's CONNACK, on its way
            except asyncio.CancelledError:
                return self                       # ...arrived as the stop did: dropped

        async def __aexit__(self, *exc):
            return None

        async def subscribe(self, *args, **kwargs):
            pass

        async def publish(self, *args, **kwargs):
            pass

        @property
        def messages(self):
            async def never():
                await asyncio.Event().wait()
                yield
            return never()

    monkeypatch.setattr(aiomqtt, "Client", Connecting)
    t = tracer(players=("human", "remote"))
    settings = RemoteSettings(host="h", port=1, tls=False, game_id="g1", secret=SECRET.encode(),
                              seat=1, state_dir=str(tmp_path))

    async def scenario():
        Connecting.entered = asyncio.Event()
        link = RemoteLink(settings, t.referee, t.clock)
        task = asyncio.ensure_future(link.run())
        await within(Connecting.entered.wait(), 5, "the link to connect")
        task.cancel()
        await within(asyncio.gather(task, return_exceptions=True), 5, "the link to stop")
        assert task.cancelled()

    asyncio.run(scenario())


def test_a_choice_about_a_player_away_is_signed_checked_and_repeated_in_the_state():
    from board_driver.referee.absence import CHOICES

    assert rp.AWAY_CHOICES == CHOICES   # (the remote room keeps its own copy of the words)
    signer = rp.Signer(SECRET, "g1", EPOCH)
    body = rp.away_message("pause", 3, 0, 0, 1, clock_ms=295_000)
    assert signer.decode(signer.encode(body)) == dict(body, game_id="g1")
    for bad, why in ((dict(body, choice="forfeit"), "'choice', 'seq'"),
                     (dict(body, seq=0), "'choice', 'seq'"),
                     (dict(body, seq=True), "'seq' missing or of the wrong type"),
                     (dict(body, clock_ms=-1), "out of range"),
                     ({k: v for k, v in body.items() if k != "choice"}, "'choice' missing")):
        with pytest.raises(rp.RemoteError, match=why):
            signer.decode(signer.encode(bad))
    with pytest.raises(rp.RemoteError, match="bad signature"):
        signer.decode(rp.Signer("another secret!", "g1", EPOCH).encode(body))
    # the state repeats it, and how a claimed game ended; a state's `away` that does not hold
    # together is refused whole
    state = rp.state_message(tp("h0.0"), 0, 0, ended={"forfeit": 1}, away=body)
    got = signer.decode(signer.encode(state))
    assert got["away"] == {k: v for k, v in body.items() if k != "type"} and got["forfeit"] == 1
    with pytest.raises(rp.RemoteError, match="'away' of the wrong type"):
        signer.decode(signer.encode(dict(state, away=dict(state["away"], choice="win"))))
    with pytest.raises(rp.RemoteError, match="'drawn_away' of the wrong type"):
        signer.decode(signer.encode(dict(state, drawn_away=2)))
