"""Tree Planting shown: rods in grooves, tree pegs in holes, free grooves coloured by the hint.

Sites: grooves h{row}.{col} (the top side of square row.col) and v{row}.{col} (its left side),
holes t{row}.{col} (its centre).
"""

from __future__ import annotations

from board_driver.views import svgkit
from board_driver.views.base import OFF, Colour, Moment, correction_words, legible, scale
from board_driver.views.game_view import GameView
from board_driver.views.paint import Paint
from board_driver.views.svgkit import el, hexc, title
from board_driver.views.words import N_, ngettext, tr

TITLE = N_("Tree Planting")
PLAYERS = (N_("player 1"), N_("player 2"))

HELP = N_("""Tree Planting: a groove is h ROW.COL (the top side of square ROW.COL) or v ROW.COL (its
left side); a hole is t ROW.COL. Rows and columns count from 0, as the drawing labels them: a
square's row at the left, its column above; h ROW at the left of its grooves, v COL below.
Put a rod in a groove (place h0.0); when it closes a square, plant your tree peg there
(place t0.0); a rod put before that waits, and counts once the tree is in. Lift the last rod
again to take it back. The most trees wins.""")


# --- the LEDs ----------------------------------------------------------------------------------

#: The shared legend's words for this game (board_driver/views/__init__.py: `legend`).
COLOUR_MEANINGS = {
    "safe": N_("a free groove that gives nothing away (hints: safe), or keeps your result "
               "(hints: best)"),
    "unsafe": N_("a free groove that hands a square over (hints: safe), or loses (hints: best)"),
    "choice": None, "waiting": None,
}

def frame(state, moment: Moment, now: float) -> tuple[dict[str, Colour], float | None]:
    c = moment.settings.colours
    out: dict[str, Colour] = {}
    mover = c[f"player{state.to_move}"]
    last = state.moves[-1] if state.moves else None
    for g in state.board.grooves:
        if state.drawn(g):
            out[g.name] = c["rod"]
        else:
            out[g.name] = _free_colour(state, g, moment, lambda col, f: scale(col, f)) or OFF
    if last is not None:
        out[last.name] = c[f"player{state.last_mover()}"]  # the last rod, in its player's colour
    for i, hole in enumerate(state.board.holes):
        owner = state.owner(i)
        # A tree shows its owner (the score, on the board itself); an empty hole glows faintly
        # in the mover's colour, so whose turn it is shows everywhere on the board.
        out[hole] = c[f"player{owner}"] if owner is not None else scale(mover, 0.12)
    return out, None


def _free_colour(state, groove, moment: Moment, dim) -> Colour | None:
    """What a free groove says under the hint mode: legal (the mover's colour, dim), safe
    (green: gives nothing away; orange: hands a square over), or nothing."""
    c = moment.settings.colours
    if state.is_over():
        return None
    if moment.settings.moves == "legal":
        return dim(c[f"player{state.to_move}"], 0.35)
    if moment.settings.moves == "safe":
        return c["unsafe"] if state.gives_away(groove) else c["safe"]
    if moment.settings.moves == "best":
        hint = moment.hints.get(groove.name)
        return {"best": c.get("best"), "keeps": c["safe"], "loses": c["unsafe"]}.get(hint)
    return None


# --- the page's picture ------------------------------------------------------------------------

U = 56          # one square, in SVG units
M = 26          # margin for the row and column labels
WOOD = "#6b5138"
HOLE = "#2b2019"
ROD = "#eadfc8"


