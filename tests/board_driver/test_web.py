"""The companion page's API and push, against a real daemon on the simulated board."""

from __future__ import annotations

import contextlib
import random
import xml.etree.ElementTree as ET

import aiohttp
import pytest

import games
import games.ai
from board_driver.config import ConfigError, parse_config
from board_driver.referee.journal import Journal
from tests.waits import scaled, until
from web_harness import JSON, base_url, hands, next_push, post, run, running, started


def test_state_push_and_takeback_on_tree_planting(tmp_path):
    async def scenario():
        async with running(tmp_path) as daemon, aiohttp.ClientSession() as http:
            async with http.get(base_url(daemon) + "/api/state") as r:
                state = await r.json()
            assert {"game", "corrections", "leds"} <= state.keys()
            assert state["game"]["moves"] == [] and state["players"] == ["player 1", "player 2"]
            ET.fromstring(state["svg"])
            async with http.ws_connect(base_url(daemon) + "/ws") as ws:
                first = await next_push(ws, lambda s: True)
                assert first["version"] == state["version"]
                await hands(daemon, "place", "h0.0")
                pushed = await next_push(ws, lambda s: s["game"]["moves"] == ["h0.0"])
                assert 'data-site="h0.0"' in pushed["svg"] and pushed["takeback"]
                # a takeback from the page: the game forgets the rod, the rod lights to be lifted
                status, after = await post(http, daemon, "/api/takeback")
                assert status == 200 and after["game"]["moves"] == []
                assert after["fixes"] == [{"site": "h0.0", "do": "take the piece off", "move": False,
                                           "waiting": False}]
                await hands(daemon, "lift", "h0.0")
                clear = await next_push(ws, lambda s: not s["corrections"])
                assert clear["game"]["moves"] == []
                status, body = await post(http, daemon, "/api/takeback")
                assert status == 409 and body == {"error": "no move to take back"}
    run(scenario())


def test_refusals_name_the_reason_and_change_nothing(tmp_path):
    async def scenario():
        async with running(tmp_path) as daemon, aiohttp.ClientSession() as http:
            url = base_url(daemon)
            cases = [
                ("/api/enter", {"site": "h0.0", "kind": "rod"}, 409, "h0.0 has a sensor"),
                ("/api/enter", {"site": "h0.0"}, 400, "missing field 'kind'"),
                ("/api/enter", {"site": "h0.0", "kind": "rod", "x": 1}, 400, "unknown field 'x'"),
                ("/api/enter", {"site": 3, "kind": "rod"}, 400, "site must be text"),
                ("/api/press", {"button": "end_turn"}, 409, "the turn cannot end now"),
                ("/api/press", {"button": "reset"}, 400, "the only button is end_turn"),
                ("/api/hint", {"mode": "fast"}, 400, "hint mode must be one of off, legal, safe"),
                ("/api/new-game", {"board": "3x"}, 400, "board"),
                ("/api/new-game", {"board": "16"}, 400, "no sensor for"),
            ]
            for path, body, status, words in cases:
                got, answer = await post(http, daemon, path, body)
                assert got == status and words in answer["error"], (path, body, answer)
            async with http.post(url + "/api/enter", data="not json", headers=JSON) as r:
                assert r.status == 400 and (await r.json())["error"] == "the body must be a JSON object"
            async with http.post(url + "/api/takeback", data="{}") as r:  # a plain form post
                assert r.status == 415
            async with http.post(url + "/api/takeback", data="{}",
                                 headers={**JSON, "Origin": "http://evil.example"}) as r:
                assert r.status == 403
            with pytest.raises(aiohttp.WSServerHandshakeError):
                await http.ws_connect(url + "/ws", headers={"Origin": "http://evil.example"})
            async with http.get(url + "/api/state", headers={"Host": "evil.example"}) as r:
                assert r.status == 403  # a rebound DNS name gets nothing from a localhost board
            async with http.get(url + "/api/state") as r:
                state = await r.json()
            assert state["game"]["moves"] == [] and state["hint"] == "safe"
            # hint mode: the board's LEDs follow the page's choice
            status, after = await post(http, daemon, "/api/hint", {"mode": "off"})
            assert status == 200 and after["hint"] == "off"
            assert after["leds"]["h0.1"] == [0, 0, 0] != state["leds"]["h0.1"]
    run(scenario())


