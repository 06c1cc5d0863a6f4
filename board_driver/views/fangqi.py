"""Fangqi shown: counters on the points of a grid, the counters that may be taken, whose turn
and which phase.

Sites: the points a1.. (files a.. from the left, rows 1.. from the bottom). The LEDs beside
the points show each counter dimly in its owner's colour (so a glance checks the board), the
last move brightly, and in the removal phases the counters that may be taken breathing in the
"choice" colour ("you may take this"). A lifted counter's targets and a move's captures still
to choose come from reconcile's move in progress, drawn for every game by `render`.
The `turn` LEDs show the mover's colour with one to four short pulses every two seconds for
the phase (placement, first removal, square removal, movement); at the end, the winner's.
"""

from __future__ import annotations

import itertools
import math

from board_driver.views import svgkit
from board_driver.views.base import (FRAME_S, OFF, Colour, Moment, correction_words, led_words,
                                     scale)
from board_driver.views.game_view import GameView, Way
from board_driver.views.paint import Paint
from board_driver.views.svgkit import el, hexc, title
from board_driver.views.words import N_, tr
from games.fangqi import PHASES

TITLE = N_("Fangqi")
PLAYERS = (N_("Black"), N_("White"))
#: The counters' colours as the rules' reasons name them ("d4 holds no black counter").
COLOUR_WORDS = (N_("black"), N_("white"))

HELP = N_("""Fangqi: points are a1.. (files a.. from the left, rows 1.. from the bottom).
Placement: put a counter on a vacant point (place c3). Removal: lift a lit counter (lift c3).
Movement: lift your counter (lift c3: its targets light), put it on one (place c4); if it
forms a square, lift one of the lit counters. Undo the last move on the board to take it back
(a capture: put the taken counter back, then your counter where it was).""")

PHASE_WORDS = {"placement": N_("placement"), "first-removal": N_("first removal"),
               "square-removal": N_("square removal"), "movement": N_("movement"),
               "over": N_("game over")}
#: How a game ended (FangqiState.end_reason), in words.
END_WORDS = {"reduced": N_("reduced"), "blocked": N_("blocked"),
             "quiet-limit": N_("quiet-limit")}


#: The shared legend's words for this game (board_driver/views/__init__.py: `legend`).
COLOUR_MEANINGS = {
    "safe": N_("a counter that can form a square now (hints: safe)"),
    "unsafe": None, "waiting": None,
    "choice": N_("breathing: a counter you may take (a capture to choose)"),
}

def _breathe(now: float) -> float:
    return 0.55 + 0.45 * math.cos(now * math.pi)


def _last_sites(state) -> set[str]:
    """Where the last move put a counter (a placement or a slide's target)."""
    if not state.moves:
        return set()
    move = state.moves[-1]
    return {move.to} if move.to else set()


def _movable(state) -> set[str]:
    if state.is_over() or state.phase != "movement":
        return set()
    return {m.frm for m in state.legal_moves()}


def _forming(state) -> set[str]:
    """The mover's counters with a move that forms a square."""
    if state.is_over() or state.phase != "movement":
        return set()
    return {m.frm for m in state.legal_moves() if m.captures}


# --- the LEDs ----------------------------------------------------------------------------------

def frame(state, moment: Moment, now: float) -> tuple[dict[str, Colour], float | None]:
    c = moment.settings.colours
    out: dict[str, Colour] = {}
    over = state.is_over()
    mover = c[f"player{state.to_move}"]
    occupancy = state.occupancy()
    last = _last_sites(state)
    takeable = set(state.takeable())
    movable = _movable(state) if moment.settings.moves != "off" else set()
    forming = _forming(state) if moment.settings.moves == "safe" else set()
    placing = not over and state.phase == "placement"
    level = _breathe(now)
    for site in state.sites():
        kind = occupancy.get(site)
        if kind is None:
            # In placement every vacant point glows faintly in the mover's colour.
            out[site] = scale(mover, 0.1) if placing and moment.settings.moves != "off" else OFF
            continue
        owner = c["player0" if kind == "black" else "player1"]
        if site in takeable:
            out[site] = scale(c["choice"], level)
        elif site in forming:
            out[site] = c["safe"]  # this counter can form a square now
        elif site in last or site in movable:
            out[site] = owner
        else:
            out[site] = scale(owner, 0.3)
    if over:
        winner = state.winner()
        out["turn"] = c[f"player{winner}"] if winner is not None else (64, 64, 64)
        return out, None
    # The phase: 1..4 short pulses of the mover's colour every two seconds, dim between.
    pulses = PHASES.index(state.phase) + 1
    t = now % 2.0
    on = any(k * 0.3 <= t < k * 0.3 + 0.15 for k in range(pulses))
    out["turn"] = mover if on else scale(mover, 0.25)
    return out, now + FRAME_S


