"""Treeblox shown: the 4x4 board from above (each column's top cube and height), and the two
trees in 3D for the page, where cubes above or beside the board are entered.

Sites: the board's holes a1..d4 (columns a-d are x 0..3, rows 1-4 are y 0..3); cells above
them b2+1 (one cube up); anywhere else (x,y,z), with a1 = (0,0,0).
"""

from __future__ import annotations

import math

from board_driver.views import svgkit
from board_driver.views.base import (FRAME_S, OFF, Colour, Moment, correction_words, kind_colour,
                                     piece_name, scale)
from board_driver.views.game_view import GameView, Way
from board_driver.views.paint import Paint
from board_driver.views.svgkit import el, hexc, title
from board_driver.views.words import N_, ngettext, tr
from games.treeblox import COLOURS, COLUMNS, SIZE, cell_name, parse_cell

TITLE = N_("Treeblox")
PLAYERS = (N_("Dark"), N_("Light"))
#: The cubes' colours as the rules' reasons name them ("b2 is taken by a dark leaf").
COLOUR_WORDS = (N_("dark"), N_("light"))
ENTRIES = True  # cubes above or beside the board have no sensor: the page enters them

HELP = N_("""Treeblox: the board's holes are a1..d4 (columns a-d, rows 1-4); a cube in a hole is
seen by its sensor: place b2 dark-leaf. Cubes above or beside the board have no sensor and are
entered: place b2+1 light-branch (one cube above b2), place (-1,0,0) dark-leaf (beside a1).
Kinds: dark-leaf, dark-branch, light-leaf, light-branch. press end_turn ends a turn early.
To win: have more leaves that see the sky (nothing on them) when the game ends: when a tree has
no such leaf left, after a pass by each player in a row, or once the cubes run out.""")


#: The sides of the board a cell beside it is on, as `site_words` says them.
SIDES = (N_("left of"), N_("right of"), N_("in front of"), N_("beyond"))


def _beside(x: int, y: int, z: int, name, number, table: bool = True) -> str:
    """A cell beside the board told from the hole it is next to: `name(hole)` says the hole,
    `number(n)` a count ("beyond c4, on the table", "2 cells left of a1, 1 up")."""
    near = f"{COLUMNS[min(max(x, 0), SIZE - 1)]}{min(max(y, 0), SIZE - 1) + 1}"
    sides = [tr(word) for word, beside in zip(SIDES, (x < 0, x >= SIZE, y < 0, y >= SIZE))
             if beside]
    where = tr("{sides} {site}").format(sides=tr(" and ").join(sides), site=name(near))
    far = max(-x, x - SIZE + 1, -y, y - SIZE + 1)
    if far > 1:
        where = ngettext("{n} cell {where}", "{n} cells {where}", far).format(
            n=number(far), where=where)
    if z == 0 and not table:
        return where
    height = tr("on the table") if z == 0 else tr("{n} up").format(n=number(z))
    return tr("{where}, {height}").format(where=where, height=height)


def site_words(site: str, table: bool = True) -> str:
    """A cell as a player says it: a board hole or a cell above one keeps its name ("b2",
    "b2+1"); a cell beside the board is told from the hole it is next to, never as lattice
    coordinates ("(2,4,0)" -> "beyond c4, on the table"; `table` False: without "on the
    table")."""
    x, y, z = parse_cell(site)
    if 0 <= x < SIZE and 0 <= y < SIZE:
        return site
    return _beside(x, y, z, str, str, table)


def say_site(state, site: str) -> str:
    """A cell as a person says it aloud: "B one", "B three, one up", "beyond C four, on the
    table"."""
    from board_driver.views import say_number

    try:
        x, y, z = parse_cell(site)
    except ValueError:
        return site

    def hole(name: str) -> str:
        return f"{name[0].upper()} {say_number(int(name[1:]))}"

    if 0 <= x < SIZE and 0 <= y < SIZE:
        name = hole(f"{COLUMNS[x]}{y + 1}")
        return tr("{site}, {n} up").format(site=name, n=say_number(z)) if z else name
    return _beside(x, y, z, hole, say_number)


