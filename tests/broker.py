"""A real Mosquitto broker for the remote-play tests, on a free localhost port with a config of
its own. `./dev test` installs Mosquitto when it is missing; under CI a missing broker fails
the tests instead of skipping them, so remote play is never silently untested."""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest


def mosquitto_binary() -> str:
    found = shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/bin/mosquitto") if os.access(p, os.X_OK)), None)
    if found is None:
        message = "mosquitto is not installed (./dev test installs it: apt-get install mosquitto)"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return found


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    """One mosquitto process; `stop` and `start` again on the same port (a broker restart)."""

    def __init__(self, directory: Path, *, users: dict[str, str] | None = None,
                 tls: bool = False, websockets: Path | None = None, acl: str | None = None,
                 extra: tuple[str, ...] = ()):
        self.binary = mosquitto_binary()
        self.port = free_port()
        self.directory = directory
        self.conf = directory / "mosquitto.conf"
        self.tls = tls
        # Run as whoever runs the tests (as root, mosquitto would otherwise drop to its own
        # user, who cannot read the test's private folder: its log, passwords and key).
        lines = [f"listener {self.port} 127.0.0.1", "persistence false",
                 f"user {getpass.getuser()}", f"log_dest file {directory / 'mosquitto.log'}"]
        if users is None:
            lines.append("allow_anonymous true")
        else:
            # mosquitto_passwd hashes the passwords into the broker's own file format.
            passwords = directory / "passwords"
            passwords.touch(mode=0o600)
            for user, password in users.items():
                subprocess.run([shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd",
                                "-b", str(passwords), user, password], check=True,
                               capture_output=True)
            lines += ["allow_anonymous false", f"password_file {passwords}"]
            if acl is not None:   # what each account may touch (docs/remote.md)
                (directory / "acl").write_text(acl)
                lines.append(f"acl_file {directory / 'acl'}")
        if tls:
            # A self-signed certificate for localhost and 127.0.0.1, trusted by naming it as the
            # client's CA file: the way a family trusts their own Pi's broker.
            self.ca_file = directory / "broker.crt"
            key = directory / "broker.key"
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                            "-subj", "/CN=localhost", "-keyout", str(key), "-out", str(self.ca_file),
                            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                           check=True, capture_output=True)
            lines += [f"certfile {self.ca_file}", f"keyfile {key}"]
        self.ws_port = None
        if websockets is not None:
            # A browser's listener (MQTT over WebSockets), serving the seat page from
            # `websockets` as its http_dir. Debian's 2.0.11 binds it on every interface
            # whatever address it is given, and starts only beside a normal listener (above).
            self.ws_port = free_port()
            lines += [f"listener {self.ws_port}", "protocol websockets",
                      f"http_dir {websockets}"]
        lines += extra   # (global settings, such as docs/remote.md's size limits)
        self.conf.write_text("\n".join(lines) + "\n")
        self.proc: subprocess.Popen | None = None

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.ws_port}"

    @property
    def url(self) -> str:
        return f"mqtts://localhost:{self.port}" if self.tls else f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen([self.binary, "-c", str(self.conf)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited with {self.proc.returncode}; see "
                                   f"{self.directory / 'mosquitto.log'}")
            try:
                for port in (self.port, self.ws_port):
                    if port is not None:
                        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                            pass
                return
            except OSError:
                time.sleep(0.02)
        raise RuntimeError("mosquitto did not open its port within 10 s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
