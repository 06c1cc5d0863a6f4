"""Compare what the sensors see with what the game says the board holds, and decide.

- exactly one legal move explains the difference: play it;
- the difference is the last move lifted off again: undo it (a takeback);
- the difference is the start of one or more legal moves (a piece lifted that may go to
  several places, or a move made whose captures are still to choose): a move in progress;
  change nothing and name the sites that would complete it, next step first;
- anything else: change nothing, and name every site that must change; but when all of the
  difference save a few sites is one move in progress, name only those few and show the
  move's next step too (a counter put down on a wrong point after it was lifted: that point is
  wrong, the lifted counter's targets still light).

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

from board_driver.moment import Correction
from games.base import State
from hardware.base import PRESENT


@dataclass
class Verdict:
    action: str                  # "in-sync" | "play" | "undo" | "in-progress" | "correct"
    move: Any = None
    corrections: list[Correction] = field(default_factory=list)
    #: For a move in progress: the sites that would take it a step further (where a piece may
    #: be put down; once there is none, which pieces may be taken off), as Corrections.
    completions: list[Correction] = field(default_factory=list)


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
    """Moves worth testing: the game may narrow them to the given sites (`State.moves_at`)."""
    seen, out = set(), []
    for site in sites:
        for m in state.moves_at(site):
            if str(m) not in seen:
                seen.add(str(m))
                out.append(m)
    return out


def reconcile(state: State, physical: Mapping[str, str | None], sites: Iterable[str], *,
              takeback: bool = True, depth: int = 1, _within: bool = True) -> Verdict:
    """Decide what the settled board means. Leaves `state` exactly as it found it.

    A takeback by lifting takes back the last `depth` moves together (against the computer,
    the player's move and the computer's reply): the player's own move must be off the board
    again; the reply may have been made on the board or not."""
    sites = list(sites)
    sensed = set(sites)
    expected = state.occupancy()
    diff = differences(expected, physical, sites)
    if not diff:
        return Verdict("in-sync")

    explaining = []   # (move, the sensed sites it changes that the board does not show yet)
    parts = set()     # the parts of the difference that other moves explain
    if not state.is_over():
        for move in candidate_moves(state, diff):
            state.play(move)
            after = state.occupancy()
            state.undo()
            changed = changed_sites(expected, after)
            if _explains(diff, expected, after, physical):
                # (a swap's new piece is still to come, but its lift is all a presence sensor
                # will ever tell of the move: a swap begun is a move made)
                rest = [Correction(s, after.get(s), physical.get(s))
                        for s in changed & sensed if not sensed_as(after.get(s), physical.get(s))
                        and not _swap_begun(expected.get(s), after.get(s), physical.get(s))]
                explaining.append((move, rest))
            elif _within:
                part = frozenset(s for s in diff if s in changed
                                 and sensed_as(after.get(s), physical.get(s)))
                if part:
                    parts.add(part)
    complete = [move for move, rest in explaining if not rest]
    if len(complete) == 1:
        return Verdict("play", complete[0])

    if explaining and not complete and state.moves:
        # Read both as a takeback under way (every change so far undoes the last move: a
        # Fangqi capture taken back by putting the taken counter back first) and as a new move
        # not finished (the opponent's counter slid there, its source still to lift): the
        # takeback wins. Its next steps light; with takebacks off, it is to be corrected.
        probe = state.copy()
        probe.undo()
        before = probe.occupancy()
        undone = changed_sites(expected, before)
        if diff.keys() <= undone and all(sensed_as(before.get(s), physical.get(s))
                                         for s in diff):
            rest = [Correction(s, before.get(s), physical.get(s)) for s in sorted(undone & sensed)
                    if not sensed_as(before.get(s), physical.get(s))]
            if takeback and depth == 1 and rest:
                return Verdict("in-progress", completions=rest)
            if not takeback:
                return Verdict("correct", corrections=sorted(diff.values(), key=lambda c: c.site))

    if len(explaining) == 1 and not complete and _puts_down(diff):
        # One move, made as far as its own choices go; what it leaves (a tree peg to plant, a
        # counter it took still to lift) stays to be corrected.
        return Verdict("play", explaining[0][0])

    if takeback and len(state.moves) >= depth:
        probe = state.copy()
        last = probe.undo()
        for _ in range(depth - 1):
            mine = probe.occupancy()     # after the player's move (before the replies)
            last = probe.undo()
        before = probe.occupancy()
        own = changed_sites(mine, before) if depth > 1 else changed_sites(expected, before)
        # Stricter than a move: everything the last move changed must be off the board again
        # (a rod lifted while its tree peg still stands is not yet a takeback; a peg still to
        # plant is not one at all).
        if _explains(diff, expected, before, physical) and all(
                sensed_as(before.get(s), physical.get(s)) for s in own & sensed):
            return Verdict("undo", last)

    if explaining and not complete:
        return Verdict("in-progress", completions=_next_steps(explaining))
    # The largest part of the difference that is a move in progress on its own, if there is
    # one such part: only the rest is wrong, and the move's next step still shows.
    for size in sorted({len(p) for p in parts}, reverse=True):
        found = []
        for part in (p for p in parts if len(p) == size):
            within = dict(physical)
            within.update({s: expected.get(s) for s in diff if s not in part})
            inner = reconcile(state, within, sites, takeback=False, _within=False)
            if inner.action == "in-progress":
                found.append((part, inner.completions))
        if len(found) == 1:
            part, completions = found[0]
            return Verdict("correct", completions=completions, corrections=sorted(
                (c for s, c in diff.items() if s not in part), key=lambda c: c.site))
        if found:
            break
    return Verdict("correct", corrections=sorted(diff.values(), key=lambda c: c.site))


def _puts_down(diff: dict[str, Correction]) -> bool:
    """Has a piece been put down? Until then a difference of lifted pieces only is a move
    begun, never a move made (a lifted counter with a single target has not moved yet)."""
    return any(c.have is not None for c in diff.values())


def _next_steps(explaining: list[tuple[Any, list[Correction]]]) -> list[Correction]:
    """The sites that take a move in progress one step further: where a piece may be put down,
    or, when nothing is left to put down, the pieces that may be taken off."""
    rests = {c.site: c for _, rest in explaining for c in rest}
    puts = [c for c in rests.values() if c.want is not None]
    return sorted(puts or rests.values(), key=lambda c: c.site)
