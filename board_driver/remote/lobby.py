"""The family's lobby: a board offers the browser's seat of the game it hosts as a retained
signed message (remote/seat.py: its topic, the lobby key, the seat key wrapped for lobby
members). The offer goes when it is taken (the browser's first presence, or a board's: remote/meet.py), when the board leaves
the game (cleared as it goes), or when the board vanishes: the offer's own connection has as its
MQTT will an empty retained message on the offer's topic, which the broker publishes when that
connection dies, and an empty retained message deletes the retained offer. A connection of its
own, because an MQTT client has one will, and the game's connection's is its presence."""

from __future__ import annotations

import asyncio
import logging
import secrets
from typing import Any

from board_driver.remote import seat as sp

log = logging.getLogger("treeboard.remote")


def offer_body(link: Any, words: dict[str, Any]) -> dict[str, Any]:
    """The offer of `link`'s open seat (`words`: the game, options and clock in the board's
    language, from the daemon's views). It names the game, its options and its clock as a
    board reads them too (remote/meet.py: another board may take it)."""
    s = link.settings
    lobby = sp.lobby_key(s.secret)
    state = link.referee.state
    body = {"type": "offer", "game_id": s.game_id, "seat": s.seat,
            "wrapped": sp.wrap(link.seat_key, lobby, s.game_id, s.seat), **words,
            "game": state.game.name, "game_options": state.options(),
            "time_control": link.referee.moment(link.clock()).clock_control}
    if s.game_login:   # the game's own broker account, for the browser that takes the seat
        password = sp.game_login(s.secret, s.game_id, s.seat)[1].encode()
        body["login"] = sp.wrap(password, lobby, s.game_id, s.seat, "login")
    return body


async def keep_offer(link: Any) -> None:
    """Offer `link`'s seat until it is taken or this task is cancelled (the board left). A
    broker that restarts forgets the offer (without persistence) and drops its connection:
    the offer is made again on the next connection."""
    import aiomqtt

    s = link.settings
    topic = sp.offer_topic(sp.lobby_id(s.secret), s.game_id)
    lobby = sp.lobby_key(s.secret)
    delay = 0.5
    while link.offered:
        client = aiomqtt.Client(
            s.host, s.port, username=s.username, password=s.password,
            identifier=f"treeboard-offer-{s.game_id}-{secrets.token_hex(4)}",
            keepalive=s.keepalive, tls_context=link._tls(),
            will=aiomqtt.Will(topic, b"", qos=1, retain=True))
        try:
            async with client:
                delay = 0.5
                words = link.offer_words() if link.offer_words else {}
                await client.publish(topic, sp.seal(lobby, offer_body(link, words)), qos=1,
                                     retain=True)
                log.info("offered seat %d of %s in the lobby", s.seat, s.game_id)
                try:
                    await _taken_or_gone(client, link.offer_taken)
                except asyncio.CancelledError:   # the board leaves the game: the offer goes
                    await asyncio.shield(_withdraw(client, topic, s.game_id))
                    raise
                # taken: the offer goes (shielded: a board's taking stops this link soon)
                await asyncio.shield(_withdraw(client, topic, s.game_id))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # aiomqtt.MqttError, OSError: the broker away; the will acts
            log.debug("the lobby's offer of %s: %s; retrying", s.game_id, exc)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)


async def _taken_or_gone(client: Any, taken: asyncio.Event) -> None:
    """Return when the offer is taken; raise aiomqtt.MqttError when the connection drops (the
    client's message stream ends with it: it is how aiomqtt says so; the offer's connection
    subscribes to nothing, so no message comes)."""
    async def gone() -> None:
        import aiomqtt

        async for _ in client.messages:
            pass
        raise aiomqtt.MqttError("the offer's connection ended")

    waits = [asyncio.ensure_future(taken.wait()), asyncio.ensure_future(gone())]
    try:
        done, _ = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waits:
            w.cancel()
    for w in done:
        w.result()   # (the connection's end raises here)


async def _withdraw(client: Any, topic: str, game_id: str) -> None:
    await client.publish(topic, b"", qos=1, retain=True)
    log.info("the lobby's offer of %s is withdrawn", game_id)
