"""install-service into a temp root, with the commands recorded instead of run."""

import configparser
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from board_driver.cli import service
from board_driver.cli.service import ServiceError, install_service, install_service_command, render_unit
from tests.waits import scaled

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "systemd" / "treeboard.service"
DROP_IN = REPO / "systemd" / "treeboard-root.conf"


class Recorder:
    def __init__(self, root: Path | None = None):
        self.commands = []
        self.root = root

    def __call__(self, argv, check):
        assert check is True
        self.commands.append(argv)
        if argv[0] == "useradd" and self.root is not None:   # its group, as useradd makes it
            with open(self.root / "etc" / "group", "a") as f:
                f.write("treeboard:x:996:\n")


@pytest.fixture
def fake_exe(tmp_path):
    """A treeboard console script outside any home directory."""
    exe = tmp_path / "venv" / "bin" / "treeboard"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/usr/bin/python3\nimport sys\n")
    exe.chmod(0o755)
    return exe


@pytest.fixture
def target(tmp_path):
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    (root / "etc" / "group").write_text("root:x:0:\ndialout:x:20:\ngpio:x:997:\n")
    (root / "etc" / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    return root


@pytest.fixture
def default_config(tmp_path):
    path = tmp_path / "default_config.toml"
    path.write_text('layout = "tree-planting-classic-pins"\n')
    return path


def install(target, fake_exe, default_config, **kw):
    recorder = Recorder(target)
    printed = []
    kw.setdefault("euid", lambda: 0)
    kw.setdefault("chown", lambda path, uid, gid: None)
    kw.setdefault("trusted_uids", (0, os.getuid()))  # (the test's own files: as if root's)
    steps = install_service(root=target, run=recorder, executable=fake_exe,
                            default_config=default_config, out=printed.append, **kw)
    return steps, recorder.commands, printed


def tree(root: Path) -> dict:
    return {p.relative_to(root): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_installs_files_and_runs_the_commands(target, fake_exe, default_config):
    _, commands, printed = install(target, fake_exe, default_config, live=True)
    r = str(target)
    assert commands == [
        ["groupadd", "--root", r, "--system", "spi"],  # gpio and dialout exist already
        ["groupadd", "--root", r, "--system", "audio"],
        ["useradd", "--root", r, "--system", "--user-group", "--groups", "gpio,spi,dialout,audio",
         "--home-dir", "/var/lib/treeboard", "--no-create-home", "--shell", "/usr/sbin/nologin", "treeboard"],
        ["systemctl", "daemon-reload"],
        ["udevadm", "control", "--reload"],
        ["udevadm", "trigger", "--subsystem-match=gpio", "--subsystem-match=spidev", "--subsystem-match=tty"],
        ["systemctl", "enable", "treeboard.service", "treeboard-update.timer", "treeboard-update.path"],
        ["systemctl", "restart", "treeboard.service"],
    ]
    unit = (target / "etc/systemd/system/treeboard.service").read_text()
    assert f"ExecStart={fake_exe} run --config /etc/treeboard/config.toml\n" in unit
    assert (target / "etc/treeboard/config.toml").read_text() == default_config.read_text()
    assert (target / "etc/udev/rules.d/99-treeboard.rules").read_text() == (REPO / "systemd/99-treeboard.rules").read_text()
    bridge = REPO / "firmware_bridge/99-treeboard-bridge.rules"
    if bridge.exists():
        assert (target / "etc/udev/rules.d/99-treeboard-bridge.rules").read_bytes() == bridge.read_bytes()
    assert not (target / "etc/systemd/system/treeboard.service.d").exists()
    assert (target / "etc/systemd/system/treeboard.service").stat().st_mode & 0o777 == 0o644
    assert len(printed) == 8 + 3 + 3 + bridge.exists() and not any(p.startswith("would") for p in printed)
    timer = (target / "etc/systemd/system/treeboard-update.service").read_text()
    assert f"ExecStart={fake_exe} update --scheduled\n" in timer


def test_existing_user_is_added_to_the_groups_and_image_is_only_enabled(target, fake_exe, default_config):
    (target / "etc/passwd").write_text("treeboard:x:990:990::/var/lib/treeboard:/usr/sbin/nologin\n")
    with open(target / "etc/group", "a") as f:
        f.write("treeboard:x:990:\n")
    _, commands, _ = install(target, fake_exe, default_config)  # a temp root is an image: not live
    r = str(target)
    assert ["usermod", "--root", r, "--append", "--groups", "gpio,spi,dialout,audio", "treeboard"] in commands
    assert not any(c[0] == "useradd" for c in commands)
    assert commands[-1] == ["systemctl", f"--root={r}", "enable", "treeboard.service",
                            "treeboard-update.timer", "treeboard-update.path"]
    assert not any("daemon-reload" in c or "restart" in c for c in commands)


def test_dry_run_changes_nothing_and_says_everything(target, fake_exe, default_config):
    before = tree(target)
    steps, commands, printed = install(target, fake_exe, default_config, dry_run=True,
                                       euid=lambda: 1000)  # no root needed to look
    assert commands == [] and tree(target) == before
    assert printed == ["would: " + s for s in steps]
    assert any("etc/systemd/system/treeboard.service" in s for s in steps)
    assert any(s.startswith("run: useradd") for s in steps)


def test_existing_config_is_never_overwritten(target, fake_exe, default_config):
    config = target / "etc/treeboard/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('layout = "my-own"\n')
    steps, _, _ = install(target, fake_exe, default_config)
    assert config.read_text() == 'layout = "my-own"\n'
    assert f"keep {config} (already there)" in steps


def test_not_root_is_a_clear_error(target, fake_exe, default_config, capsys, monkeypatch):
    with pytest.raises(ServiceError, match="sudo"):
        install(target, fake_exe, default_config, euid=lambda: 1000)
    assert tree(target) == {Path("etc/group"): b"root:x:0:\ndialout:x:20:\ngpio:x:997:\n",
                            Path("etc/passwd"): b"root:x:0:0:root:/root:/bin/bash\n"}
    monkeypatch.setattr(service.os, "geteuid", lambda: 1000)
    assert install_service_command(["--root", str(target)]) == 1
    assert "sudo" in capsys.readouterr().err


def test_a_failing_command_stops_the_install(target, fake_exe, default_config):
    def failing(argv, check):
        raise subprocess.CalledProcessError(9, argv)
    with pytest.raises(ServiceError, match="groupadd.*status 9"):
        install_service(root=target, run=failing, executable=fake_exe,
                        default_config=default_config, euid=lambda: 0, out=lambda s: None)


def test_neopixel_as_root_installs_the_drop_in(target, fake_exe, default_config):
    install(target, fake_exe, default_config, neopixel_as_root=True)
    drop_in = target / "etc/systemd/system/treeboard.service.d/root.conf"
    assert drop_in.read_text() == DROP_IN.read_text()
    # A later plain reinstall keeps it (it is the user's choice) and says so.
    steps, _, _ = install(target, fake_exe, default_config)
    assert drop_in.exists() and any(s.startswith(f"keep {drop_in}") for s in steps)


# The unit itself -----------------------------------------------------------------

def parse_unit(text: str) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None, delimiters=("=",),
                                       comment_prefixes=("#", ";"), empty_lines_in_values=False)
    parser.optionxform = str  # systemd keys are case-sensitive
    # Repeated keys (DeviceAllow=) would clash in configparser: number them.
    seen: dict[str, int] = {}
    lines = []
    for line in text.splitlines():
        if "=" in line and not line.startswith("#"):
            key = line.split("=", 1)[0]
            seen[key] = seen.get(key, 0) + 1
            line = f"{key}#{seen[key]}={line.split('=', 1)[1]}" if seen[key] > 1 else line
        lines.append(line)
    parser.read_string("\n".join(lines))
    return parser


def test_the_unit_has_the_required_keys():
    unit = parse_unit(render_unit(UNIT.read_text(), Path("/opt/treeboard/.venv/bin/treeboard")))
    s = unit["Service"]
    expected = {
        "Type": "notify", "NotifyAccess": "main", "WatchdogSec": "10", "Restart": "on-failure",
        "User": "treeboard", "Group": "treeboard", "SupplementaryGroups": "gpio spi dialout audio",
        "StateDirectory": "treeboard", "ConfigurationDirectory": "treeboard",
        "ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes", "NoNewPrivileges": "yes",
        "ProtectKernelTunables": "yes", "ProtectControlGroups": "yes", "LockPersonality": "yes",
        "MemoryDenyWriteExecute": "yes", "RestrictAddressFamilies": "AF_UNIX AF_INET AF_INET6",
        "ExecStart": "/opt/treeboard/.venv/bin/treeboard run --config /etc/treeboard/config.toml",
    }
    assert {k: s.get(k) for k in expected} == expected
    assert "RestartSec" in s
    # Files: beyond every connection the page may hold (the default 1,024 was not).
    from board_driver.web.guard import MAX_CONNECTIONS
    assert int(s["LimitNOFILE"]) >= 4 * MAX_CONNECTIONS
    devices = [v for k, v in s.items() if k.split("#")[0] == "DeviceAllow"]
    assert devices == ["char-gpiochip rw", "char-spi rw", "char-ttyACM rw", "/dev/gpiomem rw", "/dev/pio0 rw",
                       "char-alsa rw"]
    assert unit["Install"]["WantedBy"] == "multi-user.target"
    # The journal path of the default config is inside the StateDirectory.
    assert 'journal = "/var/lib/treeboard/journal.sqlite"' in (REPO / "board_driver/default_config.toml").read_text() \
        or not (REPO / "board_driver/default_config.toml").exists()


def test_rendering_fits_the_install_location(tmp_path):
    template = UNIT.read_text()
    spaced = render_unit(template, Path("/opt/tree board/bin/treeboard"), package_dir=Path("/opt/x"))
    assert 'ExecStart="/opt/tree board/bin/treeboard" run --config' in spaced
    in_home = render_unit(template, Path("/home/pi/treeboard/.venv/bin/treeboard"), package_dir=Path("/opt/x"))
    assert "\nProtectHome=read-only\n" in in_home and "ProtectHome=yes" not in in_home
    with pytest.raises(ServiceError, match="root's home"):
        render_unit(template, Path("/opt/bin/treeboard"), package_dir=Path("/root/treeboard/board_driver"))


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
@pytest.mark.parametrize("with_drop_in", [False, True])
def test_systemd_analyze_verify_accepts_the_unit(tmp_path, fake_exe, with_drop_in):
    text = render_unit(UNIT.read_text(), fake_exe, package_dir=tmp_path)
    if with_drop_in:
        text += "\n" + DROP_IN.read_text()  # a drop-in's settings, as if in the unit itself
    unit = tmp_path / "treeboard.service"
    unit.write_text(text)
    result = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True, text=True,
                            timeout=scaled(60))
    complaints = [line for line in result.stderr.splitlines() if str(unit) in line]
    assert result.returncode == 0 and complaints == [], result.stderr


