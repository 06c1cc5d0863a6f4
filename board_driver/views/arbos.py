"""Arbos shown: seeds and spores on up to 20x20 cells, trees in their owner's colour, the
mover's legal cells by kind, trees over the limit pulsing, the end's scoring seeds, and the last
30 seconds of a timed turn as a bar around the board's edge.

Sites are the cells A1..T20 on 20x20 (row letter, column number; row A at the top). What each light
means is in docs/games/arbos.md, "On the board".
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from board_driver.views import svgkit
from board_driver.views.base import (Colour, Moment, correction_words, led_words, legible,
                                     scale)
from board_driver.views.game_view import GameView, Way
from board_driver.views.paint import Paint
from board_driver.views.svgkit import el, hexc, title
from board_driver.views.words import N_, reason, tr
from games.arbos import ROWS, cell_name, parse_cell

TITLE = N_("Arbos")
PLAYERS = (N_("White"), N_("Black"))
#: How the page draws each player's spores: White light, Black dark, as the names say; the
#: player's LED colour (colour-blind safe) is the ring around it.
PIECE_FILLS = ("#f4f1e8", "#1d1d1d")

HELP = N_("""Arbos: cells are a row letter and a column number, A1 at the top left (to T20 on the
20x20 board, H8 on 8x8). Every cell senses presence only; the game knows seed or spore and
whose. place C7 puts a token on C7, lift C7 takes it off. In the setup the board draws the cell
of each seed (S, and the status line says where); --setup chosen lets the placer choose it.
Replace your seed: lift it (its cell
blinks), place your spore there, then place the two follow-ups. Over three trees: lift your
own spores until three remain. press end_turn passes (the page's End turn button).""")

#: A scoring seed at the end, and the seeds in the setup's picture: the seeds' own green.
SEED_GREEN: Colour = (0, 200, 80)
COUNTDOWN_S = 30.0
# Levels of a player's colour. LEDs see these through gamma 2.2 and the layout's brightness cap,
# which swallow anything much dimmer than 0.4 of a colour: these stay visible and apart.
TREE_LEVEL, LAST_LEVEL, SEED_LEVEL, REPLACE_LEVEL, HINT_LEVEL, FADED = 0.7, 1.0, 0.5, 0.85, 0.4, 0.3


#: How a game ended (ArbosState.end_reason), as the end's sentence and the status say it.
END_REASONS = {"double-pass": N_("both players passed in a row"),
               "no-placement": N_("neither player can put a spore down")}

#: The shared legend's words for this game (board_driver/views/__init__.py: `legend`).
COLOUR_MEANINGS = {"safe": None, "unsafe": None, "choice": None, "waiting": None}

def hint_colours(colours: dict[str, Colour], mover: int) -> dict[str, Colour]:
    """The colour of each kind of legal cell (`state.legal_cells()`) for the mover."""
    mine = colours[f"player{mover}"]
    return {
        "setup": scale(colours[f"player{1 - mover}"], HINT_LEVEL),  # the next seed is the other's
        "seed": scale(mine, HINT_LEVEL),         # a spore next to one of the mover's seeds
        "free": scale(colours["rod"], 2),        # a free-standing spore: a neutral white
        "replace": scale(mine, REPLACE_LEVEL),   # a seed they may replace: brighter than the rest
    }


def _cells(state) -> tuple[int, int]:
    return state.geo.rows, state.geo.cols


def border(state) -> list[str]:
    """The board's edge cells clockwise from A1: the time bar's track."""
    rows, cols = _cells(state)
    ring = [(0, c) for c in range(cols)] + [(r, cols - 1) for r in range(1, rows)]
    ring += [(rows - 1, c) for c in range(cols - 2, -1, -1)]
    ring += [(r, 0) for r in range(rows - 2, 0, -1)]
    return [f"{ROWS[r]}{c + 1}" for r, c in ring]


def _last_site(state) -> str | None:
    if not state.moves:
        return None
    move = state.moves[-1]
    return str(move).rstrip("=") if move.kind in ("spore", "replace") else None


def _scoring(state) -> tuple[set[str], set[int]]:
    """At the end: the scoring seeds and the ids of the trees they link (either player)."""
    seeds, trees = set(), set()
    if state.is_over():
        for p in (0, 1):
            for site in state.scoring_seeds(p):
                seeds.add(site)
                trees.update(state.linked_trees(site).get(p, ()))
    return seeds, trees


@dataclass
class Scene:
    """What every drawing of one position needs, worked out once."""

    rows: int
    cols: int
    occupancy: dict[str, str]
    legal: dict[str, str]        # the mover's legal cells by kind (none in `off` mode)
    excess: set[str]             # cells of the trees over the limit
    seeds_scoring: set[str]      # at the end: the scoring seeds ...
    trees_scoring: set[int]      # ... and the ids of the trees they link
    bar: list[str]               # the time bar's lit cells
    last: str | None             # the last spore placed
    fixes: dict                  # site -> correction
    drawn: str | None            # a drawn setup: the cell of the next seed (lit in every mode)


def scene(state, moment: Moment) -> Scene:
    seeds, trees = _scoring(state)
    return Scene(
        *_cells(state), occupancy=state.occupancy(),
        legal=state.legal_cells() if not state.is_over() and moment.settings.moves != "off" else {},
        excess={s for tree in state.excess_trees() for s in tree},
        seeds_scoring=seeds, trees_scoring=trees, bar=time_bar(state, moment),
        last=_last_site(state), fixes={corr.site: corr for corr in moment.corrections},
        drawn=state.drawn_cell())


def prompt(state) -> str | None:
    """A drawn setup's sentence: where the next seed goes ("put White's seed on C3")."""
    drawn = state.drawn_cell()
    if drawn is None:
        return None
    return tr("put {player}'s seed on {site}").format(player=tr(PLAYERS[1 - state.to_move]), site=drawn)


def pulse(now: float) -> float:
    """FADED..1, once a second: a tree over the limit."""
    return FADED + (1 - FADED) * (0.5 + 0.5 * math.cos(now * 2 * math.pi))


def time_bar(state, moment: Moment) -> list[str]:
    """The edge cells the time bar lights now (empty unless a timed turn is in its last 30 s)."""
    left = moment.turn_left
    if left is None or left > COUNTDOWN_S or state.is_over():
        return []
    ring = border(state)
    return ring[:math.ceil(len(ring) * left / COUNTDOWN_S)]


# --- the LEDs ----------------------------------------------------------------------------------

def frame(state, moment: Moment, now: float) -> tuple[dict[str, Colour], float | None]:
    c = moment.settings.colours
    out: dict[str, Colour] = {}
    over = state.is_over()
    mover = state.to_move
    sc = scene(state, moment)
    occupancy, excess, last = sc.occupancy, sc.excess, sc.last
    seeds_scoring, trees_scoring = sc.seeds_scoring, sc.trees_scoring
    # A frame has a handful of colours: work each out once (400 cells would otherwise pay
    # for scaling each one).
    player = {k: c[f"player{k[-1]}"] for k in ("spore:0", "spore:1", "seed:0", "seed:1")}
    tree = {k: scale(v, TREE_LEVEL) for k, v in player.items()}
    seed = {k: scale(v, SEED_LEVEL) for k, v in player.items()}
    for site, kind in occupancy.items():
        if kind[1] == "p":  # a spore
            if site in excess:
                out[site] = scale(player[kind], pulse(now))
            elif over:
                out[site] = player[kind] if state.tree_id(site) in trees_scoring \
                    else scale(player[kind], FADED)
            else:
                out[site] = player[kind] if site == last else tree[kind]
        elif over and site in seeds_scoring:
            out[site] = SEED_GREEN
        else:
            out[site] = seed[kind]  # a seed shows whose it is, dimly
    if sc.legal:
        hints = hint_colours(c, mover)
        for site, kind in sc.legal.items():
            out[site] = hints[kind]
    if sc.drawn is not None:  # where the seed goes, in its owner's colour, whatever the hints
        out[sc.drawn] = c[f"player{1 - mover}"]
    for site in sc.bar:
        if site not in occupancy:
            out[site] = c[f"player{mover}"]
    wake = now + 0.05 if excess else None
    return out, wake


# --- the page's picture ------------------------------------------------------------------------

U = 26         # one cell, in SVG units
M = 24         # margin for the labels
RIM = 8        # the board's edge where no label is
WOOD = "#6b5138"


#: The narrowest a board is drawn (a phone's width less the page's margins), and the smallest
#: a label may be drawn there.
NARROWEST_PX, SMALLEST_PX = 366, 10.5


def _margin(cols: int) -> tuple[float, float]:
    """The labels' margin and font size (SVG units) for a board `cols` cells wide: 13 units on
    the small boards, more on the large ones, so that drawn NARROWEST_PX wide a label is still
    SMALLEST_PX tall."""
    font = 13.0
    while True:
        margin = max(M, round(font * 1.8))
        if font * NARROWEST_PX / (margin + cols * U + RIM) >= SMALLEST_PX:
            return margin, font
        font += 0.5


def svg(state, moment: Moment) -> str:
    c = moment.settings.colours
    sc = scene(state, moment)
    rows, cols, fixes, occupancy, legal = sc.rows, sc.cols, sc.fixes, sc.occupancy, sc.legal
    excess, seeds_scoring, trees_scoring = sc.excess, sc.seeds_scoring, sc.trees_scoring
    bar, last = set(sc.bar), sc.last
    hints = hint_colours(c, state.to_move)
    # The labels sit on the top and left edges only: the right and bottom edges are a thin rim.
    # They grow with the board, so that a 20x20 board as wide as a phone still reads them.
    M, font = _margin(cols)  # (the module's M for a small board; wider for a large one)
    words = prompt(state)    # a drawn setup's sentence, under the cells (room made for it)
    width, height = M + cols * U + RIM, M + rows * U + (M if words is not None else RIM)
    size = f"font-size:{font:g}px"
    body = [el("rect", x=0, y=0, width=width, height=height, rx=10, fill="#3a2c20")]
    for col in range(cols):
        body.append(el("text", str(col + 1), x=M + col * U + U / 2, y=M - 8, class_="label",
                       style=size))
    for r in range(rows):
        body.append(el("text", ROWS[r], x=M / 2, y=M + r * U + U / 2 + font * 0.35,
                       class_="label", style=size))
    kinds = {"setup": N_("a seed may go here"), "seed": N_("a spore next to your seed"),
             "free": N_("a free-standing spore"), "replace": N_("your seed: lift it to replace it")}
    for site in state.sites():
        r, col = parse_cell(site)
        x, y = M + col * U, M + r * U
        cx, cy = x + U / 2, y + U / 2
        kind = occupancy.get(site)
        classes = ["cell"]
        parts = [el("rect", x=x + 1, y=y + 1, width=U - 2, height=U - 2, rx=3,
                    fill=hexc(c[f"player{state.to_move}"]) if site in bar else WOOD)]
        tip = tr("{site}: empty").format(site=site)
        if kind is not None:
            what, owner = kind.split(":")
            colour = hexc(c[f"player{owner}"])
            if what == "spore":
                classes.append("spore")
                if site in excess:
                    classes.append("pulse")
                if site == last:
                    classes.append("last")
                if state.tree_id(site) in trees_scoring:
                    classes.append("scoring")
                parts.append(el("circle", cx=cx, cy=cy, r=U * 0.36,
                                fill=PIECE_FILLS[int(owner)], stroke=colour, stroke_width=3))
                tip = tr("{site}: {player}'s spore").format(site=site, player=tr(PLAYERS[int(owner)]))
            else:
                classes.append("seed")
                if site in seeds_scoring:
                    classes.append("scoring")
                parts.append(el("circle", cx=cx, cy=cy, r=U * 0.34, fill=hexc(SEED_GREEN),
                                stroke=colour, stroke_width=4))
                tip = tr("{site}: {player}'s seed").format(site=site, player=tr(PLAYERS[int(owner)]))
                if site in seeds_scoring:
                    tip += tr(", scoring")
        if site == sc.drawn:
            owner = hexc(c[f"player{1 - state.to_move}"])
            classes.append("drawn")
            parts.append(el("circle", cx=cx, cy=cy, r=U * 0.34, fill="none", stroke=owner,
                            stroke_width=4))
            tip += tr(" ({words}: the board drew it)").format(words=prompt(state))
        elif site in legal:
            classes += ["hint", legal[site]]
            if kind is None:
                parts.append(el("circle", cx=cx, cy=cy, r=U * 0.12,
                                fill=hexc(legible(hints[legal[site]]))))
            tip += tr(" ({what})").format(what=tr(kinds[legal[site]]))
        extra: dict[str, object] = {}
        fix = fixes.get(site)
        if fix is not None:
            classes.append("fix")
            if fix.want is not None and fix.have is None:
                classes.append("blink")
            extra["data_fix"] = correction_words(fix, PLAYERS)
            ring = hexc(c["wrong"]) if fix.want is None or fix.have is not None else \
                hexc(c[f"player{fix.want[-1]}"])
            parts.append(el("rect", x=x + 2, y=y + 2, width=U - 4, height=U - 4, rx=4,
                            fill="none", stroke=ring, stroke_width=3))
            tip += " — " + extra["data_fix"]
        body.append(el("g", title(tip) + "".join(parts), data_site=site, data_kind=kind,
                       class_=" ".join(classes), **extra))
    label = tr("Arbos board, {rows}x{cols}").format(rows=rows, cols=cols)
    if words is not None:
        label += f": {words}"
        body.append(el("text", words[0].upper() + words[1:], x=M + cols * U / 2,
                       y=M + rows * U + (height - M - rows * U) / 2 + font * 0.35,
                       class_="label prompt", style=size))
    return svgkit.document(width, height, body, label=label, class_="board arbos")


# --- the terminal ------------------------------------------------------------------------------

def terminal(state, moment: Moment, paint: Paint) -> str:
    c = moment.settings.colours
    sc = scene(state, moment)
    rows, cols, fixes, occupancy, legal = sc.rows, sc.cols, sc.fixes, sc.occupancy, sc.legal
    excess, seeds_scoring, bar, last = sc.excess, sc.seeds_scoring, set(sc.bar), sc.last
    grey = (120, 120, 120)

    def cell(site: str) -> str:
        fix = fixes.get(site)
        if fix is not None:
            if fix.want is None:
                return paint(c["wrong"], " X ", bold=True)
            return paint(c[f"player{fix.want[-1]}"], " ? ", bold=True)
        kind = occupancy.get(site)
        if kind is not None:
            what, owner = kind.split(":")
            colour = c[f"player{owner}"]
            letter = "WB"[int(owner)]
            if what == "spore":
                text = f"~{letter}~" if site in excess else f" {letter} "
                return paint(colour, text, bold=site == last or site in excess)
            text = f"({letter.lower()})"
            return paint(SEED_GREEN if site in seeds_scoring else colour, text,
                         bold=site in seeds_scoring)
        if site in bar:
            return paint(c[f"player{state.to_move}"], " = ")
        if site == sc.drawn:
            return paint(c[f"player{1 - state.to_move}"], " S ", bold=True)
        hint = legal.get(site)
        if hint == "seed":
            return paint(c[f"player{state.to_move}"], " + ")
        if hint == "free":
            return paint(grey, " - ")
        if hint == "setup":
            return paint(c[f"player{1 - state.to_move}"], " s ")
        return paint(grey, " . ")

    lines = ["   " + "".join(f"{col + 1:^3}" for col in range(cols))]
    for r in range(rows):
        lines.append(f" {ROWS[r]} " + "".join(cell(f"{ROWS[r]}{col + 1}") for col in range(cols)))
    lines.append(_status(state, moment))
    key = tr("W White's spores, B Black's, (w) (b) seeds (whose), ~W~ a tree over the limit")
    if sc.drawn is not None:
        key += tr(", S the drawn cell of the next seed")
    shown = set(legal.values()) if sc.drawn is None else set()
    # (only what the board shows now: no seed may go anywhere once the setup is done)
    key += "".join(tr(words) for kind, words in LEGAL_KEY.items() if kind in shown)
    if bar:
        key += tr(", = the turn's time running out (the edge lights go out one by one)")
    if moment.corrections:
        key += tr(", ? put a token here, X take it off")
    lines.append("   " + key + "; " + led_words(PLAYERS, c))
    return "\n".join(lines)


#: The terminal's letters for the mover's legal cells, by kind (`state.legal_cells()`).
LEGAL_KEY = {"setup": N_(", s a seed may go here"), "seed": N_(", + next to your seed"),
             "free": N_(", - free-standing")}


def notice(state) -> str | None:
    """What the mover must do that no LED shows by itself (views.notice): in a drawn setup,
    where the seed goes and whose it is; over three trees, lift spores."""
    words = prompt(state)
    if words is not None:
        return tr("{words} (the board drew it)").format(words=words)
    if state.must_remove:
        return tr("{n} trees: lift your spores until three remain").format(n=state.tree_count(state.to_move))
    return None


def _status(state, moment: Moment) -> str:
    a, b = state.scores()
    p = state.to_move
    if state.is_over():
        winner = state.winner()
        return ("   " + tr("over ({why}): White {a}, Black {b}; {player} wins").format(
            why=tr(END_REASONS[state.end_reason]) if state.end_reason in END_REASONS
            else reason(state.end_reason), a=a, b=b, player=tr(PLAYERS[winner]))
                + (tr(" (a tie goes to Black)") if a == b else ""))
    if state.phase == "setup":
        words = prompt(state)
        if words is not None:
            return "   " + tr("setup: {player}, {words} (the board drew it; "
                              "{n} to go)").format(player=tr(PLAYERS[p]), words=words,
                                                   n=state.seeds_to_place(1 - p))
        return "   " + tr("setup: {player} puts down a seed of {other} "
                          "({n} to go)").format(player=tr(PLAYERS[p]), other=tr(PLAYERS[1 - p]),
                                                n=state.seeds_to_place(1 - p))
    text = "   " + tr("{player} to move; spores left White {w}, "
                      "Black {b}; trees {tw}:{tb}; "
                      "scoring seeds {sw}:{sb}").format(
        player=tr(PLAYERS[p]), w=state.spores_left(0), b=state.spores_left(1),
        tw=state.tree_count(0), tb=state.tree_count(1), sw=a, sb=b)
    if state.follow_ups_left:
        text += tr("; {n} follow-up spore(s) owed").format(n=state.follow_ups_left)
    if state.must_remove:
        text += f"; {notice(state)}"
    if moment.turn_left is not None:
        text += tr("; {s} s left").format(s=f"{moment.turn_left:.0f}")
    return text


# --- why a move: the hint's reason, one sentence built here ------------------------------------

def hint_reason(state, move) -> str | None:
    """Why `move` is worth playing, in one sentence, from what the prior weighs: one's seed
    linked to a second tree (it scores) or to a first, a fourth tree (a spore must then go),
    in the setup the opponent's seed put where it can hardly score."""
    if state.is_over():
        return None
    m = state.parse_move(str(move))
    me, them = state.to_move, 1 - state.to_move
    text = move_words(str(m))
    if m.kind == "seed":
        site = text.split()[-1]
        around = len(state.geo.nb8[state.geo.index[site]])
        if around <= 3:
            return tr("{move} puts {player}'s seed in a corner, where it can never score.").format(move=text, player=tr(PLAYERS[them]))
        if around <= 5:
            return tr("{move} puts {player}'s seed on the edge, where it is hard to score.").format(move=text, player=tr(PLAYERS[them]))
        return None
    if m.kind != "spore":
        return None
    seeds = [s for s, kind in state.occupancy().items() if kind == f"seed:{me}"]
    before = {s: len(state.linked_trees(s).get(me, ())) for s in seeds}
    trees = state.tree_count(me)
    state.play(m)
    try:
        after = {s: len(state.linked_trees(s).get(me, ())) for s in seeds}
        trees_after = state.tree_count(me)
    finally:
        state.undo()
    if trees_after > 3:
        return tr("{move} starts a fourth tree: you must then take one of your spores off.").format(move=text)
    scoring = sorted(s for s in seeds if before[s] < 2 <= after[s])
    if scoring:
        return tr("{move} links your seed {site} to a second tree: it scores.").format(move=text, site=scoring[0])
    linked = sorted(s for s in seeds if after[s] > before[s])
    if linked:
        return tr("{move} links your seed {site} to a tree: one more tree makes it "
                  "score.").format(move=text, site=linked[0])
    if trees_after > trees:
        return tr("{move} starts a new tree ({n} of your three).").format(move=text, n=trees_after)
    return None



# --- words -------------------------------------------------------------------------------------

def move_words(move: str) -> str:
    """A move as a screen shows it (views/__init__.py): "seed C7" in the language's words (zh
    "播种 C7"), "pass" and "time" too; a spore ("C7", "C7=", "xC7") as it is written."""
    if move == "pass":
        return tr("pass")
    if move == "time":
        # TRANSLATORS: a move on Arbos's score sheet: the begun turn's time ran out.
        return tr("time")
    if move.startswith("seed "):
        # TRANSLATORS: a setup move on Arbos's score sheet: a seed put on {site} ("seed C7").
        return tr("seed {site}").format(site=move[5:])
    return move


def say_move(state, move: str) -> str:
    """A move as a person says it: "seed C7" -> "a seed at C seven", "C7" -> "C seven" (a
    spore), "C7=" -> "a spore for the seed at C seven", "xC7" -> "removes C seven", "pass"."""
    from board_driver.views import say_site

    if move == "pass":
        return tr("pass")
    if move == "time":
        return tr("the turn's time ran out")
    if move.startswith("seed "):
        return tr("a seed at {site}").format(site=say_site(state, move[5:]))
    if move.endswith("="):
        return tr("a spore for the seed at {site}").format(site=say_site(state, move[:-1]))
    if move.startswith("x"):
        return tr("removes {site}").format(site=say_site(state, move[1:]))
    return say_site(state, move)


def entry_ways(state) -> list[Way]:
    """Arbos tapped (views/entry.py): each move at its cell (a seed, a spore, a replacement, a
    removal: which, the button says where one cell has more than one), a pass a button."""
    return [Way(move, () if move.cell is None else (cell_name(move.cell),))
            for move in state.legal_moves()]

class ArbosView(GameView):
    """How Arbos is shown (see GameView)."""

    TITLE = TITLE
    PLAYERS = PLAYERS
    HELP = HELP
    PIECE_FILLS = PIECE_FILLS
    END_REASONS = END_REASONS
    COLOUR_MEANINGS = COLOUR_MEANINGS
    frame = staticmethod(frame)
    svg = staticmethod(svg)
    terminal = staticmethod(terminal)
    hint_reason = staticmethod(hint_reason)
    notice = staticmethod(notice)
    move_words = staticmethod(move_words)
    say_move = staticmethod(say_move)
    entry_ways = staticmethod(entry_ways)
