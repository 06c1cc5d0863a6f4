"""What every game's view shares: colours, blinking, pieces and corrections in words.

The views draw a `Moment` (board_driver/moment.py: what the referee decided the board is, frozen)
with its `Settings`; both are defined below the views and the referee, and re-exported here.

Colours are LED colours `(r, g, b)` 0..255, as the config names them; the LED layer applies
gamma, brightness and the current limit later.
"""

from __future__ import annotations

import math

from board_driver.moment import Colour, Correction, Moment, Settings
from games.base import Game
from board_driver.views.words import N_, tr
from hardware.base import PRESENT

__all__ = ["Colour", "Correction", "Moment", "Settings", "OFF", "FRAME_S", "DEFAULT_PLAYERS",
           "scale", "kind_colour", "blink_on", "next_blink", "legible", "PIECES", "colour_name",
           "piece_name", "correction_words", "NAMED_COLOURS", "MENU_COLOURS", "MENU_CORNER",
           "led_words"]

OFF: Colour = (0, 0, 0)
FRAME_S = 0.05  # animation step: 20 frames a second is smooth on WS2812s and cheap on a Pi Zero
DEFAULT_PLAYERS = (N_("player 1"), N_("player 2"))  # how players read the sides 0 and 1


#: The menu's colour for each group of choices (the config's colours); its corners are grey.
MENU_COLOURS = {"seats": "player1", "level": "unsafe", "clock": "waiting", "hints": "best",
                "apply": "safe", "take up": "player0", "ending": "wrong", "puzzle": "player0"}
MENU_CORNER: Colour = (160, 160, 160)


def scale(colour: Colour, factor: float) -> Colour:
    return tuple(max(0, min(255, round(v * factor))) for v in colour)  # type: ignore[return-value]


def waiting_breath(colour: Colour, now: float) -> Colour:
    """`colour` breathing slowly (a four-second breath): the turn LEDs while the board waits
    for a player who is not there (the other board, a web seat's page)."""
    return scale(colour, 0.15 + 0.85 * (0.5 + 0.5 * math.sin(now * math.pi / 2)))


def kind_colour(game: Game, kind: str, colours: dict[str, Colour]) -> Colour:
    """The colour that stands for a piece kind of `game`: its owner's (`Game.owner_of`), or,
    for a piece of nobody's, the rod's."""
    owner = game.owner_of(kind)
    if owner is not None:
        return colours[f"player{owner}"]
    return scale(colours["rod"], 4)  # a missing rod blinks bright white


def blink_on(now: float, hz: float) -> bool:
    return int(now * hz * 2) % 2 == 0


def next_blink(now: float, hz: float) -> float:
    half = 1.0 / (hz * 2)
    return (math.floor(now / half) + 1) * half


def legible(colour: Colour, floor: int = 170) -> Colour:
    """The same hue bright enough to read on a screen: an LED's dim glow (an empty hole at
    (0, 14, 21)) says "the mover's colour, faintly" on a strip but is invisible in a terminal."""
    top = max(colour)
    if top == 0:
        return (110, 110, 110)
    return colour if top >= floor else scale(colour, floor / top)


#: The pieces' names, for the catalog (a kind's part after its colour or before its owner).
PIECES = {"piece": N_("piece"), "tree": N_("tree"), "rod": N_("rod"), "leaf": N_("leaf"),
          "branch": N_("branch"), "seed": N_("seed"), "spore": N_("spore"),
          "black": N_("black counter"), "white": N_("white counter"),
          "Dark": N_("Dark"), "Light": N_("Light")}


def _piece(what: str) -> str:
    return tr(PIECES[what]) if what in PIECES else what


#: Colour names a person uses, for the nearest of which a colour is named (`colour_name`):
#: the Okabe-Ito palette the default colours come from, and the plain ones.
NAMED_COLOURS: dict[str, Colour] = {
    N_("blue"): (0, 114, 178), N_("yellow"): (240, 228, 66), N_("bluish green"): (0, 158, 115),
    N_("orange"): (230, 159, 0), N_("red"): (255, 0, 0), N_("sky blue"): (86, 180, 233),
    N_("reddish purple"): (204, 121, 167), N_("vermillion"): (213, 94, 0), N_("white"): (220, 220, 220),
    N_("grey"): (110, 110, 110), N_("green"): (0, 200, 0), N_("purple"): (128, 0, 160),
    N_("pale blue"): (200, 200, 255),
}


def colour_name(colour: Colour) -> str:
    """What a person calls an LED colour: the nearest named one ("blue" for (0, 114, 178)), so
    words ("White's spores, drawn blue") match what the board draws, whatever the config."""
    return min(NAMED_COLOURS, key=lambda n: sum((a - b) ** 2
                                                for a, b in zip(NAMED_COLOURS[n], colour)))


def piece_name(kind: str | None, players: tuple[str, str] = DEFAULT_PLAYERS,
               article: str = "a") -> str:
    """A piece kind in words: "tree:1" -> "player 2's tree", "dark-leaf" -> "a Dark leaf"."""
    the = article == "the"
    if kind is None or kind == PRESENT:
        return tr("the piece") if the else tr("a piece") if article else tr("piece")
    what, sep, who = kind.partition(":")
    if sep and who in ("0", "1"):
        return tr("{player}'s {piece}").format(player=players[int(who)], piece=_piece(what))
    colour, sep, what = kind.partition("-")
    if sep and colour in ("dark", "light"):
        return (tr("the {colour} {piece}") if the else tr("a {colour} {piece}") if article
                else tr("{colour} {piece}")).format(colour=_piece(colour.capitalize()),
                                                    piece=_piece(what))
    return (tr("the {piece}") if the else tr("a {piece}") if article else
            tr("{piece}")).format(piece=_piece(kind))


def led_words(players: tuple[str, str], colours) -> str:
    """Which colour stands for which player on the LEDs (a terminal's letters are painted in
    it): "the LEDs show White in blue, Black in yellow", whatever the pieces' own colours."""
    return tr("the LEDs show {player0} in {colour0}, {player1} in {colour1}").format(
        player0=tr(players[0]), colour0=tr(colour_name(colours["player0"])),
        player1=tr(players[1]), colour1=tr(colour_name(colours["player1"])))


def correction_words(corr: Correction, players: tuple[str, str] = DEFAULT_PLAYERS) -> str:
    """What to do at a site that disagrees with the game, in words a player reads."""
    if corr.want is None:
        return tr("take {piece} off").format(piece=piece_name(corr.have, players, "the"))
    if corr.have is None:
        return tr("put {piece} here").format(piece=piece_name(corr.want, players))
    return tr("replace {old} with {new}").format(old=piece_name(corr.have, players, "the"),
                                                 new=piece_name(corr.want, players))
