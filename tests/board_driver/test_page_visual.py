"""The page as a family sees it: every game, a few moves in, at a phone's size (390x844) and a
desktop's (1280x800), and played to its end at a phone's size, in Debian's chromium, measured
from the page itself.

For every text the page shows (HTML text and the pictures' SVG <text>): it is drawn at 10 px or
more, no other text overlaps it, nothing is drawn over it (`elementFromPoint` at its centre
finds the text itself), a text drawn in a site fits inside the site's shapes, and it is not off
the screen sideways. Nothing on the page is wider than the screen; on a phone the board is at
least 90 % of the screen's width; no lattice coordinates ("(2,4,0)") are shown; the legend lists
every colour the board shows; a desktop shows Treeblox's 3D view above the fold; a finished
game says its result and its winner never breathes dimmer. Screenshots of each game and size
land in test-artifacts/ (`tools/screenshots.py` copies them into docs/screenshots/).
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from tests.board_driver.browser_harness import ARTIFACTS, browser, chromium, sims  # noqa: F401
from tests.waits import wait_for

SIZES = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}

# What the page is asked, in its own terms: every visible text's box and rendered font size,
# what is drawn at its centre, and every visible element's left and right edge.
MEASURE = r"""
() => {
  const W = window.innerWidth;
  const texts = [];
  const name = (el) => el.id ? `#${el.id}` :
    el.closest("[data-site]") ? `${el.tagName.toLowerCase()} in ${el.closest("[data-site]").dataset.site}` :
    `${el.tagName.toLowerCase()}.${el.getAttribute("class") || ""} in #${el.closest("[id]")?.id}`;
  const visible = (el) => {
    if (el.closest("details:not([open]) > :not(summary)")) return false;
    for (let e = el; e; e = e.parentElement) {
      const st = getComputedStyle(e);
      if (st.display === "none" || st.visibility === "hidden" || Number(st.opacity) === 0) return false;
    }
    return true;
  };
  // HTML text: every non-blank text node outside SVG, <option>, <title>, <script>, <style>.
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || el.closest("svg, option, script, style, select")) continue;
    if (!visible(el)) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      if (r.width < 1 || r.height < 1) continue;
      texts.push({ el, text: node.textContent.trim().slice(0, 40), rect: r, node,
                   px: parseFloat(getComputedStyle(el).fontSize) });
    }
  }
  // SVG text: its box on screen and its font size times the picture's scale.
  for (const el of document.querySelectorAll("svg text")) {
    if (!el.textContent.trim() || !visible(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    const scale = el.getScreenCTM() ? Math.hypot(el.getScreenCTM().a, el.getScreenCTM().b) : 1;
    texts.push({ el, text: el.textContent.trim().slice(0, 40), rect: r,
                 px: parseFloat(getComputedStyle(el).fontSize) * scale });
  }
  // A text scrolled out of its box (the move list scrolls) is not shown: leave it out.
  const shown = texts.filter((t) => {
    const cx = (t.rect.left + t.rect.right) / 2, cy = (t.rect.top + t.rect.bottom) / 2;
    for (let e = t.el.parentElement; e && e !== document.body; e = e.parentElement) {
      if (getComputedStyle(e).overflow === "visible") continue;
      const box = e.getBoundingClientRect();
      if (cx < box.left || cx > box.right || cy < box.top || cy > box.bottom) return false;
    }
    return true;
  });
  texts.length = 0;
  texts.push(...shown);
  const problems = [];
  const where = (t) => `"${t.text}" (${name(t.el)})`;
  for (const t of texts) {
    if (t.px < 10 - 1e-6) problems.push(`small: ${where(t)} is ${t.px.toFixed(1)} px`);
    if (t.rect.left < -0.5 || t.rect.right > W + 0.5)
      problems.push(`off screen: ${where(t)} spans ${t.rect.left.toFixed(0)}..${t.rect.right.toFixed(0)} of ${W}`);
  }
  // A text drawn in a site (a tree's kind, a column's height) fits inside the site's own shapes.
  for (const t of texts) {
    const site = t.el.tagName.toLowerCase() === "text" && t.el.closest("[data-site]");
    if (!site) continue;
    const shapes = [...site.querySelectorAll("rect, circle, ellipse, polygon, path")]
      .map((e) => e.getBoundingClientRect()).filter((r) => r.width > 0 && r.height > 0);
    if (!shapes.length) continue;
    const box = { left: Math.min(...shapes.map((r) => r.left)), right: Math.max(...shapes.map((r) => r.right)),
                  top: Math.min(...shapes.map((r) => r.top)), bottom: Math.max(...shapes.map((r) => r.bottom)) };
    if (t.rect.left < box.left - 1 || t.rect.right > box.right + 1 || t.rect.top < box.top - 1 ||
        t.rect.bottom > box.bottom + 1)
      problems.push(`outside its site: ${where(t)} spans ${t.rect.left.toFixed(0)}..${t.rect.right.toFixed(0)}` +
        ` x ${t.rect.top.toFixed(0)}..${t.rect.bottom.toFixed(0)}, the site ${box.left.toFixed(0)}..` +
        `${box.right.toFixed(0)} x ${box.top.toFixed(0)}..${box.bottom.toFixed(0)}`);
  }
  // Overlaps: two texts' boxes, shrunk by a pixel (anti-aliasing), share area.
  for (let i = 0; i < texts.length; i++) {
    for (let j = i + 1; j < texts.length; j++) {
      const a = texts[i], b = texts[j];
      if (a.el === b.el || a.el.contains(b.el) || b.el.contains(a.el)) continue;
      const w = Math.min(a.rect.right, b.rect.right) - Math.max(a.rect.left, b.rect.left);
      const h = Math.min(a.rect.bottom, b.rect.bottom) - Math.max(a.rect.top, b.rect.top);
      if (w > 1 && h > 1) problems.push(`overlap: ${where(a)} and ${where(b)}`);
    }
  }
  // Covered: scroll each text into the screen and ask what is drawn at its centre.
  for (const t of texts) {
    window.scrollTo(0, Math.max(0, t.rect.top + window.scrollY - window.innerHeight / 2));
    let r = t.el.getBoundingClientRect();
    if (t.node) {  // the same line of the HTML text, now
      const range = document.createRange();
      range.selectNodeContents(t.node);
      r = [...range.getClientRects()].find((q) => Math.abs(q.left - t.rect.left) < 0.5 &&
        Math.abs(q.width - t.rect.width) < 0.5) || r;
    }
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    if (hit && !(hit === t.el || t.el.contains(hit) || hit.contains(t.el)))
      problems.push(`covered: ${where(t)} under ${hit.tagName.toLowerCase()}` +
        `${hit.id ? "#" + hit.id : ""}${hit.closest("[data-site]") ? " in " + hit.closest("[data-site]").dataset.site : ""}`);
  }
  window.scrollTo(0, 0);
  // Nothing wider than the screen.
  if (document.documentElement.scrollWidth > W + 0.5)
    problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px wide on a ${W} px screen`);
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest("svg") && el.tagName.toLowerCase() !== "svg") continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 || !visible(el)) continue;
    if (r.left < -0.5 || r.right > W + 0.5)
      problems.push(`off screen: ${name(el)} spans ${r.left.toFixed(0)}..${r.right.toFixed(0)} of ${W}`);
  }
  const board = document.querySelector("#board svg").getBoundingClientRect();
  const view3d = document.querySelector("#board3d svg");
  return { problems, texts: texts.length, board: board.width, width: W,
           height: window.innerHeight, bottom3d: view3d ? view3d.getBoundingClientRect().bottom : null };
}
"""


def write_game(path: Path, game: str, layout: str, moves: int | None, seed: int = 7) -> int:
    """A game `moves` random moves in (None: played to its end and finished), in the journal
    the sim resumes (a simulated board puts the resumed game's pieces back, as a real board
    keeps them through a restart; a finished game is shown until the board is cleared).
    Returns the number of moves."""
    import games
    from board_driver.referee.journal import Journal
    from hardware.layout import load_layout

    rng = random.Random(seed)
    state = games.get_game(game).new_state(**load_layout(layout).game_options)
    with Journal(path) as journal:
        journal.start_game(game, state.options())
        while not state.is_over() and (moves is None or len(state.moves) < moves):
            move = rng.choice(state.legal_moves())
            state.play(move)
            journal.record_move(str(move))
        if moves is None:
            journal.finish(state.summary())
    return len(state.moves)


# Each game a few moves in, on one of its shipped layouts.
SCENES = {
    "tree-planting": ("tree-planting-classic-pins", 10),
    "treeblox": ("treeblox-adc", 8),
    "fangqi": ("fangqi-7x7-matrix", 14),
    "arbos": ("arbos-8x8-matrix", 10),
    "game-for-the-trees": ("game-for-the-trees-matrix", 8),
}


# The winner's pieces as a still picture catches them: how dim their breathing ever makes them.
DIMMEST_WINNER = r"""
() => Math.min(1, ...[...document.querySelectorAll("svg .winner")].flatMap((el) =>
  el.getAnimations().flatMap((a) => a.effect.getKeyframes().map((k) =>
    k.opacity === undefined ? 1 : Number(k.opacity)))))
"""


@pytest.mark.parametrize("size", [*SIZES, "phone-finished"])
@pytest.mark.parametrize("game", SCENES)
def test_every_game_reads_well_on_a_phone_and_a_desktop(browser, sims, tmp_path, game, size):
    layout, moves = SCENES[game]
    check_page(browser, sims, tmp_path, game, layout, moves, size, game)


# The other board sizes a game ships layouts for, on a phone (the narrowest screen).
OTHER_BOARDS = {
    "fangqi-7x8": ("fangqi", "fangqi-7x8-matrix", 14, ()),
    "fangqi-8x8": ("fangqi", "fangqi-8x8-matrix", 14, ()),
    "tree-planting-4x4": ("tree-planting", "tree-planting-4x4-matrix", 10, ()),
    # the 20x20 board only ships on the bridge: the sim's simulated RP2040 on a real pty
    "arbos-20x20": ("arbos", "arbos-20x20-bridge", 30, ("--bridge",)),
}


@pytest.mark.parametrize("name", OTHER_BOARDS)
def test_every_board_size_reads_well_on_a_phone(browser, sims, tmp_path, name):
    game, layout, moves, args = OTHER_BOARDS[name]
    check_page(browser, sims, tmp_path, game, layout, moves, "phone", name, args)


def check_page(browser, sims, tmp_path, game, layout, moves, size, name, args=()) -> None:
    finished = size.endswith("-finished")
    moves = write_game(tmp_path / "sim.sqlite", game, layout, None if finished else moves)
    sim = sims("--layout", layout, *args, new_game=False)
    state = sim.wait(lambda s: len(s["game"]["moves"]) == moves and not s["fixes"])
    assert len(state["game"]["moves"]) == moves and not state["fixes"], state["game"]["moves"]
    assert state["game"]["over"] == finished
    size, _, _ = size.partition("-")
    page = browser.new_page()
    page.set_viewport_size(SIZES[size])
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(sim.url)
    # The page has drawn the state read above, or a later one (the sim pushes a new version
    # for each change it makes, such as the bridge's news, after the game is in place).
    wait_for(lambda: int(page.get_attribute("body", "data-version") or -1) >= state["version"],
             30, f"the page to draw version {state['version']}", interval=0.05)
    page.wait_for_selector("#board svg [data-site]", state="attached")
    page.evaluate("document.fonts.ready")
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / f"page-{name}-{size}{'-finished' if finished else ''}.png"
    page.screenshot(path=str(shot), full_page=True)
    found = page.evaluate(MEASURE)
    dimmest = page.evaluate(DIMMEST_WINNER)
    result = page.inner_text("#result") if finished else ""
    words = page.inner_text("body")
    legend = page.locator("#picture-legend li").count() if page.is_visible("#picture-legend") else 0
    page.close()
    assert errors == []
    assert found["texts"] > 10, found  # the measure saw the page's texts at all
    problems = found["problems"]
    if size == "phone" and found["board"] < 0.9 * found["width"]:
        problems.append(f"the board is {found['board']:.0f} px wide on a "
                        f"{found['width']} px phone (at least 90 % wanted)")
    own = [e for e in state["legend"] if "colours" in e]   # the game's own colours
    if legend != len(own):
        problems.append(f"the legend beside the picture lists {legend} of the game's "
                        f"{len(own)} colours")
    if game == "game-for-the-trees" and not own:
        problems.append("Game for the Trees' colours have no legend")
    if dimmest < 1:
        problems.append(f"the winner's pieces breathe down to opacity {dimmest}: a still "
                        "picture shows them weaker than the loser's")
    if finished and not result.startswith(state["result"]):
        problems.append(f"the result is not said: {result!r}")
    lattice = re.findall(r"\(-?\d+,-?\d+,-?\d+\)", words)
    if lattice:
        problems.append(f"lattice coordinates shown to players: {lattice[:5]}")
    if size == "desktop" and found["bottom3d"] is not None and found["bottom3d"] > found["height"]:
        problems.append(f"the 3D view ends at {found['bottom3d']:.0f} px, below the fold "
                        f"({found['height']} px)")
    assert not problems, f"{name} at {size} ({shot}):\n" + "\n".join(problems[:40]) + \
        (f"\n... and {len(problems) - 40} more" if len(problems) > 40 else "")