# --- the page's picture ------------------------------------------------------------------------

U = 48          # the distance between two points, in SVG units
M = 46          # margin for the labels, which sit outside the counters (R + 4 from a point)
R = 17          # a counter's radius
BOARD = "#c8a66a"
LINE = "#4a3520"
PIECE = {"black": "#1d1d1d", "white": "#f4f1e8"}
#: How the page draws each player's counters (Black dark, White light), ringed in the player's
#: LED colour.
PIECE_FILLS = (PIECE["black"], PIECE["white"])


def _xy(state, site: str) -> tuple[float, float]:
    i = state.grid.index[site]
    row, col = divmod(i, state.grid.cols)
    return M + col * U, M + (state.grid.rows - 1 - row) * U


def svg(state, moment: Moment) -> str:
    grid = state.grid
    c = moment.settings.colours
    width, height = 2 * M + (grid.cols - 1) * U, 2 * M + (grid.rows - 1) * U
    occupancy = state.occupancy()
    fixes = {corr.site: corr for corr in moment.corrections}
    choices = {comp.site: comp for comp in moment.completions}
    takeable = set(state.takeable())
    last = _last_sites(state)
    squares = set(state.in_squares(0)) | set(state.in_squares(1))
    body: list[str] = [el("rect", x=0, y=0, width=width, height=height, rx=10, fill=BOARD)]
    for col in range(grid.cols):
        x = M + col * U
        body.append(el("line", x1=x, y1=M, x2=x, y2=height - M, stroke=LINE, stroke_width=2))
        body.append(el("text", "abcdefghijklmnopqrstuvwxyz"[col], x=x, y=height - 7,
                       class_="label coord on-light"))
    for row in range(grid.rows):
        y = M + (grid.rows - 1 - row) * U
        body.append(el("line", x1=M, y1=y, x2=width - M, y2=y, stroke=LINE, stroke_width=2))
        body.append(el("text", str(row + 1), x=12, y=y + 5, class_="label coord on-light"))
    for site in state.sites():
        x, y = _xy(state, site)
        kind = occupancy.get(site)
        fix, choice = fixes.get(site), choices.get(site)
        words = tr("{site}: a {kind} counter").format(site=site, kind=tr(kind)) if kind else \
            tr("{site}: vacant").format(site=site)
        parts = [el("circle", cx=x, cy=y, r=R + 4, fill="transparent")]  # the click target
        classes = []
        extra: dict[str, str] = {}
        if kind is not None:
            stroke = hexc(c["player0" if kind == "black" else "player1"])
            parts.append(el("circle", cx=x, cy=y, r=R, fill=PIECE[kind], stroke=stroke,
                            stroke_width=4 if site in last else 2))
            if site in squares:
                words += ", in a square"
                parts.append(el("rect", x=x - 5, y=y - 5, width=10, height=10,
                                fill=hexc(c["player0" if kind == "black" else "player1"])))
        else:
            parts.append(el("circle", cx=x, cy=y, r=4, fill=LINE))
        if fix is not None:  # a correction wins, as on the LEDs
            classes.append("fix")
            if fix.want is not None and fix.have is None:
                classes.append("blink")
            extra["data_fix"] = correction_words(fix, PLAYERS)
            words += ": " + extra["data_fix"]
            parts.append(el("circle", cx=x, cy=y, r=R + 3, fill="none",
                            stroke=hexc(c["wrong"]), stroke_width=4))
        elif site in takeable or (choice is not None and choice.want is None):
            classes.append("choice")
            words += ": may be taken"
            parts.append(el("circle", cx=x, cy=y, r=R + 3, fill="none",
                            stroke=hexc(c["choice"]), stroke_width=4))
        elif choice is not None:
            classes.append("choice")
            words += ": the counter may go here"
            parts.append(el("circle", cx=x, cy=y, r=R - 4, fill="none",
                            stroke=hexc(c[f"player{state.to_move}"]), stroke_width=4))
        parts.insert(0, title(words))
        body.append(el("g", "".join(parts), data_site=site, data_kind=kind,
                       class_=" ".join(classes) or None, **extra))
    return svgkit.document(width, height, body, label=tr("Fangqi board, {status}").format(status=_status(state)),
                           class_="board fangqi")


