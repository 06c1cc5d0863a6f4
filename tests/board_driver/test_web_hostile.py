"""The page's API against hostile requests: each gets a 4xx with a reason, never a 500, and
wrong tokens are rate-limited. A real daemon and aiohttp on a free port (web_harness)."""

from __future__ import annotations

import asyncio

import aiohttp

from web_harness import base_url, running

TOKEN = "correct horse battery"


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 60))


async def raw_post(daemon, path: str, body: bytes, headers: dict[str, bytes]) -> tuple[int, bytes]:
    """An HTTP request with header bytes no well-behaved client would send."""
    reader, writer = await asyncio.open_connection("127.0.0.1", daemon.web.port)
    head = [f"POST {path} HTTP/1.1".encode(), b"Host: localhost",
            b"Content-Type: application/json", f"Content-Length: {len(body)}".encode(),
            b"Connection: close"]
    head += [name.encode() + b": " + value for name, value in headers.items()]
    writer.write(b"\r\n".join(head) + b"\r\n\r\n" + body)
    await writer.drain()
    answer = await reader.read()
    writer.close()
    status = int(answer.split(b" ", 2)[1])
    return status, answer.split(b"\r\n\r\n", 1)[1]


def test_deep_json_huge_numbers_huge_ids_and_odd_tokens_get_a_4xx_with_a_reason(tmp_path):
    async def scenario():
        async with running(tmp_path, token=TOKEN) as daemon, aiohttp.ClientSession() as http:
            url = base_url(daemon)
            headers = {"X-Treeboard-Token": TOKEN, "Content-Type": "application/json"}
            for body, words in ((b"[" * 5000 + b"]" * 5000, "nested too deeply"),
                                (b'{"mode": ' + b"9" * 5000 + b"}", "too many digits")):
                async with http.post(url + "/api/hint", data=body, headers=headers) as r:
                    assert r.status == 400 and words in (await r.json())["error"]
            async with http.get(url + "/api/games/" + "9" * 30 + "/review") as r:
                assert r.status == 404
                assert "no game 999999999999999999999999" in (await r.json())["error"]
            async with http.get(url + "/api/games/" + "9" * 30) as r:
                assert r.status == 404
            status, body = await raw_post(daemon, "/api/hint", b'{"mode": "off"}',
                                          {"X-Treeboard-Token": "caf\xe9 \u00fc".encode("latin-1")})
            assert status == 403 and b"wrong token" in body
            status, body = await raw_post(daemon, "/api/hint", b'{"mode": "off"}',
                                          {"X-Treeboard-Token": b"\xff\xfe\x80 token"})
            assert status == 403 and b"wrong token" in body
            # and the board still answers
            async with http.post(url + "/api/hint", json={"mode": "off"},
                                 headers={"X-Treeboard-Token": TOKEN}) as r:
                assert r.status == 200
    run(scenario())


def test_wrong_tokens_are_rate_limited_per_address_and_the_limit_passes(tmp_path, caplog):
    async def scenario():
        async with running(tmp_path, token=TOKEN) as daemon, aiohttp.ClientSession() as http:
            now = [1000.0]
            daemon.web.clock = lambda: now[0]
            url = base_url(daemon) + "/api/hint"

            async def attempt(token):
                async with http.post(url, json={"mode": "off"},
                                     headers={"X-Treeboard-Token": token}) as r:
                    return r.status, (await r.json()).get("error")

            for _ in range(5):
                assert (await attempt("guess " * 3))[0] == 403
            status, why = await attempt(TOKEN)   # even the right one, for a while
            assert status == 429 and "too many wrong tokens" in why and "60 s" in why
            now[0] += 61
            assert (await attempt(TOKEN))[0] == 200
            assert len(daemon.web._wrong) <= 1
    run(scenario())
    assert sum("wrong tokens from" in r.getMessage() for r in caplog.records) == 1
