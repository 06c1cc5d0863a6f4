"""Turn the game into light: a pure function from (state, what to show, time) to site colours.

Priority, lowest first: the game (pieces, scores, whose turn, moves to consider), then the
winner's animation, then corrections, which always win: a board that disagrees with the game
must say so before it says anything else.

Each game has a renderer here; the daemon picks it by the game's name. Renderers return
`{site: (r, g, b)}`; the LED layer maps sites to pixels and applies gamma, brightness and the
current limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

from board_driver.reconcile import Correction
from games.base import State

Colour = tuple[int, int, int]
OFF: Colour = (0, 0, 0)
FRAME_S = 0.05  # animation step: 20 frames a second is smooth on WS2812s and cheap on a Pi Zero


@dataclass
class View:
    """What the daemon wants shown besides the game itself."""

    colours: dict[str, Colour]
    moves: str = "safe"                 # off | legal | safe
    blink_hz: float = 2.0
    corrections: list[Correction] = field(default_factory=list)
    over_since: float | None = None     # when the game ended (for the winner's animation)
    winner_seconds: float = 6.0


def scale(colour: Colour, factor: float) -> Colour:
    return tuple(max(0, min(255, round(v * factor))) for v in colour)  # type: ignore[return-value]


def kind_colour(kind: str, colours: dict[str, Colour]) -> Colour:
    """The colour that stands for a piece kind: its owner's, or the rod's."""
    if kind.endswith(":0") or kind.startswith("dark-"):
        return colours["player0"]
    if kind.endswith(":1") or kind.startswith("light-"):
        return colours["player1"]
    return scale(colours["rod"], 4)  # a missing rod blinks bright white


def blink_on(now: float, hz: float) -> bool:
    return int(now * hz * 2) % 2 == 0


def next_blink(now: float, hz: float) -> float:
    half = 1.0 / (hz * 2)
    return (math.floor(now / half) + 1) * half


# --- the games -------------------------------------------------------------------------------

def tree_planting(state, view: View, now: float) -> tuple[dict[str, Colour], float | None]:
    c = view.colours
    frame: dict[str, Colour] = {}
    mover = c[f"player{state.to_move}"]
    last = state.moves[-1] if state.moves else None
    for g in state.board.grooves:
        if state.drawn(g):
            frame[g.name] = c["rod"]
        elif view.moves == "legal":
            frame[g.name] = scale(mover, 0.35)
        elif view.moves == "safe":
            frame[g.name] = c["unsafe"] if state.gives_away(g) else c["safe"]
        else:
            frame[g.name] = OFF
    if last is not None:
        frame[last.name] = c[f"player{state.last_mover()}"]  # the last rod, in its player's colour
    for i, hole in enumerate(state.board.holes):
        owner = state.owner(i)
        # A tree shows its owner (the score, on the board itself); an empty hole glows faintly
        # in the mover's colour, so whose turn it is shows everywhere on the board.
        frame[hole] = c[f"player{owner}"] if owner is not None else scale(mover, 0.12)
    return frame, None


def treeblox(state, view: View, now: float) -> tuple[dict[str, Colour], float | None]:
    c = view.colours
    frame: dict[str, Colour] = {}
    over = state.is_over()
    mover = state.to_move
    free_board = set()
    if not over:
        free_board = {h for h in state.available_holes(mover) if h[2] == 0}
    active = {cell[:2] for p in (0, 1) for cell in state.active_leaves(p)}
    tops: dict[tuple[int, int], tuple[str, int]] = {}
    for site, kind in state.occupancy().items():
        cell = _treeblox_cell(site)
        x, y, z = cell
        if (x, y) not in tops or z > tops[(x, y)][1]:
            tops[(x, y)] = (kind, z)
    # The growth rate: one or two short pulses of the mover's colour every two seconds.
    pulses = state.growth_rate(mover) if not over else 0
    t = now % 2.0
    pulse_on = any(k * 0.4 <= t < k * 0.4 + 0.2 for k in range(pulses))
    waiting = not over and not free_board and bool(state.available_holes(mover))
    for hole in state.sites():
        x, y, _ = _treeblox_cell(hole)
        top = tops.get((x, y))
        if top is not None:
            colour = kind_colour(top[0], c)
            frame[hole] = colour if top[0].endswith("leaf") and (x, y) in active else scale(colour, 0.2)
        elif (x, y, 0) in free_board:
            if pulse_on:
                frame[hole] = c[f"player{mover}"]
            elif view.moves != "off":
                frame[hole] = scale(c[f"player{mover}"], 0.25)
            else:
                frame[hole] = OFF
        else:
            frame[hole] = OFF
    if waiting:
        # Only cells above or beside the board are free: the board cannot sense them, so it
        # waits for the placement to be entered. The mover's columns breathe in "waiting".
        level = 0.3 + 0.7 * (0.5 + 0.5 * math.sin(now * math.pi))
        for hole in state.sites():
            top = tops.get(_treeblox_cell(hole)[:2])
            if top is not None and top[0].startswith(("dark", "light")[mover]):
                frame[hole] = scale(c["waiting"], level)
    animated = not over and (pulses > 0 or waiting)
    return frame, (now + FRAME_S if animated else None)


def _treeblox_cell(site: str):
    from games.treeblox import parse_cell
    return parse_cell(site)


RENDERERS: dict[str, Callable[[State, View, float], tuple[dict[str, Colour], float | None]]] = {
    "tree-planting": tree_planting,
    "treeblox": treeblox,
}


def generic(state: State, view: View, now: float) -> tuple[dict[str, Colour], float | None]:
    """Any game without its own renderer: each piece in its owner's colour."""
    return {s: kind_colour(k, view.colours) for s, k in state.occupancy().items()}, None


# --- the overlays ----------------------------------------------------------------------------

def render(state: State, view: View, now: float) -> tuple[dict[str, Colour], float | None]:
    """The whole frame, and when it next changes by itself (None: not until something happens)."""
    frame, wake = RENDERERS.get(state.game.name, generic)(state, view, now)

    if state.is_over() and view.over_since is not None:
        elapsed = now - view.over_since
        if elapsed < view.winner_seconds:
            winner = state.winner()
            # The winner's pieces breathe; a draw alternates both players' colours.
            level = 0.5 + 0.5 * math.cos(elapsed * 2 * math.pi)
            lit = set(state.sites())  # pieces above a Treeblox board have no LED of their own
            for site, kind in state.occupancy().items():
                if site not in lit:
                    continue
                owner = 0 if kind.endswith(":0") or kind.startswith("dark-") else \
                    1 if kind.endswith(":1") or kind.startswith("light-") else None
                if owner is None:
                    continue
                if winner is None:
                    frame[site] = view.colours[f"player{int(elapsed * 2 + owner) % 2}"]
                elif owner == winner:
                    frame[site] = scale(view.colours[f"player{winner}"], 0.2 + 0.8 * level)
            wake = min(wake or math.inf, now + FRAME_S)

    if view.corrections:
        on = blink_on(now, view.blink_hz)
        for corr in view.corrections:
            if corr.want is None:
                frame[corr.site] = view.colours["wrong"]  # steady red: take this piece off
            else:
                need = kind_colour(corr.want, view.colours)
                if corr.have is None:
                    frame[corr.site] = need if on else OFF  # blink: put this piece here
                else:
                    frame[corr.site] = need if on else view.colours["wrong"]  # wrong kind
        wake = min(wake or math.inf, next_blink(now, view.blink_hz))
    return frame, wake