MDWE_CHILD = r"""
import ctypes, mmap, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(65, 1, 0, 0, 0) != 0:          # PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN
    print("NO-MDWE"); sys.exit(0)
try:                                          # MDWE really is on: W+X memory is refused
    mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    print("MDWE-INEFFECTIVE"); sys.exit(1)
except PermissionError:
    pass
import asyncio, sqlite3, tomllib
import gpiozero, gpiozero.pins.mock, serial, adafruit_pixelbuf
import board_driver.cli, board_driver.daemon.notify, board_driver.cli.service
from board_driver.referee.journal import Journal
with Journal(sys.argv[1]) as j:
    j.start_game("tree-planting", {})
    j.record_move("g1")
    assert j.current().moves == ["g1"]
asyncio.run(asyncio.sleep(0))
print("OK")
"""


def test_memory_deny_write_execute_leaves_the_daemon_working(tmp_path):
    """The unit's MemoryDenyWriteExecute=yes, emulated with the kernel's own PR_SET_MDWE."""
    result = subprocess.run([sys.executable, "-c", MDWE_CHILD, str(tmp_path / "j.sqlite")],
                            capture_output=True, text=True, timeout=scaled(60))
    if result.stdout.strip() == "NO-MDWE":
        pytest.skip("kernel without PR_SET_MDWE (Linux < 6.3)")
    assert result.returncode == 0 and result.stdout.strip() == "OK", result.stdout + result.stderr


