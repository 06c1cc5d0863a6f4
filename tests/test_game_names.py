"""No game is named outside its own modules (docs/architecture.md, "What a sixth game touches";
DESIGN.md: what a game offers is declared, never recognised by its name). A game's own
modules are the files named after it (`games/<module>.py`, `games/ai/<module>.py`, its solver,
`games/ai/tuning/<module>.py`, its computer's table, `board_driver/views/<module>.py`), and
the registries, `games/__init__.py`'s `_MODULES` and `board_driver/views/__init__.py`'s `VIEWS`,
list them all once.

Checked on the code, not the prose: names, attributes, imports, arguments and strings other
than docstrings. A comment or a docstring may still give a game as an example ("Arbos: 300").
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import games

ROOT = Path(__file__).resolve().parents[1]
#: The generic code: every module of these packages that is not a game's own.
TOPS = ("games", "board_driver", "hardware", "firmware_bridge")
#: Names still written outside a game's modules, each in another part of issue 34's work
#: (file, the name as written): an entry goes when its file stops naming the game. New ones
#: are not added here: the code declares what it needs instead.
NOT_YET = {
    # the default layout of a fresh config and of `sim --backend bridge`
    ("board_driver/config.py", "tree-planting"),
    ("board_driver/cli/board.py", "tree-planting"),
    # `--time-control`'s help, an example of a game's own turn time
    ("board_driver/cli/board.py", "Arbos"),
    # a layout error's example of a registry name
    ("hardware/layout.py", "tree-planting"),
}


def _pattern(words: list[str]) -> str:
    return "[-_ ]?".join(re.escape(w) for w in words)


def _names() -> dict[str, re.Pattern]:
    """Each game's module name -> how code may write the game: its registry name, its module
    name and its short title, in any case, with dashes, underscores or spaces."""
    out = {}
    for name in games.names():
        game = games.get_game(name)
        ways = {_pattern(name.split("-")), _pattern(game.short_title.split())}
        out[name.replace("-", "_")] = re.compile(
            r"(?<![a-z])(" + "|".join(sorted(ways)) + r")(?![a-z])", re.I)
    return out


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                found.add(id(first.value))
    return found


#: The registries, each the one list of the games (or of their views): file -> its name.
REGISTRIES = {"games/__init__.py": "_MODULES", "board_driver/views/__init__.py": "VIEWS"}


def _registry(tree: ast.AST, name: str | None) -> set[int]:
    """The nodes of a registry (`_MODULES = {...}`, `VIEWS = {...}`), the one list."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                found |= {id(n) for n in ast.walk(node)}
    return found


def _words(node: ast.AST) -> list[str]:
    """What code writes at `node`: a name, an attribute, an import, an argument, a string."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.alias):
        return [node.name, node.asname or ""]
    if isinstance(node, ast.ImportFrom):
        return [node.module or ""]
    if isinstance(node, (ast.keyword, ast.arg)):
        return [node.arg or ""]
    return []


def named_games() -> list[tuple[str, str, int]]:
    """(file, the name as written, line) for every game named outside its own modules."""
    names = _names()
    found = []
    for top in TOPS:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            tree = ast.parse(path.read_text(encoding="utf-8"), rel)
            skip = _docstrings(tree) | _registry(tree, REGISTRIES.get(rel))
            others = {module: rx for module, rx in names.items() if module != path.stem}
            for node in ast.walk(tree):
                if id(node) in skip:
                    continue
                for text in _words(node):
                    for rx in others.values():
                        m = rx.search(text)
                        if m:
                            found.append((rel, m.group(), getattr(node, "lineno", 0)))
    return found


def test_no_game_is_named_outside_its_own_modules():
    bad = [f"{file}:{line}: {name!r}" for file, name, line in named_games()
           if (file, name) not in NOT_YET]
    assert not bad, "a game named outside its own modules:\n" + "\n".join(bad)


def test_the_check_finds_a_name():
    # The check itself: a registry name, a module name and a title are each found, a word
    # that only contains one (or a docstring) is not.
    names = _names()
    assert names["tree_planting"].search('get_game("tree-planting")')
    assert names["game_for_the_trees"].search("from games import game_for_the_trees")
    assert names["treeblox"].search("a Treeblox match")
    assert not names["arbos"].search("harbours")
    tree = ast.parse('"""Arbos: a docstring."""\nx = "arbos"\n')
    words = [w for n in ast.walk(tree) if id(n) not in _docstrings(tree) for w in _words(n)]
    assert "arbos" in words and not any("Arbos" in w for w in words)
