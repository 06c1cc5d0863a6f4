"""`treeboard install-service`: the systemd unit, the service user, config and udev rules.

What it does on a Pi (``--dry-run`` prints the same list and changes nothing):

1. groups gpio, spi, dialout, audio exist (``groupadd --system`` the missing ones);
2. a ``treeboard`` system user in them (``useradd --system`` or ``usermod -aG``);
3. ``/etc/systemd/system/treeboard.service``, rendered from the package's
   ``systemd/treeboard.service`` (installed as package data, ``board_driver/systemd/``) with ExecStart= pointing at the ``treeboard``
   executable running this command;
   with ``--neopixel-as-root`` also the drop-in that runs it as root (rpi_ws281x);
4. ``/etc/treeboard/config.toml`` from the default config, only if there is none, root's and
   readable by the service's group alone (0640: a secret may come to be kept in it); a config
   there already that holds a secret (``web.token``, ``remote.secret``) readable by every
   account is refused, as the daemon refuses it and a world-readable ``secret_file``;
5. the udev rules (ours, and the firmware bridge's) in ``/etc/udev/rules.d/``;
   and the updates' units (treeboard-update.service, .timer, .path: docs/service.md, "Updates");
6. ``systemctl daemon-reload``, ``udevadm control --reload``, ``udevadm trigger``,
   ``systemctl enable treeboard`` (and the update timer and path), ``systemctl restart treeboard``.

With ``--root DIR`` (a Pi image being prepared) files go under DIR, the user is created
with ``--root DIR`` and the unit is enabled with ``systemctl --root``; nothing is started.

The unit, the drop-in and the udev rules are package data, read with importlib.resources, so
a plain (non-editable) ``pip install`` installs the service as well as a checkout does.
``--dry-run`` lists every step even where a real run would refuse (the interpreter in root's
home, say), then says why it would.
"""

from __future__ import annotations

import argparse
import grp
import importlib.resources
import os
import pwd
import shutil
import stat
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import board_driver
from board_driver.config import ConfigError, check_private, read_toml
from board_driver.files import write_whole
from treeboard.exc import TreeboardError

USER = "treeboard"
GROUPS = ("gpio", "spi", "dialout", "audio")
UNIT_NAME = "treeboard.service"
#: The updater's oneshot service, its timer and the path unit of the page's button.
UPDATE_UNITS = ("treeboard-update.service", "treeboard-update.timer", "treeboard-update.path")
#: Where the update units name the `treeboard` executable (rendered as the installed one).
CURRENT_EXE = "/opt/treeboard/current/venv/bin/treeboard"
CONFIG_PATH = Path("/etc/treeboard/config.toml")  # the unit's ExecStart names it too
STATE_DIR = Path("/var/lib/treeboard")

PACKAGE_DIR = Path(board_driver.__file__).resolve().parent


def _systemd_files():
    """The service files: the installed package board_driver.systemd, or, in an editable
    install (a checkout, whose board_driver/ is found on the path), the repository's own
    systemd/ beside board_driver/."""
    try:
        return importlib.resources.files("board_driver.systemd")
    except ModuleNotFoundError:
        return PACKAGE_DIR.parent / "systemd"


def service_file(name: str) -> str:
    """A file the service installs: the unit, the root drop-in, a udev rules file. Package
    data of board_driver.systemd (the repository's systemd/) and of firmware_bridge (its udev rules)."""
    if name == "99-treeboard-bridge.rules":
        where = importlib.resources.files("firmware_bridge") / name
    else:
        where = _systemd_files() / name
    try:
        return where.read_text(encoding="utf-8")
    except OSError as exc:
        raise ServiceError(f"cannot read {where}: {exc.strerror or exc} (an incomplete "
                           "treeboard install? reinstall it with pip)") from exc


class ServiceError(TreeboardError, RuntimeError):
    """The service cannot be installed; the message says what to do."""


@dataclass
class Step:
    text: str
    apply: Callable[[], None]


