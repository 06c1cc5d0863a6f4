"""A seat played from a browser: the keys an invitation carries, its signed envelopes, and the
hosting board's link (remote/guest.py) fed messages by hand: a forged, replayed, oversized or
foreign message is refused, a move against the rules is answered with the reason, and only
the invited seat's moves are played. (The browser and the broker: test_seat_browser.py.)"""

from __future__ import annotations

import json

import pytest

from board_driver.config import sim_config
from board_driver.referee.tracer import Tracer
from board_driver.remote import protocol as rp
from board_driver.remote import seat as sp
from board_driver.remote.guest import GuestLink
from board_driver.remote.link import RemoteSettings

SECRET = b"kitchen-table-42"


def test_a_seat_key_is_one_seat_of_one_game_and_never_the_secret():
    keys = {sp.seat_key(SECRET, g, s) for g in ("g1", "g2") for s in (0, 1)}
    assert len(keys) == 4 and SECRET not in b"".join(keys)
    assert sp.seat_key(SECRET, "g1", 1) != sp.seat_key(b"another-secret", "g1", 1)
    link = sp.invitation("https://home.example/seat/", "wss://home.example:8081", "g1", 1,
                         sp.seat_key(SECRET, "g1", 1))
    assert SECRET.decode() not in link and sp.lobby_key(SECRET).hex() not in link
    page, fragment = link.split("#")
    assert page == "https://home.example/seat/" and "key=" in fragment   # the key: fragment only
    read = sp.read_link(link)
    assert read == {"broker": "wss://home.example:8081", "game": "g1", "seat": 1,
                    "key": sp.seat_key(SECRET, "g1", 1)}
    for bad, why in [("https://x/#game=g1&seat=1&key=zz", "64 hex"),
                     ("https://x/#game=a/b&seat=1&key=" + "0" * 64, "game id")]:
        with pytest.raises(rp.RemoteError, match=why):
            sp.read_link(bad)
    with pytest.raises(rp.RemoteError, match="ws://"):
        sp.invitation("https://x/", "mqtt://b:1883", "g1", 0, b"k" * 32)


def test_an_envelope_refuses_what_was_altered_or_signed_with_another_key():
    key = sp.seat_key(SECRET, "g1", 1)
    sealed = sp.seal(key, {"type": "play", "move": "h0.0"})
    assert sp.open_sealed(key, sealed) == {"type": "play", "move": "h0.0"}
    outer = json.loads(sealed)
    outer["body"] = outer["body"].replace("h0.0", "h1.1")
    for payload, why in [(json.dumps(outer).encode(), "bad signature"),
                         (sp.seal(sp.seat_key(SECRET, "g1", 0), {"type": "play"}), "bad signature"),
                         (sp.seal(sp.seat_key(SECRET, "g2", 1), {"type": "play"}), "bad signature"),
                         (b"x" * (sp.MAX_SEAT_MESSAGE + 1), "over"),
                         (b"[" * 4000, "not a signed envelope"),
                         (b"\xff\xfe", "not a signed envelope")]:
        with pytest.raises(rp.RemoteError, match=why):
            sp.open_sealed(key, payload)


def test_a_lobby_member_unwraps_an_offers_seat_key_and_no_one_else():
    key = sp.seat_key(SECRET, "g1", 1)
    wrapped = sp.wrap(key, sp.lobby_key(SECRET), "g1", 1)
    assert wrapped != key.hex()
    assert sp.unwrap(wrapped, sp.lobby_key(SECRET), "g1", 1) == key
    assert sp.unwrap(wrapped, sp.lobby_key(b"another-family"), "g1", 1) != key
    assert sp.unwrap(wrapped, sp.lobby_key(SECRET), "g2", 1) != key


@pytest.fixture
def host(tmp_path):
    """A board hosting game g1 in the sim's tracer: it plays seat 0, a browser seat 1."""
    tracer = Tracer(sim_config(journal=str(tmp_path / "j.sqlite")))
    tracer.referee.set_seats(("human", "remote"))
    settings = RemoteSettings(host="h", port=1, tls=False, game_id="g1", secret=SECRET, seat=1,
                              state_dir=str(tmp_path), guest=True)
    link = GuestLink(settings, tracer.referee, tracer.clock)
    link.view_of = lambda: {"moves": [str(m) for m in tracer.referee.state.moves]}
    yield tracer, link
    tracer.close()


