"""The page's routes to the modes that bring a position to the board (board_driver/web/
positions.py; docs/study.md): a puzzle started, an SGF record studied with its comments and
stepped, the branch; every bad request refused with what was expected; against a real daemon
on the simulated board."""

from __future__ import annotations

import asyncio
import base64

import aiohttp

from board_driver.records import sgf
from board_driver.records.record import Move, Record
from web_harness import base_url, running

JSON = {"Content-Type": "application/json"}


def test_a_puzzle_and_a_study_from_the_page(tmp_path):
    async def go():
        async with running(tmp_path, layout="tree-planting-classic-matrix") as daemon:
            url = base_url(daemon)
            async with aiohttp.ClientSession() as http:
                async with http.get(f"{url}/api/puzzles") as r:
                    listed = await r.json()
                assert r.status == 200 and listed["game"] == "tree-planting"
                assert listed["puzzles"][0]["number"] == 1 and listed["exact"] is True
                async with http.post(f"{url}/api/puzzle", json={"number": 2}) as r:
                    state = await r.json()
                assert r.status == 200 and state["mode"]["kind"] == "setup"
                assert state["mode"]["words"].startswith("set-up: ")
                record = Record("tree-planting", {"board": "classic"}, moves=(
                    Move(0, "h0.0", comment="a first rod"), Move(1, "h0.1")))
                data = base64.b64encode(sgf.dumps([record])).decode()
                async with http.post(f"{url}/api/study", json={"name": "a.sgf", "data": data,
                                                               "at": 0}) as r:
                    state = await r.json()
                assert r.status == 200, state
                # (an empty board: the start of the record is set up at once)
                assert state["mode"]["kind"] == "study" and state["mode"]["count"] == 2
                async with http.post(f"{url}/api/study/step", json={"count": 1}) as r:
                    state = await r.json()
                assert state["mode"]["at"] == 1 and "a first rod" in state["mode"]["words"]
                assert state["game"]["moves"] == ["h0.0"]
                refusals = [
                    ("/api/study/step", {"count": 5}, 409, "no move after move 2"),
                    ("/api/study/step", {"count": 0}, 400, "count must be a whole number"),
                    ("/api/study/step", {"count": "1"}, 400, "count must be a whole number"),
                    ("/api/puzzle", {"number": 99}, 400, "the set has 1 to"),
                    ("/api/puzzle", {"number": "2"}, 400, "number must be a whole number"),
                    ("/api/study", {"game": 99}, 400, "the journal holds no such game"),
                    ("/api/study", {"data": "%%%"}, 400, "data must be base64"),
                    ("/api/study", {"data": base64.b64encode(b"(;GM[999])").decode()}, 400, ""),
                    ("/api/study", {}, 400, "must name a journal game"),
                    ("/api/study/branch", {"other": 3}, 400, "other must be human"),
                ]
                for path, body, status, words in refusals:
                    async with http.post(f"{url}{path}", json=body) as r:
                        answer = await r.json()
                    assert r.status == status and words in answer["error"], (path, answer)
                async with http.post(f"{url}/api/study/branch", json={"other": "human"}) as r:
                    state = await r.json()
                assert r.status == 200 and state["mode"] is None
                async with http.post(f"{url}/api/study/step", json={"count": 1}) as r:
                    answer = await r.json()
                assert r.status == 409 and "no record is being studied" in answer["error"]
    asyncio.run(go())
