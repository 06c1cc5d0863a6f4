"""`treeboard release-key`, `release`, `update`, `boot-check`: signed releases and the board's
update on trial (board_driver/update/, docs/service.md "Updates").

    treeboard release-key --out DIR            a new Ed25519 key pair (release-key.pem, release.pub)
    treeboard release --key KEY --out DIR [--with-core] [--wheel FILE]...
                                               the project's wheels and a signed manifest
    treeboard update [--from URL|DIR] [--root DIR] [--config FILE]
    treeboard boot-check [--root DIR] [--config FILE]     (what the unit runs before each start)

On a board (no --root) `update` stops the service, switches, starts it and waits for the new
version to confirm; with --root it works on the test tree there and starts nothing (the
caller plays the service: `boot-check`, then `ROOT/opt/treeboard/current/venv/bin/treeboard run`).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from board_driver.cli.common import fail
from board_driver.config import ConfigError, UpdateSettings, load_config
from board_driver.update import ReleaseRefused, UpdateError
from board_driver.update.tree import DEFAULT_JOURNAL, REQUEST, Tree, boot_check, rooted, write_json

CONFIG = Path("/etc/treeboard/config.toml")


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("release-key", help="make the maintainer's Ed25519 key pair for releases")
    p.add_argument("--out", type=Path, required=True, metavar="DIR",
                   help="where to write release-key.pem (private) and release.pub (for boards)")
    p.set_defaults(func=release_key_command)

    p = subparsers.add_parser("release", help="make a signed release: the wheel and its manifest")
    p.add_argument("--key", type=Path, required=True, metavar="KEYFILE", help="release-key.pem")
    p.add_argument("--out", type=Path, required=True, metavar="DIR", help="a new folder")
    p.add_argument("--source", type=Path, metavar="DIR",
                   help="the project to build (default: the checkout this command runs from)")
    p.add_argument("--wheel", type=Path, action="append", metavar="FILE",
                   help="sign this wheel too (repeatable): a platform wheel with the solver's "
                        "compiled core built elsewhere (`tools/arm64-check wheel DIR` makes a "
                        "Pi's), a dependency's; the pure wheel is built unless one is given")
    p.add_argument("--with-core", action="store_true",
                   help="also build this machine's platform wheel, with the solver's compiled "
                        "core (boards of this processor and Python install it)")
    p.add_argument("--with-deps", action="store_true",
                   help="bundle the dependencies' wheels too (for this machine's platform: "
                        "run it on a Pi to make a release a Pi installs offline)")
    p.set_defaults(func=release_command)

    p = subparsers.add_parser("update", help="install a signed release beside this one, on trial")
    p.add_argument("--from", dest="source", metavar="URL|DIR",
                   help="the release (default: the config's update.source)")
    p.add_argument("--root", type=Path, default=Path("/"), metavar="DIR",
                   help="work on the version tree under DIR (a test tree) and start nothing")
    p.add_argument("--config", type=Path, default=CONFIG, metavar="FILE",
                   help="the board's config (under --root), for [update] and the journal")
    p.add_argument("--offline", action="store_true", help="no package index: the release "
                   "must carry every dependency (made with --with-deps)")
    p.add_argument("--when-idle", action="store_true",
                   help="refuse while a game is in progress (what the schedule runs)")
    p.add_argument("--scheduled", action="store_true",
                   help="as treeboard-update.service runs it: only when the page asked, or "
                        "update.check is on and due; between games; quiet when none is newer")
    p.add_argument("--no-wait", action="store_true",
                   help="(on a board) start the new version and return without waiting")
    p.set_defaults(func=update_command)

    p = subparsers.add_parser("boot-check", help="before a start: finish or roll back an update")
    p.add_argument("--root", type=Path, default=Path("/"), metavar="DIR")
    p.add_argument("--config", type=Path, default=CONFIG, metavar="FILE")
    p.set_defaults(func=boot_check_command)


def release_key_command(args: argparse.Namespace) -> int:
    from board_driver.update import release

    try:
        private, public = release.make_key(args.out)
    except UpdateError as exc:
        return fail(str(exc))
    print(f"wrote {private} (private: keep it off the board, backed up) and {public} "
          "(copy it to each board as /etc/treeboard/release.pub)")
    return 0


def release_command(args: argparse.Namespace) -> int:
    from board_driver.update import release

    try:
        manifest = release.make_release(args.key, args.out, source=args.source,
                                        wheels=args.wheel, with_deps=args.with_deps,
                                        with_core=args.with_core)
    except UpdateError as exc:
        return fail(str(exc))
    print(f"release {manifest.version} in {args.out}: {', '.join(manifest.names)}, "
          f"{release.MANIFEST} signed in {release.SIGNATURE}")
    platforms = [w for w in manifest.wheels if not release.is_pure(w)]
    print("the solver's compiled core for: " + (", ".join(platforms) if platforms else
          "no board (only the pure wheel: boards run the pure-Python solver; --with-core, "
          "--wheel add platform wheels)"))
    return 0


def settings(root: Path, config: Path) -> tuple[UpdateSettings, str]:
    """The board's [update] settings and journal (defaults when there is no config yet)."""
    path = rooted(root, config)
    if not path.exists():
        return UpdateSettings(), DEFAULT_JOURNAL
    cfg = load_config(path)
    return cfg.update, cfg.journal


