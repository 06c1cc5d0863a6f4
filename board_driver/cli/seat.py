"""`treeboard seat-page` and `treeboard invite`: a seat played from a browser across the
internet (docs/remote.md, "A seat in a browser"). The seat page is static: written to a folder
for Mosquitto's `http_dir` or any static host; an invitation is a link to it whose fragment
grants one seat of one game (remote/seat.py)."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
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
        if args.game_login:
            if args.login or args.lobby or not args.game or args.seat is None:
                return fail("--game-login is the seat's own account: with --game and --seat, "
                            "without --login or --lobby")
            login = sp.game_login(secret, args.game, args.seat)
            # (the family registers it once on the broker: docs/remote.md, step 3)
            print(f"the seat's broker account: register it once with\n  sudo mosquitto_passwd "
                  f"-b /etc/mosquitto/passwd {login[0]} {login[1]}", file=sys.stderr)
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


def cmd_lobby(args: argparse.Namespace) -> int:
    """The games the family's boards offer in the lobby now (remote/meet.py), one a line:
    `GAME ID: the host's sentence`. A board takes one with `join GAME ID` (sim) or the page."""
    import asyncio

    from board_driver.remote.link import parse_broker, read_credentials
    from board_driver.remote.meet import Broker, read_offers
    from board_driver.remote.protocol import RemoteError

    try:
        host, port, tls = parse_broker(args.broker)
        login = read_credentials(args.login) if args.login else (None, None)
        broker = Broker(host, port, tls, _secret(args).encode(), *login, args.ca_file)
    except RemoteError as exc:
        return fail(exc.reason)
    import aiomqtt

    try:
        offers = asyncio.run(read_offers(broker))
    except (aiomqtt.MqttError, OSError) as exc:   # (ssl.SSLError is an OSError)
        print(f"treeboard: the broker {args.broker} cannot be reached: {exc}", file=sys.stderr)
        return 1
    for offer in offers:
        print(offer.line())
    if not offers:
        print("no game is offered in the lobby now", file=sys.stderr)
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
    _secret_and_login(p, "the broker's guest account (the lobby link's: its ACL reads the "
                         "lobby only; docs/remote.md)")
    p.add_argument("--game-login", action="store_true", help="carry the seat's own broker "
                   "account (named GAME/seat/N; its password from the secret): its ACL "
                   "touches that seat of that game only (docs/remote.md)")
    p.add_argument("--qr", metavar="FILE", help="also write the link as a QR code (SVG)")
    p.set_defaults(func=cmd_invite)
    p = sub.add_parser("lobby", help="list the games the family's boards offer in the lobby "
                                     "(a board takes one: sim's join GAME, or its page)")
    p.add_argument("--broker", required=True, help="the broker, mqtt://host[:port] or "
                                                   "mqtts://host[:port]")
    _secret_and_login(p, "the board's broker account")
    p.add_argument("--ca-file", metavar="FILE", help="the broker's CA certificate (mqtts)")
    p.set_defaults(func=cmd_lobby)


def _secret_and_login(p: argparse.ArgumentParser, login: str) -> None:
    p.add_argument("--secret-file", metavar="FILE", help="the family's shared secret (or "
                   "TREEBOARD_REMOTE_SECRET)")
    p.add_argument("--login", metavar="FILE", help=f"{login}, one line 'username:password'")