def test_dry_run_lists_every_step_then_says_why_a_real_run_would_refuse(target, default_config, tmp_path):
    in_root_home = Path("/root/venv/bin/treeboard")
    printed = []
    with pytest.raises(service.DryRunRefusal, match="a real run would refuse: .*root's home") as exc:
        install_service(dry_run=True, root=target, run=Recorder(), executable=in_root_home,
                        default_config=default_config, euid=lambda: 1000, out=printed.append)
    # Every step is listed before the refusal: nothing is hidden by it.
    assert any(p.startswith("would: write") and "treeboard.service" in p for p in printed)
    assert any("99-treeboard-bridge.rules" in p for p in printed)
    assert printed[-1].startswith("would: run: systemctl")
    # The real run refuses the same thing, before it changes anything.
    before = tree(target)
    with pytest.raises(ServiceError, match="root's home"):
        install_service(root=target, run=Recorder(), executable=in_root_home,
                        default_config=default_config, euid=lambda: 0, out=printed.append)
    assert tree(target) == before
    assert "root's home" in str(exc.value)


def test_the_service_files_are_package_data():
    # What a plain `pip install` ships (pyproject's package-data), read as install-service does.
    assert service.service_file("treeboard.service") == UNIT.read_text()
    assert service.service_file("treeboard-root.conf") == DROP_IN.read_text()
    assert "gpiochip" in service.service_file("99-treeboard.rules")
    assert "SUBSYSTEM" in service.service_file("99-treeboard-bridge.rules")