def test_treeblox_entry_above_the_board_and_a_refused_one(tmp_path):
    async def scenario():
        async with running(tmp_path, layout="treeblox-adc") as daemon, \
                aiohttp.ClientSession() as http, \
                http.ws_connect(base_url(daemon) + "/ws") as ws:
            for site, kind, moves in [("a1", "dark-leaf", 1), ("b2", "light-leaf", 2),
                                      ("a2", "dark-branch", 3), ("c3", "light-branch", 4)]:
                await hands(daemon, "place", site, kind)
                state = await next_push(ws, lambda s, n=moves: len(s["game"]["moves"]) == n)
            assert state["players"] == ["Dark", "Light"] and state["svg3d"]
            offered = {(e["site"], e["kind"]) for e in state["entries"]}
            assert ("a2+1", "dark-leaf") in offered and all(s not in daemon.session.referee.sensed
                                                            for s, _ in offered)
            assert 'data-place="a2+1"' in state["svg3d"]
            async with http.get(base_url(daemon) + "/api/picture3d?turn=2") as r:
                turned = (await r.json())["svg3d"]
            assert 'data-turn="2"' in turned and 'data-place="a2+1"' in turned
            async with http.get(base_url(daemon) + "/api/picture3d?turn=9") as r:
                assert r.status == 400 and "quarter turns" in (await r.json())["error"]
            status, body = await post(http, daemon, "/api/enter", {"site": "b2+1", "kind": "dark-leaf"})
            assert status == 409 and "no cube can be attached to a leaf" in body["error"]
            before = state["leds"]["a2"]
            status, after = await post(http, daemon, "/api/enter", {"site": "a2+1", "kind": "dark-leaf"})
            assert status == 200 and after["game"]["moves"][-1] == "La2+1"
            assert after["leds"]["a2"] != before  # a2's column now shows a leaf that sees the sky
            status, after = await post(http, daemon, "/api/takeback")
            assert status == 200 and after["game"]["moves"][-1] == "Bc3" and not after["corrections"]
            assert after["end_turn"] and after["end_turn_button"]
            status, after = await post(http, daemon, "/api/press", {"button": "end_turn"})
            assert status == 200 and after["game"]["moves"][-1] == "end"
            assert after["game"]["to_move"] == 1
    run(scenario())


def test_seats_chosen_on_the_page_and_the_computer_answers_on_the_board(tmp_path):
    async def scenario():
        async with running(tmp_path) as daemon, aiohttp.ClientSession() as http, \
                http.ws_connect(base_url(daemon) + "/ws") as ws:
            first = await next_push(ws, lambda s: True)
            assert first["seats"] == ["human", "human"] and first["seat_choices"] == [
                "human", "web", "computer:beginner", "computer:easy", "computer:medium",
                "computer:hard", "computer:strongest"]
            # Each level as the select reads it, with its rating in this game when measured.
            assert first["seat_labels"]["computer:hard"] == "computer, " + \
                games.ai.level_label("tree-planting", "hard")
            for body, words in [({"seat": "2", "player": "human"}, "seat must be 0"),
                                ({"seat": "1", "player": "robot"},
                                 "player must be human, web or one of"),
                                ({"seat": "1", "player": "easy"}, "computer:easy"),
                                ({"seat": "1", "player": "computer:genius"}, "computer:hard"),
                                ({"seat": "1"}, "missing field 'player'")]:
                status, answer = await post(http, daemon, "/api/seats", body)
                assert status == 400 and words in answer["error"], (body, answer)
            assert daemon.session.referee.seats == ("human", "human") and daemon.computer is None
            status, after = await post(http, daemon, "/api/seats",
                                       {"seat": "1", "player": "computer:perfect"})
            assert status == 200 and after["seats"] == ["human", "computer:strongest"]  # old name
            status, after = await post(http, daemon, "/api/seats",
                                       {"seat": "1", "player": "computer:easy"})
            assert status == 200 and after["seats"] == ["human", "computer:easy"]
            await hands(daemon, "place", "h0.0")
            answered = await next_push(ws, lambda s: len(s["game"]["moves"]) == 2, timeout=30)
            reply = answered["game"]["moves"][1]
            assert answered["corrections"] == [reply]  # the computer's rod, to put on the board
            # back to a human: the computer plays no more
            status, after = await post(http, daemon, "/api/seats", {"seat": "1", "player": "human"})
            assert status == 200 and after["seats"] == ["human", "human"]
            assert daemon.computer.levels == {}
    run(scenario())