def move_words(move: str) -> str:
    """A move as a screen shows it (views/__init__.py): its notation, except `end` in the
    language's words, and a cube beside the board, whose cell is told from the hole it is next
    to ("L(2,4,0)" -> "L beyond c4")."""
    if move in ("end", "pass"):
        # TRANSLATORS: Treeblox's move that ends the turn, on a score sheet ("end").
        return tr("end")
    if not move.endswith(")"):
        return move
    return f"{move[0]} {site_words(move[1:], table=False)}"

#: The shared legend's words for this game (board_driver/views/__init__.py: `legend`).
COLOUR_MEANINGS = {"safe": None, "unsafe": None, "choice": None}
#: The hint modes its pictures show: the holes a cube may go into (legal, and the computer's
#: best); nothing tells a safe placement from another ("safe" would light what "legal" does).
HINTS = ("off", "legal", "best")


def why_not(state, site: str, kind: str) -> str | None:
    """Why a cube of `kind` on `site` is no move, in the rules' words (a cell in the air, a
    leaf's face): the rules' reason for that placement."""
    from board_driver.views.words import reason
    from games import IllegalMove

    what = kind.partition("-")[2]
    letter = {"leaf": "L", "branch": "B"}.get(what)
    if letter is None:
        return None
    try:
        state.copy().play(state.parse_move(letter + site))
    except IllegalMove as exc:
        return reason(exc.reason)
    return None


def _tops(state) -> dict[tuple[int, int], tuple[str, int]]:
    """Each occupied column (x, y) -> (the kind of its top cube, the top cube's z)."""
    tops: dict[tuple[int, int], tuple[str, int]] = {}
    for site, kind in state.occupancy().items():
        x, y, z = parse_cell(site)
        if (x, y) not in tops or z > tops[(x, y)][1]:
            tops[(x, y)] = (kind, z)
    return tops


def _last_cell(state) -> tuple[int, int, int] | None:
    """The cell of the last cube placed, if the last move placed one."""
    moves = state.moves
    return moves[-1].cell if moves and moves[-1].cell is not None else None


LAST = "#ffd966"  # the last cube's outline (the page marks the last move in this gold too)


def _active(state) -> set[tuple[int, int, int]]:
    return {cell for p in (0, 1) for cell in state.active_leaves(p)}


# --- the LEDs ----------------------------------------------------------------------------------

def frame(state, moment: Moment, now: float) -> tuple[dict[str, Colour], float | None]:
    c = moment.settings.colours
    out: dict[str, Colour] = {}
    over = state.is_over()
    mover = state.to_move
    free_board = set()
    if not over:
        free_board = {h for h in state.available_holes(mover) if h[2] == 0}
    active = {cell[:2] for cell in _active(state)}
    tops = _tops(state)
    # The growth rate: one or two short pulses of the mover's colour every two seconds.
    pulses = state.growth_rate(mover) if not over else 0
    t = now % 2.0
    pulse_on = any(k * 0.4 <= t < k * 0.4 + 0.2 for k in range(pulses))
    waiting = not over and not free_board and bool(state.available_holes(mover))
    for hole in state.sites():
        x, y, _ = parse_cell(hole)
        top = tops.get((x, y))
        if top is not None:
            colour = kind_colour(state.game, top[0], c)
            out[hole] = colour if top[0].endswith("leaf") and (x, y) in active else scale(colour, 0.2)
        elif (x, y, 0) in free_board:
            if pulse_on:
                out[hole] = c[f"player{mover}"]
            elif moment.settings.moves != "off":
                out[hole] = scale(c[f"player{mover}"], 0.25)
            else:
                out[hole] = OFF
        else:
            out[hole] = OFF
    if waiting:
        # Only cells above or beside the board are free: the board cannot sense them, so it
        # waits for the placement to be entered. The mover's columns breathe in "waiting".
        level = 0.3 + 0.7 * (0.5 + 0.5 * math.sin(now * math.pi))
        for hole in state.sites():
            top = tops.get(parse_cell(hole)[:2])
            if top is not None and top[0].startswith(("dark", "light")[mover]):
                out[hole] = scale(c["waiting"], level)
    animated = not over and (pulses > 0 or waiting)
    return out, (now + FRAME_S if animated else None)


