"""A remote game ended or paused by its players (protocol 1.2, docs/remote.md): this board's
resignation, draw offer and answer sent to the other board, and the other board's carried out
here (board_driver/referee/endings.py), on the link's loop.

Each is a signed message (`resign` on the `move` topic, as a flag; `draw-offer` and
`draw-answer` on the `takeback` topic, a request and its answer), naming the game as it
stands (`takebacks`, `index`): one about an earlier position is dropped. The retained state
repeats a game's end (`resigned`, `agreed`), so a board that was away learns it on coming
back. A 1.0 or 1.1 board refuses the three new types as unknown (logged) and ignores the
state's new fields, as the protocol's versioning says.
"""

from __future__ import annotations

import logging
from typing import Any

import games
from board_driver.remote import protocol as rp

log = logging.getLogger("treeboard.remote")

#: The message types this module reads.
KINDS = ("resign", "draw-offer", "draw-answer")
#: The referee's news of an ending (its listeners hear them) -> the message this board sends.
_SENT = {"resign": ("resign", "move"), "draw-offer": ("draw-offer", "takeback"),
         "draw-refused": ("draw-answer", "takeback"), "draw-agreed": ("draw-answer", "takeback")}


def told(link: Any, what: str, seat: Any, origin: str) -> None:
    """The referee's news (a listener's, on the loop): what this board's player did is sent
    to the other board; what the other board did (origin "remote") is not echoed."""
    if what not in _SENT or origin == "remote" or link.settings.watching:
        return
    kind, topic = _SENT[what]
    local = link.settings.local_seat
    body = rp.ending_message(kind, link.referee.state, link.takebacks, local,
                             accept=what == "draw-agreed")
    link._send(link.topics[topic], body)


def heard(link: Any, msg: dict) -> None:
    """A resignation, a draw offer or an answer from the other board, carried out here when it
    is about this game as it stands (else logged and dropped)."""
    referee, remote = link.referee, link.settings.seat
    if msg["seat"] != remote:
        return   # this board's own, echoed by the broker
    if not rp.in_this_game(referee.state, link.takebacks, msg):
        log.info("a %s for another position of the game dropped", msg["type"])
        return
    now = link.clock()
    try:
        if msg["type"] == "resign":
            referee.endings.resign(now, remote, origin="remote")
        elif msg["type"] == "draw-offer":
            referee.endings.offer_draw(now, remote, origin="remote")
        else:
            referee.endings.answer(msg["accept"], now, origin="remote")
    except games.IllegalMove as exc:
        log.info("the other board's %s not taken: %s", msg["type"], exc.reason)


def heard_state(link: Any, msg: dict) -> None:
    """The other board's retained state says its players ended the game (a board that was
    away learns it so): taken when it is about this game as it stands."""
    referee = link.referee
    if referee.over or not rp.in_this_game(referee.state, link.takebacks, msg):
        return
    now = link.clock()
    if msg.get("resigned") == link.settings.seat:
        referee.endings.resign(now, link.settings.seat, origin="remote")
    elif msg.get("agreed") and referee.endings.offer is not None:
        referee.endings.answer(True, now, origin="remote")
