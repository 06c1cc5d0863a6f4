"""Signed releases and the update on trial (board_driver/update/), on a real test tree: real
wheels, a venv per version, the real daemon started from `current` as the unit would, and
the boot check run as the unit's ExecStartPre runs it (the copied boot-check.py).

What a Pi with systemd alone can show (no systemd runs here): that systemd runs the
ExecStartPre before each restart, kills a daemon that never sends READY or stops feeding the
watchdog, and counts the starts; here the test plays systemd: it runs the boot check before
each start and kills a hung daemon itself.
"""

from __future__ import annotations

import os
import multiprocessing
import shutil
import signal
import sqlite3
import time
from pathlib import Path

import pytest

from board_driver.update import ReleaseRefused, release
from board_driver.update.tree import boot_check, read_json
from board_driver.update.updater import STEPS, Options, update
from tests.board_driver.release_tree import BIN, ENV, Board, build_project_wheel, rewheel, run
from tests.games.test_ai_tree_planting_core import can_compile
from tests.waits import scaled, wait_for

pytestmark = pytest.mark.timeout(300)


#: Platform wheels of other boards' processors: a Pi on 64-bit Raspberry Pi OS (Bookworm's
#: Python 3.11), one on 32-bit; this machine supports neither tag.
OTHER_BOARDS = ("cp311-cp311-linux_aarch64", "cp311-cp311-linux_armv7l")


@pytest.fixture(scope="module")
def wheels(tmp_path_factory):
    """The project's pure wheel (as 1.0.0) and its variants, and its platform wheels with the
    solver's compiled core (this machine's, others' retagged), built once for the module."""
    base = tmp_path_factory.mktemp("wheels")
    project = build_project_wheel(base, core=False)
    out = base / "variants"
    loop = "board_driver/daemon/loop.py"
    made = {}
    if can_compile():
        core = build_project_wheel(base, core=True)
        assert release.has_core(core) and not release.is_pure(core.name), core.name
        made["1.1.0-here"] = rewheel(core, "1.1.0", out)
        made.update({f"1.1.0-{tag}": rewheel(core, "1.1.0", out, tag=tag) for tag in OTHER_BOARDS})
        crash = {loop: ("source.start(self._from_thread)",
                        "raise RuntimeError('this release crashes at start')")}
        made["1.2.0-crash-here"] = rewheel(core, "1.2.0", out / "crash", crash)
    return made | {
        "1.0.0": rewheel(project, "1.0.0", out),
        "1.1.0": rewheel(project, "1.1.0", out),
        # It cannot import its daemon: `treeboard run` fails at once, at every start.
        "1.2.0-import": rewheel(project, "1.2.0", out / "import", {
            loop: ("import asyncio\n", "import asyncio\nimport no_such_module_in_this_release\n")}),
        # Its daemon starts and crashes before its sensors.
        "1.2.0-crash": rewheel(project, "1.2.0", out / "crash", {
            loop: ("source.start(self._from_thread)",
                   "raise RuntimeError('this release crashes at start')")}),
        # Its journal migration changes the journal and then fails.
        "1.2.0-migration": rewheel(project, "1.2.0", out / "migration", {
            "board_driver/referee/journal.py": (
                "    if db.execute(\"PRAGMA user_version\").fetchone()[0] >= SCHEMA_VERSION:\n",
                "    db.execute('PRAGMA user_version=3')\n"
                "    db.execute('CREATE TABLE IF NOT EXISTS half_migrated (x)')\n"
                "    raise sqlite3.OperationalError('this release fails its migration')\n"
                "    if db.execute(\"PRAGMA user_version\").fetchone()[0] >= SCHEMA_VERSION:\n")}),
        # It hangs before READY (and so before the watchdog's first ping).
        "1.2.0-hang": rewheel(project, "1.2.0", out / "hang", {
            loop: ("            self.started.set()\n",
                   "            log.error('this release hangs before READY')\n"
                   "            await asyncio.Event().wait()\n"
                   "            self.started.set()\n")}),
    }