# --- the terminal ------------------------------------------------------------------------------

def _status(state) -> str:
    a, b = state.scores()
    names = [tr(p) for p in PLAYERS]
    counts = tr("{black} {a}, {white} {b} counters").format(black=names[0], a=a,
                                                            white=names[1], b=b)
    if state.is_over():
        winner = state.winner()
        result = tr("a draw") if winner is None else tr("{player} wins").format(
            player=names[winner])
        reason = END_WORDS.get(state.end_reason)
        return tr("game over ({why}): {result}; {counts}").format(
            why=tr(reason) if reason else state.end_reason, result=result, counts=counts)
    who = names[state.to_move]
    phase = tr(PHASE_WORDS[state.phase])
    due = state.removals_due(state.to_move)
    todo = tr(", {n} to take").format(n=due) if due else ""
    return tr("{phase}: {player} to move{todo}; {counts}").format(
        phase=phase, player=who, todo=todo, counts=counts)


def terminal(state, moment: Moment, paint: Paint) -> str:
    """Counters as B and W; [W] may be taken, (.) a lit target, !B! / !.! to correct."""
    grid = state.grid
    c = moment.settings.colours
    occupancy = state.occupancy()
    fixes = {corr.site: corr for corr in moment.corrections}
    choices = {comp.site: comp for comp in moment.completions}
    takeable = set(state.takeable())
    last = _last_sites(state)
    files = "abcdefghijklmnopqrstuvwxyz"[:grid.cols]
    lines = ["    " + "".join(f" {f} " for f in files)]
    for row in range(grid.rows, 0, -1):
        cells = []
        for f in files:
            site = f"{f}{row}"
            kind = occupancy.get(site)
            glyph = "." if kind is None else ("B" if kind == "black" else "W")
            colour = None if kind is None else c["player0" if kind == "black" else "player1"]
            fix, choice = fixes.get(site), choices.get(site)
            if fix is not None:
                cells.append(paint(c["wrong"], f"!{glyph}!", bold=True))
            elif site in moment.lifted and kind is not None:
                cells.append(paint(colour, f"^{glyph.lower()}^"))   # in the hand, not here
            elif site in takeable or (choice is not None and choice.want is None):
                cells.append(paint(c["choice"], f"[{glyph}]", bold=True))
            elif choice is not None:
                cells.append(paint(c[f"player{state.to_move}"], f"({glyph})", bold=True))
            else:
                cells.append(paint(colour, f" {glyph} ", bold=site in last))
        lines.append(f"{row:>3} " + "".join(cells))
    lines.append("  " + _status(state))
    key = tr("B Black, W White")
    marked = takeable | {comp.site for comp in moment.completions if comp.want is None}
    if marked:
        # the glyph of the counters marked now (the opponent's), not always the same letter
        glyph = "B" if occupancy.get(min(marked)) == "black" else "W"
        key += tr(", [{glyph}] may be taken (lift it)").format(glyph=glyph)
    if any(comp.want is not None for comp in moment.completions):
        key += tr(", (.) the lifted counter may go here")
    if moment.lifted:
        key += tr(", ^b^ ^w^ the counter lifted off")
    if moment.corrections:
        key += tr(", !B! !W! put back / take off (see below)")
    lines.append("  " + key + "; " + led_words(PLAYERS, c))
    return "\n".join(lines)


