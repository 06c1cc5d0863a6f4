"""The family's lobby: a board offers the browser's seat of the game it hosts as a retained
signed message (remote/seat.py: its topic, the lobby key, the seat key wrapped for lobby
members). The offer goes when it is taken (the browser's first presence), when the board leaves
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
    """The offer of `link`'s browser seat (`words`: the game, options and clock in the
    board's language, from the daemon's views)."""
    s = link.settings
    lobby = sp.lobby_key(s.secret)
    return {"type": "offer", "game_id": s.game_id, "seat": s.seat,
            "wrapped": sp.wrap(link.seat_key, lobby, s.game_id, s.seat), **words}


async def keep_offer(link: Any) -> None:
    """Offer `link`'s seat until it is taken or this task is cancelled (the board left)."""
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
                    await link.offer_taken.wait()
                finally:   # taken, or the board leaves the game: the offer goes
                    await asyncio.shield(client.publish(topic, b"", qos=1, retain=True))
                    log.info("the lobby's offer of %s is withdrawn", s.game_id)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # aiomqtt.MqttError, OSError: the broker away; the will acts
            log.debug("the lobby's offer of %s: %s; retrying", s.game_id, exc)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 5.0)
