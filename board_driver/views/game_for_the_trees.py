"""Game for the Trees shown: the board holds no pieces, so the LEDs carry the whole position.

The legend (`LEGEND`; `picture_legend` puts it in the one legend, which the page lists beside
its picture and the sim prints) is colour-blind safe: the owner is the hue (the two player
colours, Okabe-Ito blue and yellow by default), the terrain is the brightness, and everything
else is *time* (breathing, a wink, a flash), never a third hue that must be told from the
others:

    bare ground           off
    grass                 owner's colour, a quarter
    underbrush            owner's colour, a half
    neutral underbrush    dim white
    Huckleberry           owner's colour, breathing between a half and full (2 s)
    tree square           owner's colour, full
    a tree's root         full, with a dark wink every 2 s
    momentum              the square a chain grows from flashes white every second

One LED a square cannot show a tree's kind at a glance (a fourth hue per owner would not be
colour-blind safe); tap a tree square and the squares it may grow to light, which shows it.
A layout with four LEDs a square (`game-for-the-trees-quad-*`) shows everything at once: the
square's first LED as above, then named parts "SQ:kind" (sky blue Birch,
vermillion Ash, reddish purple Beech, bluish green Pine; white for a Huckleberry square),
"SQ:root" (white on a root) and "SQ:momentum" (the owner's colour, blinking, while a chain
grows from the square). `frame` always returns the parts; the referee's touch mode keeps
only those the layout has (board_driver/referee/touch.py: `fit_parts`).
"""

from __future__ import annotations

import math

from board_driver.views import svgkit
from board_driver.views.base import FRAME_S, OFF, Colour, Moment, legible, scale
from board_driver.views.game_view import GameView
from board_driver.views.paint import Paint
from board_driver.views.svgkit import el, hexc, title
from board_driver.views.words import N_, ngettext, tr
from games.game_for_the_trees import FILES, square_name

TITLE = N_("Game for the Trees")
PLAYERS = (N_("White"), N_("Black"))

HELP = N_("""Game for the Trees: squares a1..h8 (files a-h left to right, ranks 1-8 from White's
side). The board has no pieces: tap a square with the wand (tap SQ) to select what grows
there, then tap where it should grow; tap it again to cancel. Hold a square (hold SQ) to
offer a retreat from it: it blinks orange, tap it again to retreat, anything else cancels (a
turn that loses at once is offered the same way). When several turns lead to the same square
(the order of your chains matters), the board shows the first: tap the target to play it, the
source for the next. (place SQ then lift SQ is the wand with its real timing: 1.2 s is a
hold.) Terminal: upper case White, lower case Black; g grass,
u underbrush, n neutral, h Huckleberry, B Birch, A Ash, E Beech, P Pine; * a root, > a chain
grows from here.""")

KIND_COLOURS: dict[str, Colour] = {   # Okabe-Ito, for the quad layout's kind LED
    "Birch": (86, 180, 233),     # sky blue
    "Ash": (213, 94, 0),         # vermillion
    "Beech": (204, 121, 167),    # reddish purple
    "Pine": (0, 158, 115),       # bluish green
}
WHITE: Colour = (200, 200, 200)
NEUTRAL: Colour = (90, 90, 90)
# Perceptual levels (the strip applies gamma 2.2): a quarter, a half, full; lower vanishes.
LEVELS = {"grass": 0.25, "underbrush": 0.55, "huckleberry": 1.0, "tree": 1.0}
KIND_LETTERS = {"Birch": "B", "Ash": "A", "Beech": "E", "Pine": "P"}
#: How a game ended (GameForTheTreesState.end_reason), as the end's sentence says it.
END_REASONS = {"huckleberry": N_("a Huckleberry reached the far side"),
               "mutual": N_("neither player can move"),
               "stalemate": N_("the player to move has no move"),
               "limit": N_("the turn limit was reached")}
#: The kinds and terrains as the hint reasons say them (translated at use).
_PIECE_WORDS = (N_("Birch"), N_("Ash"), N_("Beech"), N_("Pine"), N_("bare"), N_("grass"),
                N_("underbrush"), N_("huckleberry"), N_("tree"))

