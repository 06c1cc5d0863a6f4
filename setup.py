"""Only what pyproject.toml cannot say: the optional C core of the exact Tree Planting solver.

`optional=True`: where no C compiler or no Python headers are (build-essential and python3-dev
on Debian and Raspberry Pi OS: ./dev installs them), pip installs treeboard without the core and
the pure-Python solver answers (games/ai/tree_planting.py, CompiledSolver). Everything else about the
package is in pyproject.toml.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "games.ai.tree_planting_core",
            sources=["games/ai/tree_planting_core.c"],
            # -O2 is setuptools' default on CPython builds; said here for the Pi's compilers.
            extra_compile_args=["-O2"],
            optional=True,
        ),
    ],
)