def svg(state, moment: Moment) -> str:
    board = state.board
    c = moment.settings.colours
    fixes = {corr.site: corr for corr in moment.corrections}
    last = str(state.moves[-1]) if state.moves else None
    winner = state.winner() if state.is_over() else None
    planted = state.last_planted()
    body: list[str] = []

    body.append(el("rect", x=0, y=0, width=board.cols * U + 2 * M, height=board.rows * U + 2 * M,
                   rx=10, fill="#3a2c20"))
    for (r, col) in board.cells:
        body.append(el("rect", x=M + col * U, y=M + r * U, width=U, height=U, fill=WOOD))
    # Squares are labelled (row at the left, column above): h ROW.COL is the top side of square
    # ROW.COL, v ROW.COL its left side, t ROW.COL its hole; each site's name shows on hover.
    for col in range(board.cols):
        body.append(el("text", str(col), x=M + col * U + U / 2, y=M - 8, class_="label"))
    for r in range(board.rows):
        body.append(el("text", str(r), x=M - 13, y=M + r * U + U / 2 + 5, class_="label"))

    for g in board.grooves:
        kind, r, col = g.name[0], *map(int, g.name[1:].split("."))
        x, y = M + col * U, M + r * U
        x1, y1, x2, y2 = (x + 6, y, x + U - 6, y) if kind == "h" else (x, y + 6, x, y + U - 6)
        classes = ["groove"]
        drawn = state.drawn(g)
        if drawn:
            stroke = hexc(c[f"player{state.last_mover()}"]) if g.name == last else ROD
            classes.append("rod")
            if g.name == last:
                classes.append("last")
            width, dash = 7, None
        else:
            hint = _free_colour(state, g, moment, lambda col, f: col)
            stroke = hexc(hint) if hint else "#4a3a2c"
            classes.append("free")
            if hint:
                classes.append("unsafe" if hint == c["unsafe"] and moment.settings.moves == "safe" else "hint")
            width, dash = 4, "2 6"
        tip = tr("{groove}: rod").format(groove=g.name) if drawn else tr("{groove}: free").format(groove=g.name)
        fix = fixes.get(g.name)
        extra = {}
        if fix is not None:
            classes.append("fix")
            if fix.want is None:
                stroke = hexc(c["wrong"])
            else:
                classes.append("blink")
                stroke = hexc(scale(c["rod"], 4)) if fix.have is None else hexc(c["wrong"])
            width, dash = 7, None
            extra["data_fix"] = correction_words(fix, PLAYERS)
            tip += " — " + extra["data_fix"]
        body.append(el("line", title(tip), x1=x1, y1=y1, x2=x2, y2=y2, stroke=stroke,
                       stroke_width=width, stroke_linecap="round", stroke_dasharray=dash,
                       class_=" ".join(classes), data_site=g.name,
                       data_kind="rod" if drawn else None, **extra))

    for i, hole in enumerate(board.holes):
        r, col = board.cells[i]
        cx, cy = M + col * U + U / 2, M + r * U + U / 2
        owner = state.owner(i)
        fix = fixes.get(hole)
        classes = ["hole"]
        extra = {}
        if owner is not None:
            classes.append("tree")
            if winner is not None and owner == winner:
                classes.append("winner")
            if hole in planted:
                classes.append("last")
            shape = _tree(cx, cy, hexc(c[f"player{owner}"]))
            tip = tr("{site}: {player}'s tree").format(site=hole, player=tr(PLAYERS[owner]))
        else:
            shape = el("circle", cx=cx, cy=cy, r=U * 0.12, fill=HOLE,
                       stroke=hexc(c[f"player{state.to_move}"]), stroke_opacity=0.5, stroke_width=2)
            tip = tr("{site}: empty hole").format(site=hole)
        if fix is not None:
            classes += ["fix"] + (["blink"] if fix.want is not None and fix.have is None else [])
            extra["data_fix"] = correction_words(fix, PLAYERS)
            ring = hexc(c["wrong"]) if fix.want is None or fix.have is not None else \
                hexc(c[f"player{fix.want[-1]}"]) if fix.want[-1] in "01" else hexc(c["wrong"])
            shape += el("circle", cx=cx, cy=cy, r=U * 0.34, fill="none", stroke=ring, stroke_width=4)
            tip += " — " + extra["data_fix"]
        body.append(el("g", title(tip) + shape, class_=" ".join(classes), data_site=hole,
                       data_kind=f"tree:{owner}" if owner is not None else None, **extra))

    return svgkit.document(board.cols * U + 2 * M, board.rows * U + 2 * M, body,
                           label=tr("Tree Planting, {name} board").format(name=board.name), class_="board tree-planting")


def _tree(cx: float, cy: float, fill: str) -> str:
    """A tree peg seen from above: a crown in its owner's colour."""
    return (el("circle", cx=cx, cy=cy, r=U * 0.28, fill=fill, stroke="#1b1410", stroke_width=2)
            + el("circle", cx=cx - U * 0.08, cy=cy - U * 0.08, r=U * 0.09, fill="#ffffff",
                 fill_opacity=0.35))


# --- the terminal ------------------------------------------------------------------------------

