"""Seeded line faults for the simulated firmware: what a noisy or flaky serial line does.

`LineFaults.apply(chunk)` takes what one side wrote (the simulated firmware writes one whole
frame per call) and returns what the other side receives. The same seed and the same chunks
give the same faults, so a failing run can be replayed.
"""

from __future__ import annotations

import random


class LineFaults:
    def __init__(self, seed: int = 0, *, corrupt: float = 0.0, drop: float = 0.0,
                 duplicate: float = 0.0, garbage: float = 0.0, corrupt_bytes: float = 0.0) -> None:
        #: Each is the chance per chunk: flip one bit, lose it, send it twice, prefix noise.
        self.corrupt = corrupt
        #: The chance per byte that one of its bits flips: a noisy line, which hurts long
        #: frames more than short ones (0.05 leaves a 16-byte frame whole 44 % of the time).
        self.corrupt_bytes = corrupt_bytes
        self.drop = drop
        self.duplicate = duplicate
        self.garbage = garbage
        self._rng = random.Random(seed)
        self.counts = {"corrupted": 0, "dropped": 0, "duplicated": 0, "garbage": 0, "bytes_corrupted": 0}

    def apply(self, chunk: bytes) -> bytes:
        rng = self._rng
        if not chunk:
            return chunk
        if rng.random() < self.drop:
            self.counts["dropped"] += 1
            return b""
        out = bytearray(chunk)
        if rng.random() < self.corrupt:
            self.counts["corrupted"] += 1
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
        if self.corrupt_bytes:
            for i in range(len(out)):
                if rng.random() < self.corrupt_bytes:
                    self.counts["bytes_corrupted"] += 1
                    out[i] ^= 1 << rng.randrange(8)
        if rng.random() < self.garbage:
            self.counts["garbage"] += 1
            out[:0] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 32)))
        if rng.random() < self.duplicate:
            self.counts["duplicated"] += 1
            out = out + out
        return bytes(out)
