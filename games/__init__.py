"""Rules engines for the tree games, behind one interface (see `games.base`).

    >>> import games
    >>> state = games.get_game("tree-planting").new_state(board="classic")
    >>> state.play("h0.0")
"""

from __future__ import annotations

import importlib

from games.base import BadOptions, Game, GameError, IllegalMove, InvalidNotation, State

__all__ = [
    "BadOptions", "Game", "GameError", "IllegalMove", "InvalidNotation", "State",
    "get_game", "names", "load_state",
]

# Registry name -> module holding a `GAME` instance. Modules load on first use so that a
# board running one game never pays for importing the others.
_MODULES = {
    "tree-planting": "games.tree_planting",
    "treeblox": "games.treeblox",
    "fangqi": "games.fangqi",
    "arbos": "games.arbos",
    "game-for-the-trees": "games.game_for_the_trees",
}

_loaded: dict[str, Game] = {}


def names() -> list[str]:
    """The registered games, in the order `treeboard games` lists them."""
    return list(_MODULES)


def get_game(name: str) -> Game:
    """The game registered under `name`. Raises KeyError naming the known games."""
    if name not in _loaded:
        if name not in _MODULES:
            raise KeyError(f"no game {name!r}; known games: {', '.join(_MODULES)}")
        _loaded[name] = importlib.import_module(_MODULES[name]).GAME
    return _loaded[name]


def load_state(text: str | dict) -> State:
    """A state saved by `State.to_json`, whatever its game."""
    from games.base import load_json

    data = load_json(text)
    try:
        game = get_game(data.get("game"))
    except (KeyError, TypeError) as exc:
        raise GameError(f"saved game names no known game: {data.get('game')!r}") from exc
    return game.state_from_json(data)
