"""Game for the Trees: how the computer plays it (the defaults and what each key means:
games/ai/tuning/__init__.py; why these numbers: docs/ai.md, "Every game")."""

from games.ai.tuning import Tuning


class GameForTheTrees(Tuning):
    #: About 80 moves a turn and 100 iterations a second, where random playouts say little:
    #: the search keeps close to the greedy prior (a root visited 100 times weighs its best 2
    #: safe moves), cuts its playouts at 10 turns and orders the root by decisive moves.
    search_options = {"widening": (1.0, 0.2), "prior": "greedy", "safe_root": True,
                      "playout_cap": 10}


TUNING = GameForTheTrees()