@pytest.fixture(scope="module")
def pristine(tmp_path_factory, wheels):
    """A tree with 1.0.0 installed and a game of one move in its journal, made once; each test
    gets a copy at the same path (a venv's scripts name their own path)."""
    base = tmp_path_factory.mktemp("tree")
    private, public = release.make_key(base / "keys")
    b = Board(base / "root", private, public)
    done = b.update(b.release(wheels["1.0.0"], base / "r1.0.0"))
    assert done.returncode == 0, done.stderr
    assert b.current() == "1.0.0"
    played = run([b.tree.executable(), "sim", "--journal", b.journal], input="place h0.0\nquit\n")
    assert played.returncode == 0, played.stderr
    assert b.game() == ["h0.0"]
    shutil.copytree(b.root, base / "pristine", symlinks=True)
    return b


@pytest.fixture
def board(pristine):
    """The pristine tree, afresh."""
    shutil.rmtree(pristine.root)
    shutil.copytree(pristine.root.with_name("pristine"), pristine.root, symlinks=True)
    yield pristine
    pristine.stop(kill=True)


def confirmed(b: Board) -> bool:
    return not b.tree.trial.exists() and (read_json(b.tree.result) or {}).get("result") == "confirmed"


def test_a_good_update_is_confirmed_by_the_new_version_itself(board, wheels, tmp_path):
    done = board.update(board.release(wheels["1.1.0"], tmp_path / "r"))
    assert done.returncode == 0, done.stderr
    assert board.current() == "1.1.0" and board.tree.trial.exists()
    assert os.readlink(board.tree.previous).endswith("1.0.0")
    board.start()
    wait_for(lambda: confirmed(board), timeout=30, interval=0.1, what="1.1.0 confirms its trial")
    log = board.stop()
    assert "Updated to version 1.1.0." in log
    assert board.current() == "1.1.0" and board.game() == ["h0.0"]
    board.boot_check()   # the next start: a confirmed version stays, the old one kept beside
    assert board.current() == "1.1.0" and board.tree.installed() == ["1.0.0", "1.1.0"]


@pytest.mark.parametrize("variant", ["1.2.0-import", "1.2.0-crash", "1.2.0-migration"])
def test_a_release_that_cannot_start_is_rolled_back_with_the_game(board, wheels, tmp_path, variant):
    schema = _schema(board.journal)
    done = board.update(board.release(wheels[variant], tmp_path / "r"))
    assert done.returncode == 0, done.stderr
    assert board.current() == "1.2.0"
    for start in range(2):   # systemd restarts it (Restart=on-failure); each start fails
        board.start()
        wait_for(lambda: board.daemon.poll() is not None, timeout=30, interval=0.1,
              what=f"{variant} fails at start {start + 1}")
        assert board.daemon.returncode != 0
        board.stop()
        assert board.current() == "1.2.0"
    said = board.boot_check()   # the third start: past max_starts (2 in this tree)
    assert "rolled back" in said and board.current() == "1.0.0"
    assert not board.tree.folder("1.2.0").exists() and not board.tree.trial.exists()
    assert _schema(board.journal) == schema and board.game() == ["h0.0"]
    if variant != "1.2.0-import":
        return
    board.start()   # the old version says so
    wait_for(lambda: "did not work; back to version 1.0.0" in _peek(board), timeout=30, interval=0.1,
          what="1.0.0 says the update was rolled back")


def test_a_release_that_hangs_before_the_watchdog_is_rolled_back(board, wheels, tmp_path):
    done = board.update(board.release(wheels["1.2.0-hang"], tmp_path / "r"))
    assert done.returncode == 0, done.stderr
    board.start()
    wait_for(lambda: "hangs before READY" in _peek(board), timeout=30, interval=0.1, what="it hangs")
    assert board.tree.trial.exists()          # it never confirmed
    board.stop(kill=True)                     # systemd's start timeout kills it
    marker = read_json(board.tree.trial)
    # The next start comes after the trial's time: the boot check rolls it back.
    assert boot_check(board.tree, now=marker["started_at"] + marker["trial_seconds"] + 1,
                      say=lambda _: None) == "rolled-back"
    assert board.current() == "1.0.0" and board.game() == ["h0.0"]
    assert read_json(board.tree.result)["why"].startswith("it did not confirm within 30")


