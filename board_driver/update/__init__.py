"""Signed releases and the board's update on trial, with rollback (docs/service.md, "Updates").

  release.py   a release: the project's pure wheel, optionally platform wheels carrying the
               solver's compiled core (a board installs the one its Python's tags fit), with
               --with-deps its dependencies' wheels, and a manifest of their SHA-256, signed
               with the maintainer's Ed25519 key; read back and checked against the board's
               public key
  tree.py      where versions live on the board (ROOT/opt/treeboard/versions/<v>, the
               `current` and `previous` links switched atomically), the trial's files beside
               the journal, and the boot check (`treeboard boot-check`; standard library only:
               copied as /opt/treeboard/boot-check.py, the unit's ExecStartPre)
  updater.py   `treeboard update`: each step atomic, in an order a power cut cannot break
  trial.py     the daemon's side: confirms a trial once it runs, and says what an update did

Owns: the version tree and the trial marker. Imports config and the pure layers only; the
daemon, the page and the command line import it.
"""

from __future__ import annotations

from treeboard.exc import TreeboardError


class UpdateError(TreeboardError, RuntimeError):
    """An update could not be done; nothing was changed (the message says why)."""


class ReleaseRefused(UpdateError):
    """A release refused: unsigned, tampered, signed with another key, or not newer than the
    version installed. The board is left as it was."""