def test_a_root_service_is_refused_while_others_could_change_what_it_runs(target, fake_exe,
                                                                         default_config):
    """With --neopixel-as-root the service runs as root the code of the venv, which the
    README had users chown to their login: a local privilege escalation. The installer (and
    its dry run) refuses while any file the root service executes or imports, or a directory
    above one, is owned by someone else or writable by a group or by anyone."""
    module = fake_exe.parent.parent / "lib" / "site-packages" / "board_driver" / "x.py"
    module.parent.mkdir(parents=True)
    module.write_text("# code the root service imports\n")
    module.chmod(0o666)
    with pytest.raises(service.DryRunRefusal, match=rf"{module} is writable by anyone: whoever "
                                                    r"can change it could run code as root"):
        install(target, fake_exe, default_config, neopixel_as_root=True, dry_run=True,
                package_dir=fake_exe.parent.parent / "lib")
    before = tree(target)
    with pytest.raises(ServiceError, match="writable by anyone"):
        install(target, fake_exe, default_config, neopixel_as_root=True,
                package_dir=fake_exe.parent.parent / "lib")
    assert tree(target) == before   # refused before anything changed
    # owned by another user (here: every owner but one nobody has)
    problem = service.writable_by_others([fake_exe], trusted_uids=(54321,))
    assert problem is not None and "is owned by" in problem
    # made root's (here: the test's own), it goes through, and the unprivileged unit needs none of it
    module.chmod(0o644)
    install(target, fake_exe, default_config, neopixel_as_root=True,
            package_dir=fake_exe.parent.parent / "lib")
    module.chmod(0o666)
    (target / "etc/systemd/system/treeboard.service.d/root.conf").unlink()
    install(target, fake_exe, default_config, package_dir=fake_exe.parent.parent / "lib")


SECCOMP_CHILD = r"""
import asyncio, ctypes, json, sys
allowed = json.loads(sys.argv[2])
libc = ctypes.CDLL(None, use_errno=True)
assert libc.prctl(38, 1, 0, 0, 0) == 0            # PR_SET_NO_NEW_PRIVS, as NoNewPrivileges=yes
seccomp = ctypes.CDLL("libseccomp.so.2")
seccomp.seccomp_init.restype = ctypes.c_void_p
seccomp.seccomp_init.argtypes = [ctypes.c_uint32]
seccomp.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
seccomp.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint]
seccomp.seccomp_load.argtypes = [ctypes.c_void_p]
ctx = seccomp.seccomp_init(0x00050000 | 1)         # SystemCallErrorNumber=EPERM for the rest
for name in allowed:
    number = seccomp.seccomp_syscall_resolve_name(name.encode())
    if number >= 0:
        assert seccomp.seccomp_rule_add(ctx, 0x7fff0000, number, 0) == 0
assert seccomp.seccomp_load(ctx) == 0
try:
    import os; os.setuid(os.getuid())               # (a privileged call: refused now)
except PermissionError:
    pass
else:
    print("FILTER-INEFFECTIVE"); sys.exit(1)

from board_driver.config import sim_config
from board_driver.daemon.loop import Daemon
from board_driver.daemon.notify import Notifier
from tests.waits import Deadline, scaled   # (the tests' own waits: the child runs in the repo)

async def main():
    config = sim_config(journal=sys.argv[1], layout="tree-planting-classic-matrix")
    config.players = ("human", "computer:easy")
    config.web_port = 0
    daemon = Daemon(config, notifier=Notifier(None), new_game=True, web=True)
    runner = asyncio.ensure_future(daemon.run())
    await asyncio.wait_for(daemon.started.wait(), scaled(30))
    daemon.session.hardware.board.place("h0.0")
    deadline = Deadline(60)
    while len(daemon.session.referee.state.moves) < 2 and not deadline.passed():
        await asyncio.sleep(0.02)
    moves = len(daemon.session.referee.state.moves)
    parts = {p["name"]: p["state"] for p in daemon.supervisor.summary()}
    daemon.stop()
    await runner
    print("OK" if moves >= 2 and set(parts.values()) == {"up"} else f"FAILED {moves} {parts}")

asyncio.run(main())
"""


