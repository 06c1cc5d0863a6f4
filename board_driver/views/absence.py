"""A player away, as the board shows and says it (board_driver/referee/absence.py decides; the
moment's `absent` carries it): one sentence for the page, the sim and the voice, the present
player's choices by name, and the turn LEDs (asked: the present player's colour blinking slowly,
ASK_HZ; paused: the "waiting" colour, steady)."""

from __future__ import annotations

from typing import Any, Hashable, Mapping

from board_driver.moment import AbsentFace, Colour, Moment
from board_driver.views import players
from board_driver.views.base import FRAME_S, waiting_breath
from board_driver.views.words import N_, tr

#: The turn LEDs blink this often while the present player is asked (slower than a draw offer).
ASK_HZ = 0.5

#: Each choice as its button reads.
CHOICE_WORDS = {"pause": N_("pause the clocks until they return"),
                "wait": N_("wait, the clock running"),
                "claim": N_("claim the game"), "draw": N_("call it a draw")}


def choice_words() -> dict[str, str]:
    """The choices' names in the board's language (the page's buttons)."""
    return {k: tr(v) for k, v in CHOICE_WORDS.items()}


def absent_words(game_name: str, face: AbsentFace | None) -> str | None:
    """The away player in one sentence ("player 2 is away: ..."), or None while no one to move
    is away past the grace (nor paused for)."""
    if face is None or face.seat is None or not (face.asked or face.paused):
        return None
    names = players(game_name)
    player, other = names[face.seat], names[1 - face.seat]
    if face.pending is not None:
        return tr(PENDING[face.pending]).format(player=player, other=other)
    if face.cut_off:
        return tr("this board has no link to the broker: it cannot tell whether {player} is "
                  "there; the game waits, nothing is lost").format(player=player)
    if face.paused:
        return tr("{player} is away: the clocks are paused until {player} returns").format(
            player=player)
    if face.choices:
        return tr("{player} is away: {other} may pause the clocks until they return, wait with "
                  "the clock running, claim the game or call it a draw").format(
                      player=player, other=other)
    if not face.hosted:
        return tr("{player} is away (the other board): its clock is its own board's; the game "
                  "waits, nothing is lost").format(player=player)
    return tr("{player} is away: the game waits for them, nothing is lost").format(player=player)


#: A claim or draw sent to the other board, until it hears it (referee/absence.py's rule: a
#: move made there meanwhile wins).
PENDING = {"claim": N_("{player} is away: {other} claimed the game; it ends when {player}'s "
                       "board hears it (a move made there meanwhile stands)"),
           "draw": N_("{player} is away: {other} called it a draw; it ends when {player}'s "
                      "board hears it (a move made there meanwhile stands)")}

#: The last choice made, or the away player's return, as the board says it once; on the away
#: board, what the other board's player chose while it was away ("credited", "waited").
NEWS = {"paused": N_("the clocks are paused until {player} returns"),
        "waiting": N_("{other} waits for {player}, the clock running"),
        "back": N_("{player} is back: the clocks run again"),
        "credited": N_("{other} paused the clocks while {player} was away: the time since is "
                       "given back"),
        "waited": N_("{other} waited while {player} was away, the clock running"),
        "withdrawn": N_("{player}'s board had moved meanwhile: the claim is withdrawn, the "
                        "game goes on")}


def absence_news_words(game_name: str, face: AbsentFace | None) -> str | None:
    """The last choice made or the away player's return, in words; None when there is none."""
    if face is None or face.news is None or face.news[1] not in NEWS:
        return None
    names, seat = players(game_name), face.news[2]
    return tr(NEWS[face.news[1]]).format(player=names[seat], other=names[1 - seat])


def claimed_words(game_name: str, ended: Mapping[str, Any] | None) -> str | None:
    """A game ended while a player was away (a summary's or an ending's `forfeit`, the away
    seat claimed against, or `drawn_away`), in words; None for any other ending."""
    ended = ended or {}
    names = players(game_name)
    if ended.get("forfeit") in (0, 1):
        away = ended["forfeit"]
        return tr("{player} was away: {other} claimed the game").format(
            player=names[away], other=names[1 - away])
    if ended.get("drawn_away") in (0, 1):
        return tr("{player} was away: the game ends in a draw").format(
            player=names[ended["drawn_away"]])
    return None


def absent_turn(frame: dict[Hashable, Colour], face: AbsentFace | None, colours: Any,
                layout: Any, now: float, wake: float | None
                ) -> tuple[dict[Hashable, Colour], float | None]:
    """The turn LEDs while the player to move is away: asked, the present player's colour
    blinking at ASK_HZ ("your choice"); paused, the "waiting" colour. Unchanged otherwise, or
    on a layout without turn LEDs (the page and the voice say it)."""
    if face is None or face.seat is None or "turn" not in layout.named_leds:
        return frame, wake
    if face.paused:
        colour, nxt = colours["waiting"], None
    elif face.asked:
        half = 1.0 / (ASK_HZ * 2)
        step = int(now / half)
        colour = colours[f"player{1 - face.seat}"] if step % 2 == 0 else (0, 0, 0)
        nxt = (step + 1) * half
    else:
        return frame, wake
    frame = dict(frame)
    frame["turn"] = colour
    return frame, wake if nxt is None else (nxt if wake is None else min(wake, nxt))


# --- a web seat's page (board_driver/web/presence.py) -----------------------------------------

#: A web seat's player going away (no page holds the seat: its tab closed, its phone asleep) and
#: coming back, said once each, and the page's line about each web seat.
WEB_AWAY = N_("{player} is away: no page holds the web seat")
WEB_BACK = N_("{player} is back on the page")
WEB_HERE = N_("{player} is here: a page holds the web seat")


def web_away(moment: Moment) -> frozenset:
    """The web seats whose player is away (no page holds them)."""
    return frozenset(seat for seat in moment.away if moment.seats[seat] == "web")


def web_presence_state(moment: Moment) -> list[dict[str, Any]]:
    """Each web seat, whether its player is there, in words (the page's "presence")."""
    names, away = players(moment.state.game.name), web_away(moment)
    return [{"seat": seat, "here": seat not in away,
             "words": tr(WEB_AWAY if seat in away else WEB_HERE).format(player=names[seat])}
            for seat in (0, 1) if moment.seats[seat] == "web"]


def web_presence_news(moment: Moment, was: frozenset) -> list[str]:
    """What to say of the web seats' players since `was` (the away ones last said): who went
    away, who is back (a seat no longer a web seat is neither)."""
    names, now = players(moment.state.game.name), web_away(moment)
    return ([tr(WEB_AWAY).format(player=names[s]) for s in sorted(now - was)] +
            [tr(WEB_BACK).format(player=names[s]) for s in sorted(was - now)
             if moment.seats[s] == "web"])


def web_away_turn(frame: dict[Hashable, Colour], moment: Moment, layout: Any, now: float,
                  wake: float | None) -> tuple[dict[Hashable, Colour], float | None]:
    """The turn LEDs while a web seat's player to move is away: its colour breathing slowly,
    as for a remote board the board waits for. Unchanged otherwise, or without turn LEDs."""
    state = moment.state
    if "turn" not in layout.named_leds or moment.over or state.to_move not in web_away(moment):
        return frame, wake
    frame = dict(frame)
    frame["turn"] = waiting_breath(moment.settings.colours[f"player{state.to_move}"], now)
    return frame, now + FRAME_S if wake is None else min(wake, now + FRAME_S)