LEGEND: list[tuple[str, str]] = [
    (N_("bare ground"), N_("off")),
    (N_("grass"), N_("the owner's colour, a quarter")),
    (N_("underbrush"), N_("the owner's colour, a half")),
    (N_("neutral underbrush"), N_("dim white")),
    (N_("Huckleberry"), N_("the owner's colour, breathing")),
    (N_("tree square"), N_("the owner's colour, full")),
    (N_("root of a tree"), N_("full, a dark wink every 2 s")),
    (N_("momentum"), N_("a white flash every second where a chain grows from")),
    (N_("tree kind (4 LEDs a square)"), N_("sky blue Birch, vermillion Ash, purple Beech, green Pine")),
    (N_("selected (touch)"), N_("white; where it may grow blinks green, chains it could stop orange")),
]


#: The shared legend's words for this game (board_driver/views/__init__.py: `legend`).
COLOUR_MEANINGS = {
    "safe": N_("blinking: where the selected square may grow"),
    "unsafe": N_("blinking: a chain it could stop; or a hold's move (a retreat) or a move that "
                 "loses, offered: tap again to confirm"),
    "wrong": N_("a short flash: that tap did nothing (or cancelled)"),
    "choice": None, "waiting": None,
}

def _chain_sources(state) -> dict[str, int]:
    """Square -> its owner, for every square a chain grows from."""
    out = {}
    for player in (0, 1):
        for chain in state.chains(player):
            out[chain.split(">")[0]] = player
    return out


def _base_colour(sq: dict, colours: dict[str, Colour]) -> Colour:
    terrain, owner = sq["terrain"], sq["owner"]
    if terrain == "bare":
        return OFF
    if owner is None:
        return NEUTRAL
    return scale(colours[f"player{owner}"], LEVELS[terrain])


# --- the LEDs ----------------------------------------------------------------------------------

def frame(state, moment: Moment, now: float) -> tuple[dict[str, Colour], float | None]:
    c = moment.settings.colours
    out: dict[str, Colour] = {}
    chains = _chain_sources(state)
    t2 = now % 2.0
    breath = 0.55 + 0.45 * (0.5 + 0.5 * math.cos(now * math.pi))   # period 2 s
    wink = 1.0 <= t2 < 1.2
    flash = (now % 1.0) < 0.15
    animated = False
    for i in range(64):
        name = square_name(i)
        sq = state.square(i)
        steady = _base_colour(sq, c)
        colour = steady
        if sq["terrain"] == "huckleberry":
            colour = scale(c[f"player{sq['owner']}"], breath)
            animated = True
        if sq["is_root"]:
            animated = True
            if wink:
                colour = OFF
        if name in chains:
            animated = True
            if flash:
                colour = WHITE
        out[name] = colour
        # The parts of a square with four LEDs (kept only where the layout has them).
        kind = sq["kind"]
        out[f"{name}:kind"] = KIND_COLOURS[kind] if kind else \
            WHITE if sq["terrain"] == "huckleberry" else OFF
        out[f"{name}:root"] = WHITE if sq["is_root"] else OFF
        owner = chains.get(name)
        out[f"{name}:momentum"] = c[f"player{owner}"] if owner is not None and \
            int(now * 2) % 2 == 0 else OFF
    if state.is_over():
        return out, None
    return out, (now + FRAME_S if animated else None)


# --- the page's picture ------------------------------------------------------------------------

U = 56          # one square, in SVG units
M = 30          # margin for the rank and file labels, on the board's edge outside the squares