def update_command(args: argparse.Namespace) -> int:
    from board_driver.update.updater import Options, update

    live = args.root == Path("/")
    if live and os.geteuid() != 0:
        return fail("update installs into /opt/treeboard and restarts the service: run it with "
                    "sudo (or give --root DIR for a test tree)")
    try:
        wanted, journal = settings(args.root, args.config)
        source = args.source or wanted.source
        if not source:
            return fail("no release to update from: give --from URL|DIR, or set update.source "
                        f"in {rooted(args.root, args.config)}")
        tree = Tree(args.root, journal)
        if args.scheduled and not due(tree, wanted.check):
            return 0
        options = Options(public_key=rooted(args.root, wanted.public_key),
                          trial_seconds=wanted.trial_seconds, max_starts=wanted.max_starts,
                          live=live, wait=not args.no_wait, offline=args.offline,
                          when_idle=args.when_idle or args.scheduled)
        update(source, tree, options)
        if args.scheduled:
            _looked(tree)
    except ReleaseRefused as exc:
        if args.scheduled and "is not newer" in str(exc):
            _looked(tree)
            print(f"no newer release: {exc}")
            return 0
        return fail(f"{exc} (nothing was changed)")
    except (UpdateError, ConfigError) as exc:
        return fail(f"{exc} (nothing was changed)" if isinstance(exc, UpdateError) else str(exc))
    return 0


#: The last scheduled look for a release, beside the journal.
LOOKED = "update-looked.json"
#: How long after a scheduled look the next one is due (the timer fires hourly, so an update
#: put off by a game in progress comes within the hour after it).
DUE_AFTER_S = {"daily": 20 * 3600, "weekly": 6.5 * 86400}


def due(tree: Tree, check: str) -> bool:
    """Whether a scheduled run should look for a release: the page asked (its request is taken
    now), or update.check is daily/weekly and the last look is that long ago."""
    import time

    request = tree.state / REQUEST
    if request.exists():
        request.unlink()
        return True
    if check == "off":
        print("update.check is off and the page asked for nothing: no update")
        return False
    try:
        last = (tree.state / LOOKED).stat().st_mtime
    except OSError:
        last = 0.0
    return time.time() - last >= DUE_AFTER_S[check]


def _looked(tree: Tree) -> None:
    """A scheduled look is done (a game in progress is no look: the next hour tries again)."""
    import time

    write_json(tree.state / LOOKED, {"at": time.time()})


def boot_check_command(args: argparse.Namespace) -> int:
    try:
        _, journal = settings(args.root, args.config)
    except ConfigError:
        journal = DEFAULT_JOURNAL   # (the check must run whatever the config says)
    boot_check(Tree(args.root, journal))
    return 0
