"""Games the players end or pause (docs/board.md, "Ending and pausing a game"): a resignation, a
draw offered and answered, a game put away and taken up again.

A part of the referee, as its hands and pieces are: the referee owns one Endings, which holds
how the game in progress was ended by its players (`ended`: the summary's `resigned` or
`agreed`, as board_driver/records/ reads them), the draw on offer (`offer`: the seat that
offered it), and the last thing done that the board says once (`news`). It changes the game
only through the referee's own methods and the journal's; everything it refuses raises
`games.IllegalMove` with a reason a player can read, and changes nothing.

Who may do what:
- a seat "a person here controls" (`LOCAL`: a person at this board, or a web seat, played from
  the page) resigns and offers a draw; the computer and a remote board do neither here (a
  remote board's own resignation and offer arrive by its messages: origin "remote");
- a draw is answered by the other seat: a person here (the page, the sim, the menu), the
  computer (board_driver/referee/seats.py: it accepts only when its search says the game is
  level, DRAW_LEVEL), or the remote board (its answer message);
- an offer lapses when a move is played or taken back, or the game ends otherwise;
- a game put away keeps its position, clocks and seats in the journal (status 'away'); the
  board starts a new game at once; a game taken up comes back whole, and the correction LEDs
  say what to put where until the pieces match it (the referee holds play until they do).
"""

from __future__ import annotations

import logging
from typing import Any

import games
from board_driver import views
from board_driver.moment import EndingFace
from board_driver.referee.clock import Clocks, parse_time_control
from board_driver.referee.journal import STATUS_WORDS, JournalError
from board_driver.referee.kept import check_seats
from board_driver.referee.menu import Menu
from games.base import Reason

log = logging.getLogger("treeboard.referee")

#: The seat kinds a person here plays: at this board ("human"), or on the page ("web").
LOCAL = ("human", "web")
#: The computer accepts a draw only when its search says the game is level: an exact value of
#: 0 (a draw with perfect play), or a search's mean reward for it within DRAW_LEVEL of an even
#: game's 0.5 (0.4 to 0.6: the search sees no side ahead by more than a tenth of the games).
DRAW_LEVEL = 0.1
#: How long the computer looks at a draw offer (its worker; seats.py).
DRAW_SECONDS = 1.0
#: A game the present player ended while the other was away (absence.py), as its summary
#: says it: the away seat, claimed (the other won) or called a draw.
CLAIMS = ("forfeit", "drawn_away")


def is_level(value: float, exact: bool) -> bool:
    """Whether a value of games.ai.analyse's best row, for the seat asked, is a level game."""
    return value == 0 if exact else abs(value - 0.5) <= DRAW_LEVEL


