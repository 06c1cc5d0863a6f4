"""The software on the page (board_driver/web/update.py), what the daemon says of an update
(daemon/update_part.py), the schedule (`treeboard update --scheduled`) and the [update] keys.
Fast, in-process: the update itself is tests/board_driver/test_update.py's."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from board_driver.cli import main
from board_driver.config import ConfigError, parse_config
from board_driver.daemon.update_part import SAID
from board_driver.update.tree import REQUEST, RESULT, TRIAL, read_json, write_json
from board_driver.update.updater import running_version
from board_driver.views import words
from web_harness import base_url, hands, running
from tests.waits import until


def test_the_page_shows_the_version_and_asks_for_an_update_between_games(tmp_path):
    write_json(tmp_path / RESULT, {"result": "rolled-back", "version": "9.0.0",
                                   "running": running_version(), "why": "it did not start",
                                   "told": False})

    async def scenario():
        async with running(tmp_path) as daemon, aiohttp.ClientSession() as http:
            url = base_url(daemon) + "/api/update"
            async with http.get(url) as r:
                shown = await r.json()
            async with http.post(url, json={}) as r:
                asked = r.status, await r.json()
            async with http.get(url) as r:
                again = await r.json()
            # The rollback is told once, and shown on the LEDs as a part down.
            part = daemon.supervisor.parts.get("update")
            await hands(daemon, "place", "h0.0")
            await until(lambda: daemon.session.referee.state.moves, 10, "the move")
            async with http.post(url, json={}) as r:
                mid_game = r.status, (await r.json())["error"]
            return shown, asked, again, part, mid_game

    shown, asked, again, part, mid_game = asyncio.run(scenario())
    assert shown["version"] == running_version() and shown["trial"] is None
    assert shown["last"]["result"] == "rolled-back" and shown["requested"] is False
    assert asked == (200, {"requested": True}) and again["requested"] is True
    assert read_json(tmp_path / REQUEST) == {"from": "page"}
    assert part is not None and part.state == "down" and "rolled back from 9.0.0" in part.why
    assert read_json(tmp_path / RESULT)["told"] is True
    assert mid_game[0] == 409 and "a game is in progress" in mid_game[1]


def test_a_trial_of_this_version_is_confirmed_once_the_board_runs(tmp_path):
    write_json(tmp_path / TRIAL, {"version": running_version(), "previous": "0.0.1",
                                  "started_at": 0, "trial_seconds": 180, "max_starts": 3})

    async def scenario():
        async with running(tmp_path):
            await until(lambda: not (tmp_path / TRIAL).exists(), 10, "the confirmation")

    asyncio.run(scenario())
    result = read_json(tmp_path / RESULT)
    assert result["result"] == "confirmed" and result["version"] == running_version()


def test_the_sentences_in_both_languages():
    with words.speaking("zh"):
        assert words.tr(SAID["confirmed"]).format(version="0.2.0") == "已更新到版本 0.2.0。"
        said = words.tr(SAID["rolled-back"]).format(version="0.2.0", running="0.1.0")
    assert said == "版本 0.2.0 的更新没有成功，已回到版本 0.1.0。"


def test_the_schedule_is_off_by_default_and_takes_the_pages_request(tmp_path, capsys):
    root = tmp_path / "root"
    config = root / "etc" / "treeboard" / "config.toml"
    config.parent.mkdir(parents=True)
    journal = root / "var" / "lib" / "treeboard" / "journal.sqlite"
    journal.parent.mkdir(parents=True)
    config.write_text(f'journal = "{journal}"\n[update]\nsource = "{tmp_path / "none"}"\n')
    assert main(["update", "--scheduled", "--root", str(root), "--config", str(config)]) == 0
    assert "update.check is off" in capsys.readouterr().out
    # The page asked: the request is taken, and the update tried (here: a board with no key).
    (journal.parent / REQUEST).write_text("{}")
    assert main(["update", "--scheduled", "--root", str(root), "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "cannot read the board's release key" in err and "release.pub" in err
    assert not (journal.parent / REQUEST).exists()


@pytest.mark.parametrize("table, key", [('check = "hourly"', "update.check"),
                                        ("trial_seconds = 1", "update.trial_seconds"),
                                        ("max_starts = 0", "update.max_starts"),
                                        ('sauce = "x"', "update.sauce")])
def test_update_keys_are_checked(table, key):
    import tomllib

    with pytest.raises(ConfigError) as caught:
        parse_config(tomllib.loads(f"[update]\n{table}\n"), "c.toml")
    assert caught.value.key == key


def test_the_update_keys_default_to_off():
    cfg = parse_config({})
    assert cfg.update.check == "off" and cfg.update.public_key == "/etc/treeboard/release.pub"


def test_a_scheduled_look_waits_for_the_game_and_is_tried_again(tmp_path, capsys):
    from board_driver.referee.journal import Journal
    from board_driver.update import release

    root = tmp_path / "root"
    config = root / "etc" / "treeboard" / "config.toml"
    config.parent.mkdir(parents=True)
    release.make_key(config.parent)
    (config.parent / "release-key.pem").unlink()   # (a board holds the public key alone)
    journal = root / "var" / "lib" / "treeboard" / "journal.sqlite"
    config.write_text(f'journal = "{journal}"\n[update]\ncheck = "daily"\n'
                      f'source = "{tmp_path / "none"}"\n')
    with Journal(journal) as j:
        j.start_game("tree-planting", {"board": "classic"})
        j.record_move("h0.0")
    argv = ["update", "--scheduled", "--root", str(root), "--config", str(config)]
    assert main(argv) == 2
    assert "a game is in progress" in capsys.readouterr().err
    assert not (journal.parent / "update-looked.json").exists()   # so the next hour tries again
    with Journal(journal) as j:
        j.record_undo()                                          # no move stands: between games
    assert main(argv) == 2
    assert "release.json is missing" in capsys.readouterr().err
