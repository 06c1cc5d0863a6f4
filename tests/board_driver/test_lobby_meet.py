"""The lobby without a broker: an offer as a board reads it (remote/meet.py), the host's link
fed a board's presence by hand (only the family secret's signature takes the offer), the
game's own broker account, and a board with no game arranged in the config and the sim's
flags. (With the real Mosquitto: test_lobby_boards.py, test_lobby_acl.py.)"""

from __future__ import annotations

import pytest

from board_driver.config import ConfigError, parse_config, sim_config
from board_driver.referee.tracer import Tracer
from board_driver.remote import lobby, meet
from board_driver.remote import protocol as rp
from board_driver.remote import seat as sp
from board_driver.remote.guest import GuestLink
from board_driver.remote.link import RemoteSettings

SECRET = b"kitchen-table-42"
TOPIC = sp.offer_topic(sp.lobby_id(SECRET), "g1")


@pytest.fixture
def offering(tmp_path):
    """A board hosting game g1 and offering seat 1 in the lobby (in the sim's tracer)."""
    tracer = Tracer(sim_config(journal=str(tmp_path / "j.sqlite")))
    tracer.referee.set_seats(("human", "remote"))
    settings = RemoteSettings(host="h", port=1, tls=False, game_id="g1", secret=SECRET, seat=1,
                              state_dir=str(tmp_path), guest=True, offer=True, game_login=True)
    link = GuestLink(settings, tracer.referee, tracer.clock)
    met = []
    link.met_board = lambda board: met.append(board or True)
    yield link, met
    tracer.close()


def test_a_board_reads_the_offer_a_host_makes(offering):
    link, _ = offering
    payload = sp.seal(sp.lobby_key(SECRET), lobby.offer_body(link, {"summary": "a game"}))
    offer = meet.read_offer(sp.lobby_key(SECRET), TOPIC, payload)
    assert (offer.game_id, offer.seat, offer.game, offer.time_control, offer.summary) == (
        "g1", 1, "tree-planting", None, "a game")
    assert offer.options == link.referee.state.options()
    # The game's own account, wrapped for lobby members under its own pad.
    body = sp.open_sealed(sp.lobby_key(SECRET), payload)
    password = sp.unwrap(body["login"], sp.lobby_key(SECRET), "g1", 1, "login").decode()
    assert ("g1/seat/1", password) == sp.game_login(SECRET, "g1", 1)
    assert body["login"] != sp.wrap(password.encode(), sp.lobby_key(SECRET), "g1", 1)
    assert meet.read_offer(sp.lobby_key(SECRET), TOPIC, b"") is None   # withdrawn
    # Another family's lobby key, an offer under another game's topic, a malformed one.
    with pytest.raises(rp.RemoteError, match="bad signature"):
        meet.read_offer(sp.lobby_key(b"another-family"), TOPIC, payload)
    with pytest.raises(rp.RemoteError, match="the game its topic names"):
        meet.read_offer(sp.lobby_key(SECRET), TOPIC.replace("/g1", "/g2"), payload)
    bad = sp.seal(sp.lobby_key(SECRET), {"type": "offer", "game_id": "g1", "seat": 2})
    with pytest.raises(rp.RemoteError, match="seat is 0 or 1"):
        meet.read_offer(sp.lobby_key(SECRET), TOPIC, bad)


def test_only_a_board_with_the_family_secret_takes_the_offer(offering):
    link, met = offering
    presence = rp.presence_topic("g1", 1)
    assert presence in link.subscriptions
    # A lobby link's holder has the lobby key and the seat key, not the game's: refused.
    for key in (sp.lobby_key(SECRET), sp.seat_key(SECRET, "g1", 1), b"another-family"):
        forged = rp.Signer(key, "g1").encode(rp.presence_message(1, True, "ab" * 8))
        link.handle(presence, forged)
    assert link.offered and not met and link.refused == 3
    # A board's presence for the other seat, or offline: not a taking.
    board = rp.Signer(SECRET, "g1")
    link.handle(presence, board.encode(rp.presence_message(0, True, "ab" * 8)))
    link.handle(presence, board.encode(rp.presence_message(1, False, "ab" * 8)))
    assert link.offered and not met
    link.handle(presence, board.encode(rp.presence_message(1, True, "ab" * 8)))
    assert not link.offered and link.offer_taken.is_set() and met == [True]
    link.handle(presence, board.encode(rp.presence_message(1, True, "ab" * 8)))
    assert met == [True]   # (taken once)


