"""The LEDs ahead of the SD card: a move made with pieces is shown while its commit is still
under way (the pieces record it), every other move only once it is on disk.

A power cut is taken as what it leaves: the journal's files as they are on disk at that moment
(copied while the writer is held before the commit), and the pieces where the players left
them. The writer is held by a job that waits, queued ahead of the move: the card that has not
answered yet.
"""

from __future__ import annotations

import shutil
import threading

from board_driver.config import sim_config
from board_driver.referee.journal import Journal
from board_driver.referee.session import open_session
from board_driver.referee.tracer import Tracer
from tests.waits import scaled, wait_for


def hold_the_card(journal: Journal) -> threading.Event:
    """The journal's writer stops before its next job until the event is set."""
    gate = threading.Event()
    journal._committer.post(gate.wait)
    # (taken by the writer: from now on what is pending is what waits behind it)
    wait_for(lambda: journal._committer.pending == 0, what="the writer held")
    return gate


def cut_power(path, into) -> str:
    """The journal's files as they are on disk now (what a power cut leaves)."""
    into.mkdir()
    for suffix in ("", "-wal"):
        source = f"{path}{suffix}"
        shutil.copy(source, f"{into / path.name}{suffix}")
    return str(into / path.name)


def journaled(path) -> list[str]:
    with Journal(path) as journal:
        saved = journal.current()
        return [] if saved is None else saved.moves


def test_a_power_cut_between_a_pieces_light_and_its_commit_loses_nothing(tmp_path):
    path = tmp_path / "journal.sqlite"
    t = Tracer(sim_config(journal=str(path)))
    gate = None
    try:
        t.step("place", ["h0.0"])
        t.step("place", ["h3.0"])
        gate = hold_the_card(t.session.journal)
        record = t.step("place", ["v0.0"])
        # Shown as played, the card still writing: the frame went to the strip.
        assert record["game"]["moves"] == ["h0.0", "h3.0", "v0.0"]
        assert record["corrections"] == []
        assert t.session.journal._committer.pending >= 1
        cut = cut_power(path, tmp_path / "cut")
        assert journaled(cut) == ["h0.0", "h3.0"]   # the commit had not landed: lost on disk
    finally:
        if gate is not None:
            gate.set()
        t.close()
    # The power comes back: the journal's game, and on the board the pieces as they were.
    session = open_session(sim_config(journal=cut), clock=lambda: 5.0, autoscan=False)
    try:
        assert [str(m) for m in session.referee.state.moves] == ["h0.0", "h3.0"]
        board = session.hardware.board
        board.place("v0.0")      # (the rod the players had put down before the cut)
        board.scan_once()
        session.referee.resync(session.hardware.source.snapshot(), 6.0)
        assert [str(m) for m in session.referee.state.moves] == ["h0.0", "h3.0", "v0.0"]
        assert session.referee.corrections == []
        session.journal.flush()
    finally:
        session.close()
    assert journaled(cut) == ["h0.0", "h3.0", "v0.0"]


def test_the_computers_move_is_never_shown_before_it_is_on_disk(tmp_path):
    path = tmp_path / "journal.sqlite"
    t = Tracer(sim_config(journal=str(path), players=("human", "computer:easy")))
    seen: dict = {}
    returned = threading.Event()
    try:
        t.step("place", ["h0.0"])
        strip = t.session.hardware.board.strip
        shows = strip.shows
        gate = hold_the_card(t.session.journal)

        def the_card():
            # The computer's move is queued behind the held card (its caller waits on it):
            # what shows, and what is on disk, meanwhile; then the card answers.
            try:
                wait_for(lambda: t.session.journal._committer.pending >= 1,
                         what="the move queued")
                seen.update(returned=returned.is_set(), shows=strip.shows,
                            disk=journaled(cut_power(path, tmp_path / "cut")))
            finally:
                gate.set()

        card = threading.Thread(target=the_card)
        card.start()
        try:
            t.referee.play_for_seat("h3.0", t.clock(), "computer")
            returned.set()
        finally:
            gate.set()
            card.join()
        assert seen == {"returned": False, "shows": shows, "disk": ["h0.0"]}
        # On disk before the call returned, so before the daemon draws it.
        assert journaled(cut_power(path, tmp_path / "cut2")) == ["h0.0", "h3.0"]
    finally:
        t.close()


def test_a_second_piece_move_waits_for_the_first_ones_commit(tmp_path):
    """At most one move is ever shown and not yet on disk: the start adopts one from the
    sensors, where two at once would read as a board to correct."""
    path = tmp_path / "journal.sqlite"
    opened, returned, gates = threading.Event(), [], []
    journals: list[Journal] = []

    def loop():   # the journal's caller (the daemon's loop), in a thread of its own here
        journal = Journal(path)
        journals.append(journal)
        journal.start_game("tree-planting", {})
        gates.append(hold_the_card(journal))
        journal.record_move("h0.0", durable=False)   # returns at once, the card held
        opened.set()
        journal.record_move("h3.0", durable=False)   # waits for h0.0's commit
        returned.append(True)
        journal.close()

    caller = threading.Thread(target=loop)
    caller.start()
    try:
        assert opened.wait(timeout=scaled(30))
        journal = journals[0]
        # The caller waits on the first move's commit (a waiter on its event), not queued.
        wait_for(lambda: journal._posted._cond._waiters, what="the second move waiting")
        assert not returned and journal._committer.pending == 1   # (h0.0, behind the card)
    finally:
        for gate in gates:
            gate.set()
        caller.join()
    assert returned and journaled(path) == ["h0.0", "h3.0"]