def svg(state, moment: Moment) -> str:
    """The board alone, its files under it and ranks left of it; the legend is `picture_legend`,
    which the page lists beside the picture (never drawn over the squares)."""
    c = moment.settings.colours
    chains = [(p, ch) for p in (0, 1) for ch in state.chains(p)]
    body = []
    side = 8 * U
    for i in range(64):
        name = square_name(i)
        sq = state.square(i)
        x, y = M + (i % 8) * U, (7 - i // 8) * U
        fill = _svg_fill(sq, c)
        words = _words(sq)
        parts = [title(f"{name}: {words}"),
                 el("rect", x=x, y=y, width=U, height=U, fill=fill, stroke="#3a2c20",
                    stroke_width=1)]
        if sq["is_root"]:
            parts.append(el("circle", cx=x + U / 2, cy=y + U / 2, r=U / 2 - 6, fill="none",
                            stroke="#ffffff", stroke_width=2.5))
        if sq["kind"] or sq["terrain"] == "huckleberry":
            letter = KIND_LETTERS.get(sq["kind"], "H")
            ink = "on-light" if _light(fill) else "on-dark"
            parts.append(el("text", svgkit.esc(letter), x=x + U / 2, y=y + U / 2 + 8,
                            class_=f"label letter {ink}"))
        kind = f"{sq['terrain']}:{sq['owner']}" if sq["owner"] is not None else sq["terrain"]
        body.append(el("g", "".join(parts), data_site=name, data_kind=kind))
    for player, chain in chains:
        src, dst = chain.split(">")
        (x1, y1), (x2, y2) = _between(src, dst)
        body.append(el("line", x1=x1, y1=y1, x2=x2, y2=y2, stroke=hexc(legible(c[f"player{player}"])),
                       stroke_width=3, stroke_dasharray="6 4", marker_end="url(#gftt-arrow)",
                       class_="chain", data_chain=chain))
    for k in range(8):
        body.append(el("text", svgkit.esc(FILES[k]), x=M + k * U + U / 2, y=side + M - 8,
                       class_="label coord"))
        body.append(el("text", svgkit.esc(k + 1), x=M / 2, y=(7 - k) * U + U / 2 + 6,
                       class_="label coord"))
    defs = el("defs", el("marker", el("path", d="M0,0 L8,4 L0,8 z", fill="#ffffff"),
                         id="gftt-arrow", markerWidth=8, markerHeight=8, refX=7, refY=4,
                         orient="auto"))
    return svgkit.document(M + side, side + M, [defs, *body],
                           label="Game for the Trees board", class_="board game-for-the-trees")


def _between(src: str, dst: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """A chain's arrow from the edge of its source's letter to the edge of its target's: it
    never crosses the letters (a tree's kind) in the squares' middles."""
    (x1, y1), (x2, y2) = _centre(src), _centre(dst)
    length = math.hypot(x2 - x1, y2 - y1) or 1.0
    dx, dy = (x2 - x1) / length, (y2 - y1) / length
    gap = U * 0.3
    return (x1 + dx * gap, y1 + dy * gap), (x2 - dx * gap, y2 - dy * gap)


def _light(fill: str) -> bool:
    r, g, b = (int(fill[k:k + 2], 16) for k in (1, 3, 5))
    return 0.299 * r + 0.587 * g + 0.114 * b > 140


def picture_legend(moment: Moment) -> list[dict]:
    """What each colour of the board means (`LEGEND`, the LEDs' own words), with the colours as
    the picture draws them: the page lists it beside the board."""
    c = moment.settings.colours
    owners = [_svg_fill({"terrain": "tree", "owner": p}, c) for p in (0, 1)]
    samples = {
        "bare ground": [_svg_fill({"terrain": "bare", "owner": None}, c)],
        "grass": [_svg_fill({"terrain": "grass", "owner": p}, c) for p in (0, 1)],
        "underbrush": [_svg_fill({"terrain": "underbrush", "owner": p}, c) for p in (0, 1)],
        "neutral underbrush": [_svg_fill({"terrain": "underbrush", "owner": None}, c)],
        "Huckleberry": owners, "tree square": owners, "root of a tree": owners,
        "momentum": [hexc(WHITE)],
        "tree kind (4 LEDs a square)": [hexc(k) for k in KIND_COLOURS.values()],
        "selected (touch)": [hexc(WHITE)],
    }
    return [{"what": what, "how": how, "colours": samples[what]} for what, how in LEGEND]


def _centre(name: str) -> tuple[float, float]:
    f, r = FILES.index(name[0]), int(name[1]) - 1
    return M + f * U + U / 2, (7 - r) * U + U / 2


def _svg_fill(sq: dict, c: dict[str, Colour]) -> str:
    terrain, owner = sq["terrain"], sq["owner"]
    if terrain == "bare":
        return "#2b2019"
    if owner is None:
        return "#6a6a6a"
    base = c[f"player{owner}"]
    # On a screen the LED's faint levels would vanish: the same hue, lightened instead.
    mix = {"grass": 0.25, "underbrush": 0.55, "huckleberry": 1.0, "tree": 1.0}[terrain]
    dark = (43, 32, 25)
    return hexc(tuple(round(d + (b - d) * mix) for b, d in zip(legible(base), dark)))


def _words(sq: dict) -> str:
    terrain, owner = sq["terrain"], sq["owner"]
    who = tr("neutral") if owner is None else tr(PLAYERS[owner])
    if terrain == "bare":
        return tr("bare ground")
    kind = sq["kind"]
    if terrain == "tree":
        root = tr("root of the tree") if sq["is_root"] else tr("part of the tree rooted at {site}").format(site=sq['root'])
        return tr("{who} {kind}, {root}").format(who=who, kind=tr(kind), root=root)
    return tr("{who} {terrain}").format(who=who, terrain=tr(terrain))


# --- the terminal ------------------------------------------------------------------------------

def terminal(state, moment: Moment, paint: Paint) -> str:
    c = moment.settings.colours
    chains = _chain_sources(state)
    lines = ["    " + "".join(f" {f}  " for f in FILES)]
    for r in range(7, -1, -1):
        cells = []
        for f in range(8):
            i = r * 8 + f
            name = square_name(i)
            sq = state.square(i)
            text = _glyph(sq) + ("*" if sq["is_root"] else " ") + (">" if name in chains else " ")
            colour = c[f"player{sq['owner']}"] if sq["owner"] is not None else None
            cells.append(paint(colour, text, dim=sq["terrain"] in ("grass", "underbrush")) + " ")
        lines.append(f" {r + 1}  " + "".join(cells) + f" {r + 1}")
    lines.append(lines[0])
    for player in (0, 1):
        mine = state.chains(player)
        leap = tr("leap used") if state.leap_used(player) else tr("leap unused")
        lines.append("  " + tr("{player}: {n} squares, "
                               "{h} Huckleberry, {leap}; chains: "
                               "{chains}").format(player=tr(PLAYERS[player]), n=state.scores()[player],
                                                  h=state.huckleberry_count(player), leap=leap,
                                                  chains=" ".join(mine) if mine else tr("none")))
    return "\n".join(lines)


def _glyph(sq: dict) -> str:
    terrain, owner = sq["terrain"], sq["owner"]
    if terrain == "bare":
        return "."
    letter = {"grass": "g", "underbrush": "u", "huckleberry": "h"}.get(terrain) or \
        KIND_LETTERS[sq["kind"]].lower()
    if owner is None:
        return "n"
    return letter.upper() if owner == 0 else letter.lower()


# --- why a move: the hint's reason, one sentence built here ------------------------------------

def hint_reason(state, move) -> str | None:
    """Why `move` is worth playing, in one sentence, from what it does at once (what the
    greedy prior and the safe root weigh): a Huckleberry of the opponent's taken (the last:
    the game won), a chain of one's own started or kept going (momentum), squares gained."""
    if state.is_over():
        return None
    m = state.parse_move(str(move))
    me, them = state.to_move, 1 - state.to_move
    source = state.square(m.src)
    kind, terrain = source["kind"], source["terrain"]
    piece = tr("the {kind}").format(kind=tr(kind)) if kind else \
        tr("your {terrain}").format(terrain=tr(terrain))
    hucks = state.huckleberry_count(them)
    chains = set(state.chains(me))
    squares = state.scores()[me]
    state.play(m)
    try:
        won = state.is_over() and state.winner() == me
        hucks_after = state.huckleberry_count(them)
        chains_after = set(state.chains(me))
        squares_after = state.scores()[me]
    finally:
        state.undo()
    text = move_words(str(m))
    if won:
        return tr("{move} wins: {player} has no Huckleberry left.").format(move=text, player=tr(PLAYERS[them]))
    if hucks_after < hucks:
        return tr("{move} takes one of {player}'s Huckleberries.").format(move=text, player=tr(PLAYERS[them]))
    if squares_after > squares:
        gained = squares_after - squares
        return ngettext("{move} gains a square: you will hold {total}.",
                        "{move} gains {n} squares: you will hold {total}.",
                        gained).format(move=text, n=gained, total=squares_after)
    if m.action == "stop":
        return tr("{move} stops your chain there, before it grows any further.").format(move=text)
    if chains and chains <= chains_after:
        return tr("{move} lets your chain go on.").format(move=text)
    if chains_after - chains:
        return tr("{move} sets {piece} growing: its chain goes on next turn.").format(move=text, piece=piece)
    return None



# --- words -------------------------------------------------------------------------------------

#: A growth that names its tree's kind (Ab1-d2), by the kind's letter.
_GROWS = {"B": N_("a Birch from {src} to {dst}"), "A": N_("an Ash from {src} to {dst}"),
          "E": N_("a Beech from {src} to {dst}"), "P": N_("a Pine from {src} to {dst}")}


def move_words(move: str) -> str:
    """A move as a screen shows it (views/__init__.py): a retreat and a stop in the language's
    words ("retreat from d5", zh "撤退 d5"; "stop d2>f3", zh "停 d2>f3"), growths and orders as
    they are written."""
    head, slash, order = move.partition("/")
    if head.startswith("retreat:"):
        # TRANSLATORS: a Game for the Trees move on a score sheet: give up {site}.
        head = tr("retreat from {site}").format(site=head[8:])
    elif head.startswith("stop:"):
        # TRANSLATORS: a Game for the Trees move on a score sheet: stop the chain {chain}
        # ("d2>f3": from d2, growing to f3 next).
        head = tr("stop {chain}").format(chain=head[5:])
    return head + slash + order


def say_move(state, move: str) -> str:
    """A move as a person says it: "Pd1-d2" -> "a Pine from D one to D two", "He1^c3" -> "the
    Huckleberry leaps from E one to C three", "retreat:e6" -> "retreats from E six", an order
    "/g2>f3" -> "then G two to F three"."""
    from board_driver.views import say_site

    head, _slash, order = move.partition("/")
    if head.startswith("retreat:"):
        said = tr("retreats from {site}").format(site=say_site(state, head[8:]))
    elif head.startswith("stop:"):
        src, _gt, dst = head[5:].partition(">")
        said = tr("stops the chain from {src} to {dst}").format(src=say_site(state, src),
                                                                dst=say_site(state, dst))
    elif "^" in head:
        src, _c, dst = head[1:].partition("^")
        said = tr("the Huckleberry leaps from {src} to {dst}").format(
            src=say_site(state, src), dst=say_site(state, dst))
    else:
        src, _dash, dst = head.partition("-")
        grows = _GROWS.get(src[:1]) if src[:1].isupper() else None
        where = {"src": say_site(state, src[1:] if grows else src), "dst": say_site(state, dst)}
        said = tr(grows or N_("from {src} to {dst}")).format(**where)
    for step in filter(None, order.split(",")):
        src, mark, dst = step[:2], step[2:3], step[3:]
        said += tr(", then {src} to {dst}").format(src=say_site(state, src),
                                                   dst=say_site(state, dst))
    return said


class GameForTheTreesView(GameView):
    """How Game for the Trees is shown (see GameView)."""

    TITLE = TITLE
    PLAYERS = PLAYERS
    HELP = HELP
    END_REASONS = END_REASONS
    COLOUR_MEANINGS = COLOUR_MEANINGS
    frame = staticmethod(frame)
    svg = staticmethod(svg)
    terminal = staticmethod(terminal)
    hint_reason = staticmethod(hint_reason)
    move_words = staticmethod(move_words)
    say_move = staticmethod(say_move)
    picture_legend = staticmethod(picture_legend)
