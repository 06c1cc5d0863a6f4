"""`treeboard kit`: a layout's maker's kit written to a folder: `parts.csv`, `wiring.svg` and a
true-scale `template.svg` (hardware/kit/ draws them; docs/building.md says how to build from
them). The layout is a shipped name or a file (one `treeboard map` wrote), or a config's."""

from __future__ import annotations

import argparse
from pathlib import Path

from board_driver.cli.common import fail
from board_driver.config import DEFAULT_PATH, ConfigError, load_config


def cmd_kit(args: argparse.Namespace) -> int:
    from hardware.kit import FILES, KitError, kit_files
    from hardware.layout import LayoutError, load_layout

    try:
        if args.layout:
            layout = load_layout(args.layout)
        else:
            from board_driver.referee.session import load_board_layout

            path = args.config or DEFAULT_PATH
            if not args.config and not Path(path).exists():
                return fail(f"no config at {DEFAULT_PATH}: name the board's layout with --layout "
                            "NAME (a shipped name or a layout file), or a config with --config FILE")
            layout = load_board_layout(load_config(path))
        files = kit_files(layout)
    except (LayoutError, ConfigError, KitError) as exc:
        return fail(str(exc))
    out = Path(args.out)
    there = [name for name in FILES if (out / name).exists()]
    if there and not args.force:
        return fail(f"{out} already holds {', '.join(there)}; not overwriting (choose another "
                    "--out, or add --force)")
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name in FILES:
            (out / name).write_text(files[name], encoding="utf-8")
    except OSError as exc:
        return fail(f"cannot write the kit to {out}: {exc.strerror or exc}")
    parts = files["parts.csv"].count("\n") - 1
    print(f"wrote the kit of {layout.name} to {out}/: parts.csv ({parts} parts), wiring.svg, "
          "template.svg (true scale: print at 100 %, or open its layers in the laser's software)")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("kit", help="write a board's parts list, wiring diagram and template to cut")
    p.add_argument("--layout", help="a shipped layout name or a layout file (one `map` wrote)")
    p.add_argument("--config", help=f"a config file: its layout (default {DEFAULT_PATH})")
    p.add_argument("--out", required=True, help="the folder to write parts.csv, wiring.svg and "
                                                 "template.svg to (made if missing)")
    p.add_argument("--force", action="store_true", help="overwrite the kit's files in --out")
    p.set_defaults(func=cmd_kit)
