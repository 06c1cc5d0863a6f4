"""The version tree, its atomic changes, the trial marker and the boot check.

This file uses the standard library alone: each update copies it beside the versions as
/opt/treeboard/boot-check.py, which the unit runs before every start (`ExecStartPre=-+` with
the system's /usr/bin/python3), so that a version that cannot even import still gets rolled
back: the check never runs code of the version on trial.

Under ROOT ("/" on a board; a folder for a test tree):

    opt/treeboard/versions/<v>/venv/       one folder per version, each its own venv;
    opt/treeboard/versions/<v>/COMPLETE    written last: a folder without it is half installed
    opt/treeboard/current  -> versions/<v>     what the unit runs (current/venv/bin/treeboard)
    opt/treeboard/previous -> versions/<u>     what a rollback goes back to
    opt/treeboard/boot-check.py            this file

Beside the journal (the config's `journal`, /var/lib/treeboard/ by default: the one place the
sandboxed daemon may write, so that it can confirm):

    update-trial.json            the marker: a version on trial (written before the switch)
    update-result.json           what the last update came to: confirmed, rolled-back, interrupted
    update-request               the page asked for an update (systemd's path unit starts it)
    journal-before-<v>.sqlite    the journal as it was before version <v> first opened it

Every change is a write to a new name, an fsync, a rename over the old name and an fsync of the
folder (a link too: a new link renamed over the old one), so a power cut leaves the old file or
the new one, never half of one.

The boot check (`boot_check`), before each start:
- no marker: leftovers of a cut install are removed; a `current` that names nothing usable is
  pointed back at `previous` (or the newest complete version);
- a marker whose version is not `current`: the update was cut before its switch; the old
  version runs on, the marker goes, the result says "interrupted";
- a marker whose version is `current`: one more start of the trial; past its `max_starts`
  (a crash loop) or its `trial_seconds` (it hangs, or never got its sensors up) the board
  rolls back: the marker says so first ("rolling_back"), then the journal's copy is put back
  if the new version changed the journal's schema, `current` pointed at `previous`, the
  failed version removed, the result says why, and the marker goes last: a cut anywhere in a
  rollback repeats it at the next start.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import shutil
import sqlite3
import sys
import time
import tomllib
from pathlib import Path
from typing import Any, Callable

TRIAL = "update-trial.json"
RESULT = "update-result.json"
REQUEST = "update-request"    # the page's "Update" button (treeboard-update.path watches it)
COMPLETE = "COMPLETE"
DEFAULT_JOURNAL = "/var/lib/treeboard/journal.sqlite"


class Tree:
    """The version tree of one root, and the trial's files beside one journal."""

    def __init__(self, root: Path | str, journal: Path | str = DEFAULT_JOURNAL):
        self.root = Path(root)
        self.base = self.root / "opt" / "treeboard"
        self.versions = self.base / "versions"
        self.current = self.base / "current"
        self.previous = self.base / "previous"
        self.boot_script = self.base / "boot-check.py"
        self.lock_file = self.base / ".update.lock"
        self.journal = rooted(self.root, journal)
        self.state = self.journal.parent
        self.trial = self.state / TRIAL
        self.result = self.state / RESULT

    def folder(self, version: str) -> Path:
        return self.versions / version

    def executable(self, version: str | None = None) -> Path:
        """The `treeboard` script of a version (of `current`, as the unit names it)."""
        top = self.current if version is None else self.folder(version)
        return top / "venv" / "bin" / "treeboard"

    def complete(self, version: str) -> bool:
        return (self.folder(version) / COMPLETE).is_file()

    def linked(self, link: Path) -> str | None:
        """The version a link names, if that version is completely installed."""
        try:
            name = Path(os.readlink(link)).name
        except OSError:
            return None
        return name if self.complete(name) else None

    def installed(self) -> list[str]:
        if not self.versions.is_dir():
            return []
        return sorted((p.name for p in self.versions.iterdir() if self.complete(p.name)),
                      key=_version_key)

    def point(self, link: Path, version: str) -> None:
        """`link` -> versions/<version>, switched in one rename."""
        new = link.with_name(f".{link.name}.new")
        new.unlink(missing_ok=True)
        os.symlink(os.path.relpath(self.folder(version), link.parent), new)
        os.replace(new, link)
        fsync(link.parent)

    def journal_copy(self, version: str) -> Path:
        return self.state / f"journal-before-{version}.sqlite"


