"""Another board's player away in a timed game: the present player's choice sent to the away
board, and the other board's choice applied here (protocol 1.3; the design and the rule for a
move made during a cut: board_driver/referee/absence.py's docstring, docs/remote.md, "A board
away").

The referee's absence part decides and says; this part, owned by the RemoteLink and run on its
loop, only carries the choice both ways:

- Sent: the referee tells its listeners "absent-choice" ({choice, seat, clock_s}); this board
  sends a signed `away` message on the `move` topic (as `flag` and `resign`) and repeats it in
  its retained state (`away`), so a board that was away hears it when it comes back, even after
  the broker or either board restarted. Each choice has a `seq`, one more than this board's last
  (kept beside the journal), so the other board reads each choice once and a replayed older
  one never again (a pause replayed would otherwise give the time back twice).
- Heard: the other board's `away` message (or state's `away`) about this board's player, to
  move in this very game (the same takebacks and moves): applied by the referee
  (`absence.chosen_there`). About a position this board has moved on from (its player moved
  while its link was down): dropped, that move wins.
- Answered: the other board's retained state saying its game ended by this board's claim or
  draw (`forfeit` / `drawn_away` of its own seat) makes the pending claim final here
  (`absence.confirmed`); only a claim or draw this board did send, about this very position.

Signed like every message of the game's epoch (a forgery, another game's or an earlier playing's
message does not check: protocol.Signer). A 1.2 board refuses the unknown type (logged) and
ignores the state's new fields: a pause then stops only this board's copy of its clock, and a
claim waits until that board's player moves (withdrawn) or the present player chooses again.
"""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import games
from board_driver.remote import protocol as rp
from board_driver.remote.files import write_private

log = logging.getLogger("treeboard.remote")


