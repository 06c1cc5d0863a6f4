"""The sim's lobby commands (docs/remote.md, "The lobby"): a board started with `--remote URL
--lobby` (no game arranged) lists the games the family's boards offer (`lobby`) and takes one
(`join GAME`): it then plays that game as a remote board (remote/meet.py)."""

from __future__ import annotations

from typing import Any

from board_driver.views.words import tr


async def lobby(typed: Any, verb: str, args: list[str]) -> None:
    offers = await typed.door.host.remote_part.offers()
    if not offers:
        typed.terminal.say(tr("the lobby: no game is offered now"))
    for offer in offers:
        typed.terminal.say(tr("  offered: {game} — join {game} to play it; {summary}").format(
            game=offer.game_id, summary=offer.summary))


async def join(typed: Any, verb: str, args: list[str]) -> None:
    part = typed.door.host.remote_part
    await part.take(args[0])
    typed.terminal.say(tr("took {game} from the lobby: this board plays seat {seat}").format(
        game=args[0], seat=part.link.settings.local_seat))
    typed.door.after_change()
    await typed.settle()
