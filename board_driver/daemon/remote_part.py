"""The remote link as a part of the daemon: a seat played from another board over MQTT.

Starts the link (from the config's [remote], or a game joined on the page before a restart,
kept beside the journal), hands it to the supervisor as a part that can die, and joins or
leaves a remote game for the page. The link itself (board_driver/remote/link.py) moves the
moves; the seats stay the referee's, changed through `Referee.set_seats`. The config is
never written: a joined game is a config value of its own (`dataclasses.replace`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from typing import Any

import games
from board_driver.daemon.supervisor import Part
from games.base import Reason
from hardware.base import DIED, Problem

log = logging.getLogger("treeboard.daemon")

#: How long a stop waits for the link's task to end once cancelled: a task that swallows its
#: cancellation (a library's wait_for dropping it) must never hold the board's own stop.
STOP_S = 5.0


class RemotePart:
    def __init__(self, daemon: Any):
        self.daemon = daemon
        self.link = None   # the RemoteLink, when a seat is played from another board
        self._task: asyncio.Future | None = None

    def start(self, session: Any) -> None:
        from board_driver.remote.link import load_join, settings_from_config

        config = self.daemon.config
        # (the game menu's answer to a takeback request: for whichever link comes, once)
        answered_on_the_board(session.referee, lambda: self.link, self.daemon.loop.call_soon)
        joined = load_join(config)   # a remote game joined on the page, before a restart
        if "remote" not in session.referee.seats:
            if joined is None:
                return
            table, seats = joined
            session.referee.set_seats(seats)
            # (the config stays as read: the joined game is kept beside the journal)
            config = dataclasses.replace(config, remote=table)
        elif joined is not None and met_here(config.remote, joined[0]):
            # the game this board offered, taken by a board before the restart: played board
            # to board again, not with a browser
            config = dataclasses.replace(config, remote=joined[0])
        self._open(settings_from_config(config, session.referee.seats))

    def _open(self, settings) -> None:
        from board_driver.remote.link import RemoteLink

        daemon = self.daemon
        if settings.guest:   # the remote seat is a browser's: the board draws its view
            self.link = open_guest(settings, daemon)
        else:
            self.link = RemoteLink(settings, daemon.session.referee, daemon.loop.time)
            self.link.after_change = daemon.show
        tell_presence(self.link, daemon)
        self._task = asyncio.ensure_future(self.link.run())
        if "remote link" not in daemon.supervisor.parts:
            daemon.supervisor.add(Part("remote link", check=self.problem, restart=self.restart))

    def problem(self) -> str | None:
        """Why the link's task ended (it runs until cancelled: reconnecting is its own job)."""
        task = self._task
        if task is None or not task.done() or task.cancelled():
            return None
        exc = task.exception()
        return Problem("its task ended" if exc is None else f"{type(exc).__name__}: {exc}", DIED)

    def restart(self) -> None:
        if self.link is not None:
            self._task = asyncio.ensure_future(self.link.run())

    async def stop(self) -> None:
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            # (asyncio.wait, not wait_for: wait_for would wait for a cancellation it repeats)
            done, _ = await asyncio.wait({task}, timeout=STOP_S)
            if not done:
                log.error("the remote link's task did not stop within %.0f s of its cancel; "
                          "the board stops without it", STOP_S)
            elif not task.cancelled() and task.exception() is not None:
                log.warning("the remote link's task ended with %r as it stopped",
                            task.exception())
        if self.link is not None:
            self.link.detach()
            self.link = None
        self.daemon.supervisor.remove("remote link")

    # --- the family's lobby (remote/meet.py) ------------------------------------------------

    def lobby_broker(self):
        """The family's broker as this board reaches it (the config's [remote] table, with or
        without a game), or IllegalMove saying it has none."""
        from board_driver.remote.link import broker_from_config
        from board_driver.remote.meet import Broker

        config = self.daemon.config
        if not config.remote:
            raise games.IllegalMove("lobby", Reason(
                "this board knows no broker: set [remote] broker and secret (or sim --remote "
                "URL --lobby)"))
        return Broker(**broker_from_config(config))

    async def offers(self) -> list:
        """The games offered in the family's lobby now (IllegalMove: no broker reached)."""
        from board_driver.remote.meet import read_offers

        import aiomqtt

        broker = self.lobby_broker()
        try:
            return await read_offers(broker)
        except (aiomqtt.MqttError, OSError) as exc:   # (ssl.SSLError is an OSError)
            raise games.IllegalMove("lobby", Reason(
                "the family's broker cannot be reached: {why}", why=str(exc))) from None

    async def take(self, game_id: str) -> None:
        """Take the lobby's offer of `game_id`: this board plays its open seat as a remote
        board (a RemoteLink, with the family secret), with the offer's game, options and
        clock; the offering board withdraws the offer as this board's presence arrives."""
        from board_driver.referee.clock import parse_time_control
        from board_driver.remote import meet
        from board_driver.remote.meet import find

        offer = find(await self.offers(), game_id)
        if offer is None:
            raise games.IllegalMove("take", Reason(
                "no game {game} is offered in the lobby now (taken, or its board left)",
                game=game_id))
        referee = self.daemon.session.referee
        if offer.game != referee.state.game.name:
            raise games.IllegalMove("take", Reason(
                "this board plays {mine}; that offer is a game of {theirs}",
                mine=referee.state.game.name, theirs=offer.game or "?"))
        self._can_join()
        now = self.daemon.loop.time()
        try:
            controls = parse_time_control(offer.time_control or "none")
            referee.new_game(now, offer.options, "remote-join")
        except (ValueError, games.GameError) as exc:
            raise games.IllegalMove("take", Reason(
                "that offer's options do not fit this board: {why}", why=str(exc))) from None
        referee.set_controls(controls, now)
        table = {k: v for k, v in self.daemon.config.remote.items()
                 if k not in ("guest", "offer", "page", "ws_broker")}
        self.join({**table, "game": offer.game_id}, offer.seat)
        # Taken at the same moment by a browser (or another board)? The offering board says
        # which: this board is in the game only once it plays it with this board.
        got = await meet.outcome(self.link)
        if got == "board":
            return
        await self.leave()   # (the link has sent no game: it never knew the host's epoch)
        why = {"lost to a browser": Reason(
            "a player in a browser took {game} first: this board joins no game",
            game=offer.game_id), "lost to a board": Reason(
            "another board took {game} first: this board joins no game", game=offer.game_id)
        }.get(got or "", Reason(
            "the board offering {game} did not answer (gone, or another board took the seat "
            "first): this board joins no game", game=offer.game_id))
        raise games.IllegalMove("take", why)

    def met_board(self, board: str | None = None) -> None:
        """A board took this board's offer (remote/meet.py; `board`: its presence's name for
        it, the only board this one plays the game with): the game is played board to board
        from now on (the browser's link makes way for a RemoteLink, on the loop, as the
        link's own task cannot wait for its own end), and kept so across a restart."""
        asyncio.ensure_future(self._become_board_game(board))

    async def _become_board_game(self, board: str | None) -> None:
        from board_driver.remote import meet
        from board_driver.remote.link import save_join

        link = self.link
        if link is None:
            return
        table = {**self.daemon.config.remote, "guest": False, "offer": False,
                 "met": board or True}   # (True: a board too old to name itself)
        settings = dataclasses.replace(link.settings, guest=False, offer=False, met=board)
        await link.clear_view()   # (no browser plays this game now: its picture goes)
        await self.stop()
        save_join(self.daemon.config, table, tuple(self.daemon.session.referee.seats))
        self._open(settings)
        # (its browser game's retained state is stale, not forged: remote/meet.py)
        meet.remember_earlier(self.link, link.nonce)
        self.daemon.show()

    def _can_join(self) -> None:
        if self.link is not None:
            raise games.IllegalMove("join", "this board is in a remote game already; leave it first")
        if any(p.startswith("computer") for p in self.daemon.session.referee.seats):
            raise games.IllegalMove("join", "the computer plays a seat here; give both seats to "
                                            "people before joining a remote game")

    def join(self, table: dict, seat: int | None) -> None:
        """Join a remote game from the page: `table` as the config's [remote] would hold it,
        `seat` the seat played here (None: watch). A game in progress here is closed first:
        a remote game starts from its first move on both boards. Kept beside the journal, so
        the board is still in the game after a restart. Raises ConfigError naming what is wrong."""
        from board_driver.remote.link import save_join, settings_from_config

        daemon = self.daemon
        self._can_join()
        referee = daemon.session.referee
        players = ["remote", "remote"]
        if seat is not None:
            players[seat] = "human"
        trial = dataclasses.replace(daemon.config, remote=table)
        settings = settings_from_config(trial, tuple(players))  # the broker, game id and secret
        save_join(daemon.config, table, tuple(players))
        referee.set_seats(players)
        if referee.state.moves:
            referee.new_game(daemon.loop.time(), origin="remote-join")
        self._open(settings)

    async def leave(self) -> None:
        """Leave the remote game: both seats are played here again."""
        from board_driver.remote.link import forget_join

        if self.link is None:
            raise games.IllegalMove("leave", "this board is in no remote game")
        await self.stop()
        forget_join(self.daemon.config)
        self.daemon.session.referee.set_seats(("human", "human"))


