"""The records' subcommands: export (the journal's games as SGF or JSON, to standard output)
and import (a record file's games into the journal). docs/records.md says the form."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from board_driver.cli.common import fail
from board_driver.config import DEFAULT_PATH, Config, ConfigError, load_config


def default_journal() -> str:
    """The installed board's journal: its config's `journal` (the built-in default without
    a config file)."""
    return load_config(DEFAULT_PATH).journal if DEFAULT_PATH.exists() else Config().journal


def _journal(args: argparse.Namespace, *, must_exist: bool):
    from board_driver.referee.journal import Journal

    path = Path(args.journal or default_journal())
    if must_exist and not path.exists():
        raise FileNotFoundError(f"no journal at {path} (name one with --journal PATH)")
    return Journal(path)


def cmd_export(args: argparse.Namespace) -> int:
    from board_driver.records import library, sgf
    from board_driver.referee.journal import JournalError

    try:
        with _journal(args, must_exist=True) as journal:
            ids = (library.every_game(journal) if args.all else
                   [args.id] if args.id is not None else _last(journal))
            review = _reviews(journal, ids, args.review) if args.review else None
            records = library.export(journal, ids, review)
    except (FileNotFoundError, ConfigError, JournalError, library.RecordError) as exc:
        return fail(str(exc))
    if args.format == "json":
        found = [library.as_json(r) for r in records]
        json.dump(found if args.all else found[0], sys.stdout, indent=1, ensure_ascii=False)
        sys.stdout.write("\n")
    else:
        sys.stdout.buffer.write(sgf.dumps(records))
    return 0


def _last(journal) -> list[int]:
    """The newest game played here that is no longer in progress (export's default)."""
    from board_driver.referee.journal import JournalError

    last = journal.history(limit=1, include_abandoned=True)
    if not last:
        raise JournalError(f"the journal {journal.path} holds no finished game yet: "
                           "name one with --id N, or --all")
    return [last[0].game_id]


def _reviews(journal, ids, seconds: float) -> dict[int, list]:
    """The computer's review of each game (`treeboard review`'s), `seconds` a position."""
    import games
    from games.ai.review import review

    found = {}
    for game_id in ids:
        saved = journal.game(game_id)
        state = games.get_game(saved.game).new_state(**saved.options)
        state.play_all(saved.moves)
        found[game_id] = review(state, seconds=seconds, seed=0)
    return found


def cmd_import(args: argparse.Namespace) -> int:
    from board_driver.records import library
    from board_driver.referee.journal import JournalError

    try:
        data = sys.stdin.buffer.read() if args.file == "-" else Path(args.file).read_bytes()
    except OSError as exc:
        return fail(f"{args.file}: {exc.strerror or exc}")
    try:
        found = library.read_records(data)   # (checked whole before the journal is opened)
        with _journal(args, must_exist=False) as journal:
            ids = journal.add_games(found)
    except library.RecordError as exc:
        return fail(f"{args.file}: {exc}")
    except (ConfigError, JournalError) as exc:
        return fail(str(exc))
    for game_id, one in zip(ids, found):
        print(f"imported game {game_id}: {one.game}, {len(one.moves)} moves, "
              + ("finished" if one.summary is not None else "unfinished"))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    journal_help = ("the journal (default: the installed board's, as its config names it; "
                    f"{Config().journal} without one)")
    p = sub.add_parser("export", help="the journal's games as records (SGF FF[4] or JSON), "
                                      "to standard output")
    p.add_argument("--journal", metavar="PATH", help=journal_help)
    which = p.add_mutually_exclusive_group()
    which.add_argument("--id", type=int, metavar="N",
                       help="the game with this id (default: the last finished one)")
    which.add_argument("--all", action="store_true", help="every game, as one collection")
    p.add_argument("--format", choices=["sgf", "json"], default="sgf")
    p.add_argument("--review", type=float, metavar="SECONDS",
                   help="with the computer's review as comments (SECONDS a position)")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("import", help="a record file's games into the journal (SGF FF[4])")
    p.add_argument("--journal", metavar="PATH", help=journal_help)
    p.add_argument("file", help="an SGF file (one game or a collection); - for stdin")
    p.set_defaults(func=cmd_import)