def terminal(state, moment: Moment, paint: Paint) -> str:
    board = state.board
    c = moment.settings.colours
    cells = set(board.cells)
    fixes = {corr.site: corr for corr in moment.corrections}
    last = str(state.moves[-1]) if state.moves else None
    winner = state.winner() if state.is_over() else None
    grey = (120, 120, 120)
    rod = (220, 220, 220)

    def groove(name: str, horizontal: bool) -> str:
        fix = fixes.get(name)
        if fix is not None:
            if fix.want is None:
                return paint(c["wrong"], "XXX" if horizontal else "X", bold=True)
            return paint(rod, "???" if horizontal else "?", bold=True)
        if state.drawn(name):
            glyph = "━━━" if horizontal else "┃"
            if name == last:
                return paint(c[f"player{state.last_mover()}"], glyph, bold=True)
            return paint(rod, glyph)
        hint = _free_colour(state, board.groove[name], moment, lambda col, f: col)
        if hint is None:
            return paint(grey, "···" if horizontal else ":")
        if moment.settings.moves in ("safe", "best") and hint == c["unsafe"]:
            return paint(hint, "·!·" if horizontal else "!")
        if moment.settings.moves == "best" and hint == c.get("best"):
            return paint(hint, "·*·" if horizontal else "*")   # read without colour too
        return paint(hint, "···" if horizontal else ":")

    def hole(r: int, col: int) -> str:
        name = f"t{r}.{col}"
        fix = fixes.get(name)
        if fix is not None:
            return paint(c["wrong"], "X", bold=True) if fix.want is None else \
                paint(c.get(f"player{fix.want[-1]}", rod), "?", bold=True)
        owner = state.owner(board.square_index[(r, col)])
        if owner is None:
            return paint(c[f"player{state.to_move}"] if not state.is_over() else grey, "·")
        return paint(c[f"player{owner}"], str(owner + 1), bold=winner == owner)

    def corner(r: int, col: int) -> str:
        """A corner where any groove meets (none past the board's edge)."""
        near = (f"h{r}.{col - 1}", f"h{r}.{col}", f"v{r - 1}.{col}", f"v{r}.{col}")
        return "+" if any(name in board.groove for name in near) else " "

    # Each label says what it numbers: the squares' rows at the left and their columns above
    # (t ROW.COL, and h ROW.COL along a square's top), the h grooves' rows at the left of
    # theirs (h3 is the bottom edge of row 2), the v grooves' columns below (v ROW.4 the
    # right edge of column 3).
    width = 4 * board.cols + 1
    pad = " " * 4
    lines = [pad + _labels([(4 * col + 2, str(col)) for col in range(board.cols)], width)]
    for r in range(board.rows + 1):
        line = ""
        for col in range(board.cols):
            name = f"h{r}.{col}"
            line += corner(r, col) + (groove(name, True) if name in board.groove else "   ")
        lines.append((f"h{r:<2} " + line + corner(r, board.cols)).rstrip())
        if r == board.rows:
            break
        row = ""
        for col in range(board.cols + 1):
            name = f"v{r}.{col}"
            row += groove(name, False) if name in board.groove else " "
            if col < board.cols:
                row += f" {hole(r, col)} " if (r, col) in cells else "   "
        lines.append((f"{r:>3} " + row).rstrip())
    lines.append(pad + _labels([(4 * col, f"v{col}") for col in range(board.cols + 1)],
                               width + 2))
    key = tr("━ rod, 1 2 trees")
    if moment.settings.moves == "safe" and not state.is_over():
        key += tr(", ··· a free groove that gives nothing away, ·!· one that hands a square over")
    best = moment.settings.moves == "best" and moment.hints and not state.is_over()
    if moment.corrections:
        key += tr(", ??? put a piece here, XXX take it off")
    if best:   # each glyph in the colour the LEDs light it
        key = (paint(grey, key + ", ") + paint(c["best"], "·*·") + paint(grey, tr(" the computer's "
               "best move, ")) + paint(c["safe"], "···") + paint(grey, tr(" one that keeps your "
               "result, ")) + paint(c["unsafe"], "·!·") + paint(grey, tr(" one that loses")))
        lines.append(key)
    else:
        lines.append(paint(grey, key))
    return "\n".join(lines)


def _labels(at: list[tuple[int, str]], width: int) -> str:
    """A line with each label starting at its column (for the board's column numbers)."""
    out = [" "] * width
    for pos, text in at:
        for i, ch in enumerate(text):
            if pos + i < width:
                out[pos + i] = ch
    return "".join(out).rstrip()


# --- words -------------------------------------------------------------------------------------

