"""The page's library in a real browser (Debian's chromium, as tests/board_driver/test_browser.py):
the journal's games searched, one opened with its SGF download, a record file imported and a
bad one refused with its line."""

from __future__ import annotations

import sys
from pathlib import Path

from board_driver.records import library, sgf
from board_driver.referee.journal import Journal
from tests.board_driver.browser_harness import ARTIFACTS, browser, chromium, sims  # noqa: F401

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import record_examples  # noqa: E402


def test_the_library_searches_opens_downloads_and_imports(browser, sims, tmp_path):
    with Journal(tmp_path / "sim.sqlite") as journal:
        record_examples.journal_game(journal, "tree-planting", {"board": "2x2"}, 2,
                                     ("human", "computer:easy"), None)
        record_examples.journal_game(journal, "fangqi", {"board": "3x3"}, 0,
                                     ("human", "human"), None)
        good = sgf.dumps(library.export(journal, [2]))
    (tmp_path / "fangqi.sgf").write_bytes(good)
    (tmp_path / "go.sgf").write_bytes(b"(;FF[4]\nGM[1];B[aa])")
    sim = sims()
    page = browser.new_page()
    page.goto(sim.url)
    page.wait_for_selector("body[data-connected=yes]")
    page.click("#history summary")
    page.wait_for_selector('#games button[data-game="2"]')
    page.fill('#library-form input[name="player"]', "computer")
    page.click('#library-form button[type="submit"]')
    page.wait_for_selector('#games button[data-game="2"]', state="detached")
    assert page.locator("#games button").count() == 1
    assert "computer, easy" in page.inner_text('#games button[data-game="1"]')
    page.click('#games button[data-game="1"]')
    page.wait_for_selector("#replay-at:text('move 12 of 12')")
    assert page.get_attribute("#replay-record", "href").startswith("/api/games/1/record")
    assert page.get_attribute("#replay-record", "download") == "treeboard-tree-planting-1.sgf"
    # a record file imported: it joins the list
    page.fill('#library-form input[name="player"]', "")
    page.set_input_files('#import-form input[name="file"]', str(tmp_path / "fangqi.sgf"))
    page.click('#import-form button[type="submit"]')
    page.wait_for_selector("#toast.ok:text('Imported: game 4.')")
    page.wait_for_selector('#games button[data-game="4"]')
    # a bad one: refused with its line, nothing imported
    page.set_input_files('#import-form input[name="file"]', str(tmp_path / "go.sgf"))
    page.click('#import-form button[type="submit"]')
    page.wait_for_selector("#toast:text('go.sgf was not imported: line 2: GM[1]')")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "library-desktop.png"), full_page=True)
    with Journal(tmp_path / "sim.sqlite") as journal:
        assert sorted(g.game_id for g in journal.listing(limit=10)) == [1, 2, 4]
