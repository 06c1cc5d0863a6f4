"""Any game without a view module of its own: each piece in its owner's colour, the pieces
listed by site in the picture and in the terminal."""

from __future__ import annotations

from board_driver.views import svgkit
from board_driver.views.base import Colour, Moment, correction_words, kind_colour, piece_name
from board_driver.views.game_view import GameView
from board_driver.views.paint import Paint
from board_driver.views.svgkit import el, hexc, title
from board_driver.views.words import tr


def frame(state, moment: Moment, now: float) -> tuple[dict[str, Colour], float | None]:
    return {s: kind_colour(state.game, k, moment.settings.colours) for s, k in state.occupancy().items()}, None


def svg(state, moment: Moment) -> str:
    occupancy = state.occupancy()
    fixes = {corr.site: corr for corr in moment.corrections}
    sites = sorted(set(state.sites()) | set(occupancy) | set(fixes))
    cols = 8
    body = []
    for i, site in enumerate(sites):
        x, y = 10 + (i % cols) * 60, 10 + (i // cols) * 60
        kind = occupancy.get(site)
        fill = hexc(kind_colour(state.game, kind, moment.settings.colours)) if kind else "#2b2019"
        what = piece_name(kind, article="") if kind else tr("empty")
        parts = [title(tr("{site}: {kind}").format(site=site, kind=what)),
                 el("rect", x=x, y=y, width=54, height=54, rx=6, fill="#6b5138"),
                 el("circle", cx=x + 27, cy=y + 24, r=14, fill=fill),
                 el("text", site, x=x + 27, y=y + 50, class_="label small")]
        fix = fixes.get(site)
        extra = {}
        if fix is not None:
            extra["data_fix"] = correction_words(fix)
        body.append(el("g", "".join(parts), data_site=site, data_kind=kind,
                       class_="fix" if fix else None, **extra))
    rows = max(1, -(-len(sites) // cols))
    return svgkit.document(cols * 60 + 14, rows * 60 + 14, body,
                           label=tr("{game} board").format(game=state.game.short_title),
                           class_="board generic")


def terminal(state, moment: Moment, paint: Paint) -> str:
    lines = []
    for site, kind in sorted(state.occupancy().items()):
        owner = state.game.owner_of(kind)
        colour = moment.settings.colours[f"player{owner}"] if owner is not None else None
        lines.append(f"  {site}: {paint(colour, kind)}")
    return "\n".join(lines) or "  " + tr("(an empty board)")


class GenericView(GameView):
    """The view of a game without one of its own."""

    frame = staticmethod(frame)
    svg = staticmethod(svg)
    terminal = staticmethod(terminal)