class AwayChoices:
    """The choices about a player away, both ways, for one RemoteLink."""

    def __init__(self, link: Any):
        self.link = link
        sidecar: Path = link._sidecar
        self._path = sidecar.with_name(sidecar.name.removesuffix(".json") + ".away.json")
        kept = self._read()
        # The last choice this board sent (away_message's body), in this playing of the game.
        self.sent: dict[str, Any] | None = kept.get("sent")
        # The other board's last choice read: {"nonce": its board's nonce, "seq"}.
        self.heard: dict[str, Any] = kept.get("heard") or {}
        # The claims and draws this board sent about one position ({"takebacks", "index",
        # "choices"}): the other board may have ended its game on any of them, even one a later
        # choice replaced before it was heard, and this board then ends its own the same way.
        self.ended_by: dict[str, Any] = kept.get("ended_by") or {}
        # A message that came while the game menu was open (an ending waits for it to close):
        # read again when it closes.
        self._deferred: dict[str, Any] | None = None

    # --- kept beside the journal: a restart neither forgets nor repeats a choice -------------

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as exc:
            log.error("%s: unreadable (%s); no choice about a player away kept", self._path, exc)
            return {}
        if not isinstance(data, dict):
            log.error("%s: unreadable (expected an object of the kept choices); no choice about "
                      "a player away kept", self._path)
            return {}
        if data.get("nonce") != self.link.nonce:
            return {}   # (an earlier playing of the game id: its choices are not this one's)
        sent, heard, ended_by = data.get("sent"), data.get("heard"), data.get("ended_by")
        ok = isinstance(sent, dict) and rp.away_fields_ok(sent)
        good_heard = isinstance(heard, dict) and isinstance(heard.get("seq"), int)
        good_ends = isinstance(ended_by, dict) and isinstance(ended_by.get("choices"), list)
        return {"sent": sent if ok else None, "heard": heard if good_heard else {},
                "ended_by": ended_by if good_ends else {}}

    def _save(self) -> None:
        write_private(self._path, {"nonce": self.link.nonce, "sent": self.sent,
                                    "heard": self.heard, "ended_by": self.ended_by})

    def restore(self) -> None:
        """After a restart: a claim or draw sent and not yet answered is pending again."""
        link, sent = self.link, self.sent
        referee = link.referee
        if sent is None or sent["choice"] not in ("claim", "draw") or referee.over:
            return
        if rp.in_this_game(referee.state, link.takebacks, sent) and \
                referee.state.to_move == link.settings.seat:
            referee.absence.pend(sent["choice"], link.settings.seat, link.clock())

    # --- sent ------------------------------------------------------------------------------------

    def told(self, what: str, told: Any, origin: str) -> None:
        """The referee's news (a listener's, on the loop): the present player's choice about
        the other board's player, sent."""
        link = self.link
        if what in ("menu-closed", "menu-applied") and self._deferred is not None:
            deferred, self._deferred = self._deferred, None
            again = self.on_state if deferred["type"] == "state" else self.on_message
            # (after the referee has finished with the menu: not from inside its listener)
            try:
                asyncio.get_running_loop().call_soon(lambda: (again(deferred), link._changed()))
            except RuntimeError:   # (no loop: a trace)
                again(deferred)
            return
        if what != "absent-choice" or link.settings.watching or \
                told.get("seat") != link.settings.seat:
            return
        seq = self.sent["seq"] + 1 if self.sent is not None else 1
        clock_s = told.get("clock_s")
        self.sent = rp.away_message(told["choice"], seq, link.takebacks, link.settings.local_seat,
                                    len(link.referee.state.moves),
                                    None if clock_s is None else int(clock_s * 1000))
        if told["choice"] in ("claim", "draw"):
            if not self._ended_by_here():
                self.ended_by = {"takebacks": self.sent["takebacks"],
                                 "index": self.sent["index"], "choices": []}
            self.ended_by["choices"] = sorted({*self.ended_by["choices"], told["choice"]})
        self._save()   # (before it is sent: a restart neither forgets it nor reuses its seq)
        link._send(link.topics["move"], self.sent)
        log.info("sent the other board the choice %r (%d) about its player away",
                 told["choice"], seq)

    def field(self) -> dict[str, Any] | None:
        """The last choice sent, for the retained state, while it is about this very position."""
        link, sent = self.link, self.sent
        if sent is None or not rp.in_this_game(link.referee.state, link.takebacks, sent):
            return None
        return sent

    def _ended_by_here(self) -> bool:
        """Whether `ended_by` is about the game as it stands."""
        link, ended_by = self.link, self.ended_by
        return "index" in ended_by and rp.in_this_game(link.referee.state, link.takebacks,
                                                       ended_by)

    # --- heard -----------------------------------------------------------------------------------

    def on_message(self, msg: dict) -> None:
        """The other board's choice about this board's player (an `away` message, a state's
        `away` with the state's seat), applied once, to this very position only."""
        link = self.link
        remote = link.settings.seat
        if msg["seat"] != remote or link.settings.watching:
            return   # this board's own, echoed by the broker
        theirs = link.nonces[remote]
        if self.heard.get("nonce") == theirs and msg["seq"] <= self.heard.get("seq", 0):
            return   # read before (a state repeating it, QoS 1's second copy, a replay)
        referee = link.referee
        if not rp.in_this_game(referee.state, link.takebacks, msg):
            log.info("the other board's choice %r about this board's player dropped: the game "
                     "moved on here meanwhile (a move made while the link was down wins)",
                     msg["choice"])
        else:
            clock_ms = msg.get("clock_ms")
            try:
                referee.absence.chosen_there(msg["choice"], link.settings.local_seat,
                                             None if clock_ms is None else clock_ms / 1000,
                                             link.clock())
            except games.IllegalMove as exc:   # (the menu open: read again as it closes)
                log.info("the other board's choice %r not applied now: %s", msg["choice"],
                         exc.reason)
                self._deferred = msg
                return
        self.heard = {"nonce": theirs, "seq": msg["seq"]}
        self._save()

    def on_state(self, msg: dict) -> None:
        """The other board's retained state: its choice repeated (`away`), and its game ended by
        this board's claim or draw (`forfeit` / `drawn_away` of its own seat)."""
        link = self.link
        remote = link.settings.seat
        if msg["seat"] != remote or link.settings.watching:
            return
        if isinstance(msg.get("away"), dict):
            self.on_message(dict(msg["away"], type="away", seat=remote))
        choice = "claim" if msg.get("forfeit") == remote else \
            "draw" if msg.get("drawn_away") == remote else None
        referee = link.referee
        if choice is None or referee.over or not self._ended_by_here() or \
                choice not in self.ended_by["choices"]:
            return   # (an end this board never sent about this position: not taken)
        if not rp.in_this_game(referee.state, link.takebacks, msg):
            return
        try:
            if referee.absence.confirmed(choice, remote, link.clock()):
                log.info("the other board heard the %s: the game is over on both", choice)
        except games.IllegalMove as exc:   # (the menu open: read again as it closes)
            log.info("the other board's end of the game not taken now: %s", exc.reason)
            self._deferred = msg
