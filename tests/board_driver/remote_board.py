"""A board in its own process, for the test that SIGKILLs one side of a remote game.

``python remote_board.py CONFIG_JSON``: runs the real daemon on simulated hardware with the
config's fields, and takes the family's hands on stdin, one command a line:
``place SITE [KIND]``, ``lift SITE``, ``moves`` (prints the game's moves as JSON),
``status`` (prints the link's status). Every command is answered with one line.
"""

import asyncio
import json
import sys

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
    while daemon.remote is None:
        await asyncio.sleep(0.01)
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


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