def _sent(link) -> list[tuple[str, bytes]]:
    out = []
    while not link._outbox.empty():
        topic, payload, _ = link._outbox.get_nowait()
        out.append((topic, payload))
    return out


def _answers(link, key) -> list[dict]:
    return [sp.open_sealed(key, p, sp.MAX_VIEW) for t, p in _sent(link) if t.endswith("/answer")]


def _play(link, key, move, index, *, epoch=None, seat=1, game="g1", pid="00000000aa"):
    body = {"type": "play", "game_id": game, "seat": seat, "epoch": epoch or link.nonce,
            "index": index, "move": move, "id": pid}
    link.handle(sp.seat_topic("g1", 1, "play"), sp.seal(key, body))


def test_the_host_plays_the_invited_seats_move_and_refuses_the_rest_with_a_reason(host):
    tracer, link = host
    key = sp.seat_key(SECRET, "g1", 1)
    tracer.step("place", ["h0.0"])                        # the board's own move (seat 0)
    assert [m for m in map(str, tracer.referee.state.moves)] == ["h0.0"]
    _sent(link)
    _play(link, key, "v9.9", 1, pid="0000000001")          # not a move
    (answer,) = _answers(link, key)
    assert not answer["ok"] and answer["reason"] and len(tracer.referee.state.moves) == 1
    _play(link, key, "v0.0", 0, pid="0000000002")          # proposed after a position gone by
    (answer,) = _answers(link, key)
    assert "moved on" in answer["reason"]
    _play(link, key, "v0.0", 1, epoch="0123456789abcdef", pid="0000000003")   # another playing
    (answer,) = _answers(link, key)
    assert "earlier playing" in answer["reason"]
    _play(link, key, "v0.0", 1, pid="0000000004")          # a move: played, lit to be put
    (answer,) = _answers(link, key)
    assert answer["ok"] and [str(m) for m in tracer.referee.state.moves] == ["h0.0", "v0.0"]
    assert tracer.referee.moment(tracer.clock()).to_make_by == "remote"
    _play(link, key, "v0.0", 1, pid="0000000004")          # delivered again: answered once
    assert _answers(link, key) == [] and len(tracer.referee.state.moves) == 2
    # Seat 0 is the board's: a proposal with seat 0's key, or for seat 0, is refused unread.
    refused = link.refused
    _play(link, sp.seat_key(SECRET, "g1", 0), "h1.1", 2, pid="0000000005")
    _play(link, key, "h1.1", 2, seat=0, pid="0000000006")
    _play(link, sp.seat_key(SECRET, "g2", 1), "h1.1", 2, game="g2", pid="0000000007")
    link.handle(sp.seat_topic("g1", 1, "play"), b"{" * 5000)
    assert link.refused == refused + 4 and _answers(link, key) == []
    assert len(tracer.referee.state.moves) == 2


def test_the_browsers_presence_is_its_own_signed_and_said(host):
    tracer, link = host
    key = sp.seat_key(SECRET, "g1", 1)
    link._client = object()     # (as if connected)
    topic = sp.seat_topic("g1", 1, "presence")
    link.handle(topic, sp.seal(sp.seat_key(SECRET, "g1", 0),
                               {"type": "presence", "game_id": "g1", "seat": 1, "online": True}))
    assert not link.peer_online and link.status == "waiting for the player in the browser"
    link.handle(topic, sp.seal(key, {"type": "presence", "game_id": "g1", "seat": 1,
                                     "online": True}))
    assert link.peer_online and link.status == "connected"
    link.handle(topic, sp.seal(key, {"type": "presence", "game_id": "g1", "seat": 1,
                                     "online": False}))
    assert not link.peer_online and link.summary()["status"].startswith("waiting")
    # The board's own presence carries the seat's signature, which the browser checks.
    msg = json.loads(link._presence(True))
    assert msg["seat_sig"] == sp.presence_sig(key, "g1", 0, True, link.nonce)
    rp.Signer(SECRET, "g1").decode(link._presence(True))   # and a board reads it as before


