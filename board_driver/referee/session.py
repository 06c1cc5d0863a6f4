"""Putting a board together from a config: layout, hardware, journal, the game, the referee.

One place, so that `run`, `sim` and `trace` build the very same pipeline.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Callable

import games
from board_driver.config import Config, ConfigError
from board_driver.referee.journal import Journal, JournalError
from board_driver.referee.referee import Referee

log = logging.getLogger("treeboard.session")


@dataclass
class Session:
    config: Config
    layout: Any
    hardware: Any
    journal: Journal
    referee: Referee

    def close(self) -> None:
        try:
            self.hardware.leds.clear()
        except Exception:  # the strip may be gone already (an unplugged bridge)
            log.debug("could not blank the strip", exc_info=True)
        self.hardware.close()
        self.journal.close()


def load_board_layout(config: Config):
    """The config's layout. A name that is neither shipped nor a file is the config's mistake
    (named as such); a layout file with a mistake in it names the layout file."""
    from pathlib import Path

    from hardware.layout import load_layout, shipped_layouts

    shipped = shipped_layouts()
    if config.layout not in shipped and not Path(config.layout).is_file():
        raise ConfigError(config.path, "layout",
                          f"a shipped layout ({', '.join(shipped)}) or an existing layout file",
                          config.layout)
    return load_layout(config.layout)


def apply_led_limits(leds, config: Config) -> None:
    """The config may lower the layout's brightness cap and set the current budget."""
    if config.brightness is not None:
        leds.brightness_cap = min(leds.brightness_cap, config.brightness)
        leds.brightness = leds.brightness_cap
    if config.max_milliamps is not None:
        leds.max_milliamps = config.max_milliamps


def open_session(config: Config, *, clock: Callable[[], float], autoscan: bool = True,
                 new_game: bool = False, restore_pieces: bool = True) -> Session:
    """Open everything the config names, restore the game in progress, and resync the board."""
    layout = load_board_layout(config)
    game_name = config.game or layout.game
    if game_name is None:
        raise ConfigError(config.path, "game", f"a game name (layout {layout.name} names none)")
    options = dict(layout.game_options if config.game_options is None else config.game_options)
    try:
        game = games.get_game(game_name)
        fresh = game.new_state(**options)
    except (KeyError, TypeError, ValueError, games.GameError) as exc:
        # (TypeError, ValueError: a game that checks an option's type less politely.)
        raise ConfigError(config.path, "game_options", f"options {game_name} accepts ({exc})") from exc

    if config.backend == "bridge":
        from firmware_bridge.board import open_bridge_hardware

        hardware = open_bridge_hardware(layout, config.bridge_port, config.bridge_baud, clock=clock)
    else:
        from hardware import open_hardware

        hardware = open_hardware(layout, config.backend, clock=clock, autoscan=autoscan)
    apply_led_limits(hardware.leds, config)

    try:
        journal = Journal(config.journal)
    except JournalError as exc:
        hardware.close()
        # Name the key that chose the path, so the fix is obvious: the file, or `journal`.
        raise JournalError(f"{config.path}: journal: {exc}") from exc
    except Exception:
        hardware.close()
        raise
    state = _restore(journal, fresh, new_game)
    board = hardware.board
    if restore_pieces and board is not None and state.moves and hasattr(board, "scan_once"):
        # A simulated board starts empty, but a real one keeps its pieces through a restart:
        # put the restored game's pieces back, so a simulated game resumes as a real one would.
        for site, kind in state.occupancy().items():
            if site in layout.channels_of_site:
                board.place(site, kind)
        board.scan_once()
    debounce = config.debounce_ms / 1000 if config.debounce_ms is not None else None
    referee = Referee(state, layout, hardware.leds, journal, config, debounce_s=debounce)
    referee.resync(hardware.source.snapshot(), clock())
    return Session(config, layout, hardware, journal, referee)


def _restore(journal: Journal, fresh: games.State, new_game: bool) -> games.State:
    """The game in progress from the journal, if it is this board's game; else a new one."""
    saved = None
    if not new_game:
        saved = journal.current()
        if saved is None:
            # A game that ended just before a restart: show its final position until the
            # players clear the board (which starts the next game), not a board full of "wrong".
            last = journal.history(limit=1)
            saved = last[0] if last else None
    if saved is not None:
        # (Options drawn for each game, such as Arbos's setup_seed, are the saved game's own.)
        drawn = fresh.game.drawn_options
        same = saved.game == fresh.game.name and \
            {k: str(v) for k, v in saved.options.items() if k not in drawn} == \
            {k: str(v) for k, v in fresh.options().items() if k not in drawn}
        if not same:
            log.warning("journal holds a game of %s %s, not this board's; starting a new game",
                        saved.game, saved.options)
        else:
            state = fresh.game.new_state(**saved.options)
            try:
                state.play_all(saved.moves)
            except games.IllegalMove as exc:
                log.error("journal's game does not replay (%s); starting a new game", exc)
            else:
                if saved.status == "playing" or state.is_over():
                    log.info("restored %s after %d moves", saved.game, len(saved.moves))
                    return state
    journal.start_game(fresh.game.name, fresh.options())
    return fresh
