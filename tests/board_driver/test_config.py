"""Config values of the right shape but the wrong type or range: every key, refused at load
with one line naming the file, the key and what was expected (exit 2 from the CLI)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from board_driver.config import ConfigError, load_config, sim_config
from board_driver.referee.journal import JournalError
from board_driver.referee.session import open_session
from tests.waits import scaled

# (section or "", key, a TOML literal of the right shape but wrong for this key)
BAD_VALUES = [
    ("", "layout", '""'), ("", "layout", "1"), ("", "layout", "true"), ("", "layout", '"a\\u0000b"'),
    ("", "backend", '""'), ("", "backend", "1"),
    ("", "game", "1"), ("", "game", '"chess"'),
    ("", "game_options", "1"), ("", "game_options", '"cubes=3"'),
    ("", "journal", '""'), ("", "journal", "3"), ("", "journal", '"j\\u0000.sqlite"'),
    ("sensors", "debounce_ms", "true"), ("sensors", "debounce_ms", "inf"),
    ("sensors", "debounce_ms", "nan"), ("sensors", "debounce_ms", "-1"),
    ("sensors", "debounce_ms", "2001"), ("sensors", "debounce_ms", '"20"'),
    ("display", "moves", '"fast"'), ("display", "moves", "1"),
    ("display", "takeback", "1"), ("display", "takeback", '"yes"'),
    ("display", "brightness", "true"), ("display", "brightness", "inf"),
    ("display", "brightness", "nan"), ("display", "brightness", "0"),
    ("display", "brightness", "1.5"), ("display", "brightness", '"1"'),
    ("display", "max_milliamps", "true"), ("display", "max_milliamps", "inf"),
    ("display", "max_milliamps", "nan"), ("display", "max_milliamps", "0"),
    ("display", "max_milliamps", "-5"), ("display", "max_milliamps", "1e9"),
    ("display", "max_milliamps", '"500"'),
    ("display", "blink_hz", "inf"), ("display", "blink_hz", "nan"), ("display", "blink_hz", "0"),
    ("display", "blink_hz", "11"), ("display", "blink_hz", "true"),
    ("display", "winner_seconds", "inf"), ("display", "winner_seconds", "-1"),
    ("display", "winner_seconds", "601"), ("display", "winner_seconds", "true"),
    ("colours", "player0", "[true, 0, 0]"), ("colours", "player0", "[0, 0, 256]"),
    ("colours", "player0", "[0, 0]"), ("colours", "player0", '"#12345"'),
    ("colours", "player0", "[0.5, 0, 0]"), ("colours", "wrong", "3"),
    ("colours", "rod", "[0, -1, 0]"),
    ("bridge", "port", '""'), ("bridge", "port", "1"),
    ("bridge", "baud", "true"), ("bridge", "baud", "0"), ("bridge", "baud", "1.5"),
    ("bridge", "baud", "10000000000"), ("bridge", "baud", '"fast"'),
    ("", "language", '"fr"'), ("", "language", "1"),
    ("voice", "enabled", '"yes"'), ("voice", "language", '"klingon"'),
    ("voice", "voice", '"a voice; rm"'), ("voice", "rate", "20"), ("voice", "rate", "1.5"),
    ("voice", "volume", "201"), ("voice", "device", '"hw 1"'),
    ("voice", "quiet_hours", '"22-7"'), ("voice", "quiet_hours", '"25:00-07:00"'),
    ("voice", "repeat_moves", "0"), ("voice", "repeat_moves", "21"),
    ("", "computer_processes", "0"), ("", "computer_processes", "65"),
    ("", "computer_processes", '"all"'), ("", "computer_processes", "true"),
    ("", "away_grace_seconds", "0"), ("", "away_grace_seconds", "3601"),
    ("", "away_grace_seconds", '"a minute"'),
]


def write(tmp_path, section: str, key: str, literal: str):
    path = tmp_path / "config.toml"
    head = f'journal = "{tmp_path / "j.sqlite"}"\n' if key != "journal" else ""
    body = f"{key} = {literal}\n" if not section else f"[{section}]\n{key} = {literal}\n"
    path.write_text(head + body)
    return path


@pytest.mark.parametrize("section,key,literal", BAD_VALUES)
def test_every_key_checks_its_type_and_range(tmp_path, section, key, literal):
    path = write(tmp_path, section, key, literal)
    full = f"{section}.{key}" if section else key
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(f"{path}: {full}: expected ") and "\n" not in message
    assert info.value.key == full


@pytest.mark.parametrize("section,key,literal", [
    ("colours", "player0", "[true, 0, 0]"),       # accepted before, crashed when drawn
    ("display", "max_milliamps", "inf"),          # accepted outright before
])
def test_the_cli_exits_2_with_one_line(tmp_path, section, key, literal):
    path = write(tmp_path, section, key, literal)
    out = subprocess.run([sys.executable, "-m", "board_driver.cli", "run", "--config", str(path)],
                         capture_output=True, text=True, timeout=scaled(60))
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and str(path) in lines[0] and f"{section}.{key}" in lines[0]


def test_game_options_a_game_refuses_name_the_key(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(f'journal = "{tmp_path / "j.sqlite"}"\nlayout = "treeblox-adc"\nbackend = "sim"\n'
                    '[game_options]\ncubes = [3]\n')
    config = load_config(path)
    with pytest.raises(ConfigError, match=f"{path}: game_options: expected options treeblox accepts"):
        open_session(config, clock=lambda: 0.0, autoscan=False)


def test_a_journal_that_cannot_open_names_the_config_key(tmp_path):
    (tmp_path / "a-file").write_text("not a directory")
    path = tmp_path / "config.toml"
    path.write_text(f'journal = "{tmp_path / "a-file" / "j.sqlite"}"\nbackend = "sim"\n')
    with pytest.raises(JournalError) as info:
        open_session(load_config(path), clock=lambda: 0.0, autoscan=False)
    assert str(info.value).startswith(f"{path}: journal: ") and "a-file" in str(info.value)
    sim = sim_config(journal=str(tmp_path / "a-file" / "j.sqlite"))
    with pytest.raises(JournalError, match="^<sim>: journal: "):
        open_session(sim, clock=lambda: 0.0, autoscan=False)


def test_an_old_level_name_in_players_is_kept_as_todays(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('players = ["human", "computer:perfect"]\n')
    assert load_config(str(path)).players == ("human", "computer:strongest")
    path.write_text('players = ["computer:easy", "computer"]\n')
    assert load_config(str(path)).players == ("computer:easy", "computer")


@pytest.mark.parametrize("layout", ["{dir}/passwd", "{config}", "../../no/such/layout.toml"])
def test_a_layout_that_is_no_layout_file_names_the_config_and_the_key(tmp_path, layout):
    # (absolute paths but the last: a relative one is read from the working directory, which
    # differs between a checkout and CI's clone; the last exists nowhere)
    path = tmp_path / "config.toml"
    (tmp_path / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n")
    layout = layout.format(config=path, dir=tmp_path)   # (the config: a TOML file, but no layout)
    path.write_text(f'journal = "{tmp_path / "j.sqlite"}"\nlayout = "{layout}"\n')
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    assert str(refused.value).startswith(f"{path}: layout: expected a shipped layout")
    if layout.startswith("../"):
        assert str(refused.value).endswith(f"an existing layout file; got {layout!r}")
    else:
        assert f"and {layout} is none (" in str(refused.value)
    out = subprocess.run([sys.executable, "-m", "board_driver.cli", "run", "--config", str(path)],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stderr.startswith(f"treeboard: {path}: layout: ")
    assert len(out.stderr.strip().splitlines()) == 1


def test_a_config_that_starts_with_a_byte_order_mark_is_read(tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes("\ufeff".encode() + b'backend = "sim"\n[display]\nmoves = "legal"\n')
    config = load_config(path)
    assert (config.backend, config.moves) == ("sim", "legal")


@pytest.mark.parametrize("table", ['[web]\nlisten = "0.0.0.0"\ntoken = "a long board secret"\n',
                                   'players = ["human", "remote"]\n[remote]\nbroker = '
                                   '"mqtt://127.0.0.1:1"\ngame = "g1"\nsecret = "family secret"\n'])
def test_a_config_holding_a_secret_is_refused_while_every_account_can_read_it(tmp_path, table):
    path = tmp_path / "config.toml"
    path.write_text(table)
    key = "web.token" if "token" in table else "remote.secret"
    path.chmod(0o644)
    with pytest.raises(ConfigError) as refused:
        load_config(path)
    assert str(refused.value).startswith(f"{path}: {key}: expected a secret kept in a file")
    assert "mode 644" in str(refused.value)
    assert "a long board secret" not in str(refused.value) and "family" not in str(refused.value)
    path.chmod(0o640)   # its owner and group (the service's) only: as install-service writes it
    load_config(path)
    path.chmod(0o604)
    path.write_text("backend = \"sim\"\n")   # no secret in it: anyone may read it
    load_config(path)


def test_computer_processes_every_core_but_one_unless_the_config_says(tmp_path):
    import os

    path = tmp_path / "c.toml"
    path.write_text("computer_processes = 3\n")
    assert load_config(str(path)).search_processes() == 3
    path.write_text("")
    assert load_config(str(path)).search_processes() == max(1, (os.cpu_count() or 1) - 1)
