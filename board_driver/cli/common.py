"""What every command of the command line shares: the exit statuses, how a refusal is
printed, and the game options as flags (`--board 4x4`, `--option KEY=VALUE`)."""

from __future__ import annotations

import argparse
import sys

import games

EXIT_BAD_INPUT = 2


def fail(message: str, status: int = EXIT_BAD_INPUT) -> int:
    print(f"treeboard: {message}", file=sys.stderr)
    return status


def game_options(args: argparse.Namespace) -> dict[str, str]:
    """The game options given as `--NAME VALUE` (every option `treeboard games` lists) or
    `--option NAME=VALUE`, as `Game.new_state` takes them."""
    options = {}
    for name in all_game_options():
        value = getattr(args, option_dest(name), None)
        if value is not None:
            options[name] = value
    for item in getattr(args, "option", None) or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"--option takes KEY=VALUE, not {item!r}")
        options[key] = value
    return options


def all_game_options() -> dict[str, str]:
    """Every option of every game, with what it means (games that share a name share a flag)."""
    found: dict[str, list[str]] = {}
    for name in games.names():
        for option, desc in games.get_game(name).options().items():
            found.setdefault(option, []).append(f"{name}: {desc}")
    return {option: "; ".join(descs) for option, descs in found.items()}


def option_dest(option: str) -> str:
    """The argparse destination of a game option's flag."""
    return "game_option_" + option.replace("-", "_")


def add_game_options(parser: argparse.ArgumentParser) -> None:
    """`--NAME VALUE` for every game option, and `--option NAME=VALUE` for any: the same
    flags on replay, sim and trace, as `treeboard games` lists them."""
    group = parser.add_argument_group("game options (see `treeboard games`)")
    for option, desc in all_game_options().items():
        # As `treeboard games` lists it, and with dashes too (--quiet-limit), as flags go.
        flags = dict.fromkeys([f"--{option}", f"--{option.replace('_', '-')}"])
        group.add_argument(*flags, dest=option_dest(option), metavar="VALUE", help=desc.replace("%", "%%"))
    group.add_argument("--option", action="append", metavar="KEY=VALUE",
                       help="any game option, by name")