def install_service(
    dry_run: bool = False,
    root: Path = Path("/"),
    run: Callable[..., object] = subprocess.run,
    *,
    executable: Path | None = None,
    neopixel_as_root: bool = False,
    live: bool | None = None,
    read: Callable[[str], str] = service_file,
    default_config: Path = PACKAGE_DIR / "default_config.toml",
    package_dir: Path = PACKAGE_DIR,
    euid: Callable[[], int] | None = None,
    out: Callable[[str], None] = print,
    trusted_uids: tuple[int, ...] = (0,),
    chown: Callable[[Path, int, int], None] = os.chown,
) -> list[str]:
    """Install (or, with ``dry_run``, describe) the service; returns the steps' texts.

    ``live`` (default: ``root`` is "/") runs systemctl/udevadm against the running
    system; otherwise the unit is only enabled inside ``root``. A real run raises
    ServiceError before changing anything if it cannot be done; a dry run prints every
    step first and then raises the same error (``DryRunRefusal``) saying why.
    """
    root = Path(root)
    # An image's root is a folder (a new one is made); a file there, or above it, is no root.
    above = next((p for p in (root, *root.parents) if p.exists()), None)
    if above is not None and not above.is_dir():
        raise ServiceError(f"--root {root}: expected a folder, the root of a Pi image being "
                           "prepared, but " + ("it is a file" if above == root else
                                               f"{above} is a file"))
    live = (root == Path("/")) if live is None else live
    if not dry_run and (euid or os.geteuid)() != 0:
        raise ServiceError("install-service creates a user and writes to /etc: run it with sudo, "
                           f"e.g. `sudo {sys.argv[0] or 'treeboard'} install-service` "
                           "(or add --dry-run to see what it would do)")
    refusals: list[str] | None = [] if dry_run else None
    steps = plan(root, run, executable=executable, neopixel_as_root=neopixel_as_root,
                 live=live, read=read, default_config=default_config, package_dir=package_dir,
                 refusals=refusals, trusted_uids=trusted_uids, chown=chown)
    for step in steps:
        out(("would: " if dry_run else "") + step.text)
        if not dry_run:
            step.apply()
    if refusals:
        raise DryRunRefusal("a real run would refuse: " + "; ".join(refusals))
    return [step.text for step in steps]


class DryRunRefusal(ServiceError):
    """What a dry run found that would stop the real install (after listing every step)."""


