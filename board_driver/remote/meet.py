"""Two boards meeting in the family's lobby (docs/remote.md, "The lobby").

A board that hosts a game offers its open seat in the lobby (remote/lobby.py). Whoever comes
first takes it: a browser with the lobby link (it unwraps the seat key: a guest), or another
board of the family. A board needs no link: it holds the family secret, from which it makes the
lobby's id and key itself, reads the offers (`read_offers`), and takes one by joining its game
id as a remote **board** (the daemon's RemotePart.take), on the offer's seat, with the offer's
game, options and clock. No game id is agreed out of band: the offer names it.

The host knows a board took its offer from that board's presence on the game's `presence/<open
seat>` topic, signed with the game's key (`HMAC(secret, "treeboard remote <game>")`): only a
holder of the family secret can make it, so a lobby link (the lobby key, never the secret)
cannot pass for a board. The host then withdraws the offer and plays the game board-to-board
(`board_took`: its daemon replaces the browser's link by a RemoteLink), which both boards keep
across restarts as a game joined (link.save_join).

Two boards may take one offer at the same moment; the broker keeps the presence of the last,
but the host met the first it read (`board_took`). A board's presence names it (`board`: a
digest of its board name, the same across its restarts), and the host's presence, once it
plays board to board, names the board it met (`met`): that board plays (and says its presence
again, over the other's), the other leaves at once ("another board took GAME first"), and the
host hears no board but the one it met (`not_to_play`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
import ssl
from dataclasses import dataclass, field
from typing import Any

from board_driver.remote import protocol as rp
from board_driver.remote import seat as sp

log = logging.getLogger("treeboard.remote")

#: Reading the lobby: the retained offers come at once after the subscription; the list is
#: read until the broker has been quiet this long (or LISTEN_S in all). A person's command,
#: not a protocol step: a late offer is in the next listing.
QUIET_S = 0.4
LISTEN_S = 4.0
#: At most this many offers are kept from one listing (a flood of forged ones is refused
#: anyway; this bounds the memory of valid ones).
MAX_OFFERS = 100


@dataclass(frozen=True)
class Offer:
    """One game offered in the lobby: its id, the open seat, the game, its options and clock,
    and the host's sentence for it (in the host's language)."""

    game_id: str
    seat: int
    game: str | None
    options: dict[str, Any]
    time_control: str | None
    summary: str

    def line(self) -> str:
        return f"{self.game_id}: {self.summary}"


def read_offer(lobby: bytes, topic: str, payload: bytes) -> Offer | None:
    """The offer a retained lobby message holds; None for an empty one (withdrawn). Raises
    RemoteError for one that is forged, altered or malformed."""
    if not payload:
        return None
    body = sp.open_sealed(lobby, payload)
    game_id = rp.check_game_id(str(body.get("game_id")))
    if body.get("type") != "offer" or topic.rsplit("/", 1)[1] != game_id:
        raise rp.RemoteError("not an offer of the game its topic names")
    seat = body.get("seat")
    if seat not in (0, 1) or isinstance(seat, bool):
        raise rp.RemoteError("an offer's seat is 0 or 1")
    options = body.get("game_options", {})
    control = body.get("time_control")
    if not isinstance(options, dict) or not (control is None or isinstance(control, str)):
        raise rp.RemoteError("an offer's options or clock are malformed")
    game = body.get("game")
    return Offer(game_id, seat, game if isinstance(game, str) else None, options, control,
                 str(body.get("summary", game_id))[:300])


@dataclass(frozen=True)
class Broker:
    """Where the family's lobby is: the broker and the board's login (the [remote] table
    without a game)."""

    host: str
    port: int
    tls: bool
    secret: bytes
    username: str | None = None
    password: str | None = None
    ca_file: str | None = None

    @classmethod
    def of(cls, settings: Any) -> "Broker":
        """From a RemoteSettings (or anything with its fields)."""
        return cls(settings.host, settings.port, settings.tls, settings.secret,
                   settings.username, settings.password, settings.ca_file)

    def tls_context(self) -> ssl.SSLContext | None:
        return ssl.create_default_context(cafile=self.ca_file) if self.tls else None


async def read_offers(broker: Broker) -> list[Offer]:
    """The games offered in the family's lobby now, by game id. Raises aiomqtt.MqttError
    (OSError) when the broker cannot be reached."""
    import aiomqtt

    lobby = sp.lobby_key(broker.secret)
    offers: dict[str, Offer] = {}
    async with aiomqtt.Client(broker.host, broker.port, username=broker.username,
                              password=broker.password, tls_context=broker.tls_context(),
                              identifier=f"treeboard-lobby-{secrets.token_hex(6)}") as client:
        await client.subscribe(f"{rp.PREFIX}/lobby/{sp.lobby_id(broker.secret)}/offer/+", qos=1)
        loop = asyncio.get_running_loop()
        end = loop.time() + LISTEN_S
        messages = aiter(client.messages)
        while loop.time() < end:
            try:
                message = await asyncio.wait_for(anext(messages), min(QUIET_S, end - loop.time()))
            except asyncio.TimeoutError:
                break   # quiet: every retained offer has come
            topic = message.topic.value
            try:
                offer = read_offer(lobby, topic, bytes(message.payload or b""))
            except rp.RemoteError as exc:
                log.warning("the lobby: refused %s: %s", topic, exc.reason)
                continue
            game_id = topic.rsplit("/", 1)[1]
            if offer is None:
                offers.pop(game_id, None)
            elif game_id in offers or len(offers) < MAX_OFFERS:
                offers[game_id] = offer
    return sorted(offers.values(), key=lambda o: o.game_id)


def find(offers: list[Offer], game_id: str) -> Offer | None:
    return next((o for o in offers if o.game_id == game_id), None)


# --- the host's side: a board took the offer -------------------------------------------------

def board_took(link: Any, topic: str, payload: bytes) -> bool:
    """`payload` on the open seat's board presence topic: True when it is a family board
    (signed with the game's key) come to play the offered seat; the offer is then withdrawn
    and `link.met_board()` (the daemon's) turns the game into a board-to-board one."""
    if not payload or not link.offered:
        return False
    try:
        msg = link.base_signer.decode(payload)
    except rp.RemoteError as exc:
        link._refuse(topic, exc.reason)
        return False
    if msg["seat"] != link.settings.seat or not msg["online"]:
        return False
    log.info("a board took the lobby's offer of %s: playing it board to board",
             link.settings.game_id)
    link.offered = False
    link.taken_by_board = True    # a browser's (or a second board's) presence after it
    #                               changes nothing (guest.py)
    link.offer_taken.set()        # the offer goes (remote/lobby.py)
    if link.met_board is not None:
        link.met_board(msg.get("board"))   # (the only board the game is played with)
    return True


# --- the taker's side: did this board get the seat? -------------------------------------------

#: How long a board that took an offer waits for the offering board's answer (its presence as
#: a board, or as the host of a browser who took the seat first) before it gives the seat up.
TAKE_S = 30.0
#: Earlier playings' keys a link knows (the host's browser game before a board took it):
#: messages they sign, retained on the broker, are stale, not forgeries.
EARLIER = 4


@dataclass
class Meeting:
    """What a RemoteLink knows of the lobby's meeting (one per link, on its loop): the keys of
    earlier playings of its game id (the host's browser game), whose retained messages are
    stale, not forged; whether a browser or another board took the seat this board came to
    take; and, after a meeting, whether the host named this board as the one it met."""

    earlier: list = field(default_factory=list)
    #: who took the seat this board came for first: "browser" or "board" (else None)
    seat_lost: str | None = None
    #: this board's `board` in its presence (`named`), and whether the host named it as the
    #: board it met
    board: str | None = None
    chosen: bool = False


def board_id(name: str) -> str:
    """What a board's presence names it by: 16 hex digits of a digest of its board name
    (link.board_name, kept beside the journal: the same across restarts). Not the name
    itself: that is the secret part of the board's client id (no one may take its session)."""
    return hashlib.sha256(f"treeboard board {name}".encode()).hexdigest()[:16]


def named(link: Any, name: str) -> str:
    """`name`, the board's name as its link connects, kept as the `board` its presence says."""
    link.meeting.board = board_id(name)
    return name


def presence(link: Any, body: dict) -> dict:
    """A board's presence message with who it is and, after a meeting in the lobby, the board
    it met (the host's: the taker that reads another board's name there leaves)."""
    if link.meeting.board is not None:
        body["board"] = link.meeting.board
    if link.settings.met is not None:
        body["met"] = link.settings.met
    return body


def not_to_play(link: Any, msg: dict) -> bool:
    """True for a checked presence this board does not play with: its own seat's (its own,
    or a second board's that came for the same seat: then this board, if the host named it,
    says its own again, as the broker retains the last); a board hosting a browser's seat
    (`heard_guest_host`); on the host, a board other than the one it met; on a taker, a host
    that names another board as the one it met (the seat is lost to it)."""
    s, meeting = link.settings, link.meeting
    if not s.watching and msg["seat"] == s.local_seat:
        if meeting.chosen and msg["nonce"] != link.nonce:
            say_presence(link)
        return True
    if heard_guest_host(link, msg):
        return True
    if msg["seat"] != s.seat:
        return False   # (a spectator's: it reads both seats' boards)
    if s.met is not None and msg.get("board") != s.met:
        log.info("another board came for seat %d of %s: this game is played with the board "
                 "that took it first", s.seat, s.game_id)
        return True
    met = msg.get("met")
    if met is None:
        return False
    if met != meeting.board:
        if meeting.seat_lost is None:
            log.info("the seat of %s is another board's: it took the lobby's offer first",
                     s.game_id)
            meeting.seat_lost = "board"
        return True
    if not meeting.chosen:   # the host plays with this board: its presence, over any other's
        meeting.chosen = True
        say_presence(link)
    return False


def say_presence(link: Any) -> None:
    """This board's presence again (retained), through the link's outbox."""
    with contextlib.suppress(asyncio.QueueFull):   # (offline for long: said as it connects)
        link._outbox.put_nowait((link.presence_topic(), link._presence(True), True))


def heard_guest_host(link: Any, msg: dict) -> bool:
    """True for a presence that carries `seat_sig`: a board hosting a *browser's* seat
    (remote/guest.py), not a board to play with. Its nonce makes no epoch here (its messages
    are signed for the browser's game: read with it, they would be refused as bad
    signatures), but its key is remembered, so its retained state is known as stale.
    `seat_open` false: a browser took the seat this board came for."""
    if "seat_sig" not in msg:
        return False
    remember_earlier(link, msg["nonce"])
    if msg["online"] and msg.get("seat_open") is False and not link.meeting.seat_lost:
        log.info("the seat of %s is a browser's: it took the lobby's offer first",
                 link.settings.game_id)
        link.meeting.seat_lost = "browser"
    return True


def remember_earlier(link: Any, guest_nonce: str) -> None:
    """Know the key of the browser's game a board hosted under `guest_nonce` (GuestLink's
    epoch) as an earlier playing's, bounded."""
    signers = link.meeting.earlier
    if all(s.epoch != f"{guest_nonce}.guest" for s in signers):
        signers.append(rp.Signer(link.settings.secret, link.settings.game_id,
                                 f"{guest_nonce}.guest"))
        del signers[:-EARLIER]


def refuse_unless_stale(link: Any, topic: str, payload: bytes, reason: str) -> None:
    """A message that does not check with the game's keys: refused (counted, logged as a
    warning), unless it checks with an earlier playing's (the host's browser game before the
    boards met), which the broker kept retained: no attack, and nothing a forger could make
    without the family secret; ignored, at debug level."""
    for signer in link.meeting.earlier:
        try:
            signer.decode(payload)
        except rp.RemoteError:
            continue
        log.debug("ignored a message of an earlier playing of %s on %s",
                  link.settings.game_id, topic)
        return
    link._refuse(topic, reason)


async def outcome(link: Any, timeout: float = TAKE_S) -> str | None:
    """After this board took an offer: "board" once the offering board plays it with this
    board (its presence as a board), "lost to a browser" or "lost to a board" when one took the
    seat first, None when the offering board said nothing within `timeout` (gone, or a host
    that names no board it met, taken by another board)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        if link.meeting.seat_lost:
            return f"lost to a {link.meeting.seat_lost}"
        if link.peer_online and link.nonces[link.settings.seat] is not None:
            return "board"
        await asyncio.sleep(0.05)   # (a person's command, waited on a few seconds at most)
    return None
