"""A seat played from another board, through an MQTT broker (the protocol: docs/remote.md).

`RemoteLink` runs on the daemon's asyncio loop (aiomqtt, an asyncio client over paho-mqtt,
the reference MQTT client) and touches the referee only there. It publishes every change of
the local game and plays the other board's moves for the remote seat through
`Referee.play_for_seat`, which shows them as pieces to put. What each message means is decided
in `remote_protocol`, which is pure and tested without a broker.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import logging
import os
import re
import secrets
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlsplit

import games
from board_driver.files import write_whole
from board_driver.remote import endings as ends
from board_driver.remote.away import AwayChoices
from board_driver.remote.files import read_sidecar, write_private
from board_driver.remote import meet
from board_driver.remote import protocol as rp

log = logging.getLogger("treeboard.remote")

# What the board shows of the link (the `turn` LEDs, the page, the log).
CONNECTING = "connecting to the broker"
NO_BROKER = "no broker"
WAITING = "waiting for the other board"
CONNECTED = "connected"
WATCHING = "watching"


@dataclass
class RemoteSettings:
    host: str
    port: int
    tls: bool
    game_id: str
    secret: bytes
    seat: int | None                 # the remote seat (this board plays the other one);
    #                                  None: both are remote, and this board watches
    username: str | None = None
    password: str | None = None
    ca_file: str | None = None
    keepalive: int = 30
    state_dir: str | None = None     # where the agreed takeback count is kept (beside the journal)
    journal_stem: str = "journal"    # ... named after the journal, the game and the seat
    guest: bool = False              # the remote seat is played from a browser (remote/guest.py)
    page: str | None = None          # the seat page's URL and the broker's WebSockets URL
    ws_broker: str | None = None     # ... for the invitation the board's page shows
    offer: bool = False              # offer the browser's seat in the family's lobby
    game_login: bool = False         # the broker has this game's guest account (seat.game_login)
    met: str | None = None           # the board this one met in the lobby, the only one it
    #                                  plays with (remote/meet.py: its presence's `board`)

    @property
    def local_seat(self) -> int | None:
        return None if self.seat is None else 1 - self.seat

    @property
    def watching(self) -> bool:
        return self.seat is None


def parse_broker(url: str) -> tuple[str, int, bool]:
    """`mqtt://host[:port]` or `mqtts://host[:port]` -> (host, port, tls). Raises RemoteError."""
    parts = urlsplit(url)
    if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
        raise rp.RemoteError(f"a broker is mqtt://host[:port] or mqtts://host[:port]; got {url!r}")
    try:
        port = parts.port
    except ValueError:
        raise rp.RemoteError(f"the broker's port is not a number in {url!r}") from None
    tls = parts.scheme == "mqtts"
    return parts.hostname, port or (8883 if tls else 1883), tls


def read_private_file(path: str, what: str) -> str:
    """A secret's file: it must be readable by this user only (a password on a shared Pi must
    not be readable by every account). Raises RemoteError naming the file."""
    try:
        st = os.stat(path)
        if st.st_mode & 0o077:
            raise rp.RemoteError(f"{path}: {what} file is readable by others "
                                 f"(mode {st.st_mode & 0o777:o}); chmod 600 it")
        with open(path, "rb") as f:
            raw = f.read(64 * 1024)
    except OSError as exc:
        raise rp.RemoteError(f"{path}: cannot read the {what} file ({exc.strerror})") from None
    try:
        return raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise rp.RemoteError(f"{path}: the {what} file is not UTF-8 text") from None


def read_credentials(path: str) -> tuple[str, str]:
    """`username:password` on one line, in a file only the service user can read."""
    text = read_private_file(path, "credentials")
    user, sep, password = text.partition(":")
    if not sep or not user or "\n" in text:
        raise rp.RemoteError(f"{path}: expected one line 'username:password'")
    return user, password


class RemoteLink:
    """Keeps this board's game and the other board's in step. One per daemon, on its loop."""

    def __init__(self, settings: RemoteSettings, referee: Any, clock: Callable[[], float]):
        self.settings = settings
        self.referee = referee
        self.clock = clock
        # Presence is signed with the game's key alone; everything else with the key of the
        # game's epoch, known once both boards' nonces are (from their presence messages).
        self.base_signer = rp.Signer(settings.secret, settings.game_id)
        self.signer: rp.Signer | None = None
        self.nonces: list[str | None] = [None, None]
        self._unsigned: collections.deque[tuple[str, dict, bool]] = collections.deque(maxlen=256)
        self._held: collections.deque[tuple[str, bytes]] = collections.deque(maxlen=64)
        self.topics = rp.topics(settings.game_id)
        self.subscriptions = [self.topics[t] for t in ("move", "takeback", "state", "presence")]
        self.status = CONNECTING
        self.peer_online = False
        self.conflict: str | None = None    # set when the boards cannot agree; shown, not hidden
        self.takeback_request: int | None = None  # the other board asks to go back to N moves
        self._asked_to: int | None = None        # this board asked to go back to N moves
        self._outbox: asyncio.Queue[tuple[str, bytes, bool]] = asyncio.Queue(maxsize=256)
        self._client = None
        role = "watch" if settings.watching else f"seat{settings.local_seat}"
        self._sidecar = Path(settings.state_dir or ".") / \
            f"{settings.journal_stem}.remote-{settings.game_id}-{role}.json"
        saved = read_sidecar(self._sidecar)
        self.takebacks = saved.get("takebacks", 0)
        # This board's nonce for this playing of the game: kept while the game goes on (a
        # restart resumes it), a new one for a game that starts afresh (a reused game id is
        # then a new game: the old game's messages no longer check).
        self.nonce: str | None = None
        if not settings.watching:
            kept = saved.get("nonce")
            self.nonce = kept if kept is not None and referee.state.moves else secrets.token_hex(8)
            self.nonces[settings.local_seat] = self.nonce
        self.refused = 0
        self.last_refusal: str | None = None
        self._refusal_logged: float | None = None
        self._refusals_unlogged = 0
        self._refusals_in_window = 0
        self.after_change: Callable[[], None] | None = None  # the daemon re-lights the board
        self.meeting = meet.Meeting()   # the lobby's (remote/meet.py): stale keys, a seat lost
        draw_from_game_id(self)
        self.away = AwayChoices(self)   # the other board's player away: choices both ways
        self.away.restore()
        referee.listeners.append(self._on_local_change)

    def detach(self) -> None:
        """Stop hearing about the referee's changes (the board left the game)."""
        if self._on_local_change in self.referee.listeners:
            self.referee.listeners.remove(self._on_local_change)

    @property
    def linked(self) -> bool:
        """Whether this board is connected to the broker now (else it is cut off)."""
        return self._client is not None

    @property
    def shown_status(self) -> str:
        """What the board shows of the link (the turn LEDs, the page): a conflict first."""
        return self.conflict or self.status

    def summary(self) -> dict[str, Any]:
        """The link in words and numbers, for the page and the terminal."""
        return {"game": self.settings.game_id, "seat": self.settings.local_seat,
                "status": self.shown_status, "peer_online": self.peer_online,
                "out_of_step": self.conflict is not None,
                "asked_to": self._asked_to, "request": self.takeback_request}

    # --- the agreed takeback count survives a restart ----------------------------------------

    def _save_takebacks(self) -> None:
        data: dict[str, Any] = {"game_id": self.settings.game_id, "takebacks": self.takebacks}
        if self.nonce is not None:
            data["nonce"] = self.nonce
        write_private(self._sidecar, data)

    def _set_nonce(self, seat: int, nonce: str) -> None:
        """A board's nonce, from its presence: once both are known, the game's epoch is, and
        with it the key of every other message. A new epoch (the other board joined afresh):
        what waited is signed and sent, this board's state republished, what came early read."""
        self.nonces[seat] = nonce
        epoch = rp.epoch_of(self.nonces)
        if epoch is None or (self.signer is not None and self.signer.epoch == epoch):
            return
        self.signer = rp.Signer(self.settings.secret, self.settings.game_id, epoch)
        log.info("remote game %s: epoch %s", self.settings.game_id, epoch)
        waiting = list(self._unsigned)
        self._unsigned.clear()
        for topic, body, retain in waiting:
            self._send(topic, body, retain)
        self._publish_state()
        early = list(self._held)
        self._held.clear()
        for topic, payload in early:
            self._handle(topic, payload)

    def _take_back_to(self, count: int) -> None:
        """Take the game back to `count` moves (a takeback both boards agreed to)."""
        while len(self.referee.state.moves) > count:
            self.referee.takeback(self.clock(), "remote")

    # --- what this board publishes -----------------------------------------------------------

    def _send(self, topic: str, body: dict, retain: bool = False) -> None:
        if self.signer is None:   # the game's epoch is not known yet: signed once it is
            if retain:  # (a retained state replaces the one before it: only the last counts)
                kept = [m for m in self._unsigned if m[0] != topic]
                self._unsigned.clear()
                self._unsigned.extend(kept)
            self._unsigned.append((topic, body, retain))
            return
        try:
            self._outbox.put_nowait((topic, self.signer.encode(body), retain))
        except asyncio.QueueFull:
            # Offline for long: drop the oldest; the retained state sent on reconnecting
            # carries the whole game anyway.
            self._outbox.get_nowait()
            self._outbox.put_nowait((topic, self.signer.encode(body), retain))

    def _publish_state(self) -> None:
        if self.settings.watching:
            return   # a spectator says nothing: it only reads the boards' retained states
        state = self.referee.state
        flag = self.referee.flagged if self.referee.flagged == self.settings.local_seat else None
        self._send(rp.state_topic(self.settings.game_id, self.settings.local_seat),
                   rp.state_message(state, self.takebacks, self.settings.local_seat, flag,
                                    self.referee.endings.ended, self.away.field()), retain=True)

    def _on_local_change(self, what: str, move: Any, origin: str) -> None:
        # A referee listener, on the loop. Moves that came from the other board are not echoed
        # as moves, but the retained state always follows the game.
        if self.settings.watching:
            return
        seat = self.settings.local_seat
        if what == "move" and origin == "board":
            # (a timed game: the mover's clock as it moved; the other board takes it as is)
            clock_ms = self.referee.clocks.left_ms(self.clock())[seat]
            self._send(self.topics["move"], rp.move_message(self.referee.state, self.takebacks,
                                                            seat, clock_ms))
        elif what == "flag" and origin == "board" and move == seat:
            self._send(self.topics["move"], rp.flag_message(self.referee.state, self.takebacks,
                                                            seat))
        ends.told(self, what, move, origin)   # resigned, a draw offered or answered here
        self.away.told(what, move, origin)    # a choice about the other board's player away
        self._publish_state()

    def request_takeback(self) -> int:
        """Ask the other board to take back the last move. Returns the move count asked for."""
        state = self.referee.state
        if self.settings.watching:
            raise games.IllegalMove("takeback", "this board watches the game; it plays no seat")
        if not state.moves:
            raise games.IllegalMove("takeback", "there is no move to take back")
        if self.referee.over:
            raise games.IllegalMove("takeback", "the game is over; join a new game id to play again")
        self._asked_to = len(state.moves) - 1
        self._send(self.topics["takeback"],
                   rp.takeback_message(self.takebacks, self.settings.local_seat, self._asked_to))
        log.info("asked the other board to take back to %d moves", self._asked_to)
        return self._asked_to

    def answer_takeback(self, accept: bool) -> None:
        """This board's answer to the other board's request (a button, the page)."""
        index = self.takeback_request
        if index is None:
            raise games.IllegalMove("takeback", "the other board has not asked for a takeback")
        self.takeback_request = None
        if accept and self.referee.over:
            accept = False   # the game ended since it asked: a finished game is not taken back
        if accept:
            self.takebacks += 1
            self._save_takebacks()   # before the game changes: a cut here keeps the count ahead
            self._take_back_to(index)
        self._send(self.topics["takeback"], rp.answer_message(
            self.takebacks, self.settings.local_seat, index, accept))
        self._publish_state()
        self._changed()

    # --- what the other board sends -----------------------------------------------------------

    def handle(self, topic: str, payload: bytes) -> None:
        """One message from the broker (on the loop)."""
        self._handle(topic, payload)
        self._changed()

    def _changed(self) -> None:
        if self.after_change is not None:
            self.after_change()

    def _handle(self, topic: str, payload: bytes) -> None:
        base = self.topics["base"]
        if topic.startswith(f"{base}/presence/"):
            try:
                msg = self.base_signer.decode(payload)
            except rp.RemoteError as exc:
                self._refuse(topic, exc.reason)
                return
            if topic.rsplit("/", 1)[1] != str(msg["seat"]):
                self._refuse(topic, "a presence message under another seat's topic")
                return
            if meet.not_to_play(self, msg):   # ours; a browser's host; a board not met
                return
            if msg["seat"] == self.settings.seat:
                self.peer_online = msg["online"]
                self._update_status()
            self._set_nonce(msg["seat"], msg["nonce"])
            return
        if self.signer is None:
            self._held.append((topic, payload))   # read once the epoch is known
            return
        try:
            msg = self.signer.decode(payload)
        except rp.RemoteError as exc:   # (or an earlier playing's, retained: quiet)
            meet.refuse_unless_stale(self, topic, payload, exc.reason)
            return
        if topic.startswith(f"{base}/state/") and topic.rsplit("/", 1)[1] != str(msg["seat"]):
            self._refuse(topic, "a state message under another seat's topic")
            return
        state = self.referee.state
        kind = msg["type"]
        if self.settings.watching:
            if kind == "state":
                self._apply(rp.on_state_watching(state, self.takebacks, msg), topic)
            return   # moves and takebacks reach a spectator through the states that follow
        if kind in ("flag", "away", *ends.KINDS):   # (out of time; a choice about this board's
            # player away: remote/away.py; resigned, a draw: ends.heard)
            {"flag": self._on_flag, "away": self.away.on_message}.get(
                kind, lambda m: ends.heard(self, m))(msg)
            return
        if kind == "move":
            verdict = rp.on_move(state, self.takebacks, msg, self.settings.seat)
        elif kind == "state":
            verdict = rp.on_state(state, self.takebacks, msg, self.settings.seat, self._asked_to)
            self._apply(verdict, topic)
            self._on_flag(msg)
            ends.heard_state(self, msg)
            self.away.on_state(msg)
            return
        elif kind == "takeback":
            self._on_takeback_request(msg)
            return
        else:
            self._on_takeback_answer(msg)
            return
        self._apply(verdict, topic)

    def _apply(self, verdict: rp.Verdict, topic: str) -> None:
        if verdict.conflict:
            if self.conflict != verdict.conflict:
                log.error("remote game %s: %s", self.settings.game_id, verdict.conflict)
            self.conflict = verdict.conflict
            self._update_status()
            return
        if verdict.refused:
            self._refuse(topic, verdict.refused)
            return
        now = self.clock()
        if verdict.takebacks is not None and verdict.takebacks != self.takebacks:
            self.takebacks = verdict.takebacks
            self._save_takebacks()
            self._asked_to = None
        if verdict.undo_to is not None:
            self._take_back_to(verdict.undo_to)
        if verdict.clock_ms is not None and verdict.moves:
            # The mover's own board measured its clock: taken as it was when it moved (its
            # increment follows as the move is played here).
            self.referee.told_clock(self.settings.seat, verdict.clock_ms / 1000, now)
        for move in verdict.moves:
            self.referee.play_for_seat(move, now, "remote")
            log.info("remote move %d: %s", len(self.referee.state.moves), move)
        if self.conflict:
            self.conflict = None
            self._update_status()

    def _on_flag(self, msg: dict) -> None:
        """The other board says its seat ran out of time (a flag message, a retained state)."""
        if self.referee.over or not rp.flags(self.referee.state, self.takebacks, msg,
                                             self.settings.seat):
            return
        log.info("the other board's time ran out")
        self.referee.flag(self.settings.seat, self.clock(), origin="remote")

    def _on_takeback_request(self, msg: dict) -> None:
        if msg["seat"] != self.settings.seat:
            return  # our own request, echoed
        if (msg["takebacks"] != self.takebacks or self.referee.over
                or msg["index"] != len(self.referee.state.moves) - 1):
            self._send(self.topics["takeback"], rp.answer_message(
                self.takebacks, self.settings.local_seat, msg["index"], False))
            log.info("refused a takeback to %d moves: not the last move of a game in progress",
                     msg["index"])
            return
        self.takeback_request = msg["index"]
        log.info("the other board asks to take back move %d", msg["index"] + 1)

    def _on_takeback_answer(self, msg: dict) -> None:
        if msg["seat"] != self.settings.seat or self._asked_to != msg["index"]:
            return
        if not msg["accept"]:
            log.info("the other board refused the takeback")
            self._asked_to = None
            return
        if msg["takebacks"] == self.takebacks + 1:
            self._apply(rp.Verdict(undo_to=msg["index"], takebacks=msg["takebacks"]), "takeback")

    def _refuse(self, topic: str, reason: str) -> None:
        """A message refused: counted, kept, logged at most REFUSALS_LOGGED per REFUSAL_LOG_S,
        the next saying how many were not (a flood of forgeries must not fill the disk)."""
        self.refused += 1
        self.last_refusal = f"{topic}: {reason}"
        now = self.clock()
        if self._refusal_logged is None or now - self._refusal_logged >= REFUSAL_LOG_S:
            self._refusal_logged, self._refusals_in_window = now, 0
        if self._refusals_in_window >= REFUSALS_LOGGED:
            self._refusals_unlogged += 1
            return
        self._refusals_in_window += 1
        more = (f" ({self._refusals_unlogged} more refused and not logged before it)"
                if self._refusals_unlogged else "")
        log.warning("refused a message on %s: %s%s", topic, reason, more)
        self._refusals_unlogged = 0

    def _update_status(self) -> None:
        if self._client is None:
            return
        self.status = WATCHING if self.settings.watching else \
            CONNECTED if self.peer_online else WAITING

    # --- the connection -----------------------------------------------------------------------

    def _tls(self) -> ssl.SSLContext | None:
        if not self.settings.tls:
            return None
        return ssl.create_default_context(cafile=self.settings.ca_file)

    async def run(self) -> None:
        """Stay connected until cancelled; reconnect with back-off when the broker goes away."""
        import aiomqtt

        s = self.settings
        # A spectator is invisible: no presence, no will, and a client id of its own (so any
        # number may watch) with a clean session (nothing queued for it while away).
        presence = None if s.watching else self.presence_topic()
        # A client id of this board's own (a random name kept beside the journal): with a
        # fixed one, any client of the broker could take over the board's session and kick
        # it off. Kept, so the broker's session (the messages queued while away) is found
        # again after a restart.
        identifier = f"treeboard-{s.game_id}-" + \
            (f"watch-{secrets.token_hex(8)}" if s.watching else
             f"{s.local_seat}-{meet.named(self, board_name(s))}")
        delay = 0.5
        down = False   # a failure was logged since the link was last up
        while True:
            client = aiomqtt.Client(
                s.host, s.port, username=s.username, password=s.password,
                identifier=identifier, protocol=aiomqtt.ProtocolVersion.V5,
                clean_start=s.watching, properties=connect_properties(s.watching),
                # (bounded: a flood of small messages is dropped, not kept)
                max_queued_incoming_messages=MAX_QUEUED,
                keepalive=s.keepalive, tls_context=self._tls(),
                will=None if presence is None else
                aiomqtt.Will(presence, self._presence(False), qos=1, retain=True))
            try:
                async with _connection(client, presence and (presence, self._presence(False))):
                    await self._serve(client, presence)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # aiomqtt.MqttError, OSError, ssl.SSLError: broker away
                # Stopped meanwhile: aiomqtt's __aexit__ may put its own "Operation timed
                # out" (a disconnect that never finished) in place of the CancelledError.
                _raise_if_stopped()
                _close_abandoned_sockets(exc)
                refused = _refusal(exc)
                if self._client is not None:
                    down = False   # it was connected: its going down is news
                # One line when the link goes down, not one a retry: every 5 s for an hour
                # would scroll the sim's board away ("connected" says when it is back; the
                # status, shown on the board and the page, says what it is meanwhile).
                (log.debug if down else log.warning)(
                    "broker %s:%d: %s; retrying every few seconds", s.host, s.port,
                    refused or exc)
                down = True
            else:
                refused = None
            if self._client is not None:
                delay = 0.5   # it was connected: the broker just went, try again soon
            self._client = None
            self.status = refused or NO_BROKER
            self.peer_online = False
            self._changed()
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)

    async def _serve(self, client, presence: str | None) -> None:
        """One connection: subscribe, say we are here, publish our game, then handle messages
        until the broker goes away."""
        s = self.settings
        self._client = client
        log.info("connected to %s:%d for game %s %s", s.host, s.port, s.game_id,
                 "to watch" if s.watching else f"as seat {s.local_seat}")
        for topic in self.subscriptions:
            await client.subscribe(topic, qos=1)
        if presence is not None:
            self._save_takebacks()   # (the nonce, kept before anyone can have seen it)
            await client.publish(presence, self._presence(True), qos=1, retain=True)
        self._drain()             # what was queued offline is in the state below
        self._publish_state()
        self._update_status()
        _raise_if_stopped()       # (before waiting for messages: perhaps for ever)
        sender = asyncio.ensure_future(self._send_loop(client))
        try:
            async for message in client.messages:
                try:
                    self.handle(message.topic.value, bytes(message.payload or b""))
                except Exception:
                    # A fault in handling one message is ours, not the broker's: say so
                    # loudly, and keep the link (the game is unchanged by a failed message:
                    # the referee raises before it records).
                    log.exception("remote message on %s could not be handled",
                                  message.topic.value)
        finally:
            sender.cancel()

    def presence_topic(self) -> str:   # (its will's too; a browser's host: guest.py)
        return rp.presence_topic(self.settings.game_id, self.settings.local_seat)

    def _presence(self, online: bool) -> bytes:
        return self.base_signer.encode(meet.presence(self, rp.presence_message(
            self.settings.local_seat, online, self.nonce)))

    def _drain(self) -> None:
        while not self._outbox.empty():
            self._outbox.get_nowait()

    async def _send_loop(self, client) -> None:
        while True:
            topic, payload, retain = await self._outbox.get()
            await client.publish(topic, payload, qos=1, retain=retain)
            _raise_if_stopped()


