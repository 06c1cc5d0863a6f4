"""Player-seen latency on storage slowed as a microSD card is, beside the fast one, in one run.

    .venv/bin/python benchmarks/slow_storage.py [--rounds 3] [--seen 100] [--fsync-ms 20]
        [--spike-ms 120] [--spike-every 50] [--pause-ms 250] [--ref main]

Builds `benchmarks/slow_fsync.c` with gcc (an LD_PRELOAD shim: every fsync/fdatasync takes
`--fsync-ms`, one in `--spike-every` takes `--spike-ms`), then measures `latency.py`'s
player-seen latency (the magnet settled at the mock pins -> the frame at the strip, on the real
daemon, journal on /dev/shm so only the shim's time is the card's; the next rod `--pause-ms`
after a move is lit, a quick player's pace) in child processes: the fast
storage (no shim) and the slow one, alternating in each round, and, with `--ref REV`, the same
two with the board_driver of git revision REV (by default main: the journal committing every
move before the LEDs confirm it) for the before. Each child also counts the fsyncs it waited
for. Prints one JSON object: p50 / p99 / max (ms) each round and their min / median / max over
the rounds. The machine is shared: the load average is printed with it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("board_driver", "games", "hardware", "firmware_bridge", "treeboard")


def build_shim(into: Path) -> Path:
    gcc = shutil.which("gcc")
    if gcc is None:
        sys.exit("slow_storage.py: gcc is needed to build benchmarks/slow_fsync.c "
                 "(apt-get install gcc)")
    out = into / "slow_fsync.so"
    subprocess.run([gcc, "-shared", "-fPIC", "-O2", "-o", str(out),
                    str(ROOT / "benchmarks" / "slow_fsync.c"), "-ldl", "-lpthread"], check=True)
    return out


def reference_tree(rev: str, into: Path) -> Path:
    """The packages of git revision `rev`, unpacked (the board as it was)."""
    tree = into / f"ref-{rev.replace('/', '_')}"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, *PACKAGES],
                             check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
    return tree


def child(tree: str, seen: int, pause_s: float) -> None:
    """In a child process: the player-seen latency with the packages of `tree` first."""
    sys.path.insert(0, tree)
    sys.path.insert(1, str(ROOT / "benchmarks"))
    import board_driver
    import latency

    assert Path(board_driver.__file__).is_relative_to(tree), board_driver.__file__
    print(json.dumps(latency.player_seen(seen, pause_s=pause_s)))


def measure(tree: Path, seen: int, shim: Path | None, args) -> dict:
    env = dict(os.environ)
    if shim is not None:
        env.update(LD_PRELOAD=str(shim), SLOW_FSYNC_MS=str(args.fsync_ms),
                   SLOW_FSYNC_SPIKE_MS=str(args.spike_ms),
                   SLOW_FSYNC_SPIKE_EVERY=str(args.spike_every))
    out = subprocess.run([sys.executable, __file__, "--child", str(tree), "--seen", str(seen),
                          "--pause-ms", str(args.pause_ms)],
                         env=env, capture_output=True, text=True, timeout=1800)
    if out.returncode:
        sys.exit(f"a child failed:\n{out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def spread(values: list[float]) -> str:
    return " / ".join(f"{v:.1f}" for v in (min(values), statistics.median(values), max(values)))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seen", type=int, default=100, help="moves timed a child")
    parser.add_argument("--fsync-ms", type=int, default=20)
    parser.add_argument("--spike-ms", type=int, default=120)
    parser.add_argument("--spike-every", type=int, default=50)
    parser.add_argument("--pause-ms", type=int, default=250,
                        help="a player's time from one move's light to the next rod")
    parser.add_argument("--ref", default=None, help="also the board_driver of this git revision")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.seen, args.pause_ms / 1000)
        return
    with tempfile.TemporaryDirectory() as tmp:
        shim = build_shim(Path(tmp))
        trees = {"this tree": ROOT}
        if args.ref:
            trees[f"ref {args.ref}"] = reference_tree(args.ref, Path(tmp))
        runs: dict[str, list[dict]] = {}
        for round_ in range(args.rounds):
            for name, tree in trees.items():
                for storage, preload in (("fast", None), ("slow", shim)):
                    label = f"{name}, {storage} storage"
                    runs.setdefault(label, []).append(measure(tree, args.seen, preload, args))
    result = {"fsync": {"ms": args.fsync_ms, "spike_ms": args.spike_ms,
                        "one_in": args.spike_every}, "pause_ms": args.pause_ms,
              "rounds": args.rounds, "moves_a_round": args.seen,
              "load_average": os.getloadavg()}
    for label, results in runs.items():
        result[label] = {
            "p50_ms min / median / max": spread([r["p50_ms"] for r in results]),
            "p99_ms min / median / max": spread([r["p99_ms"] for r in results]),
            "each round [p50, p99, max]": [[r["p50_ms"], r["p99_ms"], r["max_ms"]]
                                           for r in results],
            "moves never shown": sum(len(r["moves_never_shown"]) for r in results)}
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
