"""`treeboard sim --remote URL --join GAME --seat N`: two simulated boards in two processes play
one game through a real Mosquitto, as docs/remote.md tells a new user to try it."""

from __future__ import annotations

import contextlib
import os
import queue
import re
import subprocess
import sys
import threading

from tests.broker import Broker
from tests.waits import Deadline, scaled


class Sim:
    def __init__(self, tmp_path, broker: Broker, seat: int, secret: str = "kitchen-table-42",
                 verbose: bool = False):
        # verbose: the log (stderr, read with the output) says what the link heard, such as
        # a refusal of its takeback, which the sim does not narrate.
        env = dict(os.environ, XDG_STATE_HOME=str(tmp_path / "state"),
                   TREEBOARD_REMOTE_SECRET=secret, NO_COLOR="1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "board_driver.cli", "sim", "--no-web", "--remote", broker.url,
             "--join", "kitchen", "--seat", str(seat), *(["--verbose"] if verbose else [])],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            env=env)
        self.lines: queue.Queue = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))

    def expect(self, pattern: str, timeout: float = 15.0) -> str:
        deadline = Deadline(timeout)
        while not deadline.passed():
            try:
                line = self.lines.get(timeout=0.1)
            except queue.Empty:
                continue
            self.seen.append(line)
            if re.search(pattern, line):
                return line
        raise AssertionError(f"{deadline.failure(repr(pattern))}; printed:\n" +
                             "\n".join(self.seen[-40:]))

    def type(self, line: str) -> None:
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(BrokenPipeError):
                self.type("quit")
            try:
                self.proc.wait(scaled(15))
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()


def test_two_sims_play_and_take_back_through_the_broker(tmp_path, broker):
    # The second board's sim also logs (its lines start "INFO:" or "DEBUG:"): its narration is
    # matched from the start of a line.
    with contextlib.ExitStack() as started:   # each closed, whatever fails (its start too)
        first = Sim(tmp_path, broker, 0)
        started.callback(first.close)
        second = Sim(tmp_path, broker, 1, verbose=True)
        started.callback(second.close)
        first.expect("^you play player 1, drawn blue")      # which player this board is
        second.expect("^you play player 2, drawn yellow")
        first.expect("other board: connected")
        second.expect("^other board: connected")
        first.type("place h0.0")
        first.expect(r"move 1: h0\.0")
        line = second.expect(r"^move 1: h0\.0")
        assert "put it on the board" in line        # the other family's move, to make
        second.type("place h0.0")                   # they put it: no correction left
        second.type("place v0.0")
        second.expect(r"^move 2: v0\.0")
        first.expect(r"move 2: v0\.0.*put it on the board")
        first.type("place v0.0")
        # The second board asks to take its move back; the first refuses, then accepts.
        second.type("takeback")
        second.expect("^asked the other board to take back move 2")
        first.expect("asks to take back move 2")
        first.type("refuse")
        # Asked again before the refusal arrived, the refusal would cancel the new request.
        second.expect("treeboard.remote:the other board refused the takeback")
        second.type("takeback")
        first.expect("asks to take back move 2")
        first.type("accept")
        first.expect(r"takeback of v0\.0")
        second.expect(r"^takeback of v0\.0")
        # Neither board may start another game on its own.
        first.type("new")
        first.expect("a remote game is one game")
    assert first.proc.returncode == 0 and second.proc.returncode == 0


def test_sim_remote_needs_its_flags_and_a_secret(tmp_path, broker):
    env = dict(os.environ, XDG_STATE_HOME=str(tmp_path))
    env.pop("TREEBOARD_REMOTE_SECRET", None)
    for args, words in [(["--remote", broker.url], "--join and --seat"),
                        (["--join", "g"], "--remote"),
                        (["--remote", broker.url, "--join", "g", "--seat", "0", "--watch"],
                         "--watch"),
                        (["--remote", broker.url, "--join", "g", "--seat", "0"], "shared secret"),
                        (["--remote", "http://x", "--join", "g", "--seat", "0",
                          "--secret-file", "/nonexistent"], "remote")]:
        out = subprocess.run([sys.executable, "-m", "board_driver.cli", "sim", "--no-web", *args],
                             input="", capture_output=True, text=True, timeout=scaled(60),
                             env=env)
        assert out.returncode == 2, (args, out.stderr)
        assert words in out.stderr and "Traceback" not in out.stderr, (args, out.stderr)
