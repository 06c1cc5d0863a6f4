"""The bridge tests' timings: fast enough for tests, with the same ratios as the defaults
(timeout = 4+ heartbeats). A module of its own, not conftest.py, so that a test imports it by
its package name: `conftest` is a name every test folder's set-up shares (a test importing
`from conftest import ...` got whichever folder's conftest pytest loaded last)."""

from firmware_bridge.host import BridgeTimings

FAST = BridgeTimings(heartbeat_interval=0.02, heartbeat_timeout=0.25, ack_timeout=0.06,
                     backoff_initial=0.01, backoff_max=0.1)
FAST_FIRMWARE = {"heartbeat_ms": 20, "host_timeout_ms": 2000}