def test_the_games_own_account_and_its_invitation(offering):
    link, _ = offering
    user, password = sp.game_login(SECRET, "g1", 1)
    assert user == "g1/seat/1" and len(password) == 24
    assert password not in (sp.game_login(SECRET, "g2", 1)[1], sp.game_login(SECRET, "g1", 0)[1])
    with pytest.raises(rp.RemoteError, match="a seat is 0 or 1"):
        sp.game_login(SECRET, "g1", 2)
    assert SECRET.decode() not in password
    link.settings.page, link.settings.ws_broker = "https://h/seat/", "wss://h:8081"
    fields = sp.read_link(link.invitation())
    assert (fields["user"], fields["pass"]) == (user, password)


def test_a_board_with_no_game_arranged_in_the_config_and_the_sim(tmp_path, monkeypatch):
    from board_driver.cli.board import _remote_options

    table = {"broker": "mqtt://127.0.0.1:1883", "secret": "kitchen-table-42"}
    cfg = parse_config({"remote": dict(table), "journal": str(tmp_path / "j.sqlite")})
    assert cfg.remote["broker"] == table["broker"] and "game" not in cfg.remote
    # A remote seat still needs its game, and a game a remote seat.
    with pytest.raises(ConfigError, match="remote.game"):
        parse_config({"players": ["human", "remote"], "remote": dict(table)})
    with pytest.raises(ConfigError, match="players"):
        parse_config({"remote": dict(table, game="g1")})

    class Args:
        remote, join, seat, watch, guest, lobby, config, journal = (
            "mqtt://127.0.0.1:1883", None, None, False, False, True, None, None)
        page = ws_broker = None
        offer = game_login = False
        secret_file = None
        players = None

    monkeypatch.setenv("TREEBOARD_REMOTE_SECRET", "kitchen-table-42")
    config = sim_config(journal=str(tmp_path / "sim.sqlite"))
    _remote_options(config, Args)
    assert config.remote["secret"] == "kitchen-table-42" and "game" not in config.remote
    assert config.journal.endswith("sim-remote-lobby.sqlite")
    Args.join, Args.seat = "g1", 0
    with pytest.raises(ConfigError, match="--lobby"):
        _remote_options(sim_config(), Args)


def test_meeting_reads_the_hosts_browser_game_as_stale_not_as_an_attack(offering, tmp_path,
                                                                        caplog):
    """The board that takes the offer reads, retained on the broker, the host's presence and
    state of its browser game (signed with that game's key): no epoch is made of them, and the
    state, replayed once the two boards' epoch is known, is ignored at debug level. A forgery
    is still refused with a warning; and a host whose presence says the seat is no longer open
    (a browser took it) tells the board it lost."""
    import logging

    from board_driver.remote.link import RemoteLink

    host, _ = offering
    taker_tracer = Tracer(sim_config(journal=str(tmp_path / "taker.sqlite")))
    try:
        taker_tracer.referee.set_seats(("remote", "human"))
        taker = RemoteLink(RemoteSettings(host="h", port=1, tls=False, game_id="g1",
                                          secret=SECRET, seat=0, state_dir=str(tmp_path),
                                          journal_stem="taker"),
                           taker_tracer.referee, taker_tracer.clock)
        old_state = host.signer.encode(rp.state_message(host.referee.state, 0, 0))
        caplog.set_level(logging.DEBUG, logger="treeboard.remote")
        taker.handle(rp.state_topic("g1", 0), old_state)       # (retained, comes first)
        taker.handle(rp.presence_topic("g1", 0), host._presence(True))
        assert taker.signer is None and not taker.peer_online and not taker.meeting.seat_lost
        # The host, now a board: a new nonce, the epoch; the held state is read and ignored.
        board = rp.Signer(SECRET, "g1")
        taker.handle(rp.presence_topic("g1", 0),
                     board.encode(rp.presence_message(0, True, "cd" * 8)))
        assert taker.signer is not None and taker.peer_online
        taker.handle(rp.state_topic("g1", 0), old_state)       # (again, as a broker may)
        assert taker.refused == 0
        assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
        assert "ignored a message of an earlier playing of g1" in caplog.text
        # A forgery (another secret) still warns, as before.
        forged = rp.Signer(b"another-family", "g1", "x").encode(
            rp.state_message(host.referee.state, 0, 0))
        taker.handle(rp.state_topic("g1", 0), forged)
        assert taker.refused == 1
        assert [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING] == [
            f"refused a message on {rp.state_topic('g1', 0)}: bad signature (another secret, "
            "another playing of this game id, or the message was altered)"]
        # A browser took the seat first: the host's presence says the seat is not open.
        host.offered = False
        taker.handle(rp.presence_topic("g1", 0), host._presence(True))
        assert taker.meeting.seat_lost
    finally:
        taker_tracer.close()


