"""The house's rules (docs/architecture.md), checked on the source: no import circle among the
project's modules, no private name imported from another module, the rooms' arrows pointing
down, treeboard/ (the root of the errors) importing nothing of the project, at most six
modules directly in board_driver/, no function of board_driver/ over 100 lines, no class
over 450, and no game's view probed with getattr."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOPS = ("treeboard", "games", "hardware", "firmware_bridge", "board_driver")

# What each room of board_driver may import (besides itself, config and the pure layers).
ROOMS = {
    "referee": {"views"},
    "views": set(),        # the views draw the referee's Moment (board_driver/moment.py): no import up
    "remote": set(),
    "records": {"referee", "views"},   # the journal's games as records, the library's queries
    "update": set(),       # releases, the version tree, the trial (board_driver/update/)
    "web": {"referee", "views", "records", "update"},
    "daemon": {"referee", "views", "web", "remote", "update"},
    "cli": {"referee", "views", "web", "remote", "daemon", "records", "update"},
}


def _modules() -> dict[str, Path]:
    found = {}
    for top in TOPS:
        for path in (ROOT / top).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, modules) -> list[tuple[str, list[str], int]]:
    """(module imported, names taken from it, line) for every import in the file, lazy ones
    inside functions included: a circle through a function is still a circle."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(a.name, [], node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub in modules:  # `from board_driver.remote import protocol`
                    out.append((sub, [], node.lineno))
                else:
                    out.append((base, [alias.name], node.lineno))
    return [(m, names, line) for m, names, line in out if m.split(".")[0] in TOPS]


def _graph():
    modules = _modules()
    return modules, {name: _imports(name, path, modules) for name, path in modules.items()}


def test_no_import_circle():
    modules, graph = _graph()
    edges = {m: {i for i, _, _ in imps if i in modules and i != m} for m, imps in graph.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for n in sorted(edges[m]):
            if state.get(n) == 1:
                raise AssertionError("import circle: " + " -> ".join(stack[stack.index(n):] + [n]))
            if n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m)


def test_no_private_name_is_imported_from_another_module():
    modules, graph = _graph()
    bad = [f"{modules[m].relative_to(ROOT)}:{line}: {name} from {i}"
           for m, imps in graph.items() for i, names, line in imps for name in names
           if name.startswith("_") and not name.startswith("__")]
    assert not bad, "\n".join(bad)


def test_the_rooms_arrows_point_down():
    modules, graph = _graph()
    bad = []
    for m, imps in graph.items():
        parts = m.split(".")
        if parts[0] != "board_driver" or len(parts) < 2 or parts[1] not in ROOMS:
            if parts[0] != "board_driver":
                # The pure layers never reach up into the board driver.
                bad += [f"{m} imports {i}" for i, _, _ in imps if i.startswith("board_driver")]
            continue
        room = parts[1]
        for i, _, _ in imps:
            other = i.split(".")
            if other[0] == "board_driver" and len(other) > 1 and other[1] in ROOMS \
                    and other[1] != room and other[1] not in ROOMS[room]:
                bad.append(f"{m} imports {i}")
    assert not bad, "\n".join(bad)


def test_treeboard_imports_nothing_of_the_project():
    """treeboard/ (the tree of errors) lies below every layer: each may import it, it none."""
    modules, graph = _graph()
    bad = [f"{m} imports {i}" for m, imps in graph.items() if m.split(".")[0] == "treeboard"
           for i, _, _ in imps if i.split(".")[0] != "treeboard"]
    assert not bad, "\n".join(bad)
    assert any(i.startswith("treeboard") for m, imps in graph.items()
               if m.startswith("games.") for i, _, _ in imps)  # the rule covers real imports


def test_at_most_six_modules_directly_in_board_driver():
    direct = sorted(p.name for p in (ROOT / "board_driver").glob("*.py"))
    assert len(direct) <= 6, direct
    assert (ROOT / "systemd" / "treeboard.service").is_file()


