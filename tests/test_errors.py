"""One root for the project's errors (treeboard/exc.py, docs/architecture.md "The tree of
errors"): every error class the project's packages define is a TreeboardError, so a caller
catches anything treeboard refused in one clause. The bridge firmware's files, which run on
MicroPython, keep their own."""

from __future__ import annotations

import ast
import importlib
import inspect
import tomllib
from pathlib import Path

import pytest

import games
from treeboard.exc import BridgeError, GameError, HardwareError, TreeboardError

ROOT = Path(__file__).resolve().parents[1]
#: The files that run on MicroPython (the bridge's firmware, and the board it is tested on):
#: they cannot import treeboard, and keep their own errors.
MICROPYTHON = ("firmware_bridge/firmware/", "firmware_bridge/mpy_board.py")


def _packages() -> list[str]:
    """The project's packages, as pyproject.toml ships them (tests/test_packaging.py keeps that
    list whole), without the data folders and the service files."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return [p for p in config["packages"] if p not in config["package-dir"]
            and (ROOT / p.replace(".", "/") / "__init__.py").is_file()]


def _modules() -> list[tuple[str, Path]]:
    found = []
    for package in _packages():
        for path in sorted((ROOT / package.replace(".", "/")).glob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if path.name == "__main__.py" or rel.startswith(MICROPYTHON):
                continue
            name = package if path.name == "__init__.py" else f"{package}.{path.stem}"
            found.append((name, path))
    return found


def _error_classes(name: str, path: Path) -> list[type]:
    """The exception classes a module defines (at its top level; the check below refuses one
    defined anywhere else, where this test could not see it)."""
    module = importlib.import_module(name)
    out = []
    for node in ast.parse(path.read_text(), str(path)).body:
        if isinstance(node, ast.ClassDef):
            cls = getattr(module, node.name)
            if inspect.isclass(cls) and issubclass(cls, BaseException):
                out.append(cls)
    return out


def test_every_error_class_of_the_project_is_a_treeboard_error():
    modules = _modules()
    assert len(modules) > 50 and any(n == "treeboard.exc" for n, _ in modules)
    seen, bad = [], []
    for name, path in modules:
        for cls in _error_classes(name, path):
            seen.append(cls.__name__)
            if not issubclass(cls, TreeboardError):
                bad.append(f"{path.relative_to(ROOT)}: {cls.__name__} is not a TreeboardError")
    assert not bad, "\n".join(bad)
    # the walk sees what it must (a sample from each layer)
    assert {"GameError", "IllegalMove", "BookError", "LayoutError", "BridgeError", "ConfigError",
            "JournalError", "Refused", "RemoteError", "ServiceError"} <= set(seen)


def test_no_error_class_hides_inside_a_function_or_a_class():
    """A nested class would escape the walk above: the project defines its errors at the top
    of a module (the MicroPython files too, whose errors are listed below)."""
    bad = []
    for name, path in _modules():
        for outer in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(outer, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                for node in ast.walk(outer):
                    if node is not outer and isinstance(node, ast.ClassDef) and any(
                            "Error" in ast.unparse(b) or "Exception" in ast.unparse(b)
                            for b in node.bases):
                        bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.name}")
    assert not bad, "\n".join(bad)


def test_the_micropython_files_keep_only_the_protocols_errors():
    """The firmware's exemption is these two; on the host they never leave the bridge's link
    (a damaged frame is counted and dropped; another protocol is IncompatibleFirmware)."""
    found = []
    for path in [*(ROOT / "firmware_bridge" / "firmware").glob("*.py"),
                 ROOT / "firmware_bridge" / "mpy_board.py"]:
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ClassDef) and node.bases:
                found.append(f"{path.name}: {node.name}({', '.join(map(ast.unparse, node.bases))})")
    assert sorted(found) == ["protocol.py: LegacyFrame(ProtocolError)",
                             "protocol.py: ProtocolError(ValueError)"]
    host = (ROOT / "firmware_bridge" / "host.py").read_text()
    assert "raise protocol." not in host and "except protocol." not in host


def test_the_families_are_where_callers_take_them_and_built_ins_too():
    import firmware_bridge.host
    import games.base
    import hardware.base

    assert games.GameError is games.base.GameError is GameError
    assert hardware.base.HardwareError is HardwareError
    assert firmware_bridge.host.BridgeError is BridgeError
    assert issubclass(GameError, ValueError) and issubclass(games.IllegalMove, ValueError)
    assert issubclass(HardwareError, RuntimeError) and issubclass(BridgeError, HardwareError)


def test_one_clause_catches_a_bad_config_an_illegal_move_a_layout_and_a_bridge(
        tmp_path, monkeypatch):
    import firmware_bridge.host as host
    from board_driver.config import parse_config
    from hardware.layout import load_layout

    def refused(call) -> TreeboardError:
        with pytest.raises(TreeboardError) as caught:
            call()
        return caught.value

    config = refused(lambda: parse_config({"display": {"moves": "fast"}},
                                          "/etc/treeboard/config.toml"))
    assert str(config) == ("/etc/treeboard/config.toml: display.moves: expected one of off, "
                           "legal, safe, best; got 'fast'")
    assert isinstance(config, ValueError)

    state = games.get_game("tree-planting").new_state()
    first = state.legal_moves()[0]
    state.play(first)
    before = state.to_json()
    move = refused(lambda: state.play(first))      # that groove holds a rod already
    assert isinstance(move, games.IllegalMove) and isinstance(move, ValueError)
    assert state.to_json() == before   # bad input never corrupts state

    bad = tmp_path / "bad.toml"
    bad.write_text('game = "tree-planting"\n')
    layout = refused(lambda: load_layout(bad))
    assert str(layout).startswith(f"{bad}: ") and isinstance(layout, ValueError)

    monkeypatch.setattr(host, "UDEV_PATH", str(tmp_path / "treeboard-bridge"))
    monkeypatch.setattr(host.serial.tools.list_ports, "comports", lambda: [])
    bridge = refused(host.find_bridge_port)
    assert isinstance(bridge, BridgeError) and isinstance(bridge, RuntimeError)
    assert str(bridge).startswith("no treeboard bridge found")


def test_the_tree_in_the_architecture_guide_is_the_tree_in_the_code():
    """docs/architecture.md draws every public error under its parent (two spaces a level);
    the private signals are named in its text."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    block = text.split("## The tree of errors", 1)[1].split("```", 2)[1]
    drawn, parents = {}, []
    for line in block.strip("\n").splitlines():
        depth = (len(line) - len(line.lstrip())) // 2
        name = line.split()[0]
        parents[depth:] = [name]
        drawn[name] = parents[depth - 1] if depth else None
    actual = {}
    for name, path in _modules():
        for cls in _error_classes(name, path):
            parent = next((b.__name__ for b in cls.__bases__ if issubclass(b, TreeboardError)),
                          None)
            actual[cls.__name__] = parent
    private = {n for n in actual if n.startswith("_")}
    assert all(f"`{n}`" in text for n in private)
    assert drawn == {n: p for n, p in actual.items() if n not in private}
