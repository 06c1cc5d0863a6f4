"""Regenerate the page's screenshots in docs/screenshots/: every game a few moves in, at a
phone's size (390x844) and a desktop's (1280x800), in Debian's chromium.

    .venv/bin/python tools/screenshots.py

The pictures are the visual test's own (tests/board_driver/test_page_visual.py): the script runs
that test, which checks each page (no text covered, overlapping, under 10 px or off screen; the
board at least 90 % of a phone's width) before it writes the screenshot, then copies them here.
A page that fails the test is not copied: fix the page first. Needs ./dev test's set-up (the
venv with Playwright, /usr/bin/chromium).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEST = "tests/board_driver/test_page_visual.py"


def main() -> int:
    shots = ROOT / "test-artifacts"
    for old in shots.glob("page-*.png"):
        old.unlink()
    run = subprocess.run([sys.executable, "-m", "pytest", TEST, "-q", "-p", "no:cacheprovider",
                          "-n", "0"], cwd=ROOT)
    if run.returncode != 0:
        print(f"screenshots: {TEST} failed; docs/screenshots/ left as it was", file=sys.stderr)
        return run.returncode
    out = ROOT / "docs" / "screenshots"
    out.mkdir(parents=True, exist_ok=True)
    made = sorted(p for p in shots.glob("page-*.png") if not p.stem.endswith("-finished"))
    if not made:
        print(f"screenshots: {TEST} passed but wrote no page-*.png in {shots}", file=sys.stderr)
        return 1
    for shot in made:
        shutil.copyfile(shot, out / shot.name)
        print(f"docs/screenshots/{shot.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
