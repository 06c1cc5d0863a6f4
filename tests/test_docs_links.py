"""The README's promises about itself: no link leaves the repository, every link and anchor
resolves, each game's rules doc is linked, and each subcommand it shows exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md")),
        *sorted((ROOT / "firmware_bridge").glob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|<(https?://[^>]+)>|!\[[^\]]*\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    return {slug(m.group(1)) for m in re.finditer(r"^#+ (.+)$", path.read_text(), re.M)}


def links(path: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)  # code is not a link
    return [next(g for g in m.groups() if g) for m in LINK.finditer(text)]


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_stays_in_the_repository_and_resolves(doc):
    for target in links(doc):
        if target.startswith(("http://localhost", "http://127.0.0.1")):
            continue  # the page the board serves on this machine
        assert "://" not in target and not target.startswith("mailto:"), \
            f"{doc.relative_to(ROOT)}: {target} leaves the repository"
        file, _, anchor = target.partition("#")
        dest = (doc.parent / file).resolve() if file else doc
        assert dest.exists(), f"{doc.relative_to(ROOT)}: {target}: no such file"
        if anchor and dest.suffix == ".md":
            assert anchor in anchors(dest), f"{doc.relative_to(ROOT)}: {target}: no such heading"


def test_the_readme_links_each_games_rules():
    linked = {(ROOT / t.partition("#")[0]).resolve() for t in links(ROOT / "README.md")}
    for rules in sorted((ROOT / "docs" / "games").glob("*.md")):
        assert rules.resolve() in linked, f"README.md links no {rules.relative_to(ROOT)}"


def test_every_subcommand_the_readme_shows_exists_and_each_is_shown():
    from board_driver.cli import build_parser

    choices = set(next(a for a in build_parser()._actions if a.dest == "command").choices)
    shown = set(re.findall(r"^\s*(?:\$ |sudo \S*)?treeboard ([a-z-]+)",
                           (ROOT / "README.md").read_text(), re.M))
    assert shown <= choices, f"README shows {sorted(shown - choices)}, which treeboard lacks"
    assert choices <= shown, f"README shows no {sorted(choices - shown)}"
