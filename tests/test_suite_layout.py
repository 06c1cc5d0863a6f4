"""The test suite runs in any subset: `pytest tests/firmware_bridge tests/hardware` as well as
the whole of tests/. pytest imports each test folder's conftest.py (and every test folder's
helper modules: no folder is a package) under its bare name, so a test importing
`from conftest import ...` got whichever folder's conftest was loaded last, and two helpers of
one name in two folders would shadow each other the same way."""

import ast
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

from tests.waits import scaled

TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent


def test_no_test_imports_a_conftest():
    importing = []
    for path in sorted(TESTS.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(name.split(".")[-1] == "conftest" for name in names):
                importing.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not importing, ("import what tests share from a module of its own (tests/waits.py, "
                           f"a helper beside the tests), not from a conftest: {importing}")


def test_no_two_helpers_of_one_name():
    by_name = defaultdict(list)
    for path in TESTS.rglob("*.py"):
        if path.name not in ("conftest.py", "__init__.py"):
            by_name[path.stem].append(str(path.relative_to(ROOT)))
    assert not {name: paths for name, paths in by_name.items() if len(paths) > 1}


def test_folders_with_their_own_conftest_collect_together():
    # The bridge's folder first: the others' conftests are loaded after its own.
    folders = ["tests/firmware_bridge"] + sorted(
        str(p.parent.relative_to(ROOT)) for p in TESTS.glob("*/conftest.py")
        if p.parent.name != "firmware_bridge")
    run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                          "-p", "no:cacheprovider", "-n", "0", *folders],
                         cwd=ROOT, capture_output=True, text=True, timeout=scaled(300))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