# --- the page's pictures -----------------------------------------------------------------------

U = 60   # one cell of the top view
M = 26   # margin for labels


def _extent(cells) -> tuple[int, int, int, int]:
    """The columns and rows the top view must show: the board, and whatever hangs past it."""
    xs = [0, SIZE - 1] + [x for x, _, _ in cells]
    ys = [0, SIZE - 1] + [y for _, y, _ in cells]
    return min(xs), max(xs), min(ys), max(ys)


def svg(state, moment: Moment) -> str:
    """The top view: the 4x4 board (row 1 nearest the players, at the bottom), each column's
    top cube in its owner's colour with the column's height; active leaves ringed."""
    c = moment.settings.colours
    cells = [parse_cell(s) for s in state.occupancy()]
    x0, x1, y0, y1 = _extent(cells)
    width, height = (x1 - x0 + 1) * U + 2 * M, (y1 - y0 + 1) * U + 2 * M
    fixes = {corr.site: corr for corr in moment.corrections}
    tops = _tops(state)
    active = _active(state)
    free = set()
    if not state.is_over() and moment.settings.moves != "off":
        free = {h for h in state.available_holes(state.to_move) if h[2] == 0}
    winner = state.winner() if state.is_over() else None
    last = _last_cell(state)

    def pos(x: int, y: int) -> tuple[float, float]:
        return M + (x - x0) * U, M + (y1 - y) * U

    body = [el("rect", x=0, y=0, width=width, height=height, rx=10, fill="#23262b")]
    bx, by = pos(0, SIZE - 1)
    body.append(el("rect", x=bx - 4, y=by - 4, width=SIZE * U + 8, height=SIZE * U + 8, rx=8,
                   fill="#6b5138"))
    for x in range(SIZE):
        body.append(el("text", COLUMNS[x], x=pos(x, 0)[0] + U / 2, y=pos(0, y0)[1] + U + 18,
                       class_="label"))
    for y in range(SIZE):
        body.append(el("text", str(y + 1), x=pos(x0, 0)[0] - 14, y=pos(0, y)[1] + U / 2 + 4,
                       class_="label"))
    for y in range(y0, y1 + 1):
        for x in range(x0, x1 + 1):
            on_board = 0 <= x < SIZE and 0 <= y < SIZE
            top = tops.get((x, y))
            if not on_board and top is None:
                continue
            px, py = pos(x, y)
            cx, cy = px + U / 2, py + U / 2
            site = cell_name((x, y, 0)) if on_board else cell_name((x, y, top[1]))
            parts = []
            classes = ["column"]
            extra: dict[str, object] = {}
            if not on_board:
                parts.append(el("rect", x=px + 3, y=py + 3, width=U - 6, height=U - 6, rx=6,
                                fill="none", stroke="#8a8f98", stroke_dasharray="4 4"))
            if top is None:
                ring = hexc(c[f"player{state.to_move}"]) if (x, y, 0) in free else "#1b1410"
                parts.append(el("circle", cx=cx, cy=cy, r=U * 0.16, fill="#2b2019", stroke=ring,
                                stroke_width=3 if (x, y, 0) in free else 1))
                tip = tr("{site}: empty hole").format(site=site) + (tr(", free to play") if (x, y, 0) in free else "")
                if (x, y, 0) in free:
                    classes.append("hint")
            else:
                kind, z = top
                owner = 0 if kind.startswith("dark") else 1
                leaf = kind.endswith("leaf")
                fill = hexc(c[f"player{owner}"])
                sees_sky = leaf and (x, y, z) in active
                parts.append(el("rect", x=px + 7, y=py + 7, width=U - 14, height=U - 14,
                                rx=U * 0.3 if leaf else 4, fill=fill,
                                fill_opacity=1 if sees_sky or not leaf else 0.55,
                                stroke="#ffffff" if sees_sky else "#1b1410",
                                stroke_width=3 if sees_sky else 1.5))
                parts.append(el("text", str(z + 1), x=cx, y=cy + 7,
                                class_="height " + ("on-light" if owner else "on-dark")))
                classes += ["cubes", "leaf" if leaf else "branch"] + (["active"] if sees_sky else [])
                if winner is not None and owner == winner:
                    classes.append("winner")
                extra["data_kind"] = kind
                extra["data_height"] = z + 1
                if last is not None and last[:2] == (x, y):
                    classes.append("last")
                    parts.append(el("rect", x=px + 1, y=py + 1, width=U - 2, height=U - 2, rx=9,
                                    fill="none", stroke=LAST, stroke_width=2,
                                    stroke_dasharray="5 3"))
                what = (tr("{player} leaf") if leaf else tr("{player} branch")).format(player=tr(PLAYERS[owner]))
                tip = (tr("{site}: column of {n}, top cube a {what}").format(site=site, n=z + 1, what=what)
                       + (tr(" (sees the sky)") if sees_sky else ""))
            fix = fixes.get(site)
            if fix is not None:
                classes += ["fix"] + (["blink"] if fix.want is not None and fix.have is None else [])
                extra["data_fix"] = correction_words(fix, PLAYERS)
                ring = hexc(kind_colour(state.game, fix.want, c)) if fix.want and fix.have is None else hexc(c["wrong"])
                parts.append(el("rect", x=px + 2, y=py + 2, width=U - 4, height=U - 4, rx=8,
                                fill="none", stroke=ring, stroke_width=4))
                tip += " — " + extra["data_fix"]
            body.append(el("g", title(tip) + "".join(parts), class_=" ".join(classes),
                           data_site=site, **extra))
    return svgkit.document(width, height, body, label="Treeblox board from above",
                           class_="board treeblox top")


