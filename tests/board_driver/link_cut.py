"""A cut in one board's network: a TCP relay between that board and the real broker, which the
test cuts (every connection closed, new ones refused, as a dead router does) and mends, while
the other board stays connected. Runs on the test's own asyncio loop."""

from __future__ import annotations

import asyncio
import contextlib

from tests.broker import free_port


class LinkCut:
    def __init__(self, broker_port: int):
        self.broker_port = broker_port
        self.port = free_port()
        self._server: asyncio.AbstractServer | None = None
        self._writers: set[asyncio.StreamWriter] = set()

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    async def mend(self) -> None:
        """Relay again (the first time: start)."""
        self._server = await asyncio.start_server(self._relay, "127.0.0.1", self.port,
                                                  reuse_address=True)

    async def cut(self) -> None:
        """Close every relayed connection, and refuse new ones until mended."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for writer in list(self._writers):
            writer.close()
        self._writers.clear()

    async def _relay(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.broker_port)
        except OSError:
            writer.close()
            return
        self._writers |= {writer, up_writer}

        async def pipe(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, asyncio.CancelledError):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.close()

        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
        self._writers -= {writer, up_writer}
