"""`treeboard seat-page` and `treeboard invite`: a seat played from a browser across the
internet (docs/remote.md, "A seat in a browser"). The seat page is static: written to a folder
for Mosquitto's `http_dir` or any static host; an invitation is a link to it whose fragment
grants one seat of one game (remote/seat.py)."""

from __future__ import annotations

import argparse
import os
import shutil
from importlib import resources
from pathlib import Path

from board_driver.cli.common import fail


def seat_page_files() -> dict[str, bytes]:
    """The seat page's files by their path in the folder: the page, its vendored libraries, and
    the board page's entry.js (one copy of how taps become a move, shared by both pages)."""
    static = resources.files("board_driver.web.static")
    out: dict[str, bytes] = {}

    def walk(node, prefix: str) -> None:
        for child in node.iterdir():
            if child.is_dir():
                walk(child, f"{prefix}{child.name}/")
            elif not child.name.startswith("."):
                out[prefix + child.name] = child.read_bytes()
    walk(static / "seat", "")
    out["entry.js"] = (static / "entry.js").read_bytes()
    return out


def cmd_seat_page(args: argparse.Namespace) -> int:
    out = Path(args.out)
    files = seat_page_files()
    if (out / "index.html").exists() and not args.force:
        return fail(f"{out} already holds index.html; not overwriting (choose another --out, "
                    "or add --force)")
    try:
        for name, data in files.items():
            path = out / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    except OSError as exc:
        return fail(f"cannot write the seat page to {out}: {exc.strerror or exc}")
    print(f"wrote the seat page to {out}/ ({len(files)} files): serve it over https (or from "
          "Mosquitto's http_dir), then send invitations made with `treeboard invite`")
    return 0


def _secret(args: argparse.Namespace) -> str:
    from board_driver.remote.link import read_private_file
    from board_driver.remote.protocol import RemoteError

    if args.secret_file:
        return read_private_file(args.secret_file, "secret")
    if os.environ.get("TREEBOARD_REMOTE_SECRET"):
        return os.environ["TREEBOARD_REMOTE_SECRET"]
    raise RemoteError("the family's shared secret: --secret-file FILE, or "
                      "TREEBOARD_REMOTE_SECRET in the environment")


def cmd_invite(args: argparse.Namespace) -> int:
    from board_driver.remote import seat as sp
    from board_driver.remote.protocol import RemoteError

    try:
        secret = _secret(args)
        login = None
        if args.login:
            from board_driver.remote.link import read_credentials

            login = read_credentials(args.login)
        if args.lobby:
            if args.game or args.seat is not None:
                return fail("--lobby makes the family's lobby link: no --game or --seat")
            link = sp.lobby_link(args.page, args.broker, secret, login)
        else:
            if not args.game or args.seat is None:
                return fail("an invitation names --game ID and --seat N (or --lobby)")
            link = sp.invitation(args.page, args.broker, args.game, args.seat,
                                 sp.seat_key(secret, args.game, args.seat), login)
    except RemoteError as exc:
        return fail(exc.reason)
    print(link)
    if args.qr:
        from board_driver.web.invite import qr_svg

        try:
            Path(args.qr).write_text(qr_svg(link), encoding="utf-8")
        except OSError as exc:
            return fail(f"cannot write the QR code to {args.qr}: {exc.strerror or exc}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("seat-page", help="write the static seat page (a seat played from a "
                                         "browser) to a folder")
    p.add_argument("--out", required=True, help="the folder (Mosquitto's http_dir, or any "
                                                 "static host's)")
    p.add_argument("--force", action="store_true", help="overwrite the page's files in --out")
    p.set_defaults(func=cmd_seat_page)
    p = sub.add_parser("invite", help="print a link that grants one seat of one game (or the "
                                      "family's lobby link)")
    p.add_argument("--page", required=True, help="the seat page's URL (https://...)")
    p.add_argument("--broker", required=True, help="the broker's WebSockets URL, as the "
                                                   "browser reaches it (wss://host:port)")
    p.add_argument("--game", help="the game id the board hosts")
    p.add_argument("--seat", type=int, choices=(0, 1), help="the seat the link grants")
    p.add_argument("--lobby", action="store_true", help="the family's lobby link instead")
    p.add_argument("--secret-file", metavar="FILE", help="the family's shared secret (or "
                   "TREEBOARD_REMOTE_SECRET)")
    p.add_argument("--login", metavar="FILE", help="the broker's guest account, one line "
                   "'username:password' (its ACL: seat and lobby topics only; docs/remote.md)")
    p.add_argument("--qr", metavar="FILE", help="also write the link as a QR code (SVG)")
    p.set_defaults(func=cmd_invite)
