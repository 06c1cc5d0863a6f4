"""Issue 28's misplays and a noisy line together, through the referee: a rod rolling in its
groove, a cube wobbling on its sensor, a magnet carried over a neighbour, each while the USB line
corrupts, drops, duplicates and prefixes garbage to frames both ways (firmware_bridge/faults.py's
LineFaults, seeded), on the classic Tree Planting bridge board: the firmware's own debounce (4
equal scans 2 ms apart, through the lockstep bridge on the trace's simulated clock), the host's
own link, the layout's 1 ms window, the referee and its journal. The journal holds exactly the
move of the piece that stays: no bounce is a move, no gap a takeback and replay, a neighbour a
magnet passed over is neither a move nor a correction, and a lost frame is only late."""

from __future__ import annotations

import pytest

from board_driver.config import sim_config
from board_driver.referee.tracer import Tracer
from firmware_bridge.faults import LineFaults
from misplays import MISPLAYS

SITES = {"piece": "h0.0", "neighbour": "h0.1"}
#: Each chunk (one frame) of either direction: 10 % corrupted, dropped, doubled, after garbage.
NOISE = dict(corrupt=0.1, drop=0.1, duplicate=0.1, garbage=0.1)
SEEDS = range(12)


def misplay_on_a_noisy_line(tmp_path, steps, seed):
    t = Tracer(sim_config(layout="tree-planting-classic-bridge",
                          journal=str(tmp_path / f"j{seed}.sqlite")))
    try:
        heard = []
        t.referee.listeners.append(lambda what, move, origin: heard.append((what, str(move))))
        bridge = t.board.firmware  # the lockstep bridge
        assert (bridge.firmware.debounce_scans, bridge.firmware.scan_ms) == (4, 2)
        # the noise starts with the hand (the link came up on a clean line)
        to_host = bridge.faults_to_host = LineFaults(seed, **NOISE)
        to_fw = bridge.faults_to_firmware = LineFaults(seed + 1000, **NOISE)

        start = bridge.firmware.next_scan / 1000 + 0.001 + seed * 0.00017  # the hand's phase
        for ms, cell, on in steps:
            t.run_until(start + ms / 1000)
            (t.board.place if on else t.board.lift)(SITES[cell])
        # long enough for a lost CHANGE's repeats, or a SNAPSHOT asked again, to come through
        t.run_until(t.clock.now + 1.0)
        t.step("wait", ["300"])
        return (heard, list(t.referee.corrections), t.session.journal.current().moves,
                to_host.counts, to_fw.counts, dict(bridge.link.stats))
    finally:
        t.close()


@pytest.mark.parametrize("name", sorted(MISPLAYS))
def test_a_misplay_on_a_noisy_line_is_the_one_move_of_the_piece_that_stays(tmp_path, name):
    faults = {"to the host": {}, "to the firmware": {}}
    link = {}
    for seed in SEEDS:
        heard, corrections, journal, to_host, to_fw, stats = misplay_on_a_noisy_line(
            tmp_path, MISPLAYS[name], seed)
        assert heard == [("move", "h0.0")], (name, seed, heard, to_host, stats)
        assert corrections == [] and journal == ["h0.0"], (name, seed, corrections, journal)
        for side, counts in (("to the host", to_host), ("to the firmware", to_fw)):
            for kind, n in counts.items():
                faults[side][kind] = faults[side].get(kind, 0) + n
        for kind, n in stats.items():
            link[kind] = link.get(kind, 0) + n
    # the noise did hit the misplays' frames, each kind of it, and the link noticed
    assert all(faults["to the host"][k] > 0 for k in ("corrupted", "dropped", "duplicated", "garbage")), faults
    assert link["bad_frames"] > 0 and link["gaps"] > 0 and link["duplicates"] > 0, link


SEEDS_20X20 = [f"seed {r}{c}" for r in "AEIMQ" for c in (1, 5, 9, 13)]  # test_trace_bridge's


def test_a_fast_swap_on_a_noisy_line_is_the_replacement_or_nothing(tmp_path):
    """The other side of a gap said in two frames: an Arbos seed swapped for a spore faster
    than the firmware's debounce, on the same noisy line, is the replacement when both frames
    arrive and nothing when one is lost (the seed stays the game's; the player swaps again),
    never the seed taken off, a correction, or a move of anything else."""
    seen = 0
    for seed in SEEDS:
        t = Tracer(sim_config(layout="grid-20x20-bridge", journal=str(tmp_path / f"a{seed}.sqlite"),
                              turn_seconds=0, game_options={"board": "20x20", "setup": "chosen"}))
        try:
            for move in SEEDS_20X20:
                t.step("place", [move[5:]])
            bridge = t.board.firmware
            bridge.faults_to_host = LineFaults(seed, **NOISE)
            bridge.faults_to_firmware = LineFaults(seed + 1000, **NOISE)
            heard = []
            t.referee.listeners.append(lambda what, move, origin: heard.append((what, str(move))))
            t.board.lift("E5")   # white's seed out for one scan, and their spore in
            t.board.run_until(bridge.firmware.next_scan / 1000 + seed * 0.0001)
            t.board.place("E5")
            t.step("wait", ["1000"])
            moves = [str(m) for m in t.referee.state.moves]
            assert heard in ([("move", "E5=")], []), (seed, heard)
            assert moves == [m for m in SEEDS_20X20] + (["E5="] if heard else []), (seed, moves)
            assert t.referee.corrections == [], (seed, t.referee.corrections)
            channel = t.session.layout.channels_of_site["E5"][0]
            assert t.session.hardware.source.snapshot()[channel] is not None
            seen += bool(heard)
        finally:
            t.close()
    # both frames get through a line that damages a frame in four about half the time (6 of
    # these 12 seeds): the check is that the ones seen are replacements, and that some are
    assert seen >= 3, seen
