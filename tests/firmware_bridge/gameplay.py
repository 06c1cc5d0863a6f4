"""A Tree Planting game as the bridge sees it: 29 grooves and 11 holes, channel by channel.

Channels 0-28 are the grooves (rods), 29-39 the holes (tree pegs); LED i sits beside channel i.
`play` moves the pieces on the simulated board, shows an LED frame after every move, and checks
at every step that the host's snapshot is the board and the firmware's strip is the frame."""

from __future__ import annotations

import random

from tests.waits import wait_for
from hardware.base import PRESENT

GROOVES = list(range(29))
HOLES = list(range(29, 40))
ROD = (0, 90, 0)
TREE = (90, 40, 0)
LAST = (200, 200, 200)


def tree_planting_moves(seed=1):
    """Rods in a shuffled order, a tree after every few rods, and one rod put down in the
    wrong groove and lifted again (the board shows what to correct)."""
    rng = random.Random(seed)
    grooves, holes = GROOVES[:], HOLES[:]
    rng.shuffle(grooves)
    rng.shuffle(holes)
    moves = []
    for i, groove in enumerate(grooves):
        moves.append(("place", groove))
        if i == 10:
            wrong = grooves[-1]
            moves += [("place", wrong), ("lift", wrong)]
        if i % 3 == 2 and holes:
            moves.append(("place", holes.pop()))
    moves += [("place", h) for h in holes]
    return moves


def frame_for(board, last):
    frame = []
    for channel, on in enumerate(board):
        colour = (0, 0, 0) if not on else (TREE if channel in HOLES else ROD)
        frame.append(LAST if channel == last else colour)
    return frame


def board_values(fw):
    return {c: (PRESENT if on else None) for c, on in enumerate(fw.sensors())}


def play(fw, source, sink, moves, timeout=2.0, between=None):
    for i, (action, channel) in enumerate(moves):
        if between is not None:
            between(i)
        getattr(fw, action)(channel)
        board = board_values(fw)
        wait_for(lambda: source.snapshot() == board, timeout, f"the host to see move {i} {action} {channel}")
        frame = frame_for(fw.sensors(), channel)
        sink.show(frame)
        wait_for(lambda: fw.leds() == frame, timeout, f"the strip to show frame {i}")