def answered_on_the_board(referee: Any, link_of: Any, call_soon: Any) -> None:
    """The game menu answers the other side's takeback request (referee/hands.py offers
    accept and refuse while one waits): the link (`link_of()`) answers it once the board has
    decided, by `call_soon` (never inside the referee's decide loop: the answer takes the game
    back, and deciding is one loop). Wired once per referee, as the daemon starts."""
    referee.hands.takeback_asked = lambda: getattr(link_of(), "takeback_request", None)

    def answer(accept: bool) -> None:
        link = link_of()
        if link is None:
            return
        try:
            link.answer_takeback(accept)
        except games.IllegalMove as exc:   # (answered meanwhile, or lapsed: nothing to do)
            log.info("the menu's takeback answer not sent: %s", exc.reason)

    def told_takeback_answer(what: str, accept: Any, origin: str) -> None:
        if what == "takeback-answer":
            call_soon(answer, bool(accept))

    referee.listeners.append(told_takeback_answer)


def met_here(config_table: dict, joined_table: dict) -> bool:
    """Whether the game joined (kept beside the journal) is this board's own offered game,
    taken by another board before a restart (RemotePart._become_board_game)."""
    return bool(joined_table.get("met")) and joined_table.get("game") == config_table.get("game")


def open_guest(settings, daemon: Any):
    """The link to a browser playing the remote seat (remote/guest.py), with the view the
    board draws for it (daemon/guest_view.py) and, when offered, the lobby's offer."""
    from board_driver.daemon.guest_view import guest_view, offer_words, words
    from board_driver.remote.guest import GuestLink

    referee = daemon.session.referee
    link = GuestLink(settings, referee, daemon.loop.time)
    link.view_of = lambda: guest_view(referee, daemon.loop.time(), settings.seat)
    link.words = words
    link.offer_words = lambda: offer_words(referee, daemon.loop.time(), settings.seat)
    link.met_board = daemon.remote_part.met_board

    def changed() -> None:
        daemon.show()
        link.publish_view()
    link.after_change = changed
    return link


def tell_presence(link: Any, daemon: Any) -> None:
    """The referee hears, after each change of the link, whether the other side is there (a
    browser's presence, the other board's; no broker: not there), whether this board alone
    decides that seat's game (a browser's), and whether this board is cut off from the broker
    itself (then it offers no choice about the other: referee/absence.py)."""
    seat = link.settings.seat
    if seat is None or link.settings.watching:
        return   # (a spectator: no one plays here)
    shown = link.after_change

    def changed() -> None:
        referee = daemon.session.referee
        if referee.absence.seen(seat, link.peer_online, daemon.loop.time(),
                                hosted=link.settings.guest, cut_off=not link.linked):
            referee.decide(daemon.loop.time())
        shown()
    link.after_change = changed
