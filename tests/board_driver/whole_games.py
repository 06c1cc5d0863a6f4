"""A whole game of each of the five games as a trace's actions (what hands do on the board),
found by playing random legal moves on a simulated board: the words tests run these through
`treeboard trace --language zh` and the sim."""

from __future__ import annotations

import random

import games
from board_driver.config import sim_config
from board_driver.referee.tracer import Tracer

#: Each game's board for these traces: (layout, game options).
BOARDS = {
    "tree-planting": ("tree-planting-4x4-matrix", None),
    "treeblox": ("treeblox-adc", {"cubes": 4}),
    "fangqi": ("fangqi-7x7-matrix", {"quiet_limit": 6}),
    "arbos": ("arbos-8x8-matrix", {"board": "8x8", "setup": "chosen"}),
    "game-for-the-trees": ("game-for-the-trees-matrix", {"limit": 12}),
}


def config(game: str, journal: str, **more):
    layout, options = BOARDS[game]
    return sim_config(layout=layout, journal=journal, game_options=options, **more)


def piece_actions(tracer: Tracer, move) -> list[str]:
    """A piece board: what hands do for `move` (lifts first, then places; a pass presses
    end_turn)."""
    state = tracer.referee.state
    layout = tracer.session.layout
    before = dict(state.occupancy())
    probe = state.copy()
    probe.play(move)
    after = dict(probe.occupancy())
    lifts = sorted(s for s in before if before[s] != after.get(s))
    places = sorted(s for s in after if after[s] != before.get(s))
    if not lifts and not places:
        return ["press end_turn"]
    out = [f"lift {s}" for s in lifts]
    for s in places:
        sensed = s in layout.channels_of_site
        # (a kind where the sensor tells kinds, an ADC's bands, or where no sensor sees it)
        adc = layout.adc
        tells = sensed and adc is not None and all(ch in adc.channels
                                                   for ch in layout.channels_of_site[s])
        out.append(f"place {s} {after[s]}" if not sensed or tells else f"place {s}")
    return out


def touch_actions(tracer: Tracer, move) -> list[str]:
    """Game for the Trees: the wand's taps for `move` (played on `tracer` to follow its offers)."""
    view = __import__("board_driver.views.game_for_the_trees", fromlist=["x"])
    src, out = view.square_name(move.src), []

    def tap(site):
        out.append(f"tap {site}")
        tracer.step("tap", [site])

    if move.action == "retreat":
        out.append(f"hold {src}")
        tracer.step("hold", [src])
        tap(src)
        return out
    tap(src)
    dst = view.square_name(move.dst)
    tap(dst)
    for _ in range(20):
        if not tracer.referee.touch.choice:
            break
        tap(dst if tracer.referee.touch.offered == move else src)
    return out


def whole_game(game: str, journal: str, seed: int = 1) -> list[list[str]]:
    """The actions of a whole game of `game`, to its end by the rules: one list a move."""
    rng = random.Random(seed)
    tracer = Tracer(config(game, journal))
    lines: list[list[str]] = []
    try:
        state = tracer.referee.state
        while not state.is_over() and len(lines) < 600:
            moves = sorted(state.legal_moves(), key=str)
            move = rng.choice(moves)
            if tracer.referee.touch is not None:
                lines.append(touch_actions(tracer, move))
            else:
                acts = piece_actions(tracer, move)
                for a in acts:
                    verb, *args = a.split()
                    tracer.step(verb, args)
                lines.append(acts)
            state = tracer.referee.state
        assert state.is_over(), f"{game}: no end in {len(lines)} actions"
    finally:
        tracer.close()
    return lines


def hand(tracer: Tracer, verb: str, site: str, kind: str | None = None) -> list[str]:
    """Put (`kind`: what the piece is, told where the sensor tells kinds) or lift a piece; what
    the board said."""
    layout = tracer.session.layout
    adc = layout.adc
    tells = adc is not None and all(ch in adc.channels for ch in layout.channels_of_site[site])
    args = [site, kind] if verb == "place" and tells and kind else [site]
    return tracer.step(verb, args)["said"]


def set_up_by_hand(tracer: Tracer) -> list[str]:
    """Follow a set-up's lights (Moment.setup) until the board matches; what was said."""
    said: list[str] = []
    for _ in range(500):
        face = tracer.moment().setup
        if face is None:
            return said
        c = face.next[0]
        said += hand(tracer, "lift" if c.want is None else "place", c.site, c.want)
    raise AssertionError("the set-up never ended")


def play_by_hand(tracer: Tracer, move) -> None:
    """`move` made as hands make it (pieces, or a touch board's taps)."""
    if tracer.referee.touch is not None:
        touch_actions(tracer, move)
        return
    for action in piece_actions(tracer, move):
        verb, *args = action.split()
        tracer.step(verb, args)


def put_right(tracer: Tracer) -> list[str]:
    """Follow the correction lights (a takeback's pieces to lift) until none; what was said."""
    said: list[str] = []
    for _ in range(200):
        fixes = tracer.moment().corrections
        if not fixes:
            return said
        c = fixes[0]
        said += hand(tracer, "lift" if c.want is None else "place", c.site, c.want)
    raise AssertionError("the corrections never ended")
