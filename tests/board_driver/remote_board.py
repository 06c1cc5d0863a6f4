"""A board in its own process, for the test that SIGKILLs one side of a remote game.

``python remote_board.py CONFIG_JSON``: runs the real daemon on simulated hardware with the
config's fields, and takes the family's hands on stdin, one command a line:
``place SITE [KIND]``, ``lift SITE``, ``moves`` (prints the game's moves as JSON),
``status`` (prints the link's status). Every command is answered with one line.

`ProcessBoard` is the tests' side of it: starts it, asks it, kills it, closes it.
"""

import asyncio
import json
import sys
from pathlib import Path

from board_driver.config import sim_config
from board_driver.daemon.loop import Daemon
from board_driver.daemon.notify import Notifier


async def main(fields: dict) -> None:
    fields["players"] = tuple(fields["players"])
    daemon = Daemon(sim_config(**fields), notifier=Notifier(None))
    runner = asyncio.ensure_future(daemon.run())
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while daemon.remote is None and not runner.done():   # (the test's deadline bounds it)
        await asyncio.sleep(0.01)
    if runner.done():
        runner.result()   # why it could not start, on stderr
    print("READY", flush=True)
    while line := (await reader.readline()).decode().split():
        cmd, args = line[0], line[1:]
        board = daemon.session.hardware.board
        if cmd == "place":
            board.place(*args)
            out = "ok"
        elif cmd == "lift":
            board.lift(*args)
            out = "ok"
        elif cmd == "moves":
            out = json.dumps([str(m) for m in daemon.session.referee.state.moves])
        elif cmd == "status":
            out = json.dumps({"status": daemon.remote.status, "peer": daemon.remote.peer_online,
                              "refused": daemon.remote.refused,
                              "last_refusal": daemon.remote.last_refusal,
                              "corrections": [c.site for c in daemon.session.referee.corrections]})
        else:
            out = f"unknown command {cmd}"
        print(out, flush=True)
    daemon.stop()
    await runner


class ProcessBoard:
    """The board of this script in a process of its own, driven from a test's loop: it can be
    SIGKILLed as a power cut would stop it, and its memory is its own to measure."""

    def __init__(self, fields: dict):
        self.fields = fields
        self.proc = None

    async def start(self) -> None:
        from tests.waits import within

        self.proc = await asyncio.create_subprocess_exec(
            sys.executable, str(Path(__file__)), json.dumps(self.fields),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        line = await within(self.proc.stdout.readline(), 20, "the board's process to be ready")
        assert line.strip() == b"READY", line

    async def ask(self, command: str) -> str:
        from tests.waits import within

        self.proc.stdin.write(command.encode() + b"\n")
        await self.proc.stdin.drain()
        return (await within(self.proc.stdout.readline(), 10, f"the answer to {command!r}")
                ).decode().strip()

    async def moves(self) -> list[str]:
        return json.loads(await self.ask("moves"))

    async def status(self) -> dict:
        return json.loads(await self.ask("status"))

    async def kill(self) -> None:
        self.proc.kill()          # SIGKILL: no goodbye to the broker, no clean shutdown
        await self.proc.wait()

    async def close(self) -> None:
        from tests.waits import scaled

        if self.proc is not None and self.proc.returncode is None:
            self.proc.stdin.close()
            try:
                await asyncio.wait_for(self.proc.wait(), scaled(10))
            except asyncio.TimeoutError:
                self.proc.kill()
                await self.proc.wait()


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
