"""`treeboard update`: a signed release installed beside the running version, then tried.

The steps, in this order (STEPS names them; a power cut after any one of them leaves a board
that boots a working version with its game, `tree.boot_check` finishing or undoing the rest):

1. checked         the release copied into the tree and checked: signature, every file's
                   SHA-256, newer than the version installed (else ReleaseRefused: nothing changed);
                   of the project's wheels only the one for this board is copied: the most
                   specific one this interpreter supports (a platform wheel with the solver's
                   compiled core, else the pure one: release.Manifest.pick)
2. venv-made       versions/<v>/venv made (a cut from here to 3: the boot check removes it)
3. installed       the wheel pip-installed in it, compiled, and COMPLETE written
4. stopped         the service stopped (on a live board: `systemctl stop treeboard`)
5. journal-copied  journal-before-<v>.sqlite: the journal before the new version opens it
6. marked          the trial marker (version, previous, the copy, the schema, limits)
7. previous-linked `previous` -> the running version
8. switched        `current` -> versions/<v>: one rename; from here the new version is on trial
9. started         the service started (live); the updater then waits for the confirmation
                   until the trial's time is up, and rolls back itself if none came

The first install into an empty tree (no `current`) has no version to go back to: it is
switched to at once, with no trial.

Dependencies: pip resolves them from the release's own wheels (a release made with
--with-deps is "complete" and installs with no index), else from the package index. The
TREEBOARD_UPDATE_SHARE_PACKAGES variable (tests, and the arm64 check) names a site-packages
folder whose packages the new venv sees too (a .pth file), so that nothing is downloaded.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
import venv
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from board_driver.update import UpdateError, release
from board_driver.update.tree import (COMPLETE, Tree, copy_journal, holding, read_json, remove,
                                      rollback, schema_of, write_json)

STEPS = ("checked", "venv-made", "installed", "stopped", "journal-copied", "marked",
         "previous-linked", "switched", "started")
UNIT = "treeboard.service"
SHARE_ENV = "TREEBOARD_UPDATE_SHARE_PACKAGES"


@dataclass
class Options:
    """How an update runs. `live`: a board running the service (systemctl is used);
    otherwise a test tree under `--root` (nothing is started)."""
    public_key: Path
    trial_seconds: float = 180.0
    max_starts: int = 3
    live: bool = False
    wait: bool = True            # (live) wait for the confirmation, roll back without it
    offline: bool = False        # pip with no index: the release must be complete
    when_idle: bool = False      # refuse while a game is in progress (the schedule)
    run: Callable[..., object] = subprocess.run
    say: Callable[[str], None] = print
    after_step: Callable[[str], None] | None = None   # (tests: a power cut here)
    tags: list | None = None     # the wheel tags to choose by (None: this interpreter's)


def running_version() -> str:
    """The version of the treeboard installed in this environment ("unknown" for sources run
    uninstalled: no trial is ever theirs)."""
    from importlib import metadata

    try:
        return metadata.version("treeboard")
    except metadata.PackageNotFoundError:
        return "unknown"


def update(source: str, tree: Tree, options: Options) -> str:
    """Install the release at `source` and put it on trial; returns its version. Raises
    ReleaseRefused / UpdateError with nothing changed before step 8."""
    key = release.read_public_key(options.public_key)
    with holding(tree):
        return _update(source, tree, options, key)


def _update(source: str, tree: Tree, options: Options, key) -> str:
    say, step = options.say, _stepper(options)
    marker = read_json(tree.trial)
    if marker is not None:
        raise UpdateError(f"version {marker.get('version')} is on trial already ({tree.trial}); "
                          "wait for it to confirm or roll back")
    installed = tree.linked(tree.current)
    if options.when_idle and game_in_progress(tree.journal):
        raise UpdateError(f"a game is in progress ({tree.journal}): the board updates between "
                          "games (finish it or put it away, then update)")
    incoming = release.scratch(tree.versions)
    try:
        manifest, wheel = release.fetch(source, incoming, key, options.tags)
        release.check_newer(manifest, installed, source)
        step("checked")
        _prune(tree, keep={installed, tree.linked(tree.previous)})
        _install(tree, manifest, wheel, incoming, options, step)
    finally:
        shutil.rmtree(incoming.parent, ignore_errors=True)
    version = manifest.version
    if installed is None:
        tree.point(tree.current, version)
        say(f"installed {version} in {tree.folder(version)}; `current` names it")
        return version
    if options.live:
        _systemctl(options, "stop", UNIT)
    try:
        _try(tree, version, installed, options, step)
    except BaseException:
        if options.live and tree.linked(tree.current) == installed:
            _systemctl(options, "start", UNIT)   # (stopped for nothing: the old one again)
        raise
    if options.live:
        _systemctl(options, "start", UNIT)
        step("started")
        if options.wait:
            wait_for_trial(tree, options)
    return version


def _try(tree: Tree, version: str, installed: str, options: Options,
         step: Callable[[str], None]) -> None:
    """Steps 4 to 8: the journal's copy, the marker, the links."""
    step("stopped")
    copy = tree.journal_copy(version)
    if tree.journal.exists():
        copy_journal(tree.journal, copy)
    step("journal-copied")
    write_json(tree.trial, {"version": version, "previous": installed,
                            "journal_copy": str(copy) if copy.exists() else None,
                            "schema": schema_of(tree.journal), "started_at": time.time(),
                            "trial_seconds": options.trial_seconds,
                            "max_starts": options.max_starts, "starts": 0})
    step("marked")
    tree.point(tree.previous, installed)
    step("previous-linked")
    tree.point(tree.current, version)
    step("switched")
    options.say(f"switched to {version} on trial: it confirms once it runs with its sensors up "
                f"and feeds the watchdog, within {options.trial_seconds:g} s, else {installed} "
                "comes back")


