"""Treeblox: how the computer plays it (the defaults and what each key means:
games/ai/tuning/__init__.py; why these numbers: docs/ai.md, "The ladder", Treeblox)."""

from games.ai.tuning import Tuning


class Treeblox(Tuning):
    #: `easy` and `medium` search less than the common levels (about 50 points a doubling of
    #: the iterations here); `hard` and `strongest` keep the common 640 and 2,560.
    level_effort = {"easy": {"iterations": 10}, "medium": {"iterations": 64}}


TUNING = Treeblox()
