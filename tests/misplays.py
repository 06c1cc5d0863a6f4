"""The misplays a debounce must not take for moves, as timed sensor readings (docs/hardware.md,
"Debounce"): each is a list of (ms, cell, on) steps, the cells named "piece", "neighbour".
Every reading that does not last is under 6 ms; a piece put down stays."""

ROD_ROLLING = [(0, "piece", 1), (2, "piece", 0), (5, "piece", 1), (12, "piece", 0),
               (15, "piece", 1), (30, "piece", 0), (34, "piece", 1), (50, "piece", 0),
               (55, "piece", 1)]
CUBE_WOBBLING = [(0, "piece", 1), (3, "piece", 0), (5, "piece", 1), (8, "piece", 0),
                 (11, "piece", 1), (14, "piece", 0), (15, "piece", 1)]
OVER_A_NEIGHBOUR = [(0, "neighbour", 1), (5, "neighbour", 0), (20, "piece", 1)]
#: Not a misplay: a piece that stays 10 ms, then goes (each stage must report both).
SLOW_PIECE = [(0, "neighbour", 1), (10, "neighbour", 0)]

MISPLAYS = {"a rod rolling in its groove": ROD_ROLLING, "a cube wobbling on its sensor": CUBE_WOBBLING,
            "a magnet carried over a neighbour": OVER_A_NEIGHBOUR}


def patterns(steps, before: str = "0") -> dict[str, str]:
    """A misplay as one pattern per cell, one character a millisecond ("1" a magnet), each
    starting from `before` and ending on its last step's value."""
    end = max(ms for ms, _, _ in steps) + 1
    out = {}
    for cell in {cell for _, cell, _ in steps}:
        state, pattern = before, []
        for t in range(end):
            for ms, c, on in steps:
                if ms == t and c == cell:
                    state = "1" if on else "0"
            pattern.append(state)
        out[cell] = "".join(pattern)
    return out