#: The longest a function (a method, a nested function) of board_driver/ may be, and a class, in
#: lines: `end_lineno - lineno + 1` of its ast node (from its `def` or `class` line, so a
#: decorator's lines do not count).
MAX_FUNCTION_LINES = 100
MAX_CLASS_LINES = 450


def _too_long(source: str, name: str) -> list[str]:
    """Each function over MAX_FUNCTION_LINES and class over MAX_CLASS_LINES in a module's
    source, by its qualified name and length."""
    found = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                qualified = f"{prefix}{child.name}"
                lines = child.end_lineno - child.lineno + 1
                is_class = isinstance(child, ast.ClassDef)
                limit = MAX_CLASS_LINES if is_class else MAX_FUNCTION_LINES
                if lines > limit:
                    found.append(f"{name}:{child.lineno}: {'class' if is_class else 'def'} "
                                 f"{qualified}: {lines} lines (at most {limit})")
                visit(child, f"{qualified}.")
            else:
                visit(child, prefix)

    visit(ast.parse(source, name), "")
    return found


def test_no_function_over_100_lines_and_no_class_over_450_in_board_driver():
    bad = []
    for path in sorted((ROOT / "board_driver").rglob("*.py")):
        bad += _too_long(path.read_text(), path.relative_to(ROOT).as_posix())
    assert not bad, "\n".join(bad)


def test_the_length_check_counts_methods_and_nested_functions():
    def function(name: str, lines: int, indent: str = "") -> str:
        return f"{indent}def {name}():\n" + "".join(f"{indent}    x = {i}\n"
                                                    for i in range(lines - 1))

    source = ("class A:\n" + function("short", 3, "    ") + function("long", 101, "    ")
              + "def outer():\n" + function("inner", 101, "    ") + function("edge", 100))
    assert _too_long(source, "m.py") == [
        "m.py:5: def A.long: 101 lines (at most 100)",
        "m.py:106: def outer: 102 lines (at most 100)",
        "m.py:107: def outer.inner: 101 lines (at most 100)"]
    big = "class B:\n" + "".join(function(f"f{i}", 50, "    ") for i in range(9))
    assert _too_long(big, "b.py") == ["b.py:1: class B: 451 lines (at most 450)"]


def _view_probes(source: str, whole_file: bool) -> list[int]:
    """The lines of `source` that call getattr/hasattr on a game's view: on `view_of(...)`, or
    on a name bound from it (anywhere in the file); with `whole_file`, on anything at all."""
    tree = ast.parse(source)

    def from_view_of(node) -> bool:
        return isinstance(node, ast.Call) and (
            isinstance(node.func, ast.Name) and node.func.id == "view_of"
            or isinstance(node.func, ast.Attribute) and node.func.attr == "view_of")

    bound = {target.id for node in ast.walk(tree)
             if isinstance(node, (ast.Assign, ast.AnnAssign)) and from_view_of(node.value)
             for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
             if isinstance(target, ast.Name)}
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr") and node.args
            and (whole_file or from_view_of(node.args[0])
                 or isinstance(node.args[0], ast.Name) and node.args[0].id in bound)]


def test_no_module_probes_a_view_with_getattr():
    """A game's view is a class with defaults (board_driver/views/game_view.py): its parts are
    read directly, never probed by name. The modules that read views use no getattr/hasattr at
    all; no other module in board_driver/ uses them on a view."""
    assert _view_probes('module = views.view_of(name)\nif hasattr(module, "svg_3d"): pass\n'
                        'getattr(view_of(name), "HINTS", ())\n', whole_file=False) == [2, 3]
    readers = {ROOT / "board_driver" / "views" / name for name in ("__init__.py", "game_view.py")}
    bad = [f"{path.relative_to(ROOT)}:{line}"
           for path in sorted((ROOT / "board_driver").rglob("*.py"))
           for line in _view_probes(path.read_text(encoding="utf-8"), path in readers)]
    assert not bad, "getattr/hasattr on a view:\n" + "\n".join(bad)