def finished_tree_planting(seed: int, board: str = "classic") -> games.State:
    rng = random.Random(seed)
    state = games.get_game("tree-planting").new_state(board=board)
    while not state.is_over():
        state.play(rng.choice(state.legal_moves()))
    return state


def journal_finished(path: str, done: games.State) -> None:
    """`done` as a finished game in the journal at `path`."""
    with Journal(path) as journal:
        journal.start_game(done.game.name, done.options())
        for move in done.moves:
            journal.record_move(str(move))
        journal.finish(done.summary())


def test_history_lists_finished_games_and_replays_them(tmp_path):
    path = str(tmp_path / "j.sqlite")
    done = finished_tree_planting(7)
    journal_finished(path, done)

    async def scenario():
        async with running(tmp_path, journal=path, new_game=False) as daemon, \
                aiohttp.ClientSession() as http:
            url = base_url(daemon)
            async with http.get(url + "/api/games") as r:
                listed = (await r.json())["games"]
            assert [g["id"] for g in listed] == [1] and listed[0]["moves"] == len(done.moves)
            assert listed[0]["result"].endswith(f"{done.scores()[0]}:{done.scores()[1]}")
            async with http.get(url + "/api/games/1?download=1") as r:
                assert "attachment" in r.headers["Content-Disposition"]
                assert await r.json() == done.summary()
            async with http.get(url + "/api/games/1/position?move=2") as r:
                pos = await r.json()
            assert pos["move_words"] == pos["moves"]  # Tree Planting's notation is its words
            root = ET.fromstring(pos["svg"])
            rods = [e.get("data-site") for e in root.iter() if e.get("data-kind") == "rod"]
            assert sorted(rods) == sorted(str(m) for m in done.moves[:2])
            for bad, status in [("/api/games/1/position?move=999", 400),
                                ("/api/games/1/position?move=x", 400), ("/api/games/9", 404)]:
                async with http.get(url + bad) as r:
                    assert r.status == status and (await r.json())["error"]
    run(scenario())


def test_review_of_a_finished_game_from_the_computers_worker(tmp_path):
    from games.ai.review import review

    path = str(tmp_path / "j.sqlite")
    done = finished_tree_planting(2, board="2x2")
    journal_finished(path, done)

    async def scenario():
        async with running(tmp_path, journal=path, new_game=False) as daemon, \
                aiohttp.ClientSession() as http:
            url = base_url(daemon)
            async with http.get(url + "/api/games/1/review",
                                timeout=aiohttp.ClientTimeout(scaled(30))) as r:
                assert r.status == 200
                body = await r.json()
            rows = body["moves"]
            assert [r["move"] for r in rows] == [str(m) for m in done.moves]
            assert all(r["exact"] for r in rows)  # the 2x2 board is solved outright
            for row in rows:  # a move changed the result where the mover's result dropped
                sign = lambda v: (v > 0) - (v < 0)
                assert row["changed_result"] == (sign(row["after"]) < sign(row["before"]))
            assert any(r["changed_result"] for r in rows)
            assert rows == review(done, seconds=1.0, seed=0)  # what `treeboard review` says
            assert daemon.computer is None  # the worker serves the page without a computer seat
            async with http.get(url + "/api/games/1/review") as r:  # cached: the same answer
                assert await r.json() == body and list(daemon.web._reviews) == [1]
            async with http.get(url + "/api/games/9/review") as r:
                assert r.status == 404 and "no game 9" in (await r.json())["error"]
    run(scenario())


