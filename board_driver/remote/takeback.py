"""Takebacks in a game with a seat in a browser (remote/guest.py's link; docs/remote.md, "A
seat in a browser", "Takebacks").

Either side asks for its own last move back (and the other side's reply after it, if there is
one: the game goes back to before the asker's last move) and the other side answers:

- **The people at the board ask** (the sim's `takeback`, the page's button, lifting the last
  move's piece): the request goes into the browser's retained view (`takeback.asked`, with a
  random id), the seat page shows Accept and Refuse, and its answer comes back on the seat's
  `takeback` topic signed with the seat key, naming that id and the position it answers.
- **The browser asks**: a `takeback` message on the same topic (signed, with the board's
  nonce and the number of moves it was asked after); the board says it ("the player in the
  browser asks to take back move N: accept or refuse", on the page, aloud, in the sim) and the
  people there answer (`accept` / `refuse` in the sim, the page's buttons); the browser hears
  the answer on its `answer` topic.

Accepted: the board takes the game back (the referee lights what to lift), counts the takeback
with the remote game's others, and republishes its state and the view. Refused, not answered
within TAKEBACK_S, the asker's side gone away, or the game moved on meanwhile: the asker is
told why and nothing changes. A message that does not check (another seat's key, altered), an
answer to no request or to an earlier one (a replay: its id or position is not the one asked),
a request id seen before: refused, nothing changes.

A request waiting survives a restart of the board: it is kept beside the journal
(`<journal>.remote-<game>-seat<N>.takeback.json`, written whenever a request is made or ends),
with its deadline on the wall clock and the position it is about (the board's nonce, the
agreed takebacks, the number of moves and the position's hash). A board restarted in the same
position takes it up again, with the time it had left; one whose deadline went by meanwhile
lapses as if the board had stayed up (said, and the browser answered); one about another
position is dropped.

One owner: the GuestLink's `takebacks` part, on the daemon's loop (the link's only thread).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import json
import secrets
import time
from pathlib import Path
from typing import Any

import games
from games.base import Reason
from board_driver.remote import protocol as rp
from board_driver.remote.files import write_private
from board_driver.remote import seat as sp

log = logging.getLogger("treeboard.remote")

#: A takeback request not answered within this long lapses (said; nothing changes).
TAKEBACK_S = 120.0
#: Takeback message ids remembered, so one delivered twice (QoS 1) or replayed counts once.
SEEN = 64


def before_last_of(state: games.State, seat: int) -> int | None:
    """The number of moves before `seat`'s last move (what taking back its last move, and the
    reply after it, goes back to); None when `seat` has made no move."""
    probe = state.copy()
    while probe.moves:
        probe.undo()
        if probe.to_move == seat:
            return len(probe.moves)
    return None


class GuestTakebacks:
    """The takeback requests of one game with a browser's seat, both ways."""

    def __init__(self, link: Any):
        self.link = link
        # The board's request to the browser: {"to", "ask" (its id), "moves", "at"}.
        self.asked: dict[str, Any] | None = None
        # The browser's request to the board: {"to", "id", "moves", "at"}.
        self.request: dict[str, Any] | None = None
        # The last outcome: (its number, so that each is said once; its words; the number of
        # moves then, so that the seat page shows it until the game goes on).
        self.said: tuple[int, str, int] | None = None
        self._seen: collections.OrderedDict[str, None] = collections.OrderedDict()
        self._timer: asyncio.TimerHandle | None = None
        sidecar = link._sidecar
        self._kept: Path = sidecar.with_name(sidecar.stem + ".takeback.json")
        self._restore()

    # --- what the link shows -----------------------------------------------------------------

    def view(self) -> dict[str, Any]:
        """The takeback part of the browser's view: the board's request (for Accept and
        Refuse), the browser's own waiting, whether it may ask, and the last outcome."""
        link, state = self.link, self.link.referee.state
        seat = link.settings.seat
        out: dict[str, Any] = {"asked": None, "asking": None, "said": self.said,
                               "may_ask": (not link.referee.over and self.asked is None
                                           and self.request is None
                                           and before_last_of(state, seat) is not None)}
        if self.asked is not None:
            out["asked"] = {"ask": self.asked["ask"], "index": self.asked["to"],
                            "text": link.words(Reason(
                                "the board asks to take back move {n}: accept or refuse",
                                n=self.asked["to"] + 1))}
        if self.request is not None:
            out["asking"] = link.words(Reason("you asked to take back move {n}: waiting for "
                                              "the board's answer", n=self.request["to"] + 1))
        return out

    def _say(self, text: str) -> None:
        number = self.said[0] + 1 if self.said is not None else 1
        self.said = (number, text, len(self.link.referee.state.moves))
        log.info("takeback: %s", text)

    # --- the people at the board ask -----------------------------------------------------------

    def ask(self) -> int:
        """Ask the browser to take back this board's last move (and its reply, if any). Returns
        the move count asked for; raises games.IllegalMove (said, nothing sent) when it cannot
        be asked now."""
        link = self.link
        state = link.referee.state
        to = before_last_of(state, link.settings.local_seat)
        why = self._why_not(to)
        if why is None and self.asked is not None:
            why = Reason("a takeback was asked already: waiting for the player in the browser")
        if why is None and self.request is not None:
            why = Reason("the player in the browser asks for a takeback: accept or refuse it "
                         "first")
        if why is None and not link.peer_online:
            why = Reason("the player in the browser is away: no one can answer a takeback "
                         "now; nothing changed")
        if why is not None:
            raise games.IllegalMove("takeback", why)
        self.asked = {"to": to, "ask": secrets.token_hex(8), "moves": len(state.moves),
                      "at": link.clock()}
        link._asked_to = to
        self._keep()
        self._arm()
        link.publish_view()
        log.info("asked the browser to take back to %d moves", to)
        return to

    def lifted(self) -> None:
        """The people at the board lifted their last move's piece: asked of the browser, or
        said why not (the lifted piece is to be put back then)."""
        try:
            to = self.ask()
        except games.IllegalMove as exc:
            self._say(self.link.words(Reason("not taken back: {why}; put it back",
                                             why=exc.reason)))
            return
        self._say(self.link.words(Reason("asked the player in the browser to take back move "
                                         "{n}: wait for the answer, or put it back", n=to + 1)))

    def _why_not(self, to: int | None) -> Reason | None:
        if self.link.referee.over:
            return Reason("the game is over: a finished game is not taken back")
        if to is None:
            return Reason("there is no move of yours to take back")
        return None

    def on_answer(self, body: dict) -> None:
        """The browser's answer to the board's request (checked: its seat's key and fields)."""
        self._lapse_due()
        link, asked = self.link, self.asked
        if asked is None or body["ask"] != asked["ask"] or body["index"] != asked["to"] \
                or body["epoch"] != link.nonce:
            raise rp.RemoteError("a takeback answer to no request this board has waiting (an "
                                 "old one, or replayed)")
        self._clear_asked()
        if not body["accept"]:
            self._say(link.words(Reason("the player in the browser refused the takeback: "
                                        "nothing changed")))
        elif link.referee.over or len(link.referee.state.moves) != asked["moves"]:
            self._say(link.words(Reason("the game moved on before the player in the browser "
                                        "answered: nothing taken back")))
        else:
            self._take_back(asked["to"])
            self._say(link.words(Reason("the player in the browser accepted: move {n} taken "
                                        "back", n=asked["to"] + 1)))
        link._publish_state()

    # --- the browser asks ----------------------------------------------------------------------

    def on_request(self, body: dict) -> None:
        """The browser asks for its last move back: shown to the people at the board, or
        refused at once with the reason a player reads."""
        link = self.link
        state = link.referee.state
        to = before_last_of(state, link.settings.seat)
        if body["epoch"] != link.nonce:
            why = Reason("that was proposed in an earlier playing of this game")
        elif body["index"] != len(state.moves):
            why = Reason("the game has moved on: {n} moves now, that was proposed after {m}",
                         n=len(state.moves), m=body["index"])
        elif self.asked is not None:
            why = Reason("the board asks you for a takeback: accept or refuse it first")
        elif self.request is not None:
            why = Reason("you asked already: waiting for the board's answer")
        else:
            why = self._why_not(to)
        if why is not None:
            self._send(self._answer(body["id"], False, link.words(why)))
            return
        self.request = {"to": to, "id": body["id"], "moves": len(state.moves),
                        "at": link.clock()}
        link.takeback_request = to
        self._keep()
        self._arm()
        log.info("the browser asks to take back to %d moves", to)

    def answer(self, accept: bool) -> None:
        """The people at the board accept or refuse the browser's request (the sim, the page)."""
        self._lapse_due()
        link, request = self.link, self.request
        if request is None:
            raise games.IllegalMove("takeback", Reason("the player in the browser has not "
                                                       "asked for a takeback"))
        self._clear_request()
        if accept and (link.referee.over or len(link.referee.state.moves) != request["moves"]):
            accept = False   # (the game moved on since it asked)
        if accept:
            self._take_back(request["to"])
            self._say(link.words(Reason("the board accepted: move {n} taken back",
                                        n=request["to"] + 1)))
        self._send(self._answer(request["id"], accept, None if accept else link.words(
            Reason("the board refused the takeback: nothing changed"))))
        link._publish_state()
        link._changed()

    # --- lapses ----------------------------------------------------------------------------------

    def lapse(self, now: float) -> None:
        """Requests not answered within TAKEBACK_S lapse: said, nothing changes."""
        link = self.link
        if self.asked is not None and now >= self.asked["at"] + TAKEBACK_S:
            self._clear_asked()
            self._say(link.words(Reason("the player in the browser did not answer the takeback "
                                        "in time: nothing changed")))
        if self.request is not None and now >= self.request["at"] + TAKEBACK_S:
            request = self.request
            self._clear_request()
            self._send(self._answer(request["id"], False, link.words(Reason(
                "no one at the board answered the takeback in time: nothing changed"))))
        link.publish_view()
        link._changed()

    def _lapse_due(self) -> None:
        """An answer that comes at the deadline, before the timer looked: too late."""
        now = self.link.clock()
        if any(p is not None and now >= p["at"] + TAKEBACK_S for p in (self.asked, self.request)):
            self.lapse(now)

    def away(self) -> None:
        """The browser went away: what it was asked, or asked, lapses."""
        if self.asked is not None:
            self._clear_asked()
            self._say(self.link.words(Reason("the player in the browser went away before "
                                             "answering the takeback: nothing changed")))
        if self.request is not None:
            self._clear_request()   # (its page says so itself: the board went quiet)

    def game_changed(self) -> None:
        """A move or takeback of the game meanwhile: a request made before it lapses."""
        moves = len(self.link.referee.state.moves)
        if self.asked is not None and self.asked["moves"] != moves:
            self._clear_asked()
            self._say(self.link.words(Reason("the game moved on before the player in the "
                                             "browser answered: nothing taken back")))
        if self.request is not None and self.request["moves"] != moves:
            request = self.request
            self._clear_request()
            self._send(self._answer(request["id"], False, self.link.words(Reason(
                "the game has moved on: {n} moves now, that was proposed after {m}",
                n=moves, m=request["moves"]))))

    # --- parts -------------------------------------------------------------------------------

    def seen(self, message_id: str) -> bool:
        """Whether a takeback message with this id came before (remembered, bounded)."""
        if message_id in self._seen:
            return True
        self._seen[message_id] = None
        while len(self._seen) > SEEN:
            self._seen.popitem(last=False)
        return False

    def _take_back(self, to: int) -> None:
        link = self.link
        link.takebacks += 1
        link._save_takebacks()   # before the game changes, as a board-to-board takeback
        link._take_back_to(to)

    def _answer(self, message_id: str, ok: bool, why: str | None) -> dict:
        s = self.link.settings
        body = {"type": "takeback-answer", "game_id": s.game_id, "seat": s.seat,
                "id": message_id, "ok": ok}
        if why is not None:
            body["reason"] = why
        return body

    def _send(self, answer: dict) -> None:
        s = self.link.settings
        self.link._put(sp.seat_topic(s.game_id, s.seat, "answer"),
                       sp.seal(self.link.seat_key, answer), False)

    def _clear_asked(self) -> None:
        self.asked = None
        self.link._asked_to = None
        self._keep()

    def _clear_request(self) -> None:
        self.request = None
        self.link.takeback_request = None
        self._keep()

    # --- a request waiting survives a restart ----------------------------------------------------

    def _keep(self) -> None:
        """Write what waits (or that nothing does) beside the journal, before anyone acts on it:
        each request with its deadline on the wall clock (the loop's clock starts again with
        the process) and the position it is about."""
        link = self.link
        if self.asked is None and self.request is None:
            self._kept.unlink(missing_ok=True)
            return
        wall = time.time() - link.clock()
        data: dict[str, Any] = {"game_id": link.settings.game_id, "nonce": link.nonce,
                                "takebacks": link.takebacks,
                                "hash": rp.position_hash(link.referee.state),
                                "seen": list(self._seen)}
        for name in ("asked", "request"):
            pending = getattr(self, name)
            if pending is not None:
                data[name] = {**pending, "at": None, "deadline": pending["at"] + TAKEBACK_S + wall}
        try:
            write_private(self._kept, data)
        except OSError as exc:   # (a full or read-only disk: the request still stands here)
            log.error("%s: cannot keep the takeback request (%s)", self._kept, exc)

    def _restore(self) -> None:
        """Take up the request kept by this board before it restarted, if it is about this very
        position of this playing (else dropped, logged); its deadline is kept, so one that went
        by during the restart lapses at once (`resume`)."""
        link = self.link
        try:
            data = json.loads(self._kept.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError) as exc:
            log.error("%s: unreadable (%s); no takeback request waits", self._kept, exc)
            return
        state = link.referee.state
        try:
            same = (data["game_id"] == link.settings.game_id and data["nonce"] == link.nonce
                    and data["takebacks"] == link.takebacks and not link.referee.over
                    and data["hash"] == rp.position_hash(state))
            wall = time.time() - link.clock()
            pending = {name: {**data[name], "at": float(data[name].pop("deadline")) - wall
                              - TAKEBACK_S} for name in ("asked", "request") if data.get(name)}
            if same and all(p["moves"] == len(state.moves) for p in pending.values()):
                for message_id in data.get("seen", [])[-SEEN:]:
                    self._seen[str(message_id)] = None
                self.asked, self.request = pending.get("asked"), pending.get("request")
            else:
                log.info("%s: the takeback request kept was about another position; dropped",
                         self._kept)
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            log.error("%s: unreadable (%s); no takeback request waits", self._kept, exc)
        if self.asked is not None:
            link._asked_to = self.asked["to"]
        if self.request is not None:
            link.takeback_request = self.request["to"]
        if self.asked is None and self.request is None:
            self._kept.unlink(missing_ok=True)
        else:
            log.info("a takeback request waits again after the restart (%s)",
                     "the board's" if self.asked else "the browser's")

    def resume(self) -> None:
        """On the loop, as the link connects: a request restored (or waiting) lapses now if
        its time went by (during the restart), else is looked at again when it would."""
        if self.asked is not None or self.request is not None:
            self.lapse(self.link.clock())
        if self.asked is not None or self.request is not None:
            self._arm(min(p["at"] for p in (self.asked, self.request) if p is not None))

    def _arm(self, at: float | None = None) -> None:
        """Look again when the request made at `at` (now, by default) would lapse (on the
        daemon's loop; without one, a trace, `lapse` is called by whoever keeps the clock)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        if self._timer is not None:
            self._timer.cancel()
        delay = TAKEBACK_S if at is None else max(0.0, at + TAKEBACK_S - self.link.clock())
        self._timer = loop.call_later(delay + 0.05, lambda: self.lapse(self.link.clock()))
