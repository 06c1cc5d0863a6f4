"""A board's version tree for the update's tests: real wheels, real venvs, a real daemon.

The project's wheel is built once per test session (from a copy of the tracked sources, no
build isolation: nothing downloaded); other versions are that wheel rewritten (`rewheel`: the
version in its dist-info, files patched, RECORD's hashes made anew) and signed with the test's
key, as a maintainer's `treeboard release --wheel` would. The venvs each update makes see the
dev venv's packages through a .pth (TREEBOARD_UPDATE_SHARE_PACKAGES), so no dependency is
downloaded: an install costs pip's start and the wheel's files, a few seconds.
"""

from __future__ import annotations

import base64
import hashlib
import os
import signal
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

from board_driver.update import release
from board_driver.update.tree import Tree
from tests.waits import scaled

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
ENV = {**os.environ, "TREEBOARD_UPDATE_SHARE_PACKAGES": sysconfig.get_paths()["purelib"],
       "PYTHONDONTWRITEBYTECODE": "1"}


def run(argv, env=ENV, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(a) for a in argv], capture_output=True, text=True, env=env,
                          timeout=scaled(120), **kw)


def build_project_wheel(base: Path, core: bool | None = None) -> Path:
    """The project's wheel, built from a copy of the tracked sources into `base`/wheel: with
    the solver's compiled core where this machine builds it (`core` None), the pure wheel
    (`core` False, as `treeboard release` builds it), or this machine's platform wheel
    (`core` True, as `treeboard release --with-core` builds it)."""
    src = base / "src"
    for name in _sources():
        if name.startswith(("tests/", "benchmarks/")) or not (REPO / name).is_file():
            continue
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_bytes((REPO / name).read_bytes())
    env = dict(ENV)
    if core is not None:
        env.pop("TREEBOARD_SOLVER_CORE", None)
        if not core:
            env["TREEBOARD_SOLVER_CORE"] = "python"
    out = base / ("wheel" if core is None else "core" if core else "pure")
    built = run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
                 "-w", out, src], env=env)
    assert built.returncode == 0, built.stderr
    assert "license" not in built.stderr.lower(), built.stderr  # no setuptools license warning
    return next(out.glob("treeboard-*.whl"))


#: What a tree without git (a copied checkout: tools/arm64-check's root) holds but a wheel's
#: sources do not.
_NOT_SOURCES = {".git", ".venv", "test-artifacts", "build", "dist", "__pycache__"}


def _sources() -> list[str]:
    """The checkout's files as git lists them (tracked and new, not ignored); in a copy with
    no git, every file outside _NOT_SOURCES, dot folders and egg-info."""
    files = run(["git", "-C", REPO, "ls-files", "--cached", "--others", "--exclude-standard"])
    if files.returncode == 0:
        return files.stdout.splitlines()
    assert "not a git repository" in files.stderr, files.stderr
    return [path.relative_to(REPO).as_posix() for path in REPO.rglob("*")
            if path.is_file() and not any(part in _NOT_SOURCES or part.startswith(".")
                                          or part.endswith(".egg-info")
                                          for part in path.relative_to(REPO).parts[:-1])]


