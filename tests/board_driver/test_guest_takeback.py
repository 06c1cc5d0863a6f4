"""Takebacks in a game with a seat in a browser (remote/takeback.py), the hosting board's side
fed signed messages by hand: the people at the board ask and the browser answers; the browser
asks and the people at the board answer; refused, lapsed, away, moved on: said and nothing
changes; a forged, replayed or other seat's message is refused. (The browser and the broker:
test_seat_browser.py's takeback test.)"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import games
from board_driver.remote import seat as sp
from board_driver.remote.takeback import TAKEBACK_S, before_last_of
from board_driver.views.narrate import Narrator
from tests.board_driver.test_remote_seat import SECRET, _play, _sent, host  # noqa: F401

KEY = sp.seat_key(SECRET, "g1", 1)


def moves(tracer) -> list[str]:
    return [str(m) for m in tracer.referee.state.moves]


def here(link, online=True) -> None:
    link._client = object()    # (as if connected)
    link.handle(sp.seat_topic("g1", 1, "presence"),
                sp.seal(KEY, {"type": "presence", "game_id": "g1", "seat": 1, "online": online}))


def play_three(tracer, link) -> None:
    """The board h0.0, the browser v0.0 (put down at the board), the board h1.0."""
    tracer.step("place", ["h0.0"])
    _play(link, KEY, "v0.0", 1, pid="00000000b1")
    tracer.step("place", ["v0.0"])
    tracer.step("place", ["h1.0"])
    assert moves(tracer) == ["h0.0", "v0.0", "h1.0"]


def views(link, key=KEY) -> list[dict]:
    return [sp.open_sealed(key, p, sp.MAX_VIEW) for t, p in _sent(link) if t.endswith("/view")]


def sent(link) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {"view": [], "answer": []}
    for topic, payload in _sent(link):
        kind = topic.rsplit("/", 1)[1]
        if kind in out:
            out[kind].append(sp.open_sealed(KEY, payload, sp.MAX_VIEW))
    return out


def answer(link, view, accept, *, key=KEY, mid="00000000c1", seat=1, ask=None, index=None):
    asked = view["takeback"]["asked"]
    body = {"type": "takeback-answer", "game_id": "g1", "seat": seat, "epoch": view["epoch"],
            "index": asked["index"] if index is None else index,
            "ask": ask or asked["ask"], "id": mid, "accept": accept}
    link.handle(sp.seat_topic("g1", 1, "takeback"), sp.seal(key, body))


def ask(link, index, *, key=KEY, mid="00000000d1", epoch=None, seat=1):
    body = {"type": "takeback", "game_id": "g1", "seat": seat, "epoch": epoch or link.nonce,
            "index": index, "id": mid}
    link.handle(sp.seat_topic("g1", 1, "takeback"), sp.seal(key, body))


def test_the_last_move_of_a_seat_is_found_behind_the_reply():
    state = games.get_game("tree-planting").new_state()
    for text in ("h0.0", "v0.0", "h1.0"):
        state.play(state.parse_move(text))
    assert before_last_of(state, 0) == 2 and before_last_of(state, 1) == 1
    assert before_last_of(games.get_game("tree-planting").new_state(), 0) is None


def test_the_board_asks_the_browser_which_accepts_with_its_seat_key(host):
    tracer, link = host
    link.view_of = lambda: {"moves": moves(tracer)}
    play_three(tracer, link)
    # Away: said at once, nothing sent.
    _sent(link)
    with pytest.raises(games.IllegalMove, match="is away"):
        link.request_takeback()
    assert _sent(link) == []
    here(link)
    _sent(link)
    tracer.door.host = SimpleNamespace(remote=link)     # the sim's `takeback`, the page's
    assert tracer.door.takeback() == "asked the player in the browser to take back move 3"
    (view,) = sent(link)["view"]
    assert view["takeback"]["asked"]["index"] == 2 and "move 3" in \
        view["takeback"]["asked"]["text"] and not view["takeback"]["may_ask"]
    assert link.summary()["asked_to"] == 2
    with pytest.raises(games.IllegalMove, match="asked already"):
        link.request_takeback()
    # Forged: another seat's key, another position, another request: refused, nothing changes.
    refused = link.refused
    answer(link, view, True, key=sp.seat_key(SECRET, "g1", 0), mid="00000000c0")
    answer(link, view, True, index=1, mid="00000000c2")
    answer(link, view, True, ask="0123456789abcdef", mid="00000000c3")
    answer(link, view, True, seat=0, mid="00000000c4")
    assert link.refused == refused + 4 and moves(tracer) == ["h0.0", "v0.0", "h1.0"]
    # Accepted: taken back, counted, the piece lit to lift, the view without the request.
    answer(link, view, True)
    assert moves(tracer) == ["h0.0", "v0.0"] and link.takebacks == 1
    assert [(c.site, c.want) for c in tracer.moment().corrections] == [("h1.0", None)]
    latest = sent(link)["view"][-1]
    assert latest["takeback"]["asked"] is None and "accepted" in latest["takeback"]["said"][1]
    assert link.summary()["asked_to"] is None
    # Replayed: the same answer (its id), or a copy with a new id: nothing more taken back.
    answer(link, view, True)
    answer(link, view, True, mid="00000000c5")
    assert moves(tracer) == ["h0.0", "v0.0"] and link.takebacks == 1
    assert link.refused == refused + 5


def test_the_browser_refuses_or_lets_it_lapse_and_nothing_changes(host):
    tracer, link = host
    play_three(tracer, link)
    here(link)
    link.request_takeback()
    (view,) = [v for v in views(link) if v["takeback"]["asked"]]
    answer(link, view, False)
    assert moves(tracer) == ["h0.0", "v0.0", "h1.0"] and link.takebacks == 0
    said = link.summary()["takeback_said"]
    assert said[1] == "the player in the browser refused the takeback: nothing changed"
    # Said by the board's voice once (the narrator), as the page shows it.
    narrator = Narrator()
    assert [s.text for s in narrator.link(link.summary())][-1] == said[1]
    assert narrator.link(link.summary()) == []
    # Not answered in time.
    link.request_takeback()
    tracer.step("wait", [str(int(TAKEBACK_S * 1000) + 10)])
    link.takeback_part.lapse(tracer.clock())
    assert "did not answer" in link.summary()["takeback_said"][1] and link.summary()["asked_to"] is None
    # Gone away while asked.
    link.request_takeback()
    here(link, online=False)
    assert "went away" in link.summary()["takeback_said"][1]
    assert moves(tracer) == ["h0.0", "v0.0", "h1.0"] and link.takebacks == 0


def test_the_browser_asks_and_the_people_at_the_board_answer(host):
    tracer, link = host
    here(link)
    tracer.step("place", ["h0.0"])
    _play(link, KEY, "v0.0", 1, pid="00000000b1")
    tracer.step("place", ["v0.0"])
    _sent(link)
    # Refused unread or with a reason: another seat's key, another playing, a position gone by.
    refused = link.refused
    ask(link, 2, key=sp.seat_key(SECRET, "g1", 0), mid="00000000e0")
    assert link.refused == refused + 1 and link.summary()["request"] is None
    ask(link, 2, epoch="0123456789abcdef", mid="00000000e1")
    ask(link, 1, mid="00000000e2")
    reasons = [a["reason"] for a in sent(link)["answer"]]
    assert "earlier playing" in reasons[0] and "moved on" in reasons[1]
    # Its own last move: the people at the board are asked (the page, the voice, the sim).
    ask(link, 2)
    assert link.summary()["request"] == 1
    said = [s.text for s in Narrator().link(link.summary())]
    assert "the player in the browser asks to take back move 2: accept or refuse" in said
    (view,) = sent(link)["view"]
    assert "waiting for the board" in view["takeback"]["asking"]
    ask(link, 2)                                   # delivered twice: counted once
    assert sent(link)["answer"] == []
    tracer.door.host = SimpleNamespace(remote=link)
    tracer.door.answer_takeback(True)              # the sim's `accept`, the page's button
    assert moves(tracer) == ["h0.0"] and link.takebacks == 1
    (ok,) = sent(link)["answer"]
    assert ok["ok"] and ok["id"] == "00000000d1" and link.summary()["request"] is None
    with pytest.raises(games.IllegalMove, match="has not asked"):
        tracer.door.answer_takeback(True)


def test_the_browsers_request_after_the_boards_reply_goes_back_before_its_move_or_is_refused(
        host):
    tracer, link = host
    here(link)
    play_three(tracer, link)
    _sent(link)
    ask(link, 3)
    assert link.summary()["request"] == 1       # its move and the board's reply after it
    link.answer_takeback(False)
    (no,) = sent(link)["answer"]
    assert not no["ok"] and no["reason"] == "the board refused the takeback: nothing changed"
    assert moves(tracer) == ["h0.0", "v0.0", "h1.0"]
    # Asked, then not answered in time: answered as such.
    ask(link, 3, mid="00000000d2")
    tracer.step("wait", [str(int(TAKEBACK_S * 1000) + 10)])
    link.takeback_part.lapse(tracer.clock())
    (lapsed,) = sent(link)["answer"]
    assert not lapsed["ok"] and "in time" in lapsed["reason"]
    # Asked, then the game moves on (the browser plays instead): the request lapses.
    ask(link, 3, mid="00000000d3")
    _play(link, KEY, "v1.0", 3, pid="00000000b2")
    answers = sent(link)["answer"]
    assert [a["ok"] for a in answers] == [False, True] and "moved on" in answers[0]["reason"]
    assert link.summary()["request"] is None and link.takebacks == 0
    assert moves(tracer) == ["h0.0", "v0.0", "h1.0", "v1.0"]


def test_lifting_the_boards_last_piece_asks_the_browser(host):
    tracer, link = host
    play_three(tracer, link)
    # Away: lifting takes nothing back, says why; the piece is to be put back.
    tracer.step("lift", ["h1.0"])
    assert "not taken back: the player in the browser is away" in \
        link.summary()["takeback_said"][1]
    assert moves(tracer) == ["h0.0", "v0.0", "h1.0"] and link.summary()["asked_to"] is None
    assert [(c.site, c.want) for c in tracer.moment().corrections] == [("h1.0", "rod")]
    tracer.step("place", ["h1.0"])
    here(link)
    _sent(link)
    # Here: lifted, asked once (however long it stays lifted), and accepted: the board agrees.
    tracer.step("lift", ["h1.0"])
    assert link.summary()["asked_to"] == 2
    assert link.summary()["takeback_said"][1] == \
        "asked the player in the browser to take back move 3: wait for the answer, or put it back"
    tracer.step("wait", ["500"])
    (view,) = [v for v in views(link) if v["takeback"]["asked"]][-1:]
    answer(link, view, True)
    assert moves(tracer) == ["h0.0", "v0.0"] and tracer.moment().corrections == ()
    # The browser's own move lifted: not the board's to take back by lifting; corrected.
    tracer.step("lift", ["v0.0"])
    assert link.summary()["asked_to"] is None and moves(tracer) == ["h0.0", "v0.0"]


def from_the_other_side(link, guest: bool, move: str | None) -> None:
    """Seat 0's side (a browser, or another board) is here and plays `move`; or (None) asks
    for it back."""
    from board_driver.remote import protocol as rp

    if guest:
        said = [("takeback", {"type": "takeback", "epoch": link.nonce, "index": 1,
                              "id": "00000000d1"})] if move is None else [
            ("presence", {"type": "presence", "online": True}),
            ("play", {"type": "play", "epoch": link.nonce, "index": 0, "move": move,
                      "id": "00000000b1"})]
        for what, body in said:
            link.handle(sp.seat_topic("g1", 0, what),
                        sp.seal(sp.seat_key(SECRET, "g1", 0), dict(body, game_id="g1", seat=0)))
    elif move is None:
        link.handle(rp.topics("g1")["takeback"],
                    link.signer.encode(rp.takeback_message(0, 0, 0)))
    else:
        link.handle(rp.presence_topic("g1", 0), rp.Signer(SECRET, "g1").encode(
            rp.presence_message(0, True, "fedcba9876543210")))
        after = link.referee.state.copy()
        after.play(after.parse_move(move))
        link.handle(rp.topics("g1")["move"], link.signer.encode(rp.move_message(after, 0, 0)))


@pytest.mark.parametrize("other", ["browser", "board"])
def test_the_game_menu_on_the_board_answers_the_other_sides_request(tmp_path, other):
    """The on-board way: the game menu (a touch board: both corners at once) offers accept and
    refuse while a browser's (or another board's) request waits; applied, the link answers it
    after the board's decision (daemon/remote_part.py's wiring, as the daemon makes it)."""
    from board_driver.config import sim_config
    from board_driver.daemon.remote_part import answered_on_the_board
    from board_driver.referee.tracer import Tracer
    from board_driver.remote import protocol as rp
    from board_driver.remote.guest import GuestLink
    from board_driver.remote.link import RemoteLink, RemoteSettings
    from tests.board_driver.test_menu import site_of

    t = Tracer(sim_config(layout="game-for-the-trees-matrix", journal=str(tmp_path / "j.sqlite")))
    try:
        t.referee.set_seats(("remote", "human"))        # seat 0 plays elsewhere, first
        guest = other == "browser"
        link = (GuestLink if guest else RemoteLink)(RemoteSettings(
            host="h", port=1, tls=False, game_id="g1", secret=SECRET, seat=0,
            state_dir=str(tmp_path), guest=guest), t.referee, t.clock)
        soon: list = []
        answered_on_the_board(t.referee, lambda: link, lambda fn, *a: soon.append((fn, a)))
        first, last = t.referee.menu.corners

        def corners():
            t.step("place", [first])
            opened = t.step("place", [last])        # both corners touched at once
            t.step("lift", [first])
            t.step("lift", [last])
            return opened

        move = str(t.referee.state.legal_moves()[0])
        from_the_other_side(link, guest, move)
        assert moves(t) == [move]
        # With no request waiting, the game menu has no takeback to answer.
        assert "menu" in corners()
        assert "accept-takeback" not in [c.value for c in t.referee.menu.sites.values()]
        corners()                                   # (both corners again: leave it)
        assert not t.referee.menu.open
        from_the_other_side(link, guest, None)
        assert link.takeback_request == 0
        assert "menu" in corners()
        for site in (site_of(t, "ending", "accept-takeback"), site_of(t, "apply")):
            t.step("place", [site])
            t.step("lift", [site])
        assert not t.referee.menu.open and moves(t) == [move] and len(soon) == 1
        _sent(link)
        for fn, args in soon:                       # the loop's next turn
            fn(*args)
        assert moves(t) == [] and link.takebacks == 1 and link.takeback_request is None
        if guest:
            (ok,) = [sp.open_sealed(sp.seat_key(SECRET, "g1", 0), p)
                     for topic, p in _sent(link) if topic.endswith("/answer")]
            assert ok["ok"] and ok["id"] == "00000000d1"
        else:
            (ok,) = [link.signer.decode(p) for topic, p in _sent(link)
                     if topic == rp.topics("g1")["takeback"]]
            assert ok["accept"] is True and ok["type"] == "takeback-answer"
    finally:
        t.close()


def test_the_takeback_words_are_the_boards_language(host):
    """Said through the catalogs: the browser's view, the board's voice and its refusals in
    the board's language (zh here), as daemon/guest_view.py words them."""
    from board_driver.daemon.guest_view import page_words, words
    from board_driver.views.words import speaking

    tracer, link = host
    link.words = words
    play_three(tracer, link)
    with speaking("zh"):
        with pytest.raises(games.IllegalMove) as refused:
            link.request_takeback()
        assert words(refused.value.reason) == \
            "浏览器里的棋手不在线：现在没有人能回应悔棋；什么都没有改变"
        here(link)
        link.request_takeback()
        (view,) = [v for v in views(link) if v["takeback"]["asked"]][-1:]
        assert view["takeback"]["asked"]["text"] == "棋盘请求悔回第 3 步：同意或拒绝"
        answer(link, view, False)
        summary = link.summary()
        assert summary["takeback_said"][1] == "浏览器里的棋手拒绝了悔棋：什么都没有改变"
        ask(link, 3)
        said = [s.text for s in Narrator().link(link.summary())]
        assert "浏览器里的棋手请求悔回第 2 步：accept 同意或 refuse 拒绝" in said
        assert page_words()["ask_takeback"] == "悔回我的上一步"