A = 26  # half the width of a cube's top face in the 3D view


def _p(x: float, y: float, z: float) -> tuple[float, float]:
    """Isometric projection, seen from beyond the a1 corner: x runs up-right, y up-left."""
    return (x - y) * A, -(x + y) * A / 2 - z * A


def _poly(points, **kw) -> str:
    return el("polygon", points=" ".join(f"{x:.1f},{y:.1f}" for x, y in points), **kw)


def _cube_faces(x: int, y: int, z: int) -> tuple[list, list, list]:
    top = [_p(x, y, z + 1), _p(x + 1, y, z + 1), _p(x + 1, y + 1, z + 1), _p(x, y + 1, z + 1)]
    south = [_p(x, y, z), _p(x + 1, y, z), _p(x + 1, y, z + 1), _p(x, y, z + 1)]
    west = [_p(x, y, z), _p(x, y + 1, z), _p(x, y + 1, z + 1), _p(x, y, z + 1)]
    return top, south, west


def _spun(turn: int):
    """The board turned a quarter `turn` times about its centre: a cell's new (x, y), and a
    point's (for labels). A tree hides what stands behind it; turning shows the other side."""
    def cell(x: int, y: int, z: int) -> tuple[int, int, int]:
        for _ in range(turn % 4):
            x, y = y, SIZE - 1 - x
        return x, y, z

    def point(px: float, py: float) -> tuple[float, float]:
        for _ in range(turn % 4):
            px, py = py, SIZE - px
        return px, py
    return cell, point


