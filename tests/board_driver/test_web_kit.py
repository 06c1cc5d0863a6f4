"""The page shows the maker's kit of the board it runs on (board_driver/web/kit.py): the same
files `treeboard kit` writes for the board's layout, linked from the page in its language."""

from __future__ import annotations

import asyncio
import xml.etree.ElementTree as ET

import aiohttp

from board_driver.cli import main
from web_harness import base_url, running


def test_the_page_serves_the_kit_of_its_own_board(tmp_path):
    async def scenario():
        async with running(tmp_path, layout="treeblox-adc") as daemon, aiohttp.ClientSession() as http:
            got = {}
            for name in ("parts.csv", "wiring.svg", "template.svg"):
                async with http.get(base_url(daemon) + f"/api/kit/{name}") as r:
                    assert r.status == 200, name
                    got[name] = (r.headers["Content-Type"], r.headers["Content-Disposition"],
                                 await r.text())
            async with http.get(base_url(daemon) + "/api/kit/secrets.txt") as r:
                assert r.status == 404
            async with http.get(base_url(daemon) + "/") as r:
                page = await r.text()
            async with http.get(base_url(daemon) + "/api/words?lang=zh") as r:
                words = (await r.json())["words"]
            return got, page, words

    got, page, words = asyncio.run(scenario())
    assert got["wiring.svg"][0] == "image/svg+xml; charset=utf-8"
    assert got["parts.csv"][:2] == ("text/csv; charset=utf-8",
                                    'attachment; filename="treeblox-adc-parts.csv"')
    wiring = ET.fromstring(got["wiring.svg"][2].encode())
    sensors = [e.get("data-site") for e in wiring.iter() if e.get("class") == "sensor"]
    assert len(sensors) == 16
    template = ET.fromstring(got["template.svg"][2].encode())
    assert template.get("width").endswith("mm")
    # the same as the command line writes for the same layout
    out = tmp_path / "kit"
    assert main(["kit", "--layout", "treeblox-adc", "--out", str(out)]) == 0
    for name, (_, _, text) in got.items():
        assert (out / name).read_text(encoding="utf-8") == text, name
    for href in ("/api/kit/parts.csv", "/api/kit/wiring.svg", "/api/kit/template.svg"):
        assert f'href="{href}"' in page
    assert words["Build this board"] == "自己做这块棋盘" and words["Wiring diagram"] == "接线图"
