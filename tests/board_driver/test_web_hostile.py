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


# Slow and malformed requests: real sockets ------------------------------------------------------

#: A board with its page in a process of its own, under a file limit far below a half-sent
#: request flood (as the service's was), printing its port. argv: journal, header timeout (s).
BOARD = """
import asyncio, logging, resource, sys
resource.setrlimit(resource.RLIMIT_NOFILE, (200, 200))
logging.basicConfig(level=logging.INFO, stream=sys.stderr,
                    format="%(name)s %(levelname)s %(message)s")
from board_driver.config import sim_config
from board_driver.daemon.loop import Daemon
from board_driver.web import guard
guard.HEADER_TIMEOUT_S = float(sys.argv[2])
config = sim_config(journal=sys.argv[1])
config.web_port = 0

async def main():
    daemon = Daemon(config, new_game=True, web=True)
    task = asyncio.ensure_future(daemon.run())
    while not daemon.started.is_set() and not task.done():
        await asyncio.sleep(0.01)
    print(daemon.web.port, flush=True)
    await task

asyncio.run(main())
"""


async def answer(port: int, request: bytes, source: str = "127.0.0.1", timeout: float = 5.0):
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    try:
        writer.write(request)
        return await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()


def test_half_sent_requests_from_one_client_are_bounded_timed_out_and_logged_little(tmp_path):
    import subprocess
    import sys
    import time

    from board_driver.web.guard import LOG_BURST, MAX_PER_CLIENT

    board = subprocess.Popen([sys.executable, "-c", BOARD, str(tmp_path / "j.sqlite"), "1.0"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        port = int(board.stdout.readline())

        async def scenario():
            held = []
            for _ in range(400):   # (the board may open 200 files in all)
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.write(b"GET /api/state HTTP/1.1\r\n")   # one line, then silence
                held.append((reader, writer))
            await asyncio.sleep(0.2)
            # Another client is answered at once, while the flood is open.
            started = time.monotonic()
            got = await answer(port, b"GET /api/state HTTP/1.1\r\nHost: localhost\r\n"
                                     b"Connection: close\r\n\r\n", source="127.0.0.2")
            assert got.startswith(b"HTTP/1.1 200") and time.monotonic() - started < 3
            # All but MAX_PER_CLIENT of the flood were closed at once; those after the timeout.
            closed_at = []
            for reader, writer in held:
                try:
                    assert await asyncio.wait_for(reader.read(), 5) == b""
                except ConnectionResetError:
                    pass
                closed_at.append(time.monotonic() - started)
                writer.close()
            late = sorted(closed_at)[-MAX_PER_CLIENT:]
            assert late[-1] < 4.0   # (a 1 s timeout, measured from before the other's request)
            # and the client that flooded is answered again once its connections are gone
            got = await answer(port, b"GET /api/state HTTP/1.1\r\nHost: localhost\r\n"
                                     b"Connection: close\r\n\r\n")
            assert got.startswith(b"HTTP/1.1 200")

        asyncio.run(asyncio.wait_for(scenario(), 60))
    finally:
        board.terminate()
        _, err = board.communicate(timeout=20)
    lines = err.splitlines()
    assert not any("Traceback" in line for line in lines), err[-3000:]
    about_clients = [line for line in lines if line.startswith(("treeboard.web.clients", "asyncio",
                                                                "aiohttp"))]
    assert 1 <= len(about_clients) <= LOG_BURST + 1, "\n".join(about_clients)


def test_a_body_that_trickles_is_refused_408_and_its_connection_closed(tmp_path, monkeypatch):
    from board_driver.web import server

    monkeypatch.setattr(server, "BODY_TIMEOUT_S", 0.5, raising=False)

    async def scenario():
        async with running(tmp_path) as daemon:
            reader, writer = await asyncio.open_connection("127.0.0.1", daemon.web.port)
            writer.write(b"POST /api/hint HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
                         b"application/json\r\nContent-Length: 15\r\n\r\n{\"mo")
            got = await asyncio.wait_for(reader.read(), 5)
            writer.close()
            assert got.startswith(b"HTTP/1.1 408") and b"did not all come within 0.5 s" in got
            assert daemon.session.referee.settings.moves == "safe"   # nothing changed
    run(scenario())


MALFORMED = [
    b"POST /api/hint HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
    b"POST /api/hint HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n"
    b"Transfer-Encoding: chunked\r\n\r\n{}",
    b"POST /api/hint HTTP/1.1\r\nHost: localhost\r\nContent-Length: -1\r\n\r\n{}",
    b"GET /api/state HTTP/1.1\r\nHost: localhost\r\nHost: elsewhere\r\n\r\n",
    b"GET /api/state HTTP/1.1\r\nHost: localhost\r\nX-Long: " + b"a" * 9000 + b"\r\n\r\n",
    b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\nHost: localhost\r\n\r\n",
]


def test_malformed_requests_and_clients_gone_mid_body_are_logged_in_a_few_single_lines(
        tmp_path, caplog):
    from board_driver.web.guard import LOG_BURST

    async def scenario():
        async with running(tmp_path) as daemon:
            port = daemon.web.port
            for _ in range(5):
                for raw in MALFORMED:
                    assert b" 400 " in (await answer(port, raw))[:20]
                # a client that goes away mid-body
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.write(b"POST /api/hint HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
                             b"application/json\r\nContent-Length: 100\r\n\r\n{\"mo")
                await writer.drain()
                await asyncio.sleep(0.05)
                writer.close()
            await asyncio.sleep(0.2)
            got = await answer(port, b"GET /api/state HTTP/1.1\r\nHost: localhost\r\n"
                                     b"Connection: close\r\n\r\n")
            assert got.startswith(b"HTTP/1.1 200")   # and the board answers on
    caplog.set_level("DEBUG", logger="aiohttp")
    run(scenario())
    said = [r for r in caplog.records if r.levelno >= 30 and r.name.startswith(("aiohttp",
                                                                               "treeboard.web"))]
    assert 1 <= len(said) <= LOG_BURST, [r.getMessage()[:100] for r in said]
    for record in said:
        assert "\n" not in record.getMessage() and record.exc_info is None
        assert len(record.getMessage()) <= 400


def test_a_request_without_a_host_header_is_refused_with_a_reason(tmp_path):
    async def scenario():
        async with running(tmp_path) as daemon:
            got = await answer(daemon.web.port, b"GET /api/state HTTP/1.0\r\n\r\n")
            assert got.startswith(b"HTTP/1.1 400") or got.startswith(b"HTTP/1.0 400")
            assert b"Host header" in got
            got = await answer(daemon.web.port, b"GET /api/state HTTP/1.0\r\nHost: localhost\r\n\r\n")
            assert b" 200 " in got[:20]
    run(scenario())


def test_the_listening_socket_out_of_files_is_logged_in_a_few_single_lines(tmp_path, caplog):
    """asyncio says so once a second while accept() finds no file (EMFILE), each time with a
    traceback: one line each, a few a minute, while the page serves."""
    import errno

    from board_driver.web.guard import ACCEPT_FAILED, LOG_BURST

    async def scenario():
        async with running(tmp_path) as daemon:
            loop = asyncio.get_running_loop()
            for _ in range(50):
                try:
                    raise OSError(errno.EMFILE, "Too many open files")
                except OSError as exc:
                    loop.call_exception_handler({"message": ACCEPT_FAILED, "exception": exc})
            loop.call_exception_handler({"message": "something else entirely"})
    run(scenario())
    said = [r for r in caplog.records if r.name == "asyncio"]
    accept = [r for r in said if r.getMessage().startswith(ACCEPT_FAILED)]
    assert 1 <= len(accept) <= LOG_BURST
    assert all("\n" not in r.getMessage() and r.exc_info is None for r in accept)
    assert "Too many open files" in accept[0].getMessage()
    assert any(r.getMessage() == "something else entirely" for r in said)   # others untouched


def test_a_client_is_an_address_or_an_ipv6_network():
    from board_driver.web.guard import client_of

    assert client_of(("192.168.1.20", 51000)) == "192.168.1.20"
    assert client_of(("::ffff:192.168.1.20", 51000, 0, 0)) == "192.168.1.20"
    # one machine may use any address of its /64: one client
    assert client_of(("2001:db8:1:2:aaaa::1", 1, 0, 0)) == client_of(("2001:db8:1:2::ffff", 1, 0, 0))
    assert client_of(("2001:db8:1:3::1", 1, 0, 0)) != client_of(("2001:db8:1:2::1", 1, 0, 0))
    assert client_of(("fe80::1%eth0", 1, 0, 2)) == "fe80::/64"
