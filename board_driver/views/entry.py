"""The entry model: every move the player to move may make, with the taps on the page's picture
that make it, so that a seat with no board (a web seat, at home or across the internet) plays
by tapping the picture, and the page holds no rules (static/entry.js only follows this list).

`model(state)` is, for the position:

    {"mover": 0, "moves": 12,            # whose turn, and how many moves were played before it
     "choices": [{"move": "d4-d7xf2",    # the notation POST /api/play takes
                  "taps": ["d4", "d7", "f2"],   # the pictures' data-site ids, in order
                  "label": "d4-d7xf2",   # the button's words, where the taps alone do not decide
                  "words": "d4-d7xf2"},  # the move as the page's move list shows it
                 {"move": "end", "taps": [], "label": "End turn", "words": "end"}, ...],
     "names": {"d4": "D four", ...},     # each tapped site as a person says it (its
                                         # accessible name for a keyboard or a screen reader)
     "keys": {"typed": "...", ...}}      # the words of the keyboard's parts (`keys_words`)

Each game's view says how its moves are tapped (`GameView.entry_ways`, with a default for
touch games and piece games: board_driver/views/game_view.py), so a new game touches only its
own view. Choices are whole legal moves: a tap sequence either narrows the list or makes one of
them, never anything else.

How a page narrows the choices (`narrow`; entry.js does the same, and the tests check both):
the choices left after some taps are those whose taps begin with them; the sites to light are
the next taps of the longer ones; a choice whose taps are all made is offered as a button (its
label), unless it is the only choice left, which is then made at once. Choices with no taps
(end turn, pass) are buttons from the start.
"""

from __future__ import annotations

from typing import Any, Iterable

from board_driver import views
from board_driver.views.game_view import Way
from board_driver.views.words import tr

__all__ = ["model", "choices", "narrow", "site_names", "keys_words", "Way"]


def _button_words(state, move: Any) -> str | None:
    """A button's words for the game's end-turn or pass move (None for any other move)."""
    if move == state.end_turn_move():
        return tr("End turn")
    if move == state.pass_move():
        return tr("Pass")
    return None


def choices(state) -> list[dict[str, Any]]:
    """The mover's choices in the position (none once it is over), each a dict as the module's
    docstring shows, in the order the game's view gives them, with no two alike."""
    if state.is_over():
        return []
    name = state.game.name
    view = views.view_of(name)
    out: list[dict[str, Any]] = []
    seen: set[tuple[str, tuple[str, ...]]] = set()
    for way in view.entry_ways(state):
        move = str(way.move)
        key = (move, tuple(way.taps))
        if key in seen:
            continue
        seen.add(key)
        words = view.move_words(move)
        label = way.label or _button_words(state, way.move) or words
        out.append({"move": move, "taps": list(way.taps), "label": label, "words": words})
    return out


def site_names(state, offered: list[dict[str, Any]]) -> dict[str, str]:
    """Every site the choices `offered` tap, as a person says it (the game's view's `say_site`,
    in the board's language): the name a screen reader gives the site when it has the focus,
    so the page builds no words of its own."""
    return {site: views.say_site(state, site)
            for site in sorted({t for c in offered for t in c["taps"]})}


def keys_words() -> dict[str, str]:
    """The words of the entry's keyboard parts (entry.js): the box a move is typed into, its
    button, and what the keys do."""
    return {"typed": tr("Type a move in the game's notation"),
            "play": tr("Play it"),
            "help": tr("Keys: the arrows go from lit place to lit place, Enter or Space "
                       "picks one, Backspace takes a pick back, Escape cancels.")}


def model(state) -> dict[str, Any]:
    """The entry model of the position: whose turn, how many moves were played, the choices,
    the names of the sites they tap, and the keyboard's words."""
    offered = choices(state)
    return {"mover": state.to_move, "moves": len(state.moves), "choices": offered,
            "names": site_names(state, offered), "keys": keys_words()}


def narrow(options: Iterable[dict[str, Any]], tapped: list[str]) -> dict[str, Any]:
    """After the taps `tapped`: the choices left, the sites to light (the next taps), and the
    choices made by a button; "made" is the move made at once (the only choice left, with all
    its taps made), else None. entry.js follows the same rule."""
    n = len(tapped)
    left = [c for c in options if c["taps"][:n] == tapped]
    longer = [c for c in left if len(c["taps"]) > n]
    complete = [c for c in left if len(c["taps"]) == n]
    made = complete[0]["move"] if len(left) == 1 and complete and n > 0 else None
    return {"left": left, "sites": sorted({c["taps"][n] for c in longer}),
            "buttons": [] if made else complete, "made": made}