def draw_from_game_id(link: RemoteLink) -> None:
    """Options a game draws for itself (Arbos's setup_seed, games/base.py) are drawn here from
    the game id, so that both boards (and a spectator) draw the same: a game not begun whose
    drawn options are not the game id's starts again with them. (Out of RemoteLink, which is
    at its size limit.)"""
    state = link.referee.state
    drawn = rp.drawn_options(state, link.settings.game_id)
    if not state.moves and drawn and any(str(state.options().get(k)) != str(v)
                                         for k, v in drawn.items()):
        link.referee.new_game(link.clock(), {**state.options(), **drawn}, "remote-join")


def _raise_if_stopped() -> None:
    """Raise CancelledError when this task was cancelled although no await raised it: Python
    3.11's asyncio.wait_for (aiomqtt's connect, subscribe and publish wait with it) returns a
    result that arrives together with the cancellation and drops the cancellation. The link
    would then wait for the broker's messages for ever, and the board's stop (leaving a remote
    game, a shutdown) for the link."""
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError()


#: At most REFUSALS_LOGGED refused messages are logged in REFUSAL_LOG_S (the others counted).
REFUSAL_LOG_S = 10.0
REFUSALS_LOGGED = 20
#: Messages from the broker waiting for the loop (a game needs a handful at a time).
MAX_QUEUED = 1000
#: How long the broker keeps a board's session (what it queues for it) while it is away.
SESSION_EXPIRY_S = 7 * 24 * 3600


