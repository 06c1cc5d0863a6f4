"""The project's errors: one root, a family per layer, each also a built-in where that fits.

    from treeboard.exc import TreeboardError
    try:
        ...
    except TreeboardError as exc:      # anything treeboard refused, or a part of it that failed
        ...

gpiozero's `exc.py` is the model: every error derives from `TreeboardError`, and also from the
built-in a caller would expect, `ValueError` for input refused (a move, a config, a layout, a
trace line), `RuntimeError` for a part that failed (a backend, the journal, the voice). An error
that was neither before it joined the tree stays neither: a built-in added to it would let an
`except ValueError` somewhere catch what it never caught.

The families that more than one layer catches live here; each layer re-exports its own
(`games.GameError`, `hardware.base.HardwareError`, `firmware_bridge.host.BridgeError`) and
defines its other errors beside the code that raises them, each under this root. The whole
tree is drawn in docs/architecture.md ("The tree of errors"); tests/test_errors.py checks that
every error class of the project's packages is in it. The bridge firmware's own files
(firmware_bridge/firmware/, which run on MicroPython) keep their `ProtocolError`: on the host
it never leaves the link, which counts and drops a damaged frame and names a firmware of
another protocol with `IncompatibleFirmware`, a `BridgeError`.

This module imports nothing of the project.
"""

from __future__ import annotations


class TreeboardError(Exception):
    """Base of every error treeboard raises: catch it to catch anything treeboard refused."""


class GameError(TreeboardError, ValueError):
    """Base of every error the rules engines raise (games/): a move, a notation, options."""


class HardwareError(TreeboardError, RuntimeError):
    """A backend could not be opened or stopped working (a missing device, a dead line)."""


class BridgeError(HardwareError):
    """The bridge could not be opened: no device, a dead line, or a wrong protocol version."""
