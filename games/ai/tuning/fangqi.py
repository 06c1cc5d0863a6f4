"""Fangqi: how the computer plays it (the defaults and what each key means:
games/ai/tuning/__init__.py; why these numbers: docs/ai.md, "Every game" and "The ladder")."""

from games.ai.tuning import Tuning


class Fangqi(Tuning):
    #: Playouts cut at 30 moves (a whole random game is 130-180), valued by the rules
    #: (`FangqiState.playout_value`); the game's prior, widening and a safe root.
    search_options = {"widening": (1.0, 0.35), "prior": "game", "safe_root": True,
                      "playout_cap": 30}
    #: The strength comes between 160 and 640 iterations here: `medium` searches 256.
    level_effort = {"medium": {"iterations": 256}}
    #: `hard` (640 iterations) spread over 3 processes, shares of 213, beat `medium` 20/30
    #: (10 wins, 20 draws; one process: 26.5/32, 21 wins at least): a share is at least a
    #: whole `hard`, so `medium` and `hard` are never split and `strongest` (2,560) is split
    #: in shares of 640 or more (docs/ai.md, "Several processes").
    min_share = 640


TUNING = Fangqi()