def test_tampered_unsigned_wrong_key_and_old_releases_are_refused(board, wheels, tmp_path):
    before = sorted(p.name for p in board.tree.versions.iterdir())
    rel = board.release(wheels["1.1.0"], tmp_path / "tampered")
    wheel = rel / wheels["1.1.0"].name
    data = bytearray(wheel.read_bytes())
    data[len(data) // 2] ^= 1
    wheel.write_bytes(bytes(data))
    cases = {"tampered": "its SHA-256 is not the signed manifest's"}
    unsigned = board.release(wheels["1.1.0"], tmp_path / "unsigned")
    (unsigned / release.SIGNATURE).unlink()
    cases["unsigned"] = "an unsigned release is refused"
    other, _ = release.make_key(tmp_path / "other")
    release.make_release(other, tmp_path / "wrong-key", wheels=[wheels["1.1.0"]])
    cases["wrong-key"] = "signed with another key than this board's"
    board.release(wheels["1.0.0"], tmp_path / "same")
    cases["same"] = "version 1.0.0 is not newer than the installed 1.0.0"
    for name, words in cases.items():
        done = board.update(tmp_path / name)
        assert done.returncode == 2, (name, done.stdout)
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0] and "nothing was changed" in lines[0], lines
        assert sorted(p.name for p in board.tree.versions.iterdir()) == before
        assert board.current() == "1.0.0" and not board.tree.trial.exists()


def _cut_at(step: str, source: Path, board: Board) -> None:
    """The updater in a child process, killed with SIGKILL right after `step`."""
    def cut(name: str) -> None:
        if name == step:
            os.kill(os.getpid(), signal.SIGKILL)

    def child() -> None:
        os.environ.update(ENV)
        update(str(source), board.tree, Options(public_key=board.config.parent / "release.pub",
                                                offline=True, after_step=cut, say=lambda _: None))

    proc = multiprocessing.get_context("fork").Process(target=child)
    proc.start()
    proc.join(scaled(120))
    assert proc.exitcode == -signal.SIGKILL, (step, proc.exitcode)


@pytest.mark.parametrize("step", [s for s in STEPS if s != "started"])
def test_a_power_cut_after_each_step_boots_a_working_version_with_its_game(board, wheels,
                                                                           tmp_path, step):
    _cut_at(step, board.release(wheels["1.1.0"], tmp_path / "r"), board)
    board.boot_check()   # the board comes back: systemd's ExecStartPre
    running = board.current()
    assert running == ("1.1.0" if step == "switched" else "1.0.0"), step
    assert board.tree.trial.exists() == (step == "switched")
    assert board.game() == ["h0.0"]
    assert not any(p.name.startswith(".") for p in board.tree.versions.iterdir())
    assert board.tree.installed() == (["1.0.0", "1.1.0"] if step in STEPS[2:] else ["1.0.0"])
    out = run([board.tree.executable(), "--version"])
    assert out.stdout.strip() == f"treeboard {running}"


def _schema(journal: Path) -> int:
    db = sqlite3.connect(journal)
    try:
        return db.execute("PRAGMA user_version").fetchone()[0]
    finally:
        db.close()


_seen: dict[int, str] = {}


def _peek(b: Board) -> str:
    """What the running daemon printed so far (read without blocking)."""
    import fcntl

    fd = b.daemon.stdout.fileno()
    fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
    try:
        chunk = b.daemon.stdout.read() or ""
    except (BlockingIOError, TypeError):
        chunk = ""
    _seen[b.daemon.pid] = _seen.get(b.daemon.pid, "") + chunk
    return _seen[b.daemon.pid]


# Releases that carry the solver's compiled core: platform wheels beside the pure one ------------

needs_compiler = pytest.mark.skipif(not can_compile(), reason="no C compiler or Python headers: "
                                    "no platform wheel can be built here")


