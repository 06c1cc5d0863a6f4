"""The `treeboard` command line: an explicit parser over one module per command family.

Each subcommand is a small function taking parsed arguments and returning an exit status:
0 success, 2 bad input (a bad move, file, config or option), 1 a failure at run time.

Owns: nothing but the parser. May import every other room of board_driver (the arrows point
down: cli -> daemon -> referee -> games); nothing imports the cli.

  common.py   exit statuses, `fail`, the game options as flags
  rules.py    games, replay, match
  board.py    run, sim, trace, selftest, map (and the simulated board's config)
  ai.py       solve, review
  service.py  install-service
  update.py   release-key, release, update, boot-check: signed releases, updates on trial
  maker.py    selftest and map: a maker's first contact with a board
  records.py  export and import: the journal's games as records (SGF, JSON) and back
  typed_hands.py  the sim's actions typed for selftest --sim and map --sim
  kit.py      kit: a layout's parts list, wiring diagram and template to cut
  seat.py     seat-page, invite and lobby: a seat played from a browser across the internet,
              the games offered in the family's lobby
  sim_lobby.py  the sim's lobby and join: a board meets another in the lobby
  firmware.py firmware check / update: the bridge microcontroller's firmware over its USB line
  sim.py      the terminal a simulated board is played from
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import Sequence

from board_driver.cli import ai, board, firmware, kit, records, rules, seat, service, update


def _version() -> str:
    """The installed package's version (the source tree's pyproject when not installed)."""
    from importlib import metadata

    try:
        return metadata.version("treeboard")
    except metadata.PackageNotFoundError:
        import tomllib
        from pathlib import Path

        pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
        return tomllib.loads(pyproject.read_text())["project"]["version"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="treeboard",
        description="A smart board for tree games: rules engines, sensors, LEDs, and the daemon.")
    parser.add_argument("--version", action="version", version=f"treeboard {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for family in (rules, board, kit, ai, records, service, seat, update, firmware):
        family.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        status = args.func(args)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler below
        return status
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `treeboard games | head`: the reader has all it wanted. Point stdout at /dev/null so
        # the interpreter's own flush at exit does not fail again, and end as a shell
        # expects of a command its pipe closed (128 + SIGPIPE).
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 128 + signal.SIGPIPE