def connect_properties(watching: bool):
    """MQTT 5 CONNECT properties: the largest packet this board takes (the broker drops a
    larger message for this board instead of sending it: a 100 MB retained message from anyone
    who may publish on the game's topics never reaches its memory), and how long the broker
    keeps the session while the board is away (a spectator's ends with its connection)."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    props = Properties(PacketTypes.CONNECT)
    props.MaximumPacketSize = rp.MAX_PACKET
    props.SessionExpiryInterval = 0 if watching else SESSION_EXPIRY_S
    return props


def board_name(settings: RemoteSettings) -> str:
    """This board's own random name (16 hex digits), made once and kept beside the journal,
    readable by this user only."""
    path = Path(settings.state_dir or ".") / f"{settings.journal_stem}.board-name"
    try:
        name = path.read_text(encoding="ascii").strip()
        if re.fullmatch(r"[0-9a-f]{16}", name):
            return name
        log.warning("%s does not hold a board name (16 hex digits); making a new one", path)
    except FileNotFoundError:
        pass
    except (OSError, UnicodeDecodeError) as exc:
        log.warning("%s cannot be read (%s); making a new board name", path, exc)
    name = secrets.token_hex(8)
    write_whole(path, name + "\n", mode=0o600)
    return name


@contextlib.asynccontextmanager
async def _connection(client, goodbye: tuple[str, bytes] | None = None):
    """`async with client`, but a stop that cuts aiomqtt's connect short closes what aiomqtt
    leaves open (`_abandon_connect`); and a stop while connected says `goodbye` (the board's
    presence, offline) before disconnecting: a clean DISCONNECT does not send the will, so the
    other side (a board, a browser's seat page) went on reading "here" from the retained
    presence of a board that had quit."""
    try:
        await client.__aenter__()
    except asyncio.CancelledError:
        await _abandon_connect(client)
        raise
    try:
        yield client
    except BaseException as exc:
        if goodbye is not None and isinstance(exc, asyncio.CancelledError):
            await _say_goodbye(client, *goodbye)
        if not await client.__aexit__(type(exc), exc, exc.__traceback__):
            raise
    else:
        await client.__aexit__(None, None, None)


async def _say_goodbye(client, topic: str, payload: bytes) -> None:
    """Publish the offline presence as the stop disconnects; a broker already gone (or slow)
    costs the stop at most GOODBYE_S, and then the will says it instead."""
    try:
        await asyncio.wait_for(client.publish(topic, payload, qos=1, retain=True), GOODBYE_S)
    except (Exception, asyncio.CancelledError) as exc:   # (a second stop: leave at once)
        log.debug("the offline presence not published as the link stopped: %r", exc)


#: How long a stopping link waits to say it is going (its offline presence's PUBACK).
GOODBYE_S = 2.0


async def _abandon_connect(client) -> None:
    """Close what aiomqtt's connect, cut short by a stop, leaves open: aiomqtt closes nothing
    when its __aenter__ is cancelled, so the socket to the broker stayed connected (and was a
    ResourceWarning whenever the garbage collector found it), with aiomqtt's task serving it.
    paho's blocking connect runs in aiomqtt's executor thread, which a cancel does not stop:
    a socket it opens after this is closed as it opens. (aiomqtt offers no public close of
    its paho client; paho's own close is the one its __del__ uses.)"""
    paho = client._client
    paho.on_socket_open = lambda _client, _userdata, sock: sock.close()
    paho._reset_sockets()     # (aiomqtt hears of it: it stops watching the socket)
    await asyncio.sleep(0)    # (and its task serving the socket takes its cancel)


def _close_abandoned_sockets(exc: BaseException) -> None:
    """paho-mqtt drops the socket of a TLS handshake that failed (an untrusted certificate)
    without closing it; a board retrying every few seconds for months would lean on the
    garbage collector for each. Close what the failed attempt's frames still hold."""
    import socket

    seen: set[int] = set()
    cause: BaseException | None = exc
    while cause is not None and id(cause) not in seen:
        seen.add(id(cause))
        tb = cause.__traceback__
        while tb is not None:
            for value in list(tb.tb_frame.f_locals.values()):
                if isinstance(value, socket.socket) and value.fileno() != -1:
                    value.close()
            tb = tb.tb_next
        cause = cause.__cause__ or cause.__context__


def _refusal(exc: BaseException) -> str | None:
    """Why the broker turned this board away, in words, when it did (a login or certificate
    it refused): not something retrying will mend, so the board says it rather than "no
    broker". None for a broker that is simply not there."""
    import aiomqtt

    cause: BaseException | None = exc
    while cause is not None:   # aiomqtt wraps the socket's error in its own
        if isinstance(cause, ssl.SSLCertVerificationError):
            return (f"no broker: its certificate is not trusted ({cause.verify_message}; "
                    "see ca_file)")
        cause = cause.__cause__ or cause.__context__
    if isinstance(exc, aiomqtt.MqttCodeError) and type(exc).__name__ == "MqttConnectError":
        return f"no broker: it refused this board ({exc}; see credentials_file)"
    return None


# --- a remote game joined on the page, kept across restarts -----------------------------------

def _join_path(config: Any) -> Path:
    journal = Path(config.journal)
    return journal.with_name(f"{journal.stem}.remote-join.json")


def save_join(config: Any, table: dict[str, Any], players: tuple[str, str]) -> None:
    """Kept readable by this user only: it holds the game's secret."""
    write_private(_join_path(config), {"remote": table, "players": list(players)})


def load_join(config: Any) -> tuple[dict[str, Any], tuple[str, str]] | None:
    """The remote game joined on the page before a restart, or None. A file that does not
    hold together is set aside with a log line, not obeyed."""
    path = _join_path(config)
    if config.journal == ":temporary:" or not path.exists():
        return None
    try:
        data = json.loads(read_private_file(str(path), "remote game"))
        table, players = data["remote"], tuple(data["players"])
        if not isinstance(table, dict) or len(players) != 2 or "remote" not in players:
            raise ValueError("not a remote game")
        return table, players
    except (rp.RemoteError, ValueError, KeyError, TypeError) as exc:
        log.error("%s: %s; not rejoining", path, getattr(exc, "reason", exc))
        return None


def forget_join(config: Any) -> None:
    _join_path(config).unlink(missing_ok=True)


def settings_from_config(config: Any, players: tuple[str, str] | None = None) -> RemoteSettings:
    """The `[remote]` table of the config, checked (ConfigError naming the key), for the seats
    `players` (by default the config's)."""
    players = tuple(config.players) if players is None else players
    from board_driver.config import ConfigError

    r = config.remote
    broker = broker_from_config(config)
    try:
        game_id = rp.check_game_id(r.get("game"))
    except rp.RemoteError as exc:
        raise ConfigError(config.path, "remote.game", exc.reason) from None
    remote = [i for i, p in enumerate(players) if p == "remote"]
    if not remote:
        raise ConfigError(config.path, "players", 'a "remote" seat with [remote] set', players)
    if r.get("guest") and len(remote) != 1:
        raise ConfigError(config.path, "remote.guest", 'one "remote" seat (the browser\'s) '
                          "and one played at this board", players)
    return RemoteSettings(**broker, game_id=game_id,
                          seat=remote[0] if len(remote) == 1 else None,  # both: a spectator
                          keepalive=r.get("keepalive", 30),
                          guest=bool(r.get("guest")), page=r.get("page"),
                          ws_broker=r.get("ws_broker"), offer=bool(r.get("offer")),
                          game_login=bool(r.get("game_login")),
                          met=r["met"] if isinstance(r.get("met"), str) else None,
                          state_dir=str(Path(config.journal).parent),
                          journal_stem=Path(config.journal).stem)


def broker_from_config(config: Any) -> dict[str, Any]:
    """The broker, the secret and the login of the config's `[remote]` table, checked
    (ConfigError naming the key): what a board needs to reach the family's broker, in a game
    or in the lobby (remote/meet.py), as RemoteSettings' fields."""
    from board_driver.config import ConfigError

    r = config.remote
    try:
        host, port, tls = parse_broker(r.get("broker", ""))
    except rp.RemoteError as exc:
        raise ConfigError(config.path, "remote.broker", exc.reason) from None
    try:
        secret = r.get("secret") or read_private_file(r["secret_file"], "secret")
        user = password = None
        if r.get("credentials_file"):
            user, password = read_credentials(r["credentials_file"])
    except rp.RemoteError as exc:
        raise ConfigError(config.path, "remote", exc.reason) from None
    if len(secret.encode()) < 8:
        raise ConfigError(config.path, "remote.secret", "a shared secret of at least 8 bytes")
    ca_file = r.get("ca_file")
    if ca_file is not None:
        # Checked now: found missing only when the link first connects, it killed the link's
        # task and the board said "connecting" for ever.
        try:
            ssl.create_default_context(cafile=ca_file)
        except (OSError, ssl.SSLError, TypeError, ValueError) as exc:
            raise ConfigError(config.path, "remote.ca_file",
                              "a readable file of PEM certificates (the broker's CA)",
                              f"{ca_file}: {getattr(exc, 'strerror', None) or exc}") from None
    return {"host": host, "port": port, "tls": tls, "secret": secret.encode(), "username": user,
            "password": password, "ca_file": ca_file}