def plan(root: Path, run: Callable[..., object], *, executable: Path | None, neopixel_as_root: bool,
         live: bool, read: Callable[[str], str] = service_file,
         default_config: Path = PACKAGE_DIR / "default_config.toml", package_dir: Path = PACKAGE_DIR,
         refusals: list[str] | None = None, trusted_uids: tuple[int, ...] = (0,),
         chown: Callable[[Path, int, int], None] = os.chown) -> list[Step]:
    """Every step of the install, decided up front so --dry-run shows exactly them.

    With ``refusals`` (a dry run) a reason the install cannot go on is added there and the
    plan carries on with what it would do; without, it raises ServiceError at once."""
    steps: list[Step] = []
    staged = ["--root", str(root)] if root != Path("/") else []

    def refuse(exc: ServiceError) -> None:
        if refusals is None:
            raise exc
        refusals.append(str(exc))

    def command(*argv: str) -> None:
        steps.append(Step("run: " + " ".join(argv), lambda: _run(run, list(argv))))

    def write(target: Path, text: str, note: str = "", private: bool = False) -> None:
        where = root / target.relative_to("/")
        if not private:
            steps.append(Step(f"write {where}{note}", lambda: _write(where, text)))
            return
        # Root's, readable by the service's group alone (0640): a secret may be put in it.
        steps.append(Step(f"write {where}{note}, mode 640, group {USER}",
                          lambda: _write(where, text, 0o640,
                                         lambda tmp: chown(tmp, 0, _group_id(root, USER)))))

    # 1-2. The user and its groups.
    for group in GROUPS:
        if not _group_exists(root, group):
            command("groupadd", *staged, "--system", group)
    if _user_exists(root, USER):
        command("usermod", *staged, "--append", "--groups", ",".join(GROUPS), USER)
    else:
        command("useradd", *staged, "--system", "--user-group", "--groups", ",".join(GROUPS),
                "--home-dir", str(STATE_DIR), "--no-create-home", "--shell", "/usr/sbin/nologin", USER)

    # 3. The unit (and the drop-in for the root NeoPixel driver).
    try:
        exe = executable or find_executable()
    except ServiceError as exc:
        refuse(exc)
        exe = Path("/usr/local/bin/treeboard")  # where it would be named, for the listing
    try:
        unit = render_unit(read(UNIT_NAME), exe, package_dir)
    except ServiceError as exc:
        refuse(exc)
        unit = ""
    unit_path = Path("/etc/systemd/system") / UNIT_NAME
    write(unit_path, unit, f" (ExecStart={exe})")
    drop_in = Path("/etc/systemd/system/treeboard.service.d/root.conf")
    as_root = neopixel_as_root or (root / drop_in.relative_to("/")).exists()
    if as_root:
        # A root service runs whatever is in these files: none may be changed by anyone but
        # root, or changing one is running code as root.
        problem = writable_by_others([exe, _interpreter(exe), *import_paths(), package_dir],
                                     trusted_uids)
        if problem is not None:
            refuse(ServiceError(f"the service would run as root (the NeoPixel drop-in), and {problem}: "
                                "whoever can change it could run code as root. Make the install "
                                "root's, e.g. `sudo chown -R root:root /opt/treeboard && "
                                "sudo chmod -R go-w /opt/treeboard` (docs/service.md)"))
    # The updates' units (docs/service.md, "Updates"): the schedule and the page's button.
    for name in UPDATE_UNITS:
        write(Path("/etc/systemd/system") / name, read(name).replace(CURRENT_EXE, str(exe)))
    if neopixel_as_root:
        write(drop_in, read("treeboard-root.conf"), " (run as root for rpi_ws281x)")
    elif (root / drop_in.relative_to("/")).exists():
        steps.append(Step(f"keep {root / drop_in.relative_to('/')} (remove it to run as {USER} again)",
                          lambda: None))

    # 4. The config: a user's own is never overwritten.
    config = root / CONFIG_PATH.relative_to("/")
    if config.exists():
        exposed = exposed_secret(config)
        if exposed is not None:
            refuse(ServiceError(exposed))
        steps.append(Step(f"keep {config} (already there)", lambda: None))
    else:
        write(CONFIG_PATH, _read(default_config), " (the default config)", private=True)

    # 5. udev rules: ours, and the firmware bridge's.
    for rule in ("99-treeboard.rules", "99-treeboard-bridge.rules"):
        write(Path("/etc/udev/rules.d") / rule, read(rule))

    # 6. Tell systemd and udev, and start.
    if live:
        command("systemctl", "daemon-reload")
        command("udevadm", "control", "--reload")
        command("udevadm", "trigger", "--subsystem-match=gpio", "--subsystem-match=spidev",
                "--subsystem-match=tty")
        command("systemctl", "enable", UNIT_NAME, *UPDATE_UNITS[1:])
        # restart, not `enable --now`: a reinstall must replace the running daemon too.
        command("systemctl", "restart", UNIT_NAME)
    else:
        command("systemctl", f"--root={root}", "enable", UNIT_NAME, *UPDATE_UNITS[1:])
    return steps


def import_paths() -> list[Path]:
    """Where the service's Python finds code: this interpreter's sys.path (the same venv)."""
    return [Path(p) for p in sys.path if p and Path(p).exists()]


#: At most this many files are looked at under one path (a venv holds a few thousand).
MAX_CHECKED = 200_000


