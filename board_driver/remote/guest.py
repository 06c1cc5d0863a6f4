"""The hosting board's side of a seat played from a browser (the seat page, by invitation or
from the lobby): a remote peer with rights for one seat of one game (remote/seat.py).

`GuestLink` is a `RemoteLink` (the same connection, reconnection, bounded queues, retained
state, presence with its will) whose peer is a browser instead of a board. A browser has no
rules: the board publishes, for the browser's seat, the view (the picture, the sentence, the
clocks and the moves the seat may make, drawn by the Python views and handed in by the daemon
as `view_of`), takes the browser's proposals, plays them through the referee like another
board's moves (lit as pieces to put) and answers each with the reason it was refused.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import logging
from typing import Any, Callable

import games
from games.base import Reason
from board_driver.remote import meet
from board_driver.remote import protocol as rp
from board_driver.remote import seat as sp
from board_driver.remote.link import CONNECTED, RemoteLink, RemoteSettings
from board_driver.remote.takeback import GuestTakebacks
from board_driver.remote.view_guard import ViewGuard

log = logging.getLogger("treeboard.remote")

WAITING_GUEST = "waiting for the player in the browser"
#: Proposals remembered (their ids), so a proposal delivered twice is answered once.
SEEN_PLAYS = 64


class GuestLink(RemoteLink):
    """This board plays `settings.local_seat`; a browser holding the seat key plays the other."""

    def __init__(self, settings: RemoteSettings, referee: Any, clock: Callable[[], float]):
        super().__init__(settings, referee, clock)
        self.seat_key = sp.seat_key(settings.secret, settings.game_id, settings.seat)
        # Only the browser's seat's topics: what boards say on the game's is not for this one.
        self.subscriptions = [sp.seat_topic(settings.game_id, settings.seat, what)
                              for what in ("play", "presence", "takeback")]
        # No second board: the game's epoch is this board's nonce alone (its retained state,
        # for a spectator or its own restart, is signed under it).
        self._set_epoch()
        self.view_of: Callable[[], dict] | None = None     # the daemon's: views draw it
        self.words: Callable[[Any], str] = str             # a reason in the player's words
        self._view_digest: str | None = None
        # The retained view on the broker is the board's: a forgery there is answered with the
        # board's own, at once and rate-limited (remote/view_guard.py).
        self.view_topic = sp.seat_topic(settings.game_id, settings.seat, "view")
        self.view_guard = ViewGuard(lambda payload: self._put(self.view_topic, payload, True),
                                    clock, _later)
        self._seen: collections.OrderedDict[str, dict] = collections.OrderedDict()
        self.status = WAITING_GUEST
        # The lobby's offer (remote/lobby.py): only of a game not begun.
        self.offered = settings.offer and not referee.state.moves
        self.offer_taken = asyncio.Event()
        self.offer_words: Callable[[], dict] | None = None   # the daemon's: views word it
        self.takeback_part = GuestTakebacks(self)   # takebacks both ways (remote/takeback.py)
        # ... which a board of the family may take too (remote/meet.py): its presence on the
        # open seat's board topic; the daemon then plays the game board to board.
        self.met_board: Callable[[str | None], None] | None = None
        self.taken_by_board = False   # (then this link only waits to make way: meet.py)
        if self.offered:
            self.subscriptions.append(rp.presence_topic(settings.game_id, settings.seat))

    def _set_epoch(self) -> None:
        self.signer = rp.Signer(self.settings.secret, self.settings.game_id, f"{self.nonce}.guest")

    # --- what the link subscribes to and says -------------------------------------------------

    def _presence(self, online: bool) -> bytes:
        """The board's presence as boards read it, with the seat's signature the browser
        checks (it has the seat key, not the game's)."""
        s = self.settings
        body = rp.presence_message(s.local_seat, online, self.nonce)
        body["seat_sig"] = sp.presence_sig(self.seat_key, s.game_id, s.local_seat, online,
                                           self.nonce)
        # Whether the seat is still open (the lobby's offer stands): a board that came to take
        # it reads false as "a browser took it first" (remote/meet.py).
        body["seat_open"] = self.offered
        return self.base_signer.encode(body)

    def presence_topic(self) -> str:
        """Where the browser reads this board's presence, and its will: under the seat's own
        topics (`seat/<seat>/host`), so a guest account's ACL needs nothing but its seat's
        (docs/remote.md, "What each may touch"). A copy goes to the game's presence topic for a
        board that comes to take the lobby's offer (remote/meet.py: `seat_open`)."""
        return sp.seat_topic(self.settings.game_id, self.settings.seat, "host")

    def _say_presence(self) -> None:
        """This board's presence again, on both topics (a browser took the offer meanwhile)."""
        for topic in (self.presence_topic(), rp.presence_topic(self.settings.game_id,
                                                               self.settings.local_seat)):
            self._put(topic, self._presence(True), True)

    def _update_status(self) -> None:
        if self._client is not None:
            self.status = CONNECTED if self.peer_online else WAITING_GUEST

    def summary(self) -> dict[str, Any]:
        out = super().summary()
        out["guest"] = True   # (not the invitation: every viewer of the page gets the summary)
        out["takeback_said"] = self.takeback_part.said
        return out

    def request_takeback(self) -> int:
        """Ask the browser to take back this board's last move (remote/takeback.py)."""
        return self.takeback_part.ask()

    def answer_takeback(self, accept: bool) -> None:
        """The people at the board answer the browser's takeback request."""
        self.takeback_part.answer(accept)

    def invitation(self) -> str | None:
        """The link for the browser's seat, when the config names the page and the broker."""
        s = self.settings
        if not (s.page and s.ws_broker):
            return None
        return sp.invitation(s.page, s.ws_broker, s.game_id, s.seat, self.seat_key,
                             sp.game_login(s.secret, s.game_id, s.seat) if s.game_login else None)

    def _publish_state(self) -> None:
        super()._publish_state()
        self.publish_view()
        # The referee turns the clocks after it tells its listeners of a move: the view once
        # more when it has (else the page showed the browser's clock stopped on its own turn).
        try:
            asyncio.get_running_loop().call_soon(self.publish_view)
        except RuntimeError:   # (no loop: a trace; its clock is read when it is shown)
            pass

    async def run(self) -> None:
        """The link, and beside it the lobby's offer while there is one."""
        from board_driver.remote.lobby import keep_offer

        offer = asyncio.ensure_future(keep_offer(self)) if self.offered else None
        try:
            await super().run()
        finally:
            if offer is not None:
                if not self.offer_taken.is_set():
                    offer.cancel()   # (taken: it withdraws the offer and ends by itself)
                await asyncio.wait({offer}, timeout=2)
                offer.cancel()

    async def _serve(self, client, presence: str | None) -> None:
        self._view_digest = None   # a broker that restarted forgot the retained view
        self.view_guard.forget()
        await watch_own_view(client, self.view_topic)
        # (the copy for a board that comes to take the offer, meet.py; the will is the seat's)
        self._save_takebacks()   # (the nonce, kept before anyone can have seen it)
        await client.publish(rp.presence_topic(self.settings.game_id, self.settings.local_seat),
                             self._presence(True), qos=1, retain=True)
        await super()._serve(client, presence)

    def _drain(self) -> None:
        super()._drain()
        # A takeback request kept across a restart (remote/takeback.py): what lapsed meanwhile
        # is answered on this connection (not dropped with what waited offline), the rest armed.
        self.takeback_part.resume()

    def _on_local_change(self, what: str, move: Any, origin: str) -> None:
        if what == "takeback-lifted":   # (lifting the last piece asks: referee/pieces.py)
            self.takeback_part.lifted()
        self.takeback_part.game_changed()
        self._publish_state()

    def publish_view(self, force: bool = False) -> None:
        """The browser's view, retained, when it changed (or `force`: a reconnect)."""
        if self.view_of is None:
            return
        s = self.settings
        body = dict(self.view_of(), type="view", game_id=s.game_id, seat=s.seat,
                    epoch=self.nonce, index=len(self.referee.state.moves),
                    host_online=True, takeback=self.takeback_part.view())
        digest = hashlib.sha256(repr(sorted(body.items())).encode()).hexdigest()
        if digest == self._view_digest and not force:
            return
        self._view_digest = digest
        payload = sp.seal(self.seat_key, body)
        self.view_guard.published(payload)
        self._put(self.view_topic, payload, True)

    async def clear_view(self) -> None:
        """A board took the game (remote/meet.py): the browser's retained view becomes the
        signed word that the seat is gone (`{"type": "gone"}`: a browser that took the offer
        at the same moment, or opens the seat later, is told so), and the browser's retained
        presence goes (no browser plays this game)."""
        import aiomqtt

        s, client = self.settings, self._client
        gone = {"type": "gone", "game_id": s.game_id, "seat": s.seat, "epoch": self.nonce,
                "text": self.words(Reason("another board took this seat first: this game is "
                                          "played board to board, not from a browser"))}
        if client is not None:
            try:
                await asyncio.wait_for(client.publish(self.view_topic, sp.seal(
                    self.seat_key, gone), qos=1, retain=True), 5)
                await asyncio.wait_for(client.publish(sp.seat_topic(
                    s.game_id, s.seat, "presence"), b"", qos=1, retain=True), 5)
            except (aiomqtt.MqttError, asyncio.TimeoutError) as exc:   # the broker away
                log.info("the browser's view of %s stays on the broker: %s", s.game_id, exc)

    def _put(self, topic: str, payload: bytes, retain: bool) -> None:
        try:
            self._outbox.put_nowait((topic, payload, retain))
        except asyncio.QueueFull:   # offline for long: the retained view carries the game
            self._outbox.get_nowait()
            self._outbox.put_nowait((topic, payload, retain))

    # --- what the browser sends ---------------------------------------------------------------

    def _handle(self, topic: str, payload: bytes) -> None:
        s = self.settings
        if self.taken_by_board:
            return   # a board took the seat first: a browser that came too is told "gone"
        if topic == sp.seat_topic(s.game_id, s.seat, "presence"):
            self._on_presence(topic, payload)
        elif topic == sp.seat_topic(s.game_id, s.seat, "play"):
            self._on_play(topic, payload)
        elif topic == sp.seat_topic(s.game_id, s.seat, "takeback"):
            self._on_takeback(topic, payload)
        elif topic == self.view_topic and self.view_guard.heard(payload):
            self._refuse(topic, "a seat view this board did not publish (its own published "
                                "again)")
        elif topic == rp.presence_topic(s.game_id, s.seat):
            meet.board_took(self, topic, payload)

    def _on_presence(self, topic: str, payload: bytes) -> None:
        if not payload:
            return   # a retained presence cleared
        try:
            online = sp.check_presence(sp.open_sealed(self.seat_key, payload),
                                       self.settings.game_id, self.settings.seat)
        except rp.RemoteError as exc:
            self._refuse(topic, exc.reason)
            return
        if online != self.peer_online:
            log.info("the player in the browser is %s", "here" if online else "away")
        self.peer_online = online
        if not online:
            self.takeback_part.away()
        self._update_status()
        if online and self.offered:
            self.offered = False    # taken: the lobby's offer goes (remote/lobby.py)
            self.offer_taken.set()
            # ... and a board that came for it at the same time hears it was first: the
            # board's presence says the seat is not open now.
            self._say_presence()
        self.publish_view(force=True)

    def _on_play(self, topic: str, payload: bytes) -> None:
        s = self.settings
        try:
            body = sp.check_play(sp.open_sealed(self.seat_key, payload), s.game_id, s.seat)
        except rp.RemoteError as exc:
            self._refuse(topic, exc.reason)
            return
        if body["id"] in self._seen:       # delivered twice (QoS 1), or replayed
            return
        answer = self._try(body)
        self._seen[body["id"]] = answer
        while len(self._seen) > SEEN_PLAYS:
            self._seen.popitem(last=False)
        self._put(sp.seat_topic(s.game_id, s.seat, "answer"), sp.seal(self.seat_key, answer),
                  False)
        self.publish_view()

    def _on_takeback(self, topic: str, payload: bytes) -> None:
        """The browser asks for a takeback, or answers the board's request (signed with the
        seat key, its fields checked; one id counts once)."""
        s, part = self.settings, self.takeback_part
        try:
            body = sp.check_takeback(sp.open_sealed(self.seat_key, payload), s.game_id, s.seat)
            if part.seen(body["id"]):
                return   # delivered twice (QoS 1), or replayed
            part.on_answer(body) if body["type"] == "takeback-answer" else part.on_request(body)
        except rp.RemoteError as exc:
            self._refuse(topic, exc.reason)
            return
        self.publish_view()

    def _try(self, body: dict) -> dict:
        """Play the browser's proposal if it is a move; the answer to publish either way."""
        s, state = self.settings, self.referee.state
        answer = {"type": "answer", "game_id": s.game_id, "seat": s.seat, "id": body["id"],
                  "move": body["move"], "ok": False}
        if body["epoch"] != self.nonce:
            answer["reason"] = self.words(Reason(
                "that was proposed in an earlier playing of this game"))
        elif body["index"] != len(state.moves):
            answer["reason"] = self.words(Reason(
                "the game has moved on: {n} moves now, that was proposed after {m}",
                n=len(state.moves), m=body["index"]))
        else:
            try:
                self.referee.play_for_seat(body["move"], self.clock(), "remote")
            except games.IllegalMove as exc:
                answer["reason"] = self.words(exc.reason)
                log.info("refused the browser's move %r: %s", body["move"], exc.reason)
            else:
                answer["ok"] = True
                log.info("browser move %d: %s", len(state.moves), body["move"])
        return answer


async def watch_own_view(client: Any, topic: str) -> None:
    """Subscribe to the board's own retained view (view_guard.py), without its own publishes
    echoed back (MQTT 5's No Local: a view is up to 200 kB, sent once, not twice)."""
    from paho.mqtt.subscribeoptions import SubscribeOptions

    await client.subscribe(topic, options=SubscribeOptions(qos=1, noLocal=True))


def _later(delay: float, fn: Callable[[], None]) -> asyncio.TimerHandle | None:
    """`fn` after `delay` seconds on the running loop; None where none runs (a test driving
    the link by hand)."""
    try:
        return asyncio.get_running_loop().call_later(delay, fn)
    except RuntimeError:
        return None
