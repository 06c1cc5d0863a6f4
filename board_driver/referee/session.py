"""Putting a board together from a config: layout, hardware, journal, the game, the referee.

One place, so that `run`, `sim` and `trace` build the very same pipeline.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Callable

import games
from board_driver.config import Config, ConfigError
from board_driver.referee.journal import Journal, JournalError, SavedGame
from board_driver.referee import kept
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


def layouts_for(game_name: str) -> list[str]:
    """The shipped layouts made for a game (for a message)."""
    from hardware.layout import load_layout, shipped_layouts

    return [name for name in shipped_layouts() if load_layout(name).game == game_name]


def apply_led_limits(leds, config: Config) -> None:
    """The config may lower the layout's brightness cap and set the current budget."""
    if config.brightness is not None:
        leds.brightness_cap = min(leds.brightness_cap, config.brightness)
        leds.brightness = leds.brightness_cap
    if config.max_milliamps is not None:
        leds.max_milliamps = config.max_milliamps


def open_session(config: Config, *, clock: Callable[[], float], autoscan: bool = True,
                 new_game: bool = False, restore_pieces: bool = True) -> Session:
    """Open everything the config names, restore the game in progress, and resync the board.
    The config is read only from here on (`Config.freeze`)."""
    config.freeze()
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
    refused = kept.web_refusal(config.players, game)   # (a web seat: not in every game)
    if refused is not None:
        raise ConfigError(config.path, "players", f"seats {game_name} can be played with "
                          f"({refused})", list(config.players))
    unsensed = [site for site in fresh.sites() if site not in layout.channels_of_site]
    if unsensed:
        # (the first frame would name a site the strip has no LED for: a KeyError at start)
        key = "game" if config.game_options is None else "game_options"
        raise ConfigError(config.path, key,
                          f"a game whose sites layout {layout.name} has sensors for ({game_name} "
                          f"{fresh.options()} has {len(unsensed)} it has none for, e.g. "
                          f"{unsensed[0]}; layouts made for it: "
                          f"{', '.join(layouts_for(game_name)) or 'none shipped'})", game_name)

    if layout.adc is not None:   # (a layout naming no game: its ADC bands against the config's)
        from hardware.layout import check_piece_kinds

        check_piece_kinds(game_name, layout.adc.kinds,
                          lambda key, expected, got: ConfigError(
                              config.path, "game", f"a game whose pieces layout {layout.name}'s "
                              f"{key} name: {expected}", got))
    try:
        journal = Journal(config.journal)
    except JournalError as exc:
        # Name the key that chose the path, so the fix is obvious: the file, or `journal`.
        raise JournalError(f"{config.path}: journal: {exc}") from exc
    try:
        state, saved = _restore(journal, fresh, new_game)
        # A real board keeps its pieces through a restart; a simulated one is given the
        # restored game's pieces (the simulated firmware before its first scan: resyncing
        # before they were back journaled an undo and the move again).
        pieces = state.occupancy() if restore_pieces and state.moves else {}
        if config.backend == "bridge":
            from firmware_bridge.board import open_bridge_hardware

            hardware = open_bridge_hardware(layout, config.bridge_port, config.bridge_baud,
                                            clock=clock, pieces=pieces)
        else:
            from hardware import open_hardware

            hardware = open_hardware(layout, config.backend, clock=clock, autoscan=autoscan)
    except BaseException:
        journal.close()
        raise
    try:
        apply_led_limits(hardware.leds, config)
        board = hardware.board
        firmware_has_them = config.backend == "bridge" and config.bridge_port == "sim"
        if pieces and board is not None and not firmware_has_them and hasattr(board, "scan_once"):
            for site, kind in pieces.items():
                if site in layout.channels_of_site:
                    board.place(site, kind)
            board.scan_once()
    except BaseException:
        hardware.close()
        journal.close()
        raise
    debounce = config.debounce_ms / 1000 if config.debounce_ms is not None else None
    referee = Referee(state, layout, hardware.leds, journal, config, debounce_s=debounce)
    kept.restore(referee)   # what a session changed (seats, hints, clock), if any
    journal.set_seats(referee.seats)   # (the game in progress is played by them: its record)
    referee.resync(hardware.source.snapshot(), clock())
    if saved is not None and saved.status == "playing":
        referee.restore_clocks(saved.clocks, clock())
    elif saved is not None:
        referee.restore_finished(saved, clock())
        if referee.endings.restore(saved.summary):   # resigned or drawn: shown so
            referee.decide(clock())
    elif referee.clocks.timed:
        journal.save_clocks(referee.clocks.to_json(clock()))
    return Session(config, layout, hardware, journal, referee)


def _restore(journal: Journal, fresh: games.State, new_game: bool
             ) -> tuple[games.State, SavedGame | None]:
    """The game in progress from the journal, if it is this board's game (with its saved
    record: the clocks, how it ended); else a new one (and None)."""
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
                summary = saved.summary or {}
                # (lost on time, resigned or drawn by agreement: over, though not by the rules)
                ended = any(summary.get(k) in (0, 1) for k in ("flag", "resigned", "forfeit",
                                                                 "drawn_away")) \
                    or bool(summary.get("agreed"))
                if saved.status == "playing" or state.is_over() or ended:
                    log.info("restored %s after %d moves", saved.game, len(saved.moves))
                    return state, saved
    journal.start_game(fresh.game.name, fresh.options())
    return fresh, None
