"""What a session changes of the board (who plays, the hints, the clock) is kept in the journal's
settings and survives a restart; the config object is never changed; an edited config wins."""

from __future__ import annotations

import contextlib
import dataclasses
import logging

from board_driver.config import sim_config
from board_driver.referee.tracer import Tracer


@contextlib.contextmanager
def opened(config):
    """A board opened from `config` (its journal kept), closed after: one session."""
    t = Tracer(config)
    try:
        yield t
    finally:
        t.close()


def test_seats_hints_and_clock_changed_in_a_session_survive_a_restart(tmp_path):
    config = sim_config(journal=str(tmp_path / "j.sqlite"))
    before = dataclasses.asdict(config)
    with opened(config) as t:
        t.referee.set_seats(("human", "computer:easy"))
        t.door.set_hint_mode("legal")
        t.door.set_time_control("5+3")
    assert dataclasses.asdict(config) == before       # the config object was never written
    try:
        config.moves = "off"
    except dataclasses.FrozenInstanceError as refused:
        assert "read once at start and never changed" in str(refused)
    else:
        raise AssertionError("a config opened as a board was changed")
    with opened(config) as again:
        ref = again.referee
        assert ref.seats == ("human", "computer:easy") and ref.settings.moves == "legal"
        assert again.step("wait", ["1000"])["clocks"] == [299_000, 300_000]


def test_an_edited_config_wins_over_what_a_session_changed(tmp_path, caplog):
    config = sim_config(journal=str(tmp_path / "j.sqlite"))
    with opened(config) as t:
        t.door.set_hint_mode("legal")
    edited = dataclasses.replace(config, moves="off")   # the family edits the file
    caplog.set_level(logging.INFO)
    with opened(edited) as again:
        assert again.referee.settings.moves == "off"
        assert any("made for another config" in r.getMessage() for r in caplog.records)


def test_a_kept_setting_the_board_cannot_use_is_logged_and_the_config_applies(tmp_path, caplog):
    config = sim_config(journal=str(tmp_path / "j.sqlite"))
    with opened(config) as t:
        t.door.set_hint_mode("legal")
        kept = t.session.journal.setting("board")
        kept["values"]["seats"] = ["human", "a cat"]
        t.session.journal.save_setting("board", kept)
    caplog.set_level(logging.ERROR)
    with opened(config) as again:
        assert again.referee.seats == ("human", "human") and again.referee.settings.moves == "safe"
        assert any("settings.board: seats must be two of" in r.getMessage()
                   for r in caplog.records)
