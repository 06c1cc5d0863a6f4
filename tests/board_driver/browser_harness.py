"""The real browser and the real sim the page's tests drive: Debian's chromium through
Playwright (never a downloaded browser), and `treeboard sim` in a subprocess whose simulated
sensors are worked through its standard input. Where chromium or Playwright is missing the tests
skip on a developer's machine and FAIL under CI=true."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.waits import Deadline, ms, scaled, wait_for

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
def chromium(tmp_path_factory):
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


@pytest.fixture
def browser(chromium):
    """The module's chromium for one test: Playwright's waits (30 s on an idle machine)
    stretched for the machine's load as the test starts, and the pages the test opened closed
    after it, whether it passed or not."""
    chromium.set_default_timeout(ms(30))
    chromium.set_default_navigation_timeout(ms(30))
    before = set(chromium.pages)
    yield chromium
    for page in chromium.pages:
        if page not in before:
            page.close()


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
        try:   # a sim that does not come up is stopped, its log closed, before the test fails
            wait_for(self._up, 30, f"the page of `treeboard sim` on port {port} to come up")
        except BaseException as e:
            self.stop()
            if isinstance(e, AssertionError):
                raise AssertionError(f"{e}; its log:\n{self.said()}") from None
            raise

    def _up(self) -> bool:
        if self.proc.poll() is not None:
            raise AssertionError(f"the sim exited with {self.proc.returncode}")
        try:
            self.state()
            return True
        except OSError:   # not listening yet (or too busy to answer in time)
            return False

    def said(self) -> str:
        """What the sim wrote so far (its terminal and its log)."""
        if not self.log.closed:
            self.log.flush()
        return Path(self.log.name).read_text()

    def type(self, *lines: str) -> None:
        for line in lines:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def state(self) -> dict:
        with urllib.request.urlopen(self.url + "api/state", timeout=scaled(5)) as r:
            return json.loads(r.read())

    def wait(self, condition, timeout: float = 5.0) -> dict:
        """The sim's state once `condition` holds of it, or its last state once `timeout`
        (scaled for the machine's load) has passed: the test's assert says what was wanted."""
        deadline = Deadline(timeout)
        while True:
            state = self.state()
            if condition(state) or deadline.passed():
                return state
            time.sleep(0.02)

    def stop(self) -> None:
        """End the sim (as after `quit`: the end of its input), killed if it will not; its log
        closed. Again, or after it ended by itself, it does nothing more."""
        try:
            with contextlib.suppress(BrokenPipeError):
                self.proc.stdin.close()
            try:
                self.proc.wait(scaled(10))
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(scaled(5))
        finally:
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
    """Starts `treeboard sim`s (`sims(*args, port=..., new_game=...)`) and stops every one
    after the test, each even when another's stop fails."""
    with contextlib.ExitStack() as stack:
        def start(*args: str, port: int | None = None, new_game: bool = True) -> Sim:
            sim = Sim(tmp_path, port or free_port(), *args, new_game=new_game)
            stack.callback(sim.stop)
            return sim

        yield start
