"""What `treeboard selftest`'s walk found: from what each sensor did while the board lay empty and
while a maker put a piece on every site in turn, which sensors never change (a dead reed, a
diode in backwards, a broken joint; a whole matrix line when every switch on it is silent),
which change by themselves (a bouncing reed, a loose wire), and which answer for the wrong site
(two crossed wires, or a switch soldered to the wrong crossing).

Pure: the walk (board_driver/cli/maker.py) records, this judges and words it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Hashable

from hardware.layout import Layout

#: A sensor changes by itself when it changed while the board lay empty, or while pieces stood
#: elsewhere in this many sites' turns, or this many times in all.
CHATTER_TURNS = 2
CHATTER_CHANGES = 3


@dataclass
class SiteCheck:
    """One site's turn of the walk: the channel that went on when the maker put the piece
    there (None: none within the time), and the settled changes of every other channel
    meanwhile."""

    site: str
    answered: Hashable | None = None
    others: dict[Hashable, int] = field(default_factory=dict)


@dataclass
class Findings:
    seen: list[str]                                    # answered on their own sensor
    dead: list[tuple[str, Hashable]]                   # (site, channel) never changed
    dead_lines: list[tuple[str, int, list[str]]]       # ("row" | "column", index, its sites)
    chatter: dict[Hashable, int]                       # channel -> changes by itself
    wrong: list[tuple[str, Hashable, str | None]]      # (site, the channel, whose it is)
    crossed: list[tuple[str, str]]                     # pairs answering for each other
    unseen: list[str]                                  # not seen when asked, for no reason above

    @property
    def ok(self) -> bool:
        return not (self.dead or self.dead_lines or self.chatter or self.wrong or self.unseen)


def diagnose(layout: Layout, checks: list[SiteCheck], quiet: dict[Hashable, int],
             changed: set[Hashable]) -> Findings:
    """Judge a walk: `checks` in the order walked, `quiet` the changes seen while the board lay
    empty, `changed` every channel that changed at any time of the test."""
    chatter = dict(quiet)
    turns: dict[Hashable, int] = {}
    total: dict[Hashable, int] = {}
    for check in checks:
        own = set(layout.channels_of_site.get(check.site, ()))
        for channel, count in check.others.items():
            if channel in own:
                continue
            turns[channel] = turns.get(channel, 0) + 1
            total[channel] = total.get(channel, 0) + count
    for channel in turns:
        if turns[channel] >= CHATTER_TURNS or total[channel] >= CHATTER_CHANGES:
            chatter[channel] = chatter.get(channel, 0) + total[channel]
    seen, wrong, unseen, dead = [], [], [], []
    for check in checks:
        own = layout.channels_of_site.get(check.site, ())
        if check.answered in own:
            seen.append(check.site)
        elif check.answered is not None and check.answered not in chatter:
            wrong.append((check.site, check.answered, layout.site_of_channel.get(check.answered)))
        elif not any(ch in changed for ch in own):
            dead.append((check.site, own[0]))
        else:
            unseen.append(check.site)
    answered_by = {(site, owner) for site, _, owner in wrong}
    crossed = sorted({tuple(sorted((a, b))) for a, b in answered_by if b is not None and (b, a) in answered_by})
    dead_lines = _dead_lines(layout, dead, checks)
    on_lines = {site for _, _, sites in dead_lines for site in sites}
    dead = [(site, ch) for site, ch in dead if site not in on_lines]
    return Findings(seen, dead, dead_lines, chatter, wrong, crossed, unseen)


def _dead_lines(layout: Layout, dead: list[tuple[str, Hashable]], checks: list[SiteCheck]):
    """Matrix rows and columns on which two or more switches were walked and none ever changed."""
    matrix = layout.matrix
    if matrix is None:
        return []
    walked = {c.site for c in checks}
    silent = {ch for _, ch in dead}
    out = []
    for kind, count, axis in (("row", len(matrix.rows), 0), ("column", len(matrix.cols), 1)):
        for index in range(count):
            on_line = [(ch, site) for ch, site in matrix.channels.items()
                       if ch[axis] == index and site in walked]
            if len(on_line) >= 2 and all(ch in silent for ch, _ in on_line):
                out.append((kind, index, [site for _, site in on_line]))
    return out


def report(layout: Layout, findings: Findings, name: Callable[[Hashable], str]) -> list[str]:
    """The findings in words, for the maker at the terminal (English, as the command line
    speaks): a line a finding, each with what to look at. `name` says a channel
    ("matrix r1c2", "GPIO4")."""
    lines = []
    walked = len(findings.seen) + len(findings.dead) + len(findings.wrong) + len(findings.unseen) \
        + sum(len(sites) for _, _, sites in findings.dead_lines)
    lines.append(f"walk: {len(findings.seen)} of {walked} sites seen on their own sensor")
    for kind, index, sites in findings.dead_lines:
        lines.append(f"  matrix {kind} {index} ({_line_gpio(layout, kind, index)}): none of its "
                     f"{len(sites)} sensors ever changed ({' '.join(sites)}): check that {kind}'s "
                     "wire from the Pi to the first switch")
    for site, channel in findings.dead:
        lines.append(f"  never changed: {site} ({name(channel)}): {_dead_why(layout, channel)}")
    for channel, count in sorted(findings.chatter.items(), key=lambda kv: str(kv[0])):
        owner = layout.site_of_channel.get(channel, "(no site)")
        lines.append(f"  changed by itself: {name(channel)} -> {owner} ({count} "
                     f"change{'s' if count != 1 else ''} with no piece on it): a bouncing reed, a "
                     "loose wire or a magnet left nearby")
    crossed = {site for pair in findings.crossed for site in pair}
    for a, b in findings.crossed:
        lines.append(f"  crossed: a piece on {a} answers on {b}'s sensor and one on {b} on {a}'s: "
                     f"their wires are swapped; swap them back, or write the board as wired with "
                     "`treeboard map`")
    for site, channel, owner in findings.wrong:
        if site in crossed:
            continue
        whose = f"{owner}'s sensor" if owner else "a crossing the layout gives no site"
        lines.append(f"  wrong site: a piece on {site} answers on {name(channel)} ({whose}): a "
                     "wire or a switch at the wrong place; fix it, or run `treeboard map`")
    for site in findings.unseen:
        lines.append(f"  not seen when asked: {site}: its sensor changed at another time; try it "
                     "again with the piece held still")
    if findings.ok:
        lines.append("  every sensor answered for its own site, and none changed by itself")
    return lines


def _line_gpio(layout: Layout, kind: str, index: int) -> str:
    lines = layout.matrix.rows if kind == "row" else layout.matrix.cols
    return f"GPIO{lines[index]}"


def _dead_why(layout: Layout, channel: Hashable) -> str:
    if layout.matrix is not None and channel in layout.matrix.channels:
        return ("a dead reed, its diode in backwards (the band must face the row), or a broken "
                "joint at that crossing")
    if layout.adc is not None and channel in layout.adc.channels:
        return "a hall sensor without 3.3 V or ground, or its output not on that channel"
    return "a dead reed, or a broken wire between the GPIO, the reed and GND"