def writable_by_others(paths: Sequence[Path | None], trusted_uids: tuple[int, ...] = (0,)
                       ) -> str | None:
    """The first file or directory among `paths`, their contents and every directory above
    them, that someone other than root could change (owned by another user, or writable by
    its group or by anyone), said as a reason; None when root alone can. (`trusted_uids`:
    the owners allowed, root's; tests add their own.)"""
    seen: set[Path] = set()

    def bad(path: Path, st: os.stat_result) -> str | None:
        if st.st_uid not in trusted_uids:
            try:
                owner = pwd.getpwuid(st.st_uid).pw_name
            except KeyError:
                owner = f"uid {st.st_uid}"
            return f"{path} is owned by {owner}"
        sticky = stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not stat.S_ISLNK(st.st_mode) and not sticky:
            who = "anyone" if st.st_mode & stat.S_IWOTH else f"group {_group_name(st.st_gid)}"
            return f"{path} is writable by {who}"
        return None

    checked = 0
    for top in paths:
        if top is None:
            continue
        top = Path(os.path.abspath(top))
        for above in [top, *top.parents]:   # a writable directory above lets one swap it
            if above in seen:
                continue
            seen.add(above)
            try:
                problem = bad(above, os.lstat(above))
            except OSError:
                continue
            if problem:
                return problem
        if not top.is_dir():
            continue
        for folder, dirs, files in os.walk(top):
            for name in dirs + files:
                path = Path(folder) / name
                checked += 1
                if checked > MAX_CHECKED:
                    return f"more than {MAX_CHECKED} files are under {top} (not all checked)"
                try:
                    problem = bad(path, os.lstat(path))
                except OSError:
                    continue
                if problem:
                    return problem
    return None


