"""`treeboard firmware`: the bridge microcontroller's firmware, checked and updated over its
own USB line (firmware_bridge/flash.py; firmware_bridge/README.md, "Updating").

  treeboard firmware check  [--port P]           the firmware's release against this host's
  treeboard firmware update [--port P] [--force] the host's files written to the board, checked
                                                 on it, the board reset and asked again

The service holds the line while it runs: stop it first (`sudo systemctl stop treeboard`) or
use the page's button, which borrows the line from the running board."""

from __future__ import annotations

import argparse
import time

from board_driver.cli.common import fail

EXIT_FAILED = 1
#: How long a Pico takes to come back after its reset (USB enumerates again, main.py starts).
BACK_TIMEOUT_S = 20.0


def _port(args: argparse.Namespace) -> str:
    from firmware_bridge.host import find_bridge_port

    return args.port or find_bridge_port()


def _ask(port: str, baud: int, timeout: float = 3.0):
    """The firmware's FirmwareStatus through a bridge opened for a moment; None when it does
    not answer as a bridge (in the REPL after the jumper, or not running)."""
    from firmware_bridge import flash
    from firmware_bridge.host import BridgeError, open_bridge

    try:
        source, sink = open_bridge(port, baud, connect_timeout=timeout)
    except BridgeError:
        return None
    try:
        deadline = time.monotonic() + timeout
        while source.firmware_info() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        info = source.firmware_info()
    finally:
        source.close()
        sink.close()
    return flash.compare(*info) if info is not None else None


def _describe(found) -> str:
    release = "before 3" if found.device_release is None else str(found.device_release)
    text = f"the board's firmware: release {release}; this host's: {found.host_release}"
    if found.differing and found.device_release is not None:
        text += f"; files not the host's: {', '.join(found.differing)}"
    return text


def _look(args: argparse.Namespace):
    """(the port, the firmware's FirmwareStatus or None); raises BridgeError without a port."""
    port = _port(args)
    return port, _ask(port, args.baud)


def cmd_check(args: argparse.Namespace) -> int:
    from treeboard.exc import BridgeError

    try:
        port, found = _look(args)
    except BridgeError as exc:
        return fail(str(exc), EXIT_FAILED)
    if found is None:
        return fail(f"no bridge answers on {port} (the service holds it? the jumper is on? "
                    "`treeboard firmware update` works from the REPL too)", EXIT_FAILED)
    print(_describe(found))
    if found.needs_update:
        print("an update is due: treeboard firmware update"
              + (" (this once with the jumper from GP22 to GND)" if found.needs_jumper else ""))
    return 0


def cmd_update(args: argparse.Namespace) -> int:
    from firmware_bridge import flash
    from treeboard.exc import BridgeError

    try:
        port, found = _look(args)
    except BridgeError as exc:
        return fail(str(exc), EXIT_FAILED)
    if found is not None:
        print(_describe(found))
        if not found.needs_update and not args.force:
            print("nothing to do (--force writes the files all the same)")
            return 0
    try:
        files = flash.update_firmware(port, baud=args.baud, say=lambda text: print(f"  {text}"))
    except flash.FirmwareUpdateError as exc:
        return fail(str(exc), EXIT_FAILED)
    print(f"wrote and checked {', '.join(files)}; the board resets")
    deadline = time.monotonic() + args.back_timeout
    while time.monotonic() < deadline:
        after = _ask(port, args.baud, timeout=2.0)
        if after is not None:
            print(_describe(after))
            return 0 if not after.needs_update else EXIT_FAILED
        time.sleep(0.5)
    return fail(f"the board did not answer as a bridge within {args.back_timeout:.0f} s of its "
                "reset: unplug it and plug it in again; if it still says nothing, run "
                "`treeboard firmware update` once more", EXIT_FAILED)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("firmware", help="check or update the bridge microcontroller's firmware")
    verbs = p.add_subparsers(dest="verb", metavar="VERB")
    verbs.required = True
    for name, func, text in (("check", cmd_check, "the firmware's release against this host's"),
                             ("update", cmd_update, "write this host's firmware to the board")):
        v = verbs.add_parser(name, help=text)
        v.add_argument("--port", help="the bridge's serial device (default: /dev/treeboard-bridge, "
                                      "else the Pico found by its USB id)")
        v.add_argument("--baud", type=int, default=115200, help="the line's speed (default 115200)")
        v.set_defaults(func=func)
        if name == "update":
            v.add_argument("--force", action="store_true",
                           help="write the files even when the board has this host's already")
            v.add_argument("--back-timeout", type=float, default=BACK_TIMEOUT_S,
                           help="how long to wait for the board after its reset (seconds)")