def test_invite_with_the_seats_own_account_on_the_command_line(monkeypatch, capsys):
    """`treeboard invite --game-login`: the link carries the seat's account (GAME/seat/N),
    and stderr the mosquitto_passwd line that registers it; without --seat it is refused."""
    from board_driver.cli import main

    monkeypatch.setenv("TREEBOARD_REMOTE_SECRET", SECRET.decode())
    assert main(["invite", "--page", "https://h/seat/", "--broker", "wss://h:8081", "--game",
                 "g1", "--seat", "1", "--game-login"]) == 0
    out = capsys.readouterr()
    user, password = sp.game_login(SECRET, "g1", 1)
    fields = sp.read_link(out.out.strip())
    assert (fields["user"], fields["pass"]) == (user, password) == ("g1/seat/1", password)
    assert f"mosquitto_passwd -b /etc/mosquitto/passwd g1/seat/1 {password}" in out.err
    assert main(["invite", "--page", "https://h/seat/", "--broker", "wss://h:8081", "--game",
                 "g1", "--game-login"]) == 2
    assert "with --game and --seat" in capsys.readouterr().err


def test_the_host_names_the_board_it_met_and_plays_with_no_other(tmp_path):
    """Two boards took the offer at once: the host's presence names the one it met (`met`);
    that one plays (and says its presence again over the other's), the other loses the seat
    and makes no epoch; the host reads no other board's presence on the seat."""
    from board_driver.remote.link import RemoteLink

    tracers, links = [], {}
    try:
        for name, seat in (("host", 1), ("first", 0), ("second", 0)):
            tracers.append(Tracer(sim_config(journal=str(tmp_path / f"{name}.sqlite"))))
            tracers[-1].referee.set_seats(("human", "remote") if seat else ("remote", "human"))
            link = RemoteLink(RemoteSettings(
                host="h", port=1, tls=False, game_id="g1", secret=SECRET, seat=seat,
                state_dir=str(tmp_path), journal_stem=name,
                met=meet.board_id("1" * 16) if name == "host" else None),
                tracers[-1].referee, tracers[-1].clock)
            meet.named(link, {"host": "0", "first": "1", "second": "2"}[name] * 16)
            links[name] = link
        host, first, second = links["host"], links["first"], links["second"]
        said = rp.Signer(SECRET, "g1").decode(host._presence(True))
        assert (said["met"], said["board"]) == (meet.board_id("1" * 16), meet.board_id("0" * 16))
        # The host hears the second board's presence (the one the broker retains) and ignores it.
        host.handle(rp.presence_topic("g1", 1), second._presence(True))
        assert host.nonces[1] is None and not host.peer_online and host.refused == 0
        host.handle(rp.presence_topic("g1", 1), first._presence(True))
        assert host.nonces[1] == first.nonce and host.peer_online and host.signer is not None
        # The second board reads the host's presence: not its seat; no epoch, nothing sent.
        second.handle(rp.presence_topic("g1", 0), host._presence(True))
        assert second.meeting.seat_lost == "board" and second.signer is None
        assert not second.peer_online and second._outbox.empty()
        # The first board plays, and says its presence again (over the second's on the broker).
        first.handle(rp.presence_topic("g1", 0), host._presence(True))
        assert first.peer_online and first.signer is not None and not first.meeting.seat_lost
        assert first._outbox.get_nowait()[:2] == (rp.presence_topic("g1", 1),
                                                  first._presence(True))
        first._drain()
        first.handle(rp.presence_topic("g1", 1), second._presence(False))   # (its goodbye)
        assert first._outbox.get_nowait()[0] == rp.presence_topic("g1", 1)
        # `board` and `met` are 16 hex digits, or the presence is refused.
        bad = rp.Signer(SECRET, "g1").encode(dict(rp.presence_message(0, True, "ab" * 8),
                                                  met="not a board"))
        with pytest.raises(rp.RemoteError, match="'met' of the wrong type"):
            rp.Signer(SECRET, "g1").decode(bad)
    finally:
        for tracer in tracers:
            tracer.close()
