"""Arbos: how the computer plays it (the defaults and what each key means:
games/ai/tuning/__init__.py; why these numbers: docs/ai.md, "Arbos" and "Arbos: the prior's
bias")."""

from games.ai.tuning import Tuning

#: A playout's spore goes on the best (the game's own worth of a cell) of this many legal
#: cells drawn at random (`ArbosState.playout`'s `choices`): 1 is a uniformly random playout.
#: 4 was tried and played no better.
PLAYOUT_CHOICES = 1


class Arbos(Tuning):
    #: 400 moves a turn are too wide for plain UCT within seconds: widen progressively, the
    #: state's `move_prior` first, and keep to it where the playouts cannot tell moves apart.
    search_options = {"widening": (2.0, 0.5), "prior": "game", "prior_bias": 1.0,
                      "playout_options": {"choices": PLAYOUT_CHOICES}}
    #: Its strength is its prior, and grows from the glance to 160 iterations, not above: a
    #: glance three moves in eight at `easy`, then 40 and 160 iterations, and 640 kept closer
    #: to the prior.
    level_effort = {"easy": {"iterations": 40, "slips": 0.375}, "medium": {"iterations": 40},
                    "hard": {"iterations": 160},
                    "strongest": {"iterations": 640, "search": {"prior_bias": 3.0}}}


TUNING = Arbos()