class Endings:
    def __init__(self, referee: Any):
        self.referee = referee
        self.ended: dict[str, Any] | None = None   # {"resigned": seat} or {"agreed": True}
        self.offer: int | None = None              # the seat whose draw offer waits
        self._news: tuple[int, str, tuple] | None = None   # (count, what, its values)
        self._count = 0
        referee.listeners.append(self._heard)

    # --- reading -------------------------------------------------------------------------------

    def local(self, seat: int) -> bool:
        """Whether a person here (at this board or on its page) plays `seat`."""
        return self.referee.seats[seat].split(":", 1)[0] in LOCAL

    def asked(self) -> str | None:
        """Who answers the draw on offer: "board" (a person here), "computer", "remote"; None
        without an offer."""
        if self.offer is None:
            return None
        other = 1 - self.offer
        kind = self.referee.seats[other].split(":", 1)[0]
        return "board" if kind in LOCAL else kind

    def face(self) -> EndingFace | None:
        """What the views draw of it (None: nothing ended, nothing on offer, nothing new)."""
        if self.ended is None and self.offer is None and self._news is None:
            return None
        ended = self.ended or {}
        return EndingFace(resigned=ended.get("resigned"), agreed=bool(ended.get("agreed")),
                          forfeit=ended.get("forfeit"), drawn_away=ended.get("drawn_away"),
                          offer_by=self.offer, asked=self.asked(), news=self._news)

    def _say(self, what: str, *values: Any) -> None:
        self._count += 1
        self._news = (self._count, what, values)

    def _heard(self, what: str, move: Any, origin: str) -> None:
        """A referee listener: a move or a takeback answers an offer by playing on (it
        lapses); a new game (or one taken up) has neither an ending nor an offer."""
        if what in ("move", "undo", "flag") and self.offer is not None:
            self.offer = None
            if what != "flag":   # (a flag says itself)
                self._say("lapsed")
        if what == "new-game":
            self.ended = self.offer = None

    def restore(self, summary: dict | None) -> bool:
        """A game that ended before a restart by its players: shown ended, as it was. Returns
        whether it was."""
        summary = summary or {}
        for key in ("resigned", *CLAIMS):
            if summary.get(key) in (0, 1):
                self.ended = {key: summary[key]}
                return True
        if summary.get("agreed"):
            self.ended = {"agreed": True}
        return self.ended is not None

    # --- resigning and drawing -----------------------------------------------------------------

    def seat_of(self, seat: int | None, doing: str) -> int:
        """The seat that resigns or offers: `seat` if a person here plays it; None: the player
        to move if a person here plays it, else the one seat a person here plays."""
        ref = self.referee
        if seat is not None:
            if seat not in (0, 1):
                raise ValueError(f"seat must be 0 (moves first) or 1, not {seat!r}")
            if not self.local(seat):
                raise games.IllegalMove(doing, Reason("{player} is not played here",
                                                      player=views.players(
                                                          ref.state.game.name)[seat]))
            return seat
        here = [s for s in (0, 1) if self.local(s)]
        if ref.state.to_move in here:
            return ref.state.to_move
        if len(here) == 1:
            return here[0]
        raise games.IllegalMove(doing, Reason("no seat is played here"))

    def _playing(self, doing: str) -> None:
        ref = self.referee
        if ref.over:
            raise games.IllegalMove(doing, Reason("the game is over"))
        if ref.menu.open:
            raise games.IllegalMove(doing, Reason("the menu is open"))

    def resign(self, now: float, seat: int | None = None, origin: str = "board") -> int:
        """`seat` resigns (see `seat_of`; a remote board's, origin "remote"): the game is over,
        won by the other, journaled with `resigned`. Returns the seat."""
        self._playing("resign")
        if origin != "remote":
            seat = self.seat_of(seat, "resign")
        self._end(now, {"resigned": seat}, winner=1 - seat)
        log.info("seat %d resigned (%s)", seat, origin)
        self.referee.tell("resign", seat, origin)
        return seat

    def offer_draw(self, now: float, seat: int | None = None, origin: str = "board") -> int:
        """`seat` offers a draw; the other side answers (`answer`). Returns the seat."""
        self._playing("draw")
        if self.offer is not None:
            raise games.IllegalMove("draw", Reason("a draw is on offer already: it waits for "
                                                   "its answer"))
        if origin != "remote":
            seat = self.seat_of(seat, "draw")
        self.offer = seat
        self._say("offer", seat)
        log.info("seat %d offers a draw (%s)", seat, origin)
        self.referee.tell("draw-offer", seat, origin)
        return seat

    def answer(self, accept: bool, now: float, origin: str = "board") -> None:
        """The answer to the draw on offer: by a person here (the page, the sim, the menu), the
        computer (origin "computer") or the remote board (origin "remote"), whichever plays the
        other seat. Accepted, the game is drawn by agreement; refused, play goes on."""
        if self.offer is None:
            raise games.IllegalMove("answer", Reason("no draw is on offer"))
        asked = self.asked()
        by = "board" if origin not in ("computer", "remote") else origin
        if asked != by:
            raise games.IllegalMove("answer", {
                "computer": Reason("the computer answers the draws offered to it"),
                "remote": Reason("the other board answers this offer")}.get(
                    asked, Reason("a person here answers this offer")))
        seat = 1 - self.offer
        if not accept:
            self.offer = None
            self._say("refused", seat)
            log.info("seat %d refused the draw (%s)", seat, origin)
            self.referee.tell("draw-refused", seat, origin)
            return
        self.offer = None
        self._end(now, {"agreed": True}, winner=None)
        log.info("seat %d accepted the draw (%s)", seat, origin)
        self.referee.tell("draw-agreed", seat, origin)

    def claim(self, now: float, away: int, draw: bool, origin: str = "board") -> None:
        """The present player ends the game while `away`'s player is away past the grace
        (referee/absence.py decides when they may): won by the present player (`forfeit`:
        the away seat), or drawn (`draw`: `drawn_away`)."""
        self._playing("claim")
        how = {"drawn_away" if draw else "forfeit": away}
        self._end(now, how, winner=None if draw else 1 - away)
        log.info("seat %d away: the game %s (%s)", away, "drawn" if draw else "claimed", origin)
        self.referee.tell("claim", away, origin)

    def _end(self, now: float, how: dict[str, Any], winner: int | None) -> None:
        """The game over by its players: the clocks stopped and kept, then the result
        journaled (one transaction) before anything is shown."""
        ref = self.referee
        keeper = ref.keeper
        if keeper.timed:
            keeper.clocks.stop(now)
            ref.journal.save_clocks(keeper.clocks.to_json(now))
        summary = dict(ref.state.summary(), over=True, winner=winner, **how)
        ref.journal.finish(summary)
        self.ended, self.offer = dict(how), None
        ref.decided.over_since = now
        ref.decided.to_make = frozenset()
        ref.clear_marks()
        what = next((k for k in ("resigned", *CLAIMS) if k in how), "agreed")
        self._say(what, how.get(what))

    # --- putting away and taking up ------------------------------------------------------------

    def _may_switch(self, doing: str) -> None:
        ref = self.referee
        if "remote" in ref.seats:
            raise games.IllegalMove(doing, Reason("a remote game is one game on both boards: "
                                                  "it cannot be put away here"))
        if ref.menu.open:
            raise games.IllegalMove(doing, Reason("the menu is open"))

    def put_away(self, now: float, origin: str = "board") -> int:
        """The game in progress put away (journal status 'away', with its moves, seats and
        clocks); a new game starts at once. Returns the game's journal id."""
        ref = self.referee
        self._may_switch("put away")
        if ref.over:
            raise games.IllegalMove("put away", Reason("the game is over"))
        if not ref.state.moves:
            raise games.IllegalMove("put away", Reason("no move is made yet: nothing to put "
                                                       "away"))
        clocks = None
        if ref.keeper.timed:
            ref.keeper.clocks.stop(now)
            clocks = ref.keeper.clocks.to_json(now)
        game_id = ref.journal.put_away(clocks)
        moves = len(ref.state.moves)
        log.info("game %d put away after %d moves (%s)", game_id, moves, origin)
        ref.begin(now, None, origin)
        self._say("away", game_id, moves)
        return game_id

    def take_up(self, game_id: int, now: float, origin: str = "board") -> Any:
        """A game put away, taken up again: its position, clocks and seats; the game in
        progress is put away first when a move was made in it (abandoned when none was). The
        board is held until its pieces match the game (the correction LEDs say what to put
        where). Returns the journal's saved game."""
        ref = self.referee
        self._may_switch("take up")
        journal = ref.journal
        try:
            saved = journal.game(game_id)
        except JournalError:
            raise games.IllegalMove("take up", Reason("no game {n} in the journal",
                                                      n=game_id)) from None
        if saved.status != "away":
            raise games.IllegalMove("take up", Reason("game {n} is {status}, not put away",
                                                      n=game_id, status=STATUS_WORDS.get(
                                                          saved.status, saved.status)))
        if saved.game != ref.state.game.name:
            raise games.IllegalMove("take up", Reason("game {n} is a game of {game}: this "
                                                      "board plays {ours}", n=game_id,
                                                      game=saved.game,
                                                      ours=ref.state.game.name))
        state = games.get_game(saved.game).new_state(**saved.options)
        state.play_all(saved.moves)   # (raises GameError before anything changes)
        unsensed = [s for s in state.sites() if s not in ref.layout.channels_of_site]
        if unsensed:
            raise games.IllegalMove("take up", Reason("this board has no sensor for {site}",
                                                      site=unsensed[0]))
        seats = _seats(saved.players) or ref.seats
        if ref.state.moves and not ref.over:
            self.put_away_quietly(now)
        elif not ref.over:
            journal.abandon()
        taken = journal.take_up(game_id)
        self._adopt(state, taken, seats, now, origin)
        return taken

    def put_away_quietly(self, now: float) -> None:
        """The game in progress put away to make room for one taken up (no new game)."""
        keeper = self.referee.keeper
        if keeper.timed:
            keeper.clocks.stop(now)
        self.referee.journal.put_away(keeper.clocks.to_json(now) if keeper.timed else None)

    def _adopt(self, state: Any, saved: Any, seats: tuple[str, str], now: float,
               origin: str) -> None:
        """The game on the board becomes `state` (the journal's `saved`, taken up)."""
        ref = self.referee
        put_in_place(ref, state)
        ref.hold_for_pieces()   # (until the pieces match it: the corrections say where)
        ref.decided.over_since, ref.decided.end_owed = None, None
        ref.decided.to_make = frozenset()
        ref.set_hints({})
        if ref.touch is not None:
            ref.touch.reset()
        self.ended = self.offer = None
        # Its clocks as they were kept (the time it waited charged to nobody), kept again at
        # once for the game in progress; an untimed game comes back untimed.
        if saved.clocks is not None and ref.keeper.restore(saved.clocks, now):
            ref.journal.save_clocks(ref.keeper.clocks.to_json(now))
        else:
            ref.keeper.clocks = Clocks(parse_time_control("none"))
        ref.set_seats(seats)
        self._say("taken-up", saved.game_id, len(state.moves))
        log.info("game %d taken up at move %d (%s)", saved.game_id, len(state.moves), origin)
        ref.tell("taken-up", saved.game_id, origin)

    def away(self) -> list[Any]:
        """The games put away, newest first (the journal's `Listed`), of this board's game."""
        name = self.referee.state.game.name
        return [g for g in self.referee.journal.away() if g.game == name]


def put_in_place(referee: Any, state: Any) -> None:
    """The game on the board becomes `state`, a new game's or one taken up: a new game of the
    board's life, its sites watched, nothing timed out or flagged, a menu of its own (the one
    place the referee's game is replaced: Referee.begin and adopt, Endings.take_up)."""
    referee.state = state
    referee.game_number += 1
    referee.timed_out = set()
    referee.reading.watch(state.sites())
    referee.flagged = None
    referee.setting_up = referee.mode = None   # (a study's, a puzzle's: set again after)
    referee.menu = Menu(referee.sensed, views.hint_modes(state.game.name))


def _seats(players: Any) -> tuple[str, str] | None:
    """The seats a journal's players name, when they are two this board can play again (a
    remote seat is not: its game went on no other board)."""
    try:
        seats = check_seats(p.get("seat") for p in players or ())
    except (ValueError, AttributeError):
        return None
    return None if "remote" in seats else seats