def svg_3d(state, moment: Moment, places: list[str], turn: int = 0) -> str:
    """Both trees in 3D, and a ghost cube at each of `places` (data-place) to click on; seen
    from beyond a1, or from the next corner round for each quarter `turn`."""
    c = moment.settings.colours
    active = _active(state)
    last = _last_cell(state)
    spin, spin_point = _spun(turn)
    items = []  # (painter's key, svg) drawn far to near, low to high
    for site, kind in state.occupancy().items():
        cell = parse_cell(site)
        x, y, z = spin(*cell)
        owner = 0 if kind.startswith("dark") else 1
        leaf = kind.endswith("leaf")
        base = c[f"player{owner}"] if leaf else scale(c[f"player{owner}"], 0.6)
        top, south, west = _cube_faces(x, y, z)
        sees = leaf and cell in active
        edge = dict(stroke=LAST, stroke_width=2) if cell == last else \
            dict(stroke="#111", stroke_width=1)
        parts = [title((tr("{site}: {player} leaf") if leaf else tr("{site}: {player} branch")).format(
                           site=site, player=tr(PLAYERS[owner]))
                       + (tr(" (sees the sky)") if sees else "")),
                 _poly(top, fill=hexc(base), **edge),
                 _poly(south, fill=hexc(scale(base, 0.75)), **edge),
                 _poly(west, fill=hexc(scale(base, 0.55)), **edge)]
        if leaf:
            cx, cy = _p(x + 0.5, y + 0.5, z + 1)
            parts.append(el("ellipse", cx=cx, cy=cy, rx=A * 0.45, ry=A * 0.22,
                            fill="#ffffff" if sees else "#000000", fill_opacity=0.45 if sees else 0.25))
        items.append(((-(x + y), z), el("g", "".join(parts), data_site=site, data_kind=kind,
                                        class_="cube last" if cell == last else "cube")))
    for site in places:
        x, y, z = spin(*parse_cell(site))
        top, south, west = _cube_faces(x, y, z)
        ghost = dict(fill=hexc(c[f"player{state.to_move}"]), fill_opacity=0.18,
                     stroke=hexc(c[f"player{state.to_move}"]), stroke_dasharray="3 3")
        body = (title(tr("{site}: place a cube here").format(site=site_words(site))) + _poly(top, **ghost) + _poly(south, **ghost)
                + _poly(west, **ghost))
        # (data-site too: a web seat taps it as it taps a hole, views/entry.py)
        items.append(((-(x + y), z), el("g", body, class_="place", data_place=site,
                                        data_site=site, tabindex=0, role="button")))
    items.sort(key=lambda item: item[0])

    board = [_p(0, 0, 0), _p(SIZE, 0, 0), _p(SIZE, SIZE, 0), _p(0, SIZE, 0)]
    floor = [_poly(board, fill="#6b5138", stroke="#3a2c20", stroke_width=2)]
    for x in range(SIZE):
        for y in range(SIZE):
            hx, hy = _p(x + 0.5, y + 0.5, 0)
            floor.append(el("ellipse", cx=hx, cy=hy, rx=A * 0.3, ry=A * 0.15, fill="#2b2019"))
    # Columns and rows are labelled along the two edges nearest the viewer, whichever way the
    # board is turned (the far edges would be hidden behind the trees).
    labels = [(COLUMNS[i], (i + 0.5, edge)) for i in range(SIZE) for edge in (-0.45, SIZE + 0.45)]
    labels += [(str(i + 1), (edge, i + 0.5)) for i in range(SIZE) for edge in (-0.45, SIZE + 0.45)]
    # A label stands beyond any cube or dashed place beside the board in its row or column (the
    # cells past the near edge), and is drawn last: it is never under a piece.
    taken = {spin(*parse_cell(site))[:2] for site in list(state.occupancy()) + list(places)}
    marks, anchors = [], []
    for text, point in labels:
        px, py = spin_point(*point)
        if px < 0 or py < 0:
            while (math.floor(px), math.floor(py)) in taken:
                px, py = (px - 1, py) if px < 0 else (px, py - 1)
            lx, ly = _p(px, py, 0)
            anchors += [(lx - 10, ly - 10), (lx + 10, ly + 10)]
            marks.append(el("text", text, x=lx, y=ly + 6, class_="label coord"))

    points = board + anchors + [p for site in list(state.occupancy()) + list(places)
                                for face in _cube_faces(*spin(*parse_cell(site))) for p in face]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    pad = 24
    left, top_y = min(xs) - pad, min(ys) - pad
    w, h = max(xs) - min(xs) + 2 * pad, max(ys) - min(ys) + 2 * pad
    inner = el("g", "".join(floor) + "".join(svg for _, svg in items) + "".join(marks),
               transform=f"translate({-left:.1f},{-top_y:.1f})")
    return svgkit.document(w, h, [inner], label="Treeblox trees in 3D", class_="board treeblox iso",
                           data_turn=turn % 4)