# --- why a move: the hint's reason, one sentence built here ------------------------------------

def _points(state, player: int) -> set[int]:
    grid, owner_of = state.grid, state.game.owner_of
    return {grid.index[site] for site, kind in state.occupancy().items()
            if owner_of(kind) == player}


def hint_reason(state, move) -> str | None:
    """Why `move` is worth playing, in one sentence, from the 2x2 windows around the points it
    touches (what the search's prior weighs): a square completed, the opponent's three
    blocked, a three of one's own built, a counter taken out of the opponent's square or
    three."""
    if state.is_over():
        return None
    m = state.parse_move(str(move))
    me = state.to_move
    them = tr(PLAYERS[1 - me])
    grid = state.grid
    mine, theirs = _points(state, me), _points(state, 1 - me)
    if m.to is None:  # a removal: what it breaks
        c = grid.index[m.captures[0]]
        most = max((len(set(_window(w)) & theirs) for _, w in grid.squares_at[c]
                    if not set(_window(w)) & mine), default=0)
        if most == 4:
            return tr("{move} breaks {player}'s square.").format(move=m, player=them)
        if most == 3:
            return tr("{move} breaks {player}'s three.").format(move=m, player=them)
        return None
    t = grid.index[m.to]
    rest = mine - ({grid.index[m.frm]} if m.frm is not None else set())
    windows = [set(_window(w)) - {t} for _, w in grid.squares_at[t]]
    completes = any(w <= rest for w in windows)
    blocks = any(w <= theirs for w in windows)
    builds = any(len(w & rest) == 2 and not w & theirs for w in windows)
    if completes and m.captures:
        return tr("{move} completes your square and takes {sites}.").format(
            move=m, sites=", ".join(m.captures))
    if completes:
        return tr("{move} completes your square.").format(move=m)
    if blocks:
        return tr("{move} blocks {player}'s three.").format(move=m, player=them)
    if builds:
        return tr("{move} makes three of a square: one more point completes it.").format(move=m)
    return None


def _window(mask: int) -> list[int]:
    """The points of a 2x2 window's mask."""
    return [i for i in range(mask.bit_length()) if mask >> i & 1]


# --- words -------------------------------------------------------------------------------------

def say_move(state, move: str) -> str:
    """A move as a person says it: "b2" -> "B two", "xe4" -> "takes E four", "d3-c3xa4" ->
    "D three to C three, takes A four"."""
    from board_driver.views import say_site

    head, *taken = move.split("x")
    frm, _sep, to = head.partition("-")
    said = (tr("{frm} to {to}").format(frm=say_site(state, frm), to=say_site(state, to)) if to
            else say_site(state, frm) if frm else "")
    takes = [tr("takes {site}").format(site=say_site(state, site)) for site in taken]
    return tr(", ").join(([said] if said else []) + takes)


def entry_ways(state) -> list[Way]:
    """Fangqi tapped (views/entry.py): a placement at its point, a removal at the counter it
    takes, a slide at its source, its target, then the counters its squares take, in either
    order."""
    ways = []
    for move in state.legal_moves():
        if move.frm is None:
            ways.append(Way(move, (move.to or move.captures[0],)))
            continue
        for taken in itertools.permutations(move.captures):
            ways.append(Way(move, (move.frm, move.to, *taken)))
    return ways

class FangqiView(GameView):
    """How Fangqi is shown (see GameView)."""

    SCORE = N_("counters left")
    TITLE = TITLE
    PLAYERS = PLAYERS
    HELP = HELP
    PIECE_FILLS = PIECE_FILLS
    COLOUR_MEANINGS = COLOUR_MEANINGS
    frame = staticmethod(frame)
    svg = staticmethod(svg)
    terminal = staticmethod(terminal)
    hint_reason = staticmethod(hint_reason)
    say_move = staticmethod(say_move)
    entry_ways = staticmethod(entry_ways)
