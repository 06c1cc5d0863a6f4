"""Shared test set-up: hypothesis profiles sized for CI (2 cores, the whole suite in minutes)."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

# Every test process (each xdist worker imports this file) keeps the simulator's state, such as
# `treeboard sim`'s journals, in a folder of its own: never in the user's own
# ~/.local/state/treeboard, and never shared by two workers running at once.
import atexit  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402

_STATE = tempfile.mkdtemp(prefix="treeboard-test-state-")
os.environ["XDG_STATE_HOME"] = _STATE
atexit.register(shutil.rmtree, _STATE, ignore_errors=True)


# pytest's own timeout (pyproject's `timeout`, a module's `pytest.mark.timeout`) catches a test
# that hangs; on a busy machine it stretches as every wait of the tests does (tests/waits.py),
# read when each test starts, so a slow machine is never what fails a test.
import pytest  # noqa: E402

from tests.waits import scaled  # noqa: E402


@pytest.hookimpl(tryfirst=True)
def pytest_timeout_set_timer(item, settings):
    import pytest_timeout

    return pytest_timeout.pytest_timeout_set_timer(
        item, settings._replace(timeout=scaled(settings.timeout)))


def pytest_report_header(config):
    # Which search the exact Tree Planting solver uses in this run: the compiled core, or the
    # pure-Python one and why (tests/games/test_ai_tree_planting_core.py fails where the core
    # could have been built and was not).
    from games.ai.tree_planting import core

    which, where = core()
    return f"tree planting solver core: {which} ({where})"