@contextlib.contextmanager
def holding(tree: Tree, wait: bool = True):
    """The tree's lock (flock): an update holds it throughout; the boot check cleans only
    when no update runs (it would take the folder an update is filling). Yields whether held."""
    tree.base.mkdir(parents=True, exist_ok=True)
    fd = os.open(tree.lock_file, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            held = True
        except BlockingIOError:
            held = False
        yield held
    finally:
        os.close(fd)


def rooted(root: Path, path: Path | str) -> Path:
    """`path` as seen from inside `root` (a path already under `root` is kept)."""
    path = Path(path)
    if root == Path("/") or not path.is_absolute() or path.is_relative_to(root):
        return path
    return root / path.relative_to("/")


def _version_key(name: str) -> tuple:
    """Enough of PEP 440 to order this project's versions (1.2.10 after 1.2.9)."""
    return tuple((0, int(p)) if p.isdigit() else (-1, p) for p in name.replace("-", ".").split("."))


# Atomic files ----------------------------------------------------------------------------------

def read_json(path: Path) -> dict[str, Any] | None:
    """A small JSON file; None when missing, or not a JSON object (one edited by hand: a torn
    one cannot be, as each is renamed into place whole)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def write_json(path: Path, data: dict[str, Any]) -> None:
    new = path.with_name(f".{path.name}.new")
    fd = os.open(new, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        os.write(fd, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(new, path)
    fsync(path.parent)


def remove(path: Path) -> None:
    """A file or a folder gone; a folder is renamed aside first, so a cut never leaves half of
    it under its own name."""
    if path.is_dir() and not path.is_symlink():
        aside = path.with_name(f".{path.name}.removing")
        shutil.rmtree(aside, ignore_errors=True)
        os.replace(path, aside)
        fsync(path.parent)
        shutil.rmtree(aside, ignore_errors=True)
    elif path.is_symlink() or path.exists():
        path.unlink()
        fsync(path.parent)


def fsync(path: Path) -> None:
    """A file's bytes, or a folder's names, on disk."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# The journal ---------------------------------------------------------------------------------

def schema_of(journal: Path) -> int | None:
    """The journal's schema version (SQLite's user_version), read without writing; None when
    there is no journal."""
    if not journal.exists():
        return None
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        return db.execute("PRAGMA user_version").fetchone()[0]
    finally:
        db.close()


def copy_journal(journal: Path, to: Path) -> None:
    """A consistent copy of the journal (SQLite's backup API: whole transactions only, even
    while a daemon writes), renamed into place whole, owned as the journal is."""
    new = to.with_name(f".{to.name}.new")
    new.unlink(missing_ok=True)
    src = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    dst = sqlite3.connect(new)
    try:
        src.backup(dst)
    finally:
        dst.close()
        src.close()
    _same_owner(new, journal)
    fsync(new)
    os.replace(new, to)
    fsync(to.parent)


def restore_journal(copy: Path, journal: Path) -> None:
    """The copy back in the journal's place. Its write-ahead log goes first (it belongs to the
    journal being replaced: left, SQLite would apply it to the copy); a cut after that leaves
    the journal as last checkpointed, and the rollback, repeated, puts the copy back."""
    new = journal.with_name(f".{journal.name}.restoring")
    shutil.copyfile(copy, new)
    _same_owner(new, copy)
    fsync(new)
    for suffix in ("-wal", "-shm"):
        Path(f"{journal}{suffix}").unlink(missing_ok=True)
    os.replace(new, journal)
    fsync(journal.parent)


def _same_owner(path: Path, like: Path) -> None:
    """As root (the updater, the boot check) a file made for the daemon is the daemon's."""
    if os.geteuid() == 0:
        st = like.stat()
        os.chown(path, st.st_uid, st.st_gid)


# The boot check ------------------------------------------------------------------------------

def boot_check(tree: Tree, now: float | None = None, say: Callable[[str], None] = print) -> str:
    """Before each start: finish or undo what an update left (see the module's docstring).
    Returns what it did in one word: ok, cleaned, interrupted, trial, rolled-back."""
    now = time.time() if now is None else now
    what = _clean(tree, say)
    marker = read_json(tree.trial)
    if marker is None:
        if tree.trial.exists():   # not ours to read: keep the board running what it runs
            say(f"treeboard: {tree.trial} is unreadable; moved aside")
            os.replace(tree.trial, tree.trial.with_suffix(".unreadable"))
        return what
    if marker.get("rolling_back"):   # a rollback cut halfway: done again
        rollback(tree, marker, marker["rolling_back"], now, say)
        return "rolled-back"
    version = marker.get("version")
    result = read_json(tree.result) or {}
    if result.get("result") == "confirmed" and result.get("version") == version:
        remove(tree.trial)   # (confirmed, cut before the marker went)
        return "ok"
    running = tree.linked(tree.current)
    if running != version:
        write_json(tree.result, {"result": "interrupted", "version": version, "running": running,
                                 "at": now, "told": False})
        remove(tree.trial)
        say(f"treeboard: the update to {version} was cut before its switch; {running} runs on")
        return "interrupted"
    starts = int(marker.get("starts", 0)) + 1
    if starts > int(marker.get("max_starts", 3)):
        rollback(tree, marker, f"it did not start: {starts - 1} starts failed", now, say)
        return "rolled-back"
    if now - float(marker.get("started_at", now)) > float(marker.get("trial_seconds", 180)):
        rollback(tree, marker, f"it did not confirm within {marker.get('trial_seconds')} s "
                 "(its sensors up and the watchdog fed)", now, say)
        return "rolled-back"
    write_json(tree.trial, {**marker, "starts": starts})
    say(f"treeboard: version {version} on trial, start {starts} of {marker.get('max_starts', 3)}")
    return "trial"


def rollback(tree: Tree, marker: dict[str, Any], why: str, now: float | None = None,
             say: Callable[[str], None] = print) -> None:
    """Back to the version before the trial, with its journal. Each step can be repeated: a
    cut anywhere leaves the marker, and the next boot check does it again."""
    now = time.time() if now is None else now
    version, previous = marker["version"], marker["previous"]
    if not marker.get("rolling_back"):   # (first: a cut from here on repeats the rollback)
        marker = {**marker, "rolling_back": why}
        write_json(tree.trial, marker)
    copy = Path(marker["journal_copy"]) if marker.get("journal_copy") else None
    if copy is not None and copy.exists() and schema_of(tree.journal) != marker.get("schema"):
        # The new version changed the journal (a migration, perhaps half done): the copy is
        # what the old version knows. Moves made during the trial go with it.
        restore_journal(copy, tree.journal)
    tree.point(tree.current, previous)
    if tree.folder(version).exists() and version != previous:
        remove(tree.folder(version))
    write_json(tree.result, {"result": "rolled-back", "version": version, "running": previous,
                             "why": why, "at": now, "told": False})
    remove(tree.trial)
    say(f"treeboard: the update to {version} was rolled back ({why}); {previous} runs again")


def _clean(tree: Tree, say: Callable[[str], None]) -> str:
    """Leftovers of a cut install; a `current` that names nothing usable pointed back."""
    what = "ok"
    with holding(tree, wait=False) as held:
        if held:
            what = _clean_folders(tree)
    if tree.linked(tree.current) is None:
        fallback = tree.linked(tree.previous) or next(reversed(tree.installed()), None)
        if fallback is not None:
            tree.point(tree.current, fallback)
            say(f"treeboard: `current` named no installed version; it names {fallback} again")
            what = "cleaned"
    return what


def _clean_folders(tree: Tree) -> str:
    what = "ok"
    if tree.versions.is_dir():
        for p in tree.versions.iterdir():
            if p.name.startswith(".") or not tree.complete(p.name):
                shutil.rmtree(p, ignore_errors=True)
                what = "cleaned"
    return what


def journal_of(config: Path) -> str:
    """The config's `journal` (the default when the config, or the key, is missing)."""
    try:
        value = tomllib.loads(config.read_text(encoding="utf-8-sig")).get("journal")
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return DEFAULT_JOURNAL
    return value if isinstance(value, str) and value else DEFAULT_JOURNAL


def main(argv: list[str] | None = None) -> int:
    """`python3 boot-check.py [--root DIR] [--config FILE]` (the unit's ExecStartPre)."""
    p = argparse.ArgumentParser(prog="boot-check.py", description=boot_check.__doc__)
    p.add_argument("--root", type=Path, default=Path("/"))
    p.add_argument("--config", type=Path, default=Path("/etc/treeboard/config.toml"))
    args = p.parse_args(argv)
    config = rooted(args.root, args.config)
    boot_check(Tree(args.root, journal_of(config)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
