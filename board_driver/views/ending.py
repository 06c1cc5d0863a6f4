"""What the board says and shows of a game its players end or pause (board_driver/referee/
endings.py): a resignation, a draw offered, answered or agreed, a game put away or taken up;
drawn from a Moment's `ending` (an `EndingFace`), in the board's words.

The LEDs (docs/board.md, "Ending and pausing a game"): while a draw is on offer the turn LEDs
(on a layout without them, the first site's LED) show the two players' colours in turn, each
for half a second (OFFER_HZ): "a draw is offered: answer it". A game resigned shows the
winner's colour on them, steady, as a game won; a draw agreed, grey, as a draw by the rules.
"""

from __future__ import annotations

from typing import Any, Hashable

from board_driver.moment import Colour, EndingFace
from board_driver.views import players
from board_driver.views.absence import claimed_words
from board_driver.views.words import ngettext, tr

#: A draw on offer: the players' colours in turn on the turn LEDs, each for 1 / (2 x OFFER_HZ) s.
OFFER_HZ = 1.0
#: A draw's colour on the turn LEDs (as views.frame's draw by the rules).
DRAW_GREY: Colour = (64, 64, 64)


def ended_words(game_name: str, face: EndingFace | None) -> str | None:
    """How the players ended the game ("player 1 resigned: player 2 wins", "a draw by
    agreement"); None while they have not."""
    if face is None or not face.over:
        return None
    if face.agreed:
        return tr("a draw by agreement")
    if face.resigned is None:   # (claimed, or called a draw, while a player was away)
        return claimed_words(game_name, {"forfeit": face.forfeit, "drawn_away": face.drawn_away})
    names = players(game_name)
    return tr("{player} resigned: {other} wins").format(player=names[face.resigned],
                                                       other=names[face.winner])


def offer_words(game_name: str, face: EndingFace | None) -> str | None:
    """The draw on offer and who answers it; None without one."""
    if face is None or face.offer_by is None:
        return None
    names = players(game_name)
    by, other = names[face.offer_by], names[1 - face.offer_by]
    if face.asked == "computer":
        return tr("{player} offers a draw; the computer considers it").format(player=by)
    if face.asked == "remote":
        return tr("{player} offers a draw; the other board answers").format(player=by)
    return tr("{player} offers a draw: {other}, accept or refuse").format(player=by, other=other)


def news_words(game_name: str, face: EndingFace | None) -> str | None:
    """The last thing done (`face.news`), in words; None when there is none."""
    if face is None or face.news is None:
        return None
    _, what, values = face.news
    names = players(game_name)
    if what == "offer":
        return offer_words(game_name, face) or tr("{player} offered a draw").format(
            player=names[values[0]])
    if what == "refused":
        return tr("{player} refuses the draw: play on").format(player=names[values[0]])
    if what == "lapsed":
        return tr("the draw offer lapsed: the game moved on")
    if what == "resigned":
        return tr("{player} resigned: {other} wins").format(player=names[values[0]],
                                                           other=names[1 - values[0]])
    if what == "agreed":
        return tr("a draw by agreement")
    if what in ("forfeit", "drawn_away"):
        return claimed_words(game_name, {what: values[0]})
    if what == "away":
        return tr("game {n} put away after move {moves}: take it up again from the page, the "
                  "sim or the menu").format(n=values[0], moves=values[1])
    if what == "taken-up":
        return tr("game {n} taken up again at move {moves}: put the pieces where the board "
                  "lights them").format(n=values[0], moves=values[1])
    return None


def turn_colour(face: EndingFace | None, colours: Any, now: float
                ) -> tuple[Colour, float | None] | None:
    """The turn LEDs' colour for a draw on offer (and when it next changes), a resignation or
    a draw agreed; None when none of these is so (the turn LEDs show the turn)."""
    if face is None:
        return None
    if face.offer_by is not None:
        half = 1.0 / (OFFER_HZ * 2)
        step = int(now / half)
        return colours[f"player{step % 2}"], (step + 1) * half
    if face.agreed or face.drawn_away is not None:
        return DRAW_GREY, None
    if face.winner is not None:
        return colours[f"player{face.winner}"], None
    return None


def light_turn(frame: dict[Hashable, Colour], face: EndingFace | None, colours: Any,
               layout: Any, now: float, wake: float | None
               ) -> tuple[dict[Hashable, Colour], float | None]:
    """The frame with the turn LEDs (or, without them, the first site's LED) showing `face`
    (`turn_colour`), and when it next changes."""
    shown = turn_colour(face, colours, now)
    if shown is None:
        return frame, wake
    if "turn" in layout.named_leds:
        key: Hashable = "turn"
    elif face is not None and face.offer_by is not None and layout.leds_of_site:
        key = next(iter(layout.leds_of_site))   # (an offer must be seen: the first site)
    else:
        return frame, wake
    colour, nxt = shown
    frame = dict(frame)
    frame[key] = colour
    return frame, wake if nxt is None else (nxt if wake is None else min(wake, nxt))


def away_words(listed: list[Any]) -> str:
    """The games put away (the journal's `Listed`, newest first), one a line, for the sim."""
    if not listed:
        return tr("no game is put away")
    import time

    lines = [tr("games put away (take up N takes one up again):")]
    for game in listed:
        begun = time.strftime("%Y-%m-%d %H:%M", time.localtime(game.started_at))
        lines.append("  " + ngettext("game {n}: {moves} move, begun {begun}",
                                     "game {n}: {moves} moves, begun {begun}",
                                     game.moves).format(n=game.game_id, moves=game.moves,
                                                        begun=begun))
    return "\n".join(lines)
