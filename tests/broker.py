"""A real Mosquitto broker for the remote-play tests, on a free localhost port with a config of
its own. `./dev test` installs Mosquitto when it is missing; under CI a missing broker fails
the tests instead of skipping them, so remote play is never silently untested."""

from __future__ import annotations

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

    def __init__(self, directory: Path, *, password_file: Path | None = None):
        self.binary = mosquitto_binary()
        self.port = free_port()
        self.directory = directory
        self.conf = directory / "mosquitto.conf"
        lines = [f"listener {self.port} 127.0.0.1", "persistence false",
                 f"log_dest file {directory / 'mosquitto.log'}"]
        if password_file is None:
            lines.append("allow_anonymous true")
        else:
            lines += ["allow_anonymous false", f"password_file {password_file}"]
        self.conf.write_text("\n".join(lines) + "\n")
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.proc = subprocess.Popen([self.binary, "-c", str(self.conf)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"mosquitto exited with {self.proc.returncode}; see "
                                   f"{self.directory / 'mosquitto.log'}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
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
