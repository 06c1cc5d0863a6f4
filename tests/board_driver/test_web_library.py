"""The page's library (board_driver/web/library.py): the journal's games searched, a game
downloaded as an SGF record (with the page's review), a record file imported, and every bad
one refused with its line and reason, the journal untouched; against a real daemon."""

from __future__ import annotations

import asyncio
import base64
import io
import json
import sqlite3
import sys
from pathlib import Path

import aiohttp

from board_driver.records import library, sgf
from board_driver.referee.journal import Journal
from web_harness import base_url, running

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import record_examples  # noqa: E402

JSON = {"Content-Type": "application/json"}


def run(coro):
    return asyncio.run(coro)


def rows(path) -> dict:
    with sqlite3.connect(path) as db:
        return {t: db.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall()
                for t in ("games", "events", "settings", "clocks")}


def a_journal(path) -> bytes:
    """Three finished games and one put aside; returns the 2x2 game's record (game 1)."""
    with Journal(path) as journal:
        record_examples.journal_game(journal, "tree-planting", {"board": "2x2"}, 2,
                                     ("human", "computer:easy"), "5+3")
        record_examples.journal_game(journal, "fangqi", {"board": "3x3"}, 0,
                                     ("computer:medium", "remote"), None)
        record_examples.journal_game(journal, "treeblox", {"cubes": 2}, 2, ("human", "human"),
                                     None)
        record_examples.journal_game(journal, "arbos", {"board": "6x6", "setup_seed": 7}, 0,
                                     ("human", "web"), None, "stop", 5)
        return sgf.dumps(library.export(journal, [1]))


async def search(http, url, **params) -> tuple[int, dict]:
    async with http.get(url + "/api/library", params=params) as r:
        return r.status, await r.json()


async def send(http, url, data: bytes | None, token=None, name="game.sgf", raw=None):
    body = raw if raw is not None else json.dumps(
        {"name": name, "data": base64.b64encode(data).decode()})
    headers = {**JSON, **({"X-Treeboard-Token": token} if token else {})}
    async with http.post(url + "/api/records", data=io.BytesIO(body.encode()),
                         headers=headers) as r:
        return r.status, await r.json()


def test_the_library_searches_and_downloads_records(tmp_path):
    path = tmp_path / "j.sqlite"
    first = a_journal(path)

    async def scenario():
        async with running(tmp_path, journal=str(path), new_game=True) as daemon, \
                aiohttp.ClientSession() as http:
            url = base_url(daemon)
            status, body = await search(http, url)
            assert status == 200 and [g["id"] for g in body["games"]] == [4, 3, 2, 1]
            assert body["titles"]["fangqi"] == "Fangqi" and len(body["titles"]) == 5
            arbos = body["games"][0]
            assert (arbos["outcome"], arbos["players"], arbos["moves"]) == (
                "unfinished", ["human", "web seat"], 5)
            assert [g["id"] for g in (await search(http, url, player="computer"))[1]["games"]] \
                == [2, 1]
            assert [g["id"] for g in (await search(http, url, game="treeblox", result="draw"))[
                1]["games"]] == [3]
            assert (await search(http, url, **{"from": "2999-01-01"}))[1]["games"] == []
            status, body = await search(http, url, result="won")
            assert status == 400 and "result must be one of" in body["error"]
            zh = (await search(http, url, lang="zh", game="arbos"))[1]["games"][0]
            assert zh["result"] == "未下完" and zh["players"][1] == "网页座位"
            # a game's record, as `treeboard export` writes it
            async with http.get(url + "/api/games/1/record") as r:
                assert r.status == 200 and r.content_type == "application/x-go-sgf"
                assert 'filename="treeboard-tree-planting-1.sgf"' in \
                    r.headers["Content-Disposition"]
                assert await r.read() == first
            async with http.get(url + "/api/games/1/record?format=json") as r:
                assert (await r.json())["players"][1] == {"seat": "computer:easy"}
            for bad, code in (("/api/games/99/record", 404), ("/api/games/1/record?format=x", 400),
                              ("/api/games/99999999999999999999/record", 404)):
                async with http.get(url + bad) as r:
                    assert r.status == code and (await r.json())["error"]
            # once the page has reviewed it, the record carries the review's marks
            async with http.get(url + "/api/games/1/review",
                                timeout=aiohttp.ClientTimeout(60)) as r:
                changed = [row for row in (await r.json())["moves"] if row["changed_result"]]
            async with http.get(url + "/api/games/1/record?lang=zh") as r:
                [record] = sgf.read(await r.read())
            marked = [n for n, m in enumerate(record.moves, 1) if m.bad]
            assert marked == [row["n"] for row in changed] and marked
            assert record.moves[marked[0] - 1].comment.startswith(f"第 {marked[0]} 步")
    run(scenario())


def test_a_record_imported_from_the_page_and_every_bad_one_refused(tmp_path):
    path = tmp_path / "j.sqlite"
    good = a_journal(path)
    token = "grandma's board"

    async def scenario():
        async with running(tmp_path, journal=str(path), token=token) as daemon, \
                aiohttp.ClientSession() as http:
            url = base_url(daemon)
            before = rows(path)
            status, body = await send(http, url, good)
            assert status == 401 and rows(path) == before   # a control action: the token
            third = good.index(b";B[", good.index(b";B[") + 1)
            bad = {
                "not UTF-8": (good.replace(b"PB[person", b"PB[\xff"), "not UTF-8"),
                "Go": (good.replace(b"GM[7001]", b"GM[1]"), "GM[1] is a game"),
                "illegal": (good[:third] + b";B[zz9]" + good[third:], "(zz9)"),
                "not a record": (b'{"moves": []}', "not an SGF record"),
                "a collection with one bad game": (good + good.replace(b"GM[7001]", b"GM[2]"),
                                                   "GM[2] is a game"),
            }
            for what, (data, words) in bad.items():
                status, body = await send(http, url, data, token)
                assert status == 400 and words in body["error"], (what, body)
                assert body["error"].startswith("game.sgf was not imported: line "), what
            status, body = await send(http, url, good.replace(b"GM[7001]", b"GM[1]"), token,
                                      name="go.sgf")
            assert status == 400
            async with http.post(url + "/api/records?lang=zh", headers={
                    **JSON, "X-Treeboard-Token": token}, data=json.dumps(
                    {"name": "go.sgf", "data": base64.b64encode(b"(;GM[1])").decode()})) as r:
                said = (await r.json())["error"]
            assert said.startswith("go.sgf 没有导入：第 1 行：GM[1] 是这块棋盘不下的"), said
            for raw, words in (("[]", "JSON object"), ('{"data": "***"}', "base64"),
                               ('{"data": "AA==", "x": 1}', "JSON object")):
                status, body = await send(http, url, None, token, raw=raw)
                assert status == 400 and words in body["error"], raw
            status, body = await send(http, url, b"(" * (1024 * 1024 + 1), token)
            assert status in (400, 413) and "at most" in body["error"]
            assert rows(path) == before   # every refusal: not a row written
            status, body = await send(http, url, good + good, token)
            assert status == 200 and body["imported"] == [6, 7]   # (5: the daemon's new game)
            listed = (await search(http, url, game="tree-planting"))[1]["games"]
            assert [g["id"] for g in listed] == [1, 7, 6] and listed[1]["imported"]
            async with http.get(url + "/api/games/6/record") as r:
                assert await r.read() == good
    run(scenario())