def test_with_a_token_control_needs_it_and_viewing_does_not(tmp_path):
    token = "correct horse battery"

    async def scenario():
        async with running(tmp_path, token=token) as daemon, aiohttp.ClientSession() as http:
            async with http.get(base_url(daemon) + "/api/state") as r:
                assert r.status == 200 and (await r.json())["token_required"] is True
            status, body = await post(http, daemon, "/api/hint", {"mode": "off"})
            assert status == 401 and "token" in body["error"]
            status, body = await post(http, daemon, "/api/hint", {"mode": "off"},
                                      {"X-Treeboard-Token": "wrong horse battery"})
            assert status == 403
            status, body = await post(http, daemon, "/api/hint", {"mode": "off"},
                                      {"X-Treeboard-Token": token})
            assert status == 200 and body["hint"] == "off"
    run(scenario())


def test_page_is_served_whole_and_small(tmp_path):
    async def scenario():
        async with running(tmp_path) as daemon, aiohttp.ClientSession() as http:
            total = 0
            # (entry.js too: the page loads it, and its keyboard grew it)
            for path, kind in [("/", "text/html"), ("/app.js", "text/javascript"),
                               ("/entry.js", "text/javascript"), ("/app.css", "text/css")]:
                async with http.get(base_url(daemon) + path) as r:
                    assert r.status == 200 and r.content_type == kind
                    assert "default-src 'self'" in r.headers["Content-Security-Policy"]
                    body = await r.read()
                    total += len(body)
                    assert b"http://" not in body and b"https://" not in body  # nothing from a CDN
            assert total < 100_000
    run(scenario())


def test_config_refuses_listening_beyond_localhost_without_a_token():
    with pytest.raises(ConfigError, match=r"web.token: expected a token whenever web.listen"):
        parse_config({"web": {"listen": "0.0.0.0"}})
    with pytest.raises(ConfigError, match=r"web.token: expected a secret of at least 12") as err:
        parse_config({"web": {"token": "short"}})
    assert "short" not in str(err.value)  # a secret is never echoed into a log
    with pytest.raises(ConfigError, match=r"web.port: expected a port number"):
        parse_config({"web": {"port": 70000}})
    cfg = parse_config({"web": {"listen": "0.0.0.0", "token": "x" * 12, "port": 9000}})
    assert (cfg.web_listen, cfg.web_port, cfg.web_token) == ("0.0.0.0", 9000, "x" * 12)


def test_a_busy_port_leaves_the_board_running_without_its_page(tmp_path, caplog):
    """The board referees without its page, says why (once), and serves the page when the port
    frees: the supervisor tries again with backoff."""
    async def scenario():
        from board_driver.config import sim_config
        from board_driver.daemon.loop import Daemon
        async with contextlib.AsyncExitStack() as second_running:   # (outlives the first)
            async with running(tmp_path) as first:
                port = first.web.port
                config = sim_config(journal=str(tmp_path / "k.sqlite"))
                config.web_port = port
                second = Daemon(config, web=True,
                                supervision=dict(backoff_initial=0.05, backoff_max=0.2))
                runner = await second_running.enter_async_context(started(second, 10))
                assert second.web is None and not runner.done()
                part = second.supervisor.parts["page"]
                assert part.state != "up" and "address already in use" in part.why
            # the first daemon let the port go: the second takes it
            await until(lambda: second.web is not None and part.state == "up", 10,
                        "the second daemon to serve its page")
    run(scenario())
    said = [r.message for r in caplog.records if "not served on" in r.message]
    assert len(said) == 1 and "another port: web.port" in said[0]


def test_a_bad_web_port_on_the_command_line_is_refused(capsys):
    from board_driver.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["sim", "--web-port", "70000"])
    assert exit_.value.code == 2
    assert "--web-port: expected a port number from 0 to 65535, not '70000'" in capsys.readouterr().err


def test_a_move_in_progress_is_told_in_words():
    from board_driver.config import DEFAULT_COLOURS
    from board_driver.moment import Correction
    from board_driver.views import Moment
    from board_driver.web.snapshot import steps_in_words

    view = Moment.still(dict(DEFAULT_COLOURS),
                completions=[Correction("c3", None, "counter:1"), Correction("d4", "counter:0", None)])
    assert steps_in_words(view, ("player 1", "player 2")) == [
        {"site": "c3", "do": "you may take player 2's counter off"},
        {"site": "d4", "do": "you may put player 1's counter here"}]


