"""Bad input on the command line: exit 2 and one line naming the file and the line, no
traceback; `replay` reads its input as a stream."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

from board_driver.cli import main
from board_driver.cli.rules import CHUNK, read_tokens
from checks import one_line_error
from tests.waits import scaled

NOT_UTF8 = b"place h0.0\n\xff\xfe oops\n"


def test_trace_file_that_is_not_utf8(tmp_path, capsys):
    f = tmp_path / "actions.txt"
    f.write_bytes(NOT_UTF8)
    assert main(["trace", str(f)]) == 2
    assert one_line_error(capsys) == f"treeboard: {f}: line 2: not UTF-8 text (byte 0xff at column 1)"


def test_a_layout_that_is_not_utf8_is_one_line_from_the_command(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes("# Brett für Bäume\n[board]\ngrid = \"3x3\"\n".encode("latin-1"))
    out = subprocess.run([sys.executable, "-m", "board_driver.cli", "trace", "--layout", str(path), "-"],
                         input="", capture_output=True, text=True, timeout=scaled(60))
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        f"treeboard: {path}: file: expected a text file in UTF-8 (byte 0xfc at offset 9 is not UTF-8)"]


def test_replay_file_that_is_not_utf8(tmp_path, capsys):
    f = tmp_path / "moves.txt"
    f.write_bytes(b"h0.0 h1.0\n\xc3(")
    assert main(["replay", "--game", "tree-planting", str(f)]) == 2
    assert one_line_error(capsys) == f"treeboard: {f}: not UTF-8 text (byte 0xc3 at offset 10)"


def test_trace_errors_name_the_file_and_the_line(tmp_path, capsys):
    f = tmp_path / "actions.txt"
    f.write_text("place h0.0\n# a comment\nplace x9\n")
    assert main(["trace", str(f)]) == 2
    line = one_line_error(capsys)
    assert line.startswith(f"treeboard: {f}: line 3 (place x9): 'x9' is no site"), line


def test_a_kind_that_reed_switches_cannot_tell_is_refused(tmp_path, capsys):
    f = tmp_path / "actions.txt"
    f.write_text("place h0.0 dark-leaf\n")
    assert main(["trace", str(f)]) == 2
    line = one_line_error(capsys)
    assert f"{f}: line 1 (place h0.0 dark-leaf): the sensor under h0.0 tells only that a piece" in line
    assert "write `place h0.0`" in line


def test_a_kind_on_an_adc_sensor_is_still_taken(tmp_path, capsys):
    f = tmp_path / "actions.txt"
    f.write_text("place a1 dark-leaf\n")
    assert main(["trace", "--layout", "treeblox-adc", str(f)]) == 0
    assert '"La1"' in capsys.readouterr().out


def test_an_unknown_site_gets_no_treeblox_hint_on_tree_planting(tmp_path, capsys):
    f = tmp_path / "actions.txt"
    f.write_text("place x9\n")
    assert main(["trace", str(f)]) == 2
    line = one_line_error(capsys)
    assert "KIND" not in line and "'x9' is no site of layout" in line


def test_a_piece_above_the_treeblox_board_asks_for_its_kind(tmp_path, capsys):
    f = tmp_path / "actions.txt"
    f.write_text("place a1 dark-leaf\nplace d4 light-leaf\nplace b1 dark-branch\n"
                 "place c4 light-leaf\nplace b1+1\n")
    assert main(["trace", "--layout", "treeblox-adc", str(f)]) == 2
    line = one_line_error(capsys)
    assert "line 5 (place b1+1): no sensor sees b1+1" in line and "place b1+1 KIND" in line
    assert "dark-leaf" in line


def test_a_treeblox_refusal_keeps_the_piece_and_the_site(tmp_path, capsys):
    f = tmp_path / "actions.txt"
    f.write_text("place a1 dark-leaf\nplace a1+1 light-leaf\n")
    assert main(["trace", "--layout", "treeblox-adc", str(f)]) == 2
    line = one_line_error(capsys)
    assert "line 2 (place a1+1 light-leaf): " in line


def test_gpio_backend_without_gpio_is_one_line(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(f'backend = "gpio"\njournal = "{tmp_path / "j.sqlite"}"\n')
    # A pin factory that does not exist: what gpiozero meets on a machine with none.
    env = dict(os.environ, GPIOZERO_PIN_FACTORY="none-here")
    out = subprocess.run([sys.executable, "-m", "board_driver.cli", "run", "--config", str(config)],
                         capture_output=True, text=True, env=env, timeout=scaled(60))
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        f"treeboard: {config}: backend: \"gpio\" needs a Raspberry Pi's GPIO pins, and gpiozero found "
        "none here (Unable to find pin factory 'none-here'); on a Pi install the pi extra "
        "(pip install 'treeboard[pi]'), elsewhere use `treeboard sim` or backend = \"sim\""]


def test_a_closed_pipe_ends_quietly():
    r, w = os.pipe()
    os.close(r)  # the reader is gone before the first line, as `| head` after its lines
    try:
        out = subprocess.run([sys.executable, "-m", "board_driver.cli", "games"], stdout=w,
                             stderr=subprocess.PIPE, text=True, timeout=scaled(60))
    finally:
        os.close(w)
    assert out.stderr == ""
    assert out.returncode == 141


class Endless(io.RawIOBase):
    """A binary stream of a bad game followed by endless moves; counts what was read."""

    def __init__(self, head: bytes, body: bytes):
        self.head, self.body, self.served = head, body, 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        n = len(buffer)
        data = self.head if self.served == 0 else self.body * (n // len(self.body) + 1)
        data = data[:n]
        buffer[:len(data)] = data
        self.served += len(data)
        return len(data)


def test_replay_stops_reading_at_the_first_bad_move(monkeypatch, capsys):
    stream = Endless(b"h0.0 h0.0 ", b"h0.1 ")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(stream)))
    assert main(["replay", "--game", "tree-planting", "-"]) == 2
    assert one_line_error(capsys) == "treeboard: move 2 (h0.0): groove h0.0 already has a rod"
    assert stream.served <= 2 * CHUNK + 16  # read a chunk or two, not the endless rest


def test_an_overlong_word_is_cut_in_the_message(tmp_path, capsys):
    f = tmp_path / "moves.txt"
    f.write_text("h0.0 " + "h" * 5 * CHUNK)
    assert main(["replay", "--game", "tree-planting", str(f)]) == 2
    line = one_line_error(capsys)
    assert len(line) < 200 + len(str(f)) and "a word of more than 256 characters, starting 'hhhh" in line


def test_a_long_bad_move_is_cut_in_the_message(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"h0.0 " + b"q" * 200)))
    assert main(["replay", "--game", "tree-planting", "-"]) == 2
    line = one_line_error(capsys)
    assert line.startswith("treeboard: move 2 (" + "q" * 40 + "... (200 characters)): ")


@pytest.mark.parametrize("chunk_break", [1, 3, 4, 5, 7])
def test_words_cut_by_a_chunk_end_are_whole(chunk_break, monkeypatch):
    monkeypatch.setattr("board_driver.cli.rules.CHUNK", chunk_break)
    text = "h0.0 h1.0\n  v0.0\tv0.1 é"
    assert list(read_tokens(io.BytesIO(text.encode()), "x")) == text.split()
