"""Only what pyproject.toml cannot say: the optional C core of the exact Tree Planting solver.

`optional=True`: where no C compiler or no Python headers are (build-essential and python3-dev
on Debian and Raspberry Pi OS: ./dev installs them), pip installs treeboard without the core and
the pure-Python solver answers (games/ai/tree_planting.py, CompiledSolver). Everything else
about the package is in pyproject.toml.

TREEBOARD_SOLVER_CORE=python builds without it: a wheel for any machine (py3-none-any), as
`treeboard release` makes for boards whose processor the releasing machine does not know.
"""

import os

from setuptools import Extension, setup

PURE = os.environ.get("TREEBOARD_SOLVER_CORE", "").strip().lower() == "python"

setup(
    ext_modules=[] if PURE else [
        Extension(
            "games.ai.tree_planting_core",
            sources=["games/ai/tree_planting_core.c"],
            # -O2 is setuptools' default on CPython builds; said here for the Pi's compilers.
            extra_compile_args=["-O2"],
            optional=True,
        ),
    ],
)
