"""The real browser and the real sim the page's tests drive: Debian's chromium through
Playwright (never a downloaded browser), and `treeboard sim` in a subprocess whose simulated
sensors are worked through its standard input. Where chromium or Playwright is missing the tests
skip on a developer's machine and FAIL under CI=true."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = os.environ.get("TREEBOARD_CHROMIUM", "/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 900}
TREEBOARD = str(Path(sys.executable).with_name("treeboard"))


def unavailable(reason: str):
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"browser tests cannot run under CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    """One chromium for the module, with a fresh profile (user-data-dir)."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        unavailable("the playwright package is not installed (pip install -e '.[dev]')")
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        unavailable(f"no chromium at {CHROMIUM} (./dev test installs Debian's chromium)")
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")), executable_path=CHROMIUM,
            headless=True, args=ARGS, viewport=DESKTOP)
        try:
            yield context
        finally:
            context.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Sim:
    """`treeboard sim` in a subprocess: the hands type on its standard input."""

    def __init__(self, tmp_path: Path, port: int, *args: str, new_game: bool = True):
        self.port = port
        self.url = f"http://localhost:{port}/"
        cmd = [TREEBOARD, "sim", "--journal", str(tmp_path / "sim.sqlite"), "--web-port", str(port),
               *args] + (["--new-game"] if new_game else [])
        self.log = open(tmp_path / f"sim-{port}-{time.monotonic_ns()}.log", "w")
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=self.log,
                                     stderr=subprocess.STDOUT, text=True)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"sim exited: {Path(self.log.name).read_text()}")
            try:
                self.state()
                return
            except OSError:
                time.sleep(0.05)
        raise AssertionError("the page did not come up")

    def type(self, *lines: str) -> None:
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def state(self) -> dict:
        with urllib.request.urlopen(self.url + "api/state", timeout=2) as r:
            return json.loads(r.read())

    def wait(self, condition, timeout: float = 5.0) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            state = self.state()
            if condition(state) or time.monotonic() > deadline:
                return state
            time.sleep(0.02)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()  # end of input: sim quits as after `quit`
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.log.close()


def page_reading(browser, sim: Sim, languages: list[str]):
    """A new page of the sim's board, connected, in a browser that reads `languages` first to
    last (the profile's own locale is the machine's)."""
    page = browser.new_page()
    page.add_init_script("Object.defineProperty(navigator, 'languages', "
                         f"{{get: () => {json.dumps(languages)}}});")
    page.goto(sim.url)
    page.wait_for_selector("body[data-connected=yes]")
    return page


@pytest.fixture
def sims(tmp_path):
    started: list[Sim] = []

    def start(*args: str, port: int | None = None, new_game: bool = True) -> Sim:
        sim = Sim(tmp_path, port or free_port(), *args, new_game=new_game)
        started.append(sim)
        return sim

    yield start
    for sim in started:
        sim.stop()