def test_best_hints_asked_on_the_page_start_the_computer_and_light_its_moves(tmp_path):
    """No computer seat and no hints configured: choosing "best" on the page starts the
    computer's worker, and its best moves come to be lit."""
    async def scenario():
        async with running(tmp_path) as daemon, aiohttp.ClientSession() as http:
            assert daemon.computer is None
            async with http.get(base_url(daemon) + "/api/state") as r:
                assert "best" in (await r.json())["hints"]
            status, after = await post(http, daemon, "/api/hint", {"mode": "best"})
            assert status == 200 and after["hint"] == "best" and daemon.computer is not None
            await hands(daemon, "place", "h0.0")     # a move, so the search has a new position
            await until(lambda: daemon.session.referee.hints, 30, "the hints", 0.05)
            best = [s for s, what in daemon.session.referee.hints.items() if what == "best"]
            assert best and all(s in daemon.session.layout.channels_of_site for s in best)
            # and the page says why the lit move, in the words of the game's view
            async with http.get(base_url(daemon) + "/api/state") as r:
                reason = (await r.json())["hint_reason"]
            assert reason == daemon.session.referee.moment(0).hint_reason
            assert reason.split()[0] in best and reason.endswith(".")
    run(scenario())


def test_each_page_in_its_own_language_and_the_board_in_its_own(tmp_path):
    async def scenario():
        async with running(tmp_path) as daemon, aiohttp.ClientSession() as http:
            url = base_url(daemon)
            async with http.get(url + "/api/words?lang=zh-CN") as r:
                page = await r.json()
            assert page["language"] == "zh" and page["board"] == "en"
            assert page["languages"] == {"en": "English", "zh": "中文"}
            assert page["words"]["Take back"] == "悔棋" and page["words"]["live"] == "已连接"
            async with http.get(url + "/api/words?lang=fr") as r:
                assert (await r.json())["language"] == "en"   # no catalog: the board's
            async with http.ws_connect(url + "/ws?lang=zh") as zh, \
                    http.ws_connect(url + "/ws") as en:
                await hands(daemon, "place", "h0.0")
                pushed_zh = await next_push(zh, lambda s: s["game"]["moves"] == ["h0.0"])
                pushed_en = await next_push(en, lambda s: s["game"]["moves"] == ["h0.0"])
            assert (pushed_zh["title"], pushed_zh["players"]) == ("植树棋", ["一号玩家", "二号玩家"])
            assert (pushed_en["title"], pushed_en["players"]) == ("Tree Planting",
                                                                   ["player 1", "player 2"])
            status, after = await post(http, daemon, "/api/takeback?lang=zh")
            assert status == 200 and after["fixes"][0]["do"] == "拿走这枚棋子"
            await hands(daemon, "lift", "h0.0")
            status, body = await post(http, daemon, "/api/takeback?lang=zh")
            assert status == 409 and body == {"error": "没有可以悔的棋"}   # the refusal, too
            status, body = await post(http, daemon, "/api/repeat?lang=zh")
            assert status == 200 and body["said"] == ["还没有走棋", "比分0比0，轮到一号玩家"]
            # the board's own words stayed English: the page asked only for its answers
            async with http.get(url + "/api/state") as r:
                assert (await r.json())["title"] == "Tree Planting"
    run(scenario())