def _group_name(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def find_executable() -> Path:
    """The `treeboard` script of the environment running this command."""
    # sudo resets PATH, so the venv beside sys.executable comes first (sys.executable is
    # not resolved: a venv's python is a symlink to the base interpreter).
    beside = Path(sys.executable).parent / "treeboard"
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside.absolute()
    found = shutil.which("treeboard")
    if found:
        return Path(found).absolute()
    raise ServiceError("cannot find the installed `treeboard` executable; "
                       "run install-service with the one in the project's venv "
                       "(sudo /opt/treeboard/.venv/bin/treeboard install-service)")


def render_unit(template: str, executable: Path, package_dir: Path = PACKAGE_DIR) -> str:
    """The unit with ExecStart= naming ``executable``, fitted to where it is installed."""
    # A version installed by `treeboard update` (versions/<v>/venv/bin/treeboard): the unit
    # names it through the `current` link, which each update switches.
    parts = executable.parts
    if len(parts) > 5 and parts[-3:] == ("venv", "bin", "treeboard") and parts[-5] == "versions":
        executable = Path(*parts[:-5]) / "current" / "venv" / "bin" / "treeboard"
    exe = str(executable)
    if any(c.isspace() for c in exe):
        exe = '"' + exe.replace("\\", "\\\\").replace('"', '\\"') + '"'
    lines = []
    for line in template.splitlines():
        if line.startswith("ExecStart="):
            line = f"ExecStart={exe} run --config {CONFIG_PATH}"
        lines.append(line)
    text = "\n".join(lines) + "\n"
    # ProtectHome=yes hides /home, /root and /run/user from the service. A checkout in
    # /home/pi still works read-only; one in /root cannot work for the treeboard user.
    needed = [executable, _interpreter(executable), package_dir]
    homes = [p for p in needed if p is not None and _under(p, Path("/home"))]
    roots = [p for p in needed if p is not None and (_under(p, Path("/root")) or _under(p, Path("/run/user")))]
    if roots:
        raise ServiceError(f"{roots[0]} is in root's home, which the {USER} user cannot read: "
                           "install treeboard elsewhere (e.g. a checkout in /opt/treeboard with ./dev)")
    if homes:
        text = text.replace("ProtectHome=yes", "# treeboard is installed under /home: readable, never writable\nProtectHome=read-only")
    return text


def _interpreter(script: Path) -> Path | None:
    """The resolved Python a console script runs with (its #! line), if readable."""
    try:
        with open(script, "rb") as f:
            first = f.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    parts = first[2:].decode(errors="replace").split()
    return Path(parts[0]).resolve() if parts else None


def _under(path: Path, top: Path) -> bool:
    return path == top or top in path.parents


def exposed_secret(config: Path) -> str | None:
    """Why a config kept as it is may not stay so: it holds a secret (web.token, remote.secret)
    and every account can read it, which the daemon refuses as it refuses such a secret_file
    (board_driver.config.check_private). None when it is fine, or not even TOML (the daemon
    says what is wrong with it at start)."""
    try:
        with open(config, "rb") as f:
            mode = os.fstat(f.fileno()).st_mode
            data = read_toml(config, f.read())
        check_private(config, data, mode)
    except ConfigError as exc:
        return None if exc.key == "" else str(exc)
    except OSError as exc:
        return f"cannot read {config}: {exc.strerror}"
    return None


def _group_id(root: Path, name: str) -> int:
    """The group's number: the running system's (NSS), or in an image its /etc/group's."""
    if root == Path("/"):
        try:
            return grp.getgrnam(name).gr_gid
        except KeyError:
            pass
    else:
        try:
            for line in (root / "etc" / "group").read_text().splitlines():
                fields = line.split(":")
                if fields[0] == name and len(fields) > 2 and fields[2].isdigit():
                    return int(fields[2])
        except OSError:
            pass
    raise ServiceError(f"the group {name} is missing (useradd --user-group should have made it)")


def _group_exists(root: Path, name: str) -> bool:
    return _exists(root, "group", name, grp.getgrnam)


def _user_exists(root: Path, name: str) -> bool:
    return _exists(root, "passwd", name, pwd.getpwnam)


def _exists(root: Path, table: str, name: str, lookup: Callable[[str], object]) -> bool:
    """Is ``name`` in /etc/{table}? The running system asks NSS; an image its own file."""
    if root == Path("/"):
        try:
            lookup(name)
            return True
        except KeyError:
            return False
    try:
        lines = (root / "etc" / table).read_text().splitlines()
    except FileNotFoundError:
        return False
    return any(line.split(":", 1)[0] == name for line in lines)


def _read(path: Path) -> str:
    try:
        return path.read_text()
    except OSError as exc:
        raise ServiceError(f"cannot read {path}: {exc.strerror}") from exc


def _write(path: Path, text: str, mode: int = 0o644,
           own: Callable[[Path], None] | None = None) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_whole(path, text, mode=mode, own=own)   # never a half-written unit or config


def _run(run: Callable[..., object], argv: list[str]) -> None:
    try:
        run(argv, check=True)
    except FileNotFoundError as exc:
        raise ServiceError(f"`{argv[0]}` is not installed: {exc}") from exc
    except subprocess.CalledProcessError as exc:
        raise ServiceError(f"`{' '.join(argv)}` failed with status {exc.returncode}") from exc


# The command line -----------------------------------------------------------------

def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `install-service` to the `treeboard` command."""
    p = subparsers.add_parser("install-service",
                              help="install the systemd service, its user, config and udev rules")
    p.add_argument("--dry-run", action="store_true", help="print every step, change nothing")
    p.add_argument("--root", type=Path, default=Path("/"), metavar="DIR",
                   help="install into DIR (a Pi image) instead of this system")
    p.add_argument("--neopixel-as-root", action="store_true",
                   help="also install the drop-in that runs the daemon as root (rpi_ws281x on Pi 0-4)")
    p.set_defaults(func=install_service_command)


def install_service_command(args: argparse.Namespace | Sequence[str]) -> int:
    """`treeboard install-service [--dry-run] [--root DIR] [--neopixel-as-root]`."""
    if not isinstance(args, argparse.Namespace):
        parser = argparse.ArgumentParser(prog="treeboard")
        register(parser.add_subparsers())
        args = parser.parse_args(["install-service", *args])
    dry_run = getattr(args, "dry_run", False)
    try:
        install_service(dry_run=dry_run, root=Path(getattr(args, "root", None) or "/"),
                        neopixel_as_root=getattr(args, "neopixel_as_root", False))
    except ServiceError as exc:
        if dry_run:
            print("(dry run: nothing was changed)")
        print(f"treeboard: {exc}", file=sys.stderr)
        return 1
    if dry_run:
        print("(dry run: nothing was changed)")
        if os.geteuid() != 0:
            print(f"(a real run needs root: sudo {sys.argv[0] or 'treeboard'} install-service)")
    return 0