# --- the terminal ------------------------------------------------------------------------------

def terminal(state, moment: Moment, paint: Paint) -> str:
    """The 4x4 board from above: each column's top cube (D or L for Dark or Light; * a leaf that
    sees the sky, l a shaded leaf, b a branch) and its height; then what is beside the board."""
    c = moment.settings.colours
    grey = (120, 120, 120)
    tops = _tops(state)
    active = _active(state)
    fixes = {corr.site: corr for corr in moment.corrections}
    free = set()
    if not state.is_over():
        free = {h for h in state.available_holes(state.to_move) if h[2] == 0}
    winner = state.winner() if state.is_over() else None
    lines = ["     " + "".join(f"{col:^6}" for col in COLUMNS)]
    for y in reversed(range(SIZE)):
        row = ""
        for x in range(SIZE):
            site = cell_name((x, y, 0))
            fix = fixes.get(site)
            top = tops.get((x, y))
            if fix is not None:
                text = paint(c["wrong"], " X " if fix.want is None else " ? ", bold=True)
            elif top is None:
                hinted = (x, y, 0) in free and moment.settings.moves != "off"
                text = paint(c[f"player{state.to_move}"] if hinted else grey, " · ")
            else:
                kind, z = top
                owner = 0 if kind.startswith("dark") else 1
                mark = "*" if (x, y, z) in active else "l" if kind.endswith("leaf") else "b"
                text = paint(c[f"player{owner}"], f"{'DL'[owner]}{mark}{z + 1}",
                             bold=mark == "*" or winner == owner)
            row += "  " + text + " "
        lines.append(f"  {y + 1}  " + row)
    beside = sorted((s, k) for s, k in state.occupancy().items()
                    if not all(0 <= v < SIZE for v in parse_cell(s)[:2]))
    if beside:
        lines.append("  " + tr("beside the board: ") + ", ".join(
            paint(c[f"player{0 if k.startswith('dark') else 1}"],
                  tr("{site}: {kind}").format(site=site_words(s, table=False),
                                              kind=piece_name(k, article="")))
            for s, k in beside))
    for p in (0, 1):
        left = state.cubes_left(p)
        lines.append("  " + tr("{player}: {sees} the sky; {leaves} and {branches} left").format(
            player=paint(c[f'player{p}'], tr(PLAYERS[p]), bold=True),
            sees=ngettext("{n} leaf sees", "{n} leaves see", len(state.active_leaves(p))).format(
                n=len(state.active_leaves(p))),
            leaves=ngettext("{n} leaf", "{n} leaves", left['leaf']).format(n=left['leaf']),
            branches=ngettext("{n} branch", "{n} branches", left['branch']).format(n=left['branch'])))
    if not state.is_over():
        n = state.placements_left
        lines.append("  " + ngettext("{player} may place {n} more cube this turn",
                                     "{player} may place {n} more cubes this turn", n).format(
            player=tr(PLAYERS[state.to_move]), n=n)
                     + (tr(" (final growth)") if state.in_final_growth else ""))
    lines.append(paint(grey, "  " + tr("D Dark, L Light: * a leaf that sees the sky, l a shaded leaf, "
                                       "b a branch; the digit is the column's height")
                       + (tr("; ? put a cube here, X take it off") if moment.corrections else "")))
    return "\n".join(lines)


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


