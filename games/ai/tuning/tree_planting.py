"""Tree Planting: how the computer plays it (the defaults and what each key means:
games/ai/tuning/__init__.py; why these numbers: docs/ai.md, "Levels" and "The ladder")."""

from games.ai.tuning import Tuning


class TreePlanting(Tuning):
    #: games/ai/tree_planting.py solves it exactly where a position is small enough.
    exact_solver = "games.ai.tree_planting"
    #: An iteration costs tens of microseconds, a hundredth of Game for the Trees': a level
    #: searches 16 times its iterations here.
    search_effort = 16
    #: Each level sees the endgame exactly from more free grooves than the common levels:
    #: 20 is the opening book's reach on the classic board.
    level_effort = {"easy": {"exact_free": 15}, "medium": {"exact_free": 17},
                    "hard": {"exact_free": 20}}
    #: The beginner sees a quarter of the time which grooves draw a square's third side, and
    #: keeps off them (never what a chain does).
    glance = {"answer": 0.25}


TUNING = TreePlanting()