def test_the_view_is_published_signed_when_it_changes_and_bounded(host):
    tracer, link = host
    key = sp.seat_key(SECRET, "g1", 1)
    _sent(link)
    tracer.step("place", ["h0.0"])
    views = [sp.open_sealed(key, p, sp.MAX_VIEW) for t, p in _sent(link) if t.endswith("/view")]
    assert views and views[-1]["index"] == 1 and views[-1]["moves"] == ["h0.0"]
    assert views[-1]["epoch"] == link.nonce and views[-1]["seat"] == 1
    link.publish_view()
    assert [t for t, _ in _sent(link) if t.endswith("/view")] == []   # unchanged: not again
    for i in range(2000):   # a flood of (signed) proposals: answers bounded by the outbox
        _play(link, key, "x", 1, pid=f"{i:010x}")
    assert link._outbox.qsize() <= 256 and len(link._seen) <= 64


def test_the_config_and_the_sim_say_a_seat_is_a_browsers(tmp_path):
    from board_driver.config import ConfigError, parse_config
    from board_driver.remote.link import settings_from_config

    table = {"broker": "mqtt://127.0.0.1:1883", "game": "g1", "secret": "kitchen-table-42",
             "guest": True, "page": "https://home.example/seat/", "ws_broker": "wss://h:8081"}
    cfg = parse_config({"players": ["human", "remote"], "remote": dict(table),
                        "journal": str(tmp_path / "j.sqlite")})
    s = settings_from_config(cfg)
    assert (s.guest, s.seat, s.page, s.ws_broker, s.offer) == (True, 1, table["page"],
                                                                table["ws_broker"], False)
    with pytest.raises(ConfigError, match="remote.guest"):
        parse_config({"players": ["human", "remote"], "remote": dict(table, guest="yes")})
    watching = parse_config({"players": ["remote", "remote"], "remote": dict(table)})
    with pytest.raises(ConfigError, match="remote.guest"):
        settings_from_config(watching)


def test_invite_and_seat_page_on_the_command_line(tmp_path, monkeypatch, capsys):
    from board_driver.cli import main

    monkeypatch.setenv("TREEBOARD_REMOTE_SECRET", SECRET.decode())
    assert main(["invite", "--page", "https://h/seat/", "--broker", "wss://h:8081", "--game",
                 "g1", "--seat", "1"]) == 0
    link = capsys.readouterr().out.strip()
    assert sp.read_link(link)["key"] == sp.seat_key(SECRET, "g1", 1)
    login = tmp_path / "login"
    login.write_text("guest:pw\n")
    login.chmod(0o600)
    assert main(["invite", "--lobby", "--page", "https://h/seat/", "--broker", "wss://h:8081",
                 "--login", str(login), "--qr", str(tmp_path / "qr.svg")]) == 0
    lobby = sp.read_link(capsys.readouterr().out.strip())
    assert lobby["key"] == sp.lobby_key(SECRET) and lobby["user"] == "guest"
    assert "<svg" in (tmp_path / "qr.svg").read_text()
    for args, why in [(["--broker", "mqtt://h:1883", "--game", "g1", "--seat", "1"], "ws://"),
                      (["--broker", "wss://h:1", "--game", "g 1", "--seat", "1"], "game id"),
                      (["--broker", "wss://h:1", "--seat", "1"], "--game ID and --seat N")]:
        assert main(["invite", "--page", "https://h/seat/", *args]) == 2
        assert why in capsys.readouterr().err
    monkeypatch.delenv("TREEBOARD_REMOTE_SECRET")
    assert main(["invite", "--page", "https://h/", "--broker", "wss://h:1", "--game", "g1",
                 "--seat", "0"]) == 2
    assert "shared secret" in capsys.readouterr().err
    out = tmp_path / "site"
    assert main(["seat-page", "--out", str(out)]) == 0
    for name in ("index.html", "seat.js", "entry.js", "vendor/mqtt.min.js",
                 "vendor/mqtt.LICENSE.md", "vendor/noble_hashes/hmac.js",
                 "vendor/noble_hashes/LICENSE", "vendor/VERSIONS.md"):
        assert (out / name).is_file(), name
    assert main(["seat-page", "--out", str(out)]) == 2      # not over a page already there
    assert "not overwriting" in capsys.readouterr().err


def test_a_takeback_with_no_one_in_the_browser_is_refused_with_a_reason_not_sent(host):
    import games

    tracer, link = host
    tracer.step("place", ["h0.0"])
    _sent(link)
    with pytest.raises(games.IllegalMove, match="the player in the browser is away"):
        link.request_takeback()
    assert _sent(link) == []   # (asked and answered both ways: test_guest_takeback.py)