def test_the_voice_settings_on_the_page_apply_at_once_and_survive_a_restart(tmp_path):
    """GET/POST /api/voice, through the door: a change applies to the next sentence, is kept
    in the journal (never in the config file) and survives a restart; a bad value is a 400
    naming the field and changes nothing; an edited config's [voice] wins over an older
    change from the page."""
    import dataclasses

    from board_driver.config import Voice

    voice_dir = tmp_path / "voice"
    config_voice = Voice(enabled=False, wav_dir=str(voice_dir))
    journal = str(tmp_path / "j.sqlite")

    async def said():
        return await until(lambda: [p.read_text(encoding="utf-8").strip()
                                    for p in sorted(voice_dir.glob("*.txt"))],
                           15, "the voice's words", 0.05)

    async def first():
        async with running(tmp_path, journal=journal, voice=dataclasses.replace(config_voice)) \
                as daemon, aiohttp.ClientSession() as http:
            async with http.get(base_url(daemon) + "/api/voice") as r:
                shown = await r.json()
            assert shown["enabled"] is False and shown["rate"] == 160 and shown["health"] == "off"
            for bad, field, expected in [
                    ({"rate": 9000}, "rate", "rate: expected words a minute from 80 to 450; got 9000"),
                    ({"volume": "loud"}, "volume", "volume: expected a volume from 0 to 200"),
                    ({"quiet_hours": "late"}, "quiet_hours", 'quiet_hours: expected "HH:MM-HH:MM"'),
                    ({"device": "hw:0"}, "device", "device: expected one of enabled, language"),
                    ({"enabled": "yes", "rate": 200}, "enabled", "enabled: expected true or false"),
                    ([1], "", "expected a JSON object")]:
                status, body = await post(http, daemon, "/api/voice", bad)
                assert status == 400 and body["error"].startswith(expected), (field, body)
            assert daemon.voice == daemon.config.voice   # nothing changed
            status, body = await post(http, daemon, "/api/voice", {
                "enabled": True, "rate": 200, "language": "zh", "quiet_hours": "",
                "repeat_moves": 5})
            assert status == 200 and body["enabled"] and body["rate"] == 200
            assert body["language"] == "zh" and body["repeat_moves"] == 5
            # the next sentence: spoken in Chinese, at the new rate
            await hands(daemon, "place", "h0.0")
            assert await said() == ["一号玩家：零号行零号格的上槽"]
            assert daemon.speech.engine.settings.rate == 200
        assert not (tmp_path / "config.toml").exists()

    async def restarted(voice, expect_rate):
        async with running(tmp_path, journal=journal, new_game=False, voice=voice) as daemon, \
                aiohttp.ClientSession() as http:
            async with http.get(base_url(daemon) + "/api/voice") as r:
                shown = await r.json()
            assert shown["rate"] == expect_rate
            return shown

    run(first())
    shown = run(restarted(dataclasses.replace(config_voice), 200))
    assert shown["enabled"] and shown["language"] == "zh" and shown["repeat_moves"] == 5
    # The config's [voice] edited since: it wins (the page's older change is not applied).
    shown = run(restarted(dataclasses.replace(config_voice, rate=150), 150))
    assert shown["enabled"] is False and shown["language"] is None


def test_a_saved_games_moves_in_the_pages_language(tmp_path):
    """The replay's move list shows the moves in the page's words (Arbos `seed C2`: zh 播种 C2);
    the moves themselves stay the notation."""
    import random

    path = str(tmp_path / "j.sqlite")
    rng = random.Random(5)
    done = games.get_game("arbos").new_state(board="8x8", setup="chosen")
    while not done.is_over() and len(done.moves) < 600:
        done.play(rng.choice(sorted(done.legal_moves(), key=str)))
    journal_finished(path, done)

    async def scenario():
        async with running(tmp_path, journal=path, new_game=False) as daemon, \
                aiohttp.ClientSession() as http:
            url = base_url(daemon)
            async with http.get(url + "/api/games/1/position?move=1&lang=zh") as r:
                zh = await r.json()
            async with http.get(url + "/api/games/1/position?move=1") as r:
                en = await r.json()
            first = str(done.moves[0])
            assert first.startswith("seed ") and zh["moves"][0] == en["moves"][0] == first
            assert zh["move_words"][0] == "播种 " + first[5:]
            assert en["move_words"][0] == first
            async with http.get(url + "/api/games?lang=zh") as r:
                listed = (await r.json())["games"]
            a, b = done.scores()
            assert listed[0]["result"] in (f"白方获胜，{a}:{b}", f"黑方获胜，{a}:{b}", f"和棋，{a}:{b}")
    run(scenario())


def test_a_reviews_moves_in_the_pages_words():
    from board_driver.views import words
    from board_driver.web import snapshot

    rows = [{"n": 1, "move": "seed C2", "best": ["seed D4", "seed B7"]},
            {"n": 2, "move": "C4=", "best": ["pass"]}]
    with words.speaking("zh"):
        shown = snapshot.review_words("arbos", rows)
    assert shown == [{"move": "播种 C2", "best": ["播种 D4", "播种 B7"]},
                     {"move": "C4=", "best": ["停一手"]}]
    assert snapshot.review_words("arbos", rows)[0] == {"move": "seed C2",
                                                        "best": ["seed D4", "seed B7"]}