def _solver_core(b: Board, tmp_path: Path) -> tuple[str, str]:
    """Which search the installed version's solver uses, and from which file (asked from a
    folder outside the checkout, so nothing but the version's own venv is imported)."""
    code = "from games.ai import tree_planting as t; print(*t.core(), sep='\\n')"
    out = run([b.tree.current / "venv" / "bin" / "python", "-c", code], cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    which, where = out.stdout.strip().split("\n", 1)
    return which, where


@needs_compiler
def test_a_release_with_this_boards_platform_wheel_installs_it_and_its_core(board, wheels, tmp_path):
    rel = board.release([wheels["1.1.0"], wheels["1.1.0-here"],
                         *(wheels[f"1.1.0-{tag}"] for tag in OTHER_BOARDS)], tmp_path / "r")
    manifest = release.parse_manifest((rel / release.MANIFEST).read_bytes(), "r")
    assert manifest.wheel == wheels["1.1.0"].name and len(manifest.wheels) == 4
    done = board.update(rel)
    assert done.returncode == 0, done.stderr
    assert f"installed {wheels['1.1.0-here'].name} (with the solver's compiled core" in done.stdout
    assert read_json(board.tree.folder("1.1.0") / "COMPLETE")["wheel"] == wheels["1.1.0-here"].name
    which, where = _solver_core(board, tmp_path)
    assert which == "compiled", where
    assert Path(where).resolve().is_relative_to(board.tree.folder("1.1.0").resolve()), where
    # The trial holds as for the pure wheel: the new version confirms itself.
    board.start()
    wait_for(lambda: confirmed(board), timeout=30, interval=0.1, what="1.1.0 confirms its trial")
    assert "Updated to version 1.1.0." in board.stop()
    assert board.current() == "1.1.0" and board.game() == ["h0.0"]


@needs_compiler
def test_a_board_no_platform_wheel_fits_installs_the_pure_one(board, wheels, tmp_path):
    rel = board.release([wheels["1.1.0"], *(wheels[f"1.1.0-{tag}"] for tag in OTHER_BOARDS)],
                        tmp_path / "r")
    done = board.update(rel)
    assert done.returncode == 0, done.stderr
    assert f"installed {wheels['1.1.0'].name} (the pure-Python solver" in done.stdout
    which, why = _solver_core(board, tmp_path)
    assert which == "python" and "not built" in why, why


@needs_compiler
def test_a_platform_release_that_cannot_start_is_rolled_back(board, wheels, tmp_path):
    done = board.update(board.release([wheels["1.2.0-crash"], wheels["1.2.0-crash-here"]],
                                      tmp_path / "r"))
    assert done.returncode == 0, done.stderr
    assert read_json(board.tree.folder("1.2.0") / "COMPLETE")["wheel"] == wheels["1.2.0-crash-here"].name
    for start in range(2):
        board.start()
        wait_for(lambda: board.daemon.poll() is not None, timeout=30, interval=0.1,
                 what=f"the platform wheel's crash at start {start + 1}")
        board.stop()
    assert "rolled back" in board.boot_check() and board.current() == "1.0.0"
    assert not board.tree.folder("1.2.0").exists() and board.game() == ["h0.0"]


@needs_compiler
def test_a_tampered_platform_wheel_is_refused_and_nothing_changes(board, wheels, tmp_path):
    before = sorted(p.name for p in board.tree.versions.iterdir())
    rel = board.release([wheels["1.1.0"], wheels["1.1.0-here"]], tmp_path / "r")
    wheel = rel / wheels["1.1.0-here"].name
    data = bytearray(wheel.read_bytes())
    data[len(data) // 3] ^= 1
    wheel.write_bytes(bytes(data))
    done = board.update(rel)
    assert done.returncode == 2, done.stdout
    (line,) = done.stderr.strip().splitlines()
    assert wheel.name in line and "its SHA-256 is not the signed manifest's" in line, line
    assert sorted(p.name for p in board.tree.versions.iterdir()) == before
    assert board.current() == "1.0.0" and not board.tree.trial.exists()