def say_site(state, site: str) -> str:
    """A groove or hole as a person says it: h0.1 -> "the top groove of row zero, square one";
    a groove with no square below (right of) it is the bottom (right) side of the one above.
    Rows and squares are numbered as the screen, the page and the notation number them, from
    0: what is heard is what is read at the board's edge."""
    from board_driver.views import say_number

    kind, _sep, rest = site.partition(" ") if " " in site else (site[:1], "", site[1:])
    try:
        row, col = (int(x) for x in rest.split("."))
    except ValueError:
        return site
    cells = set(state.board.cells)
    if kind == "h":
        words, row = ((N_("the bottom groove of row {row}, square {col}"), row - 1)
                      if (row, col) not in cells else
                      (N_("the top groove of row {row}, square {col}"), row))
    elif kind == "v":
        words, col = ((N_("the right groove of row {row}, square {col}"), col - 1)
                      if (row, col) not in cells else
                      (N_("the left groove of row {row}, square {col}"), col))
    elif kind == "t":
        words = N_("the tree hole of row {row}, square {col}")
    else:
        return site
    return tr(words).format(row=say_number(row), col=say_number(col))


def say_move(state, move: str) -> str:
    return say_site(state, move)


# --- why a move: the hint's reason, one sentence built here ------------------------------------

def _safe_grooves(state) -> list:
    """The free grooves that neither close a square nor hand one over."""
    out = []
    for g in state.legal_moves():
        if not state.gives_away(g) and not _closes(state, g):
            out.append(g)
    return out


def _closes(state, groove) -> int:
    """How many squares drawing `groove` closes (the mover then plants and moves again)."""
    return sum(1 for i, sides in enumerate(state.board.square_grooves)
               if groove in sides and state.sides_drawn(i) == 3)


def _handed(state, groove) -> int:
    """How many squares drawing `groove` leaves on three sides for the opponent."""
    return sum(1 for i, sides in enumerate(state.board.square_grooves)
               if groove in sides and state.sides_drawn(i) == 2)


def _double_deal(state, groove) -> bool:
    """Does `groove` decline the last two squares of a chain (the hard-hearted handout's
    mirror): it closes nothing, and leaves a square on three sides whose last free groove is
    also the last of a square already on three sides, so that one groove takes both."""
    board = state.board
    for i, sides in enumerate(board.square_grooves):
        if groove not in sides or state.sides_drawn(i) != 2:
            continue
        free = [s for s in sides if s is not groove and not state.drawn(s)]
        if len(free) != 1:
            continue
        for j, other in enumerate(board.square_grooves):
            if j != i and free[0] in other and state.sides_drawn(j) == 3:
                return True
    return False


def hint_reason(state, move) -> str | None:
    """Why `move` (a free groove) is worth playing or not, in one sentence, from the position's
    own shape: a groove that closes squares, hands squares over, keeps nothing back when
    captures were there (the double deal of the long-chain rule), or is the last safe one."""
    if state.is_over():
        return None
    g = state.parse_move(str(move))
    them = tr(PLAYERS[1 - state.to_move])
    closes = _closes(state, g)
    if closes:
        return ngettext("{groove} closes a square: plant your tree and move again.",
                        "{groove} closes {n} squares: plant your tree and move again.",
                        closes).format(groove=g.name, n=closes)
    handed = _handed(state, g)
    if handed:
        if _double_deal(state, g):
            return tr("{groove} leaves the last squares of the chain to {player}: then {player} "
                      "must open the next chain (the long-chain rule).").format(groove=g.name, player=them)
        if not _safe_grooves(state):
            return ngettext("{groove} hands over a square, the least any groove gives now: "
                            "every groove hands something over.",
                            "{groove} hands over {n} squares, the least any groove gives now: "
                            "every groove hands something over.", handed).format(groove=g.name, n=handed)
        return ngettext("{groove} hands over a square.", "{groove} hands over {n} squares.",
                        handed).format(groove=g.name, n=handed)
    state.play(g)
    try:
        left = len(_safe_grooves(state))
    finally:
        state.undo()
    if left == 0:
        return tr("{groove} is the last safe groove: after it {player} must open a chain.").format(groove=g.name, player=them)
    return ngettext("{groove} hands nothing over: {n} safe groove is left after it.",
                    "{groove} hands nothing over: {n} safe grooves are left after it.",
                    left).format(groove=g.name, n=left)


class TreePlantingView(GameView):
    """How Tree Planting is shown (see GameView)."""

    TITLE = TITLE
    PLAYERS = PLAYERS
    HELP = HELP
    COLOUR_MEANINGS = COLOUR_MEANINGS
    frame = staticmethod(frame)
    svg = staticmethod(svg)
    terminal = staticmethod(terminal)
    hint_reason = staticmethod(hint_reason)
    say_site = staticmethod(say_site)
    say_move = staticmethod(say_move)
