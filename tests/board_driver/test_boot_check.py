"""The boot check's decisions (board_driver/update/tree.py) on a tree of fake versions (a
folder with COMPLETE is an installed version to it): what test_update.py's real trees cannot
reach cheaply, a rollback cut halfway and repeated, a confirmation cut short, a journal put
back only when its schema changed. In-process and fast."""

from __future__ import annotations

import os
import sqlite3
import time

import pytest

from board_driver.update import tree as tree_module
from board_driver.update.tree import (COMPLETE, Tree, boot_check, copy_journal, read_json,
                                      write_json)


def make(tmp_path, versions=("1.0.0", "1.1.0"), current="1.1.0", schema=2) -> Tree:
    t = Tree(tmp_path, tmp_path / "var" / "lib" / "treeboard" / "journal.sqlite")
    for v in versions:
        t.folder(v).mkdir(parents=True)
        (t.folder(v) / COMPLETE).write_text("{}")
    t.point(t.current, current)
    t.point(t.previous, versions[0])
    t.state.mkdir(parents=True)
    _journal(t.journal, schema, ["h0.0"])
    return t


def _journal(path, schema, moves):
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE IF NOT EXISTS moves (text)")
    db.execute("DELETE FROM moves")
    db.executemany("INSERT INTO moves VALUES (?)", [(m,) for m in moves])
    db.execute(f"PRAGMA user_version={schema}")
    db.commit()
    db.close()


def _moves(path):
    db = sqlite3.connect(path)
    try:
        return [m for (m,) in db.execute("SELECT text FROM moves")]
    finally:
        db.close()


def _mark(t: Tree, **kw):
    copy = t.journal_copy("1.1.0")
    copy_journal(t.journal, copy)
    write_json(t.trial, {"version": "1.1.0", "previous": "1.0.0", "journal_copy": str(copy),
                         "schema": 2, "started_at": time.time(), "trial_seconds": 180,
                         "max_starts": 3, "starts": 0, **kw})


def quiet(_):
    pass


def test_starts_are_counted_and_the_one_past_the_limit_rolls_back(tmp_path):
    t = make(tmp_path)
    _mark(t)
    assert [boot_check(t, say=quiet) for _ in range(4)] == ["trial"] * 3 + ["rolled-back"]
    assert t.linked(t.current) == "1.0.0" and not t.folder("1.1.0").exists()
    assert read_json(t.result)["why"] == "it did not start: 3 starts failed"


def test_the_journal_is_put_back_only_when_the_new_version_changed_its_schema(tmp_path):
    t = make(tmp_path)
    _mark(t)
    _journal(t.journal, 2, ["h0.0", "v1.1"])     # a move made during the trial, same schema
    boot_check(t, now=time.time() + 999, say=quiet)
    assert _moves(t.journal) == ["h0.0", "v1.1"]   # kept
    t = make(tmp_path / "again")
    _mark(t)
    _journal(t.journal, 3, ["h0.0", "broken"])   # a migration that went wrong
    boot_check(t, now=time.time() + 999, say=quiet)
    assert _moves(t.journal) == ["h0.0"] and not os.path.exists(f"{t.journal}-wal")


@pytest.mark.parametrize("where", ["restore_journal", "point", "remove", "write_json"])
def test_a_rollback_cut_at_each_step_is_done_again_at_the_next_start(tmp_path, monkeypatch, where):
    t = make(tmp_path)
    _mark(t, starts=3)
    _journal(t.journal, 3, ["h0.0", "broken"])
    owner = Tree if where == "point" else tree_module
    real = getattr(owner, where)
    calls = []

    def cut(*args):   # the power goes as this step begins (the marker's own write aside)
        calls.append(args)
        if where != "write_json" or args[0] == t.result:
            raise KeyboardInterrupt("power cut")
        return real(*args)

    monkeypatch.setattr(owner, where, cut)
    with pytest.raises(KeyboardInterrupt):
        boot_check(t, say=quiet)
    monkeypatch.setattr(owner, where, real)
    assert read_json(t.trial)["rolling_back"]      # the marker goes last
    assert boot_check(t, say=quiet) == "rolled-back"
    assert t.linked(t.current) == "1.0.0" and _moves(t.journal) == ["h0.0"]
    assert not t.trial.exists() and not t.folder("1.1.0").exists()
    assert read_json(t.result)["result"] == "rolled-back"


def test_a_confirmation_cut_before_the_marker_went_is_finished(tmp_path):
    t = make(tmp_path)
    _mark(t)
    write_json(t.result, {"result": "confirmed", "version": "1.1.0"})
    assert boot_check(t, say=quiet) == "ok" and not t.trial.exists()
    assert t.linked(t.current) == "1.1.0"


def test_a_marker_never_switched_to_is_an_interrupted_update(tmp_path):
    t = make(tmp_path, current="1.0.0")
    _mark(t)
    assert boot_check(t, say=quiet) == "interrupted"
    assert t.linked(t.current) == "1.0.0" and read_json(t.result)["result"] == "interrupted"


def test_a_current_link_to_nothing_is_pointed_back(tmp_path):
    t = make(tmp_path)
    (t.folder("1.1.0") / COMPLETE).unlink()        # a half-installed version
    assert boot_check(t, say=quiet) == "cleaned"
    assert t.linked(t.current) == "1.0.0" and not t.folder("1.1.0").exists()


def test_a_board_waiting_for_its_trial_stops_the_service_before_rolling_back(tmp_path):
    from board_driver.update.updater import Options, wait_for_trial

    t = make(tmp_path)
    _mark(t)
    _journal(t.journal, 3, ["h0.0", "broken"])
    commands = []

    class Done:
        returncode = 0

    def run(argv, **_):
        # (the journal is put back only with the daemon stopped)
        commands.append((argv, t.linked(t.current), _moves(t.journal)))
        return Done()

    options = Options(public_key=tmp_path / "unused", trial_seconds=0.2, live=True, run=run,
                      say=quiet)
    assert wait_for_trial(t, options, poll=0.05) == "rolled-back"
    assert commands == [(["systemctl", "stop", "treeboard.service"], "1.1.0", ["h0.0", "broken"]),
                        (["systemctl", "start", "treeboard.service"], "1.0.0", ["h0.0"])]