def rewheel(wheel: Path, version: str, out: Path, patches: dict[str, tuple[str, str]] = {},
            tag: str | None = None) -> Path:
    """A copy of the project's `wheel` as version `version`, each file in `patches` with its
    first `old` text replaced by `new` (which must be there); RECORD rewritten to match. Its
    tags are the wheel's own, or `tag` (e.g. "cp311-cp311-linux_aarch64": the name and
    WHEEL's Tag line say so, whatever the files inside are built for)."""
    old_version, old_tag = wheel.name.split("-")[1], wheel.name[:-4].split("-", 2)[2]
    old_info, new_info = f"treeboard-{old_version}.dist-info", f"treeboard-{version}.dist-info"
    tag = tag or old_tag
    target = out / f"treeboard-{version}-{tag}.whl"
    out.mkdir(parents=True, exist_ok=True)
    records = []
    left = dict(patches)
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            name = item.filename.replace(old_info, new_info)
            if name == f"{new_info}/RECORD":
                continue
            data = src.read(item)
            if name == f"{new_info}/METADATA":
                data = data.replace(f"Version: {old_version}".encode(), f"Version: {version}".encode(), 1)
            if name == f"{new_info}/WHEEL":
                data = data.replace(f"Tag: {old_tag}".encode(), f"Tag: {tag}".encode(), 1)
            if name in left:
                old, new = left.pop(name)
                assert old.encode() in data, (name, old)
                data = data.replace(old.encode(), new.encode(), 1)
            dst.writestr(name, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            records.append(f"{name},sha256={digest},{len(data)}")
        records.append(f"{new_info}/RECORD,,")
        dst.writestr(f"{new_info}/RECORD", "\n".join(records) + "\n")
    assert not left, f"not in the wheel: {sorted(left)}"
    return target


class Board:
    """A test tree under `root`: config, key, journal, the versions; the service played by
    the test (boot-check, then the current version's `treeboard run`)."""

    def __init__(self, root: Path, key: Path, public: Path):
        self.root, self.key = root, key
        self.config = root / "etc" / "treeboard" / "config.toml"
        self.journal = root / "var" / "lib" / "treeboard" / "journal.sqlite"
        self.config.parent.mkdir(parents=True)
        self.journal.parent.mkdir(parents=True)
        (self.config.parent / "release.pub").write_bytes(public.read_bytes())
        self.config.write_text(
            f'backend = "sim"\njournal = "{self.journal}"\n'
            f'[update]\npublic_key = "{self.config.parent / "release.pub"}"\n'
            'trial_seconds = 30\nmax_starts = 2\n')
        self.tree = Tree(root, self.journal)
        self.daemon: subprocess.Popen | None = None

    def release(self, wheel: Path | list[Path], out: Path) -> Path:
        release.make_release(self.key, out, wheels=wheel if isinstance(wheel, list) else [wheel])
        return out

    def update(self, source: Path, *extra) -> subprocess.CompletedProcess:
        return run([BIN / "treeboard", "update", "--from", source, "--root", self.root,
                    "--config", self.config, "--offline", *extra])

    def boot_check(self) -> str:
        """The unit's ExecStartPre: the copied boot-check.py run by a plain python3."""
        out = run([sys.executable, self.tree.boot_script, "--root", self.root,
                   "--config", self.config])
        assert out.returncode == 0, out.stderr
        return out.stdout

    def current(self) -> str | None:
        return self.tree.linked(self.tree.current)

    def start(self) -> subprocess.Popen:
        """The current version's daemon, as the unit starts it (after its boot check)."""
        self.boot_check()
        self.daemon = subprocess.Popen(
            [str(self.tree.executable()), "run", "--config", str(self.config)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, env=ENV, start_new_session=True)
        return self.daemon

    def stop(self, kill: bool = False) -> str:
        """Stop the daemon: SIGTERM (then SIGKILL), or at once SIGKILL (`kill`: what systemd
        does to one that never became ready or stopped feeding the watchdog)."""
        proc, self.daemon = self.daemon, None
        if proc is None:
            return ""
        if kill and proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=scaled(10))
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        out = proc.stdout.read()
        proc.stdout.close()
        return out

    def game(self) -> list[str]:
        """The moves of the journal's game in progress, as the current version reads them."""
        code = ("import sys; from board_driver.referee.journal import Journal; "
                "j = Journal(sys.argv[1]); g = j.current(); print(' '.join(g.moves) if g else '-');"
                " j.close()")
        out = run([self.tree.current / "venv" / "bin" / "python", "-c", code, self.journal])
        assert out.returncode == 0, out.stderr
        return out.stdout.split()
