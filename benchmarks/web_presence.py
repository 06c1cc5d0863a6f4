"""How soon the board knows a web seat's page went, and how much room a reload leaves
(board_driver/web/presence.py).

    .venv/bin/python benchmarks/web_presence.py [--rounds 10]

A real `treeboard sim --players human web` with its page, and Debian's chromium (Playwright) on
that page, holding the web seat (its box ticked). Two cases, alternating round by round:

1. closed: the tab closed (pagehide: a keepalive request letting go; its socket closing): from
   `page.close()` returning to the board saying the seat's player is away (GET /api/presence
   "away" == [1], polled every 20 ms). SETTLE_S (2 s) of it is the board waiting on purpose for
   a page that comes back (a reload); the rest is the notice itself.
2. reloaded: the tab reloaded: from `page.reload()` being asked to the seat held again by the
   new page (GET /api/presence "held" == [1] after having been let go). This must stay well
   under SETTLE_S, or a reload would be said "away, back"; the script also reports whether the
   board ever said away during the reloads.

Prints one JSON object: each case's median, min and max in seconds, and SETTLE_S.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from board_driver.web.presence import SETTLE_S  # noqa: E402
from tests.board_driver.browser_harness import ARGS, CHROMIUM, Sim, free_port  # noqa: E402


def presence(sim: Sim) -> dict:
    with urllib.request.urlopen(sim.url + "api/presence", timeout=5) as r:
        return json.loads(r.read())


def until(condition, timeout: float = 30.0) -> float:
    """Seconds until `condition()` holds (polled every 20 ms)."""
    start = time.monotonic()
    while not condition():
        if time.monotonic() - start > timeout:
            raise TimeoutError("the board did not answer in time")
        time.sleep(0.02)
    return time.monotonic()


def holding_page(browser, sim: Sim):
    page = browser.new_page()
    page.goto(sim.url)
    page.wait_for_selector("body[data-connected=yes]")
    page.check('#presence input[data-hold-seat="1"]')
    until(lambda: presence(sim)["held"] == [1] and presence(sim)["away"] == [])
    return page


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    closed, reloaded, said_away = [], [], 0
    with tempfile.TemporaryDirectory() as tmp:
        sim = Sim(Path(tmp), free_port(), "--players", "human", "web")
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                for _ in range(args.rounds):
                    page = holding_page(browser, sim)
                    page.close()
                    start = time.monotonic()
                    closed.append(until(lambda: presence(sim)["away"] == [1]) - start)

                    page = holding_page(browser, sim)
                    start = time.monotonic()
                    page.reload(wait_until="commit")
                    let_go = False

                    def again() -> bool:
                        nonlocal let_go, said_away
                        now = presence(sim)
                        said_away += now["away"] == [1]
                        let_go = let_go or now["held"] == []
                        return let_go and now["held"] == [1]
                    reloaded.append(until(again) - start)
                    page.close()
                    until(lambda: presence(sim)["away"] == [1])
                browser.close()
        finally:
            sim.stop()

    def spread(xs):
        return {"median_s": round(statistics.median(xs), 3), "min_s": round(min(xs), 3),
                "max_s": round(max(xs), 3), "n": len(xs)}
    print(json.dumps({"settle_s": SETTLE_S, "closed_to_away": spread(closed),
                      "reload_to_held_again": spread(reloaded),
                      "away_seen_during_reloads": said_away}, indent=1))


if __name__ == "__main__":
    main()
