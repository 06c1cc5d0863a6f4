"""Compare what the sensors see with what the game says the board holds, and decide.

- exactly one legal move explains the difference: play it;
- the difference is the last move lifted off again: undo it (a takeback);
- anything else: change nothing, and name every site that must change.

"Explains" is defined once for every game, on `occupancy()` alone: a move explains the
difference when every differing site is one the move changes, and the sensors read there what
the move puts there. Whatever the move changes that is not on the board yet (Tree Planting's
tree peg after the rod that closed its square) stays as a correction to light.

A move that swaps the piece on a site for another (an Arbos seed replaced by a spore) is, to a
presence sensor, the old piece coming off and then the new one going on; its first half, the
site read empty, explains it, and the new piece is then the correction still to make. (Such a
move cannot be taken back by lifting: the site read empty is its own first half, and the old
piece put back looks like the new one.)

Pure: no I/O, no clock. The daemon calls `reconcile` after every settled sensor change.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

from hardware.base import PRESENT

from games.base import State


@dataclass(frozen=True)
class Correction:
    site: str
    want: str | None   # the piece kind that must be there; None: the site must be empty
    have: str | None   # what the sensor reads there

    @property
    def missing(self) -> bool:
        return self.want is not None


@dataclass
class Verdict:
    action: str                  # "in-sync" | "play" | "undo" | "correct"
    move: Any = None
    corrections: list[Correction] = field(default_factory=list)


def sensed_as(want: str | None, have: str | None) -> bool:
    """Does a sensor reading `have` agree with the game's `want` for one site?

    A binary sensor (PRESENT) cannot tell kinds apart, so it agrees with any piece.
    """
    if want is None:
        return have is None
    return have == want or have == PRESENT


def differences(expected: Mapping[str, str], physical: Mapping[str, str | None],
                sites: Iterable[str]) -> dict[str, Correction]:
    """Every sensed site whose reading disagrees with the game."""
    out = {}
    for site in sites:
        want, have = expected.get(site), physical.get(site)
        if not sensed_as(want, have):
            out[site] = Correction(site, want, have)
    return out


def changed_sites(before: Mapping[str, str], after: Mapping[str, str]) -> set[str]:
    return {s for s in before.keys() | after.keys() if before.get(s) != after.get(s)}


def _swap_begun(old: str | None, new: str | None, have: str | None) -> bool:
    """A site whose piece a move swaps for another, read empty: the old piece is off."""
    return have is None and old is not None and new is not None and old != new


def _explains(diff: dict[str, Correction], before: Mapping[str, str],
              after: Mapping[str, str], physical: Mapping[str, str | None]) -> bool:
    changed = changed_sites(before, after)
    return bool(changed) and diff.keys() <= changed and all(
        sensed_as(after.get(s), physical.get(s))
        or _swap_begun(before.get(s), after.get(s), physical.get(s)) for s in diff)


def candidate_moves(state: State, sites: Iterable[str]) -> list:
    """Moves worth testing: the game may narrow them to the given sites (`moves_at`)."""
    moves_at = getattr(state, "moves_at", None)
    if moves_at is None:
        return state.legal_moves()
    seen, out = set(), []
    for site in sites:
        for m in moves_at(site):
            if str(m) not in seen:
                seen.add(str(m))
                out.append(m)
    return out


def reconcile(state: State, physical: Mapping[str, str | None], sites: Iterable[str], *,
              takeback: bool = True) -> Verdict:
    """Decide what the settled board means. Leaves `state` exactly as it found it."""
    sites = list(sites)
    expected = state.occupancy()
    diff = differences(expected, physical, sites)
    if not diff:
        return Verdict("in-sync")

    explaining = []
    if not state.is_over():
        for move in candidate_moves(state, diff):
            state.play(move)
            after = state.occupancy()
            state.undo()
            if _explains(diff, expected, after, physical):
                explaining.append(move)
                if len(explaining) > 1:
                    break
    if len(explaining) == 1:
        return Verdict("play", explaining[0])

    if takeback and state.moves:
        probe = state.copy()
        last = probe.undo()
        before = probe.occupancy()
        # Stricter than a move: everything the last move changed must be off the board again
        # (a rod lifted while its tree peg still stands is not yet a takeback; a peg still to
        # plant is not one at all).
        sensed = set(sites)
        if _explains(diff, expected, before, physical) and all(
                sensed_as(before.get(s), physical.get(s))
                for s in changed_sites(expected, before) & sensed):
            return Verdict("undo", last)

    return Verdict("correct", corrections=sorted(diff.values(), key=lambda c: c.site))
