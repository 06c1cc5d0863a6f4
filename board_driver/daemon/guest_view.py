"""What the hosting board shows a seat played from a browser (remote/guest.py publishes it):
drawn by the Python views from the referee's moment, so the browser has no rules and no
pictures of its own. The daemon's, because the remote room may not import the views."""

from __future__ import annotations

from typing import Any

from board_driver import views
from board_driver.views import entry
from board_driver.views.narrate import Narrator
from board_driver.views.words import reason, tr
from board_driver.web import snapshot


def guest_view(referee: Any, now: float, seat: int, language: str | None = None) -> dict[str, Any]:
    """The browser's view of the game for `seat`: JSON-ready, no floats (it is signed)."""
    moment = referee.moment(now)
    state = moment.state
    names = views.players(state.game.name)
    # (a game its players ended counts too: resigned, a draw, claimed while one was away)
    result = snapshot.result_words(state, names, moment.flagged, moment.ending)
    mine = not state.is_over() and state.to_move == seat
    owed = bool(moment.to_make) and moment.to_make_by == "remote"
    return {
        "title": views.title(state.game.name),
        "svg": views.svg(state, moment.shown()),
        "sentence": result or Narrator().turn(moment).text,
        "you": tr("you play {player}").format(player=names[seat]),
        "your_turn": mine,
        # the browser's last move is not yet on the physical board: the people there put it
        "owed": owed,
        "clocks": snapshot.clocks_state(moment),
        "moves": views.move_words(state.game.name, [str(m) for m in state.moves])[-12:],
        "entry": entry.model(state) if mine else None,
        "words": page_words(timed=moment.clocks is not None),
    }


def page_words(timed: bool = False) -> dict[str, str]:
    """The seat page's own words (its presence line, its buttons), in the board's language.
    The board hosts the game and its clocks, so the page has nothing to choose when the board
    is away, only what happens (said in advance: the board cannot speak then): in a timed game
    the browser's clock stops (the board's own is stopped as the board goes, or, cut off from
    the broker, stops the browser's seat's: referee/absence.py), and the page's countdown
    stops with it."""
    away = tr("the board is away: your clock is stopped until it is back; nothing is lost, "
              "the game waits") if timed else \
        tr("the board is away (its link is down): nothing is lost, the game waits")
    return {"link_up": tr("connected to the broker"),
            "link_down": tr("no link to the broker: reconnecting…"),
            "board_here": tr("the board is here"),
            "board_away": away,
            "board_unknown": tr("the board: not heard yet"),
            "bad_link": tr("This link does not open this game: the board's messages do not "
                           "check with its key (a link altered, or for another game or seat)."),
            "Undo tap": tr("Undo tap"), "Cancel": tr("Cancel"),
            # takebacks (remote/takeback.py): asked from the page, the board's answered there
            "ask_takeback": tr("Take back my last move"), "Accept": tr("Accept"),
            "Refuse": tr("Refuse"),
            "takeback_away": tr("the board is away: a takeback can be asked once it is back")}


def words(text: Any) -> str:
    """A refusal's reason in the board's language (a games.Reason, or plain text)."""
    return reason(text)


def offer_words(referee: Any, now: float, seat: int) -> dict[str, Any]:
    """The lobby's offer of `seat` in words (remote/lobby.py): the game, its options, the
    clock, the open seat."""
    moment = referee.moment(now)
    state = moment.state
    options = {k: str(v) for k, v in state.options().items()}
    clock = moment.clock_control or tr("no clock")
    return {"title": views.title(state.game.name), "options": options, "clock": str(clock),
            "summary": tr("{game} ({options}), {clock}: you would play {player}").format(
                game=views.title(state.game.name),
                options=", ".join(f"{k} {v}" for k, v in sorted(options.items())) or "-",
                clock=clock, player=views.players(state.game.name)[seat]),
            "take": tr("Take this seat")}