# --- words -------------------------------------------------------------------------------------

def say_move(state, move: str) -> str:
    """A move as a person says it: "Ld1" -> "a leaf at D one" (the mover's colour is the turn's)."""
    if move in ("end", "pass"):
        return tr("ends the turn")
    beside = move.endswith(")")   # a cube beside the board: "a leaf beyond C four, ..."
    piece = ({"L": N_("a leaf {site}"), "B": N_("a branch {site}")} if beside else
             {"L": N_("a leaf at {site}"), "B": N_("a branch at {site}")}).get(move[:1])
    if piece is None:
        return say_site(state, move)
    return tr(piece).format(site=say_site(state, move[1:]))


# --- why a move: the hint's reason, one sentence built here ------------------------------------

def hint_reason(state, move) -> str | None:
    """Why `move` is worth playing, in one sentence, from what it does to the active leaves
    (the score, and what keeps a tree alive) and the growth rate: an opponent's leaf shaded
    (their last: the game ends in your favour), a leaf of one's own added, a branch that opens
    holes."""
    if state.is_over():
        return None
    m = state.parse_move(str(move))
    me, them = state.to_move, 1 - state.to_move
    if m == state.end_turn_move():
        return None
    mine, theirs = len(state.active_leaves(me)), len(state.active_leaves(them))
    holes = len(state.available_holes(me))
    state.play(m)
    try:
        mine_after, theirs_after = len(state.active_leaves(me)), len(state.active_leaves(them))
        holes_after = len(state.available_holes(me))
    finally:
        state.undo()
    text = move_words(str(m))
    if theirs_after < theirs:
        if theirs_after == 0:
            return tr("{move} shades {player}'s last active leaf.").format(move=text, player=tr(PLAYERS[them]))
        return ngettext("{move} shades an active leaf of {player}'s.",
                        "{move} shades {n} active leaves of {player}'s.",
                        theirs - theirs_after).format(move=text, n=theirs - theirs_after,
                                                      player=tr(PLAYERS[them]))
    if mine_after > mine:
        return tr("{move} adds an active leaf: you will have {n}.").format(move=text, n=mine_after)
    if mine_after < mine:
        return None
    if m.kind == "branch" and holes_after > holes:
        more = holes_after - holes
        return ngettext("{move} opens a hole more for your tree.",
                        "{move} opens {n} holes more for your tree.", more).format(move=text, n=more)
    return None


def entry_ways(state) -> list[Way]:
    """Treeblox tapped (views/entry.py): a cube at its cell, a hole of the board or a dashed
    place of the 3D picture (both carry its data-site), then its kind by a button ("Dark
    leaf", "Dark branch"); `end` a button."""
    colour = COLOURS[state.to_move]
    return [Way(move) if move.cell is None else
            Way(move, (cell_name(move.cell),), piece_name(f"{colour}-{move.kind}", PLAYERS, ""))
            for move in state.legal_moves()]


class TreebloxView(GameView):
    """How Treeblox is shown (see GameView)."""

    TITLE = TITLE
    PLAYERS = PLAYERS
    HELP = HELP
    HINTS = HINTS
    ENTRIES = ENTRIES
    COLOUR_MEANINGS = COLOUR_MEANINGS
    why_not = staticmethod(why_not)
    frame = staticmethod(frame)
    svg = staticmethod(svg)
    terminal = staticmethod(terminal)
    svg_3d = staticmethod(svg_3d)
    hint_reason = staticmethod(hint_reason)
    site_words = staticmethod(site_words)
    move_words = staticmethod(move_words)
    say_site = staticmethod(say_site)
    say_move = staticmethod(say_move)
    entry_ways = staticmethod(entry_ways)
