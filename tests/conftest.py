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