def _syscalls(group: str) -> set[str]:
    """The system calls of a systemd group, its nested groups expanded."""
    out = subprocess.run(["systemd-analyze", "syscall-filter", group], capture_output=True,
                         text=True, timeout=scaled(60), check=True).stdout
    names: set[str] = set()
    for line in out.splitlines()[1:]:
        word = line.strip()
        if not word or word.startswith("#"):
            continue
        names |= _syscalls(word) if word.startswith("@") else {word}
    return names


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not installed")
def test_the_units_system_call_filter_leaves_the_daemon_working(tmp_path):
    """SystemCallFilter=@system-service ~@privileged with SystemCallErrorNumber=EPERM,
    emulated with libseccomp (what systemd uses) on a real daemon: the sensors, the journal,
    the page on TCP, the computer's worker spawned at the lowest priority, a move from it."""
    unit = UNIT.read_text()
    assert "SystemCallFilter=@system-service\nSystemCallFilter=~@privileged\n" in unit
    allowed = sorted(_syscalls("@system-service") - _syscalls("@privileged"))
    result = subprocess.run([sys.executable, "-c", SECCOMP_CHILD, str(tmp_path / "j.sqlite"),
                             json.dumps(allowed)], capture_output=True, text=True,
                            timeout=scaled(120))
    assert result.returncode == 0 and result.stdout.strip().endswith("OK"), \
        result.stdout + result.stderr[-3000:]


@pytest.mark.parametrize("where", ["a file", "a file's child"])
def test_a_root_that_is_no_folder_is_a_clear_error(tmp_path, capsys, fake_exe, default_config,
                                                   where):
    afile = tmp_path / "image.img"
    afile.write_text("not a folder")
    root = {"a file": afile, "a file's child": afile / "root"}[where]
    before = tree(tmp_path)
    assert install_service_command(["--dry-run", "--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"treeboard: --root {root}: expected a folder") and "Traceback" not in err
    assert ("it is a file" if where == "a file" else f"{afile} is a file") in err
    with pytest.raises(ServiceError, match="expected a folder") as real:   # and a real run
        install(root, fake_exe, default_config)
    assert "\n" not in str(real.value) and tree(tmp_path) == before


def test_the_config_is_written_for_the_service_group_alone(target, fake_exe, default_config):
    owned = []
    steps, _, _ = install(target, fake_exe, default_config,
                          chown=lambda path, uid, gid: owned.append((path.name, uid, gid)))
    config = target / "etc/treeboard/config.toml"
    assert config.read_text() == default_config.read_text()
    assert config.stat().st_mode & 0o777 == 0o640   # root's, and the treeboard group's to read
    assert owned == [("config.toml.treeboard-new", 0, 996)]   # (then renamed into place)
    assert any(s.startswith(f"write {config}") and "mode 640, group treeboard" in s for s in steps)


@pytest.mark.parametrize("dry_run", [True, False])
def test_a_kept_config_holding_a_secret_that_anyone_can_read_is_refused(target, fake_exe,
                                                                        default_config, dry_run):
    config = target / "etc/treeboard/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('[web]\nlisten = "0.0.0.0"\ntoken = "a long board secret"\n')
    config.chmod(0o644)
    before = tree(target)
    with pytest.raises(ServiceError) as refused:
        install(target, fake_exe, default_config, dry_run=dry_run)
    assert f"{config}: web.token: expected a secret kept in a file" in str(refused.value)
    assert "chmod o-rwx" in str(refused.value) and "a long board secret" not in str(refused.value)
    assert tree(target) == before
    config.chmod(0o640)
    install(target, fake_exe, default_config, dry_run=dry_run)


def test_a_version_installed_by_update_is_named_through_the_current_link():
    from board_driver.cli.service import render_unit, service_file

    exe = Path("/opt/treeboard/versions/0.2.0/venv/bin/treeboard")
    unit = render_unit(service_file("treeboard.service"), exe)
    assert "ExecStart=/opt/treeboard/current/venv/bin/treeboard run --config" in unit
    # Before each start, the boot check of the update, outside the sandbox, with no code of
    # the version on trial (board_driver/update/tree.py, copied by each update).
    assert ("ExecStartPre=-+/usr/bin/python3 /opt/treeboard/boot-check.py --config "
            "/etc/treeboard/config.toml\n") in unit