def _stepper(options: Options) -> Callable[[str], None]:
    def step(name: str) -> None:
        if options.after_step is not None:
            options.after_step(name)
    return step


def _install(tree: Tree, manifest: release.Manifest, wheel: str, incoming: Path,
             options: Options, step: Callable[[str], None]) -> None:
    """versions/<v>: its venv, the chosen `wheel` installed, the release's manifest kept
    beside it, COMPLETE (naming the wheel) written last."""
    folder = tree.folder(manifest.version)
    if folder.exists():   # (a version rolled back before, or a cut install: made afresh)
        remove(folder)
    env = folder / "venv"
    venv.create(env, with_pip=False, symlinks=True)
    shared = os.environ.get(SHARE_ENV)
    if shared:
        purelib = next((env / "lib").glob("python3*/site-packages"))
        (purelib / "shared-packages.pth").write_text(shared + "\n")
    step("venv-made")
    argv = [sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"), "install",
            "-q", "--disable-pip-version-check", "--find-links", str(incoming)]
    if manifest.complete or options.offline:
        argv.append("--no-index")
    argv.append(str(incoming / wheel))
    done = options.run(argv, capture_output=True, text=True)
    if done.returncode != 0:
        remove(folder)
        raise UpdateError(f"installing {wheel} failed (nothing else changed): "
                          + (done.stderr or done.stdout).strip()[-600:])
    if not tree.executable(manifest.version).exists():
        remove(folder)
        raise UpdateError(f"{wheel} installed no `treeboard` command; refused")
    for name in (release.MANIFEST, release.SIGNATURE):
        shutil.copyfile(incoming / name, folder / name)
    # The boot check that will watch this trial: this (running, known good) version's own.
    boot = Path(__file__).with_name("tree.py")
    new = tree.boot_script.with_name(".boot-check.py.new")
    shutil.copyfile(boot, new)
    os.replace(new, tree.boot_script)
    write_json(folder / COMPLETE, {"version": manifest.version, "wheel": wheel, "at": time.time()})
    options.say(f"installed {wheel} ("
                + ("the pure-Python solver: no wheel of this release carries the solver's "
                   "compiled core for this board" if release.is_pure(wheel)
                   else "with the solver's compiled core for this board") + ")")
    step("installed")


def _prune(tree: Tree, keep: set[str | None]) -> None:
    """Versions that are neither running nor the one to go back to, and their journal copies."""
    for version in tree.installed():
        if version not in keep:
            remove(tree.folder(version))
    for copy in tree.state.glob("journal-before-*.sqlite") if tree.state.is_dir() else ():
        copy.unlink()


def wait_for_trial(tree: Tree, options: Options, poll: float = 1.0) -> str:
    """(Live) until the trial confirms, rolls back through the boot check, or its time is up:
    then it is rolled back here and the service restarted. Returns the result."""
    deadline = time.monotonic() + options.trial_seconds
    while time.monotonic() < deadline:
        if not tree.trial.exists():
            result = (read_json(tree.result) or {}).get("result", "?")
            options.say(f"the trial ended: {result}")
            return result
        time.sleep(poll)
    if options.live:   # (never a journal put back under a running daemon)
        _systemctl(options, "stop", UNIT)
    marker = read_json(tree.trial)
    if marker is not None:
        rollback(tree, marker, f"it did not confirm within {options.trial_seconds:g} s",
                 say=options.say)
    if options.live:
        _systemctl(options, "start", UNIT)
    return (read_json(tree.result) or {}).get("result", "?")


def game_in_progress(journal: Path) -> bool:
    """Whether the journal's game in progress has a move standing (read only)."""
    if not journal.exists():
        return False
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        row = db.execute("SELECT id FROM games WHERE status = 'playing' ORDER BY id DESC "
                         "LIMIT 1").fetchone()
        if row is None:
            return False
        moves = db.execute("SELECT SUM(CASE kind WHEN 'move' THEN 1 ELSE -1 END) FROM events "
                           "WHERE game_id = ?", row).fetchone()[0]
        return bool(moves and moves > 0)
    except sqlite3.DatabaseError:
        return False
    finally:
        db.close()


def _systemctl(options: Options, *argv: str) -> None:
    done = options.run(["systemctl", *argv], capture_output=True, text=True)
    if getattr(done, "returncode", 0) != 0:
        raise UpdateError(f"`systemctl {' '.join(argv)}` failed: {getattr(done, 'stderr', '')}")
