"""What a session changes of the board (who plays each seat, the hint mode, the clock; the
voice's settings, which the page changes), kept in the journal's settings so that it survives
a restart.

The config is read once at start and never written; each change is kept with the config's
values it was made from, so that a later edit of the config file wins over what a session
changed before the edit (logged). A remote game's seats are not kept here: the link keeps the
joined game beside the journal, with its game.
"""

from __future__ import annotations

import logging
from typing import Any

from board_driver import views
from games.base import Reason
from board_driver.referee.clock import control_text, parse_time_control
from board_driver.referee.timekeeper import default_controls

log = logging.getLogger("treeboard.referee")

KEY = "board"   # the journal's settings key

#: What a seat may be: a person at this board, the computer at a level, another board, a
#: person on the page with no board (a web seat: its moves come through POST /api/play).
SEAT_KINDS = ("human", "computer", "remote", "web")


def check_seats(seats: Any, game: Any = None) -> tuple[str, str]:
    """Two seats, each "human", "web", "remote" or "computer:LEVEL", and, given the `game`,
    seats it can be played with (`web_refusal`); raises ValueError otherwise."""
    seats = tuple(seats)
    if len(seats) != 2 or not all(isinstance(s, str) and s.split(":", 1)[0] in SEAT_KINDS
                                  for s in seats):
        raise ValueError(f"seats must be two of human, web, remote, computer:LEVEL; got {seats!r}")
    refused = web_refusal(seats, game) if game is not None else None
    if refused is not None:
        raise ValueError(f"{refused}; got {list(seats)!r}")
    return seats  # type: ignore[return-value]


def web_refusal(seats: tuple[str, ...], game: Any) -> Reason | None:
    """Why a web seat cannot play `game` against the other seat, or None (docs/board.md, "A
    seat on the page"). A web seat's moves are put down on the board by the people there, as
    the computer's are: in a piece game the pieces need hands at the board, so the other seat
    is the person there ("human"); a touch game's LEDs show the whole position by themselves,
    so a web seat may play it against anyone here, or two web seats against each other. A
    remote game's seats are the join's."""
    if "web" not in seats:
        return None
    if "remote" in seats:
        return Reason("a web seat plays at home, not in a remote game: its seats are set by "
                      "joining it")
    if game.input_mode == "touch" or set(seats) == {"web", "human"}:
        return None
    return Reason("in {game} a web seat plays against a person at the board (human), who puts "
                  "its pieces down; two web seats, or web against the computer, play only a "
                  "game the lights show whole", game=game.short_title)


def base(referee: Any) -> dict[str, Any]:
    """The config's values a session's changes are made from."""
    config = referee.config
    return {"seats": list(config.players or ("human", "human")), "moves": config.moves,
            "clock": control_text(default_controls(config, referee.state.game))}


def keep(referee: Any, keep: bool = True) -> None:
    """The referee's seats, hint mode and clock into the journal (durable when this returns).
    `keep` False: not now, a caller changing several keeps them all at once afterwards (the
    menu's apply: one write of them all, not one for each)."""
    if not keep or "remote" in referee.seats:
        return
    referee.journal.save_setting(KEY, {"base": base(referee), "values": {
        "seats": list(referee.seats), "moves": referee.settings.moves,
        "clock": control_text(referee.keeper.controls)}})


def keep_seats(referee: Any, keep_too: bool = True) -> None:
    """The referee's seats changed: the game in progress is played by them from now on (its
    record names them: the journal's players), and a restart keeps them (`keep`, unless
    `keep_too` is False: the caller keeps them with its other changes)."""
    referee.journal.set_seats(referee.seats)
    keep(referee, keep_too)


def restore(referee: Any) -> None:
    """The seats, hint mode and clock a session last kept, when kept from this config; a kept
    value the board cannot use is logged and the config's apply."""
    saved = referee.journal.setting(KEY)
    if saved is None:
        return
    if not isinstance(saved, dict) or saved.get("base") != base(referee):
        log.info("the board's settings changed in a session were made for another config "
                 "(%s); the config's apply", referee.config.path)
        return
    values = saved.get("values") or {}
    try:
        seats = check_seats(values.get("seats", ()), referee.state.game)
        moves = values.get("moves")
        if moves not in views.hint_modes(referee.state.game.name):
            raise ValueError(f"hint mode {moves!r} is not one of this game's")
        controls = parse_time_control(str(values.get("clock")))
    except ValueError as exc:
        log.error("journal %s: settings.%s: %s; the config's apply", referee.journal.path, KEY,
                  exc)
        return
    referee.restore_kept(seats, moves, controls)


def voice(config: Any, journal: Any) -> Any:
    """[voice] as the page last changed it (the journal's "voice" setting), when it was
    changed from the [voice] the config holds now; else the config's (an edited config file
    wins over what the page changed before the edit)."""
    from board_driver.config import ConfigError, voice_from_page, voice_settings

    base = config.voice
    saved = journal.setting("voice")
    if saved is None:
        return base
    if not isinstance(saved, dict) or saved.get("base") != voice_settings(base):
        log.info("the voice settings changed on the page were made for another [voice] in "
                 "%s; its [voice] applies", config.path)
        return base
    try:
        return voice_from_page(saved.get("values"), base, f"{journal.path}: settings.voice")
    except ConfigError as exc:
        log.error("%s; the config's [voice] applies", exc)
        return base
