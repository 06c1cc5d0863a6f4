"""A puzzle on the board, a mode of the referee (docs/study.md, "Puzzles").

A set of puzzles (games/ai/puzzles.py) is started at one of its puzzles: the position is set up
on the board (setup.py: the hands are led until the pieces match it), the prompt is said, and
the mover plays the answer on the board as any move. That first move is judged: right (one of
the set's answers) or wrong, with why (the game's view says why in words: Moment.puzzle). A
wrong answer may be taken back (lifting it, or `takeback`) and tried again; `next` sets up the
next puzzle of the set. A new game ends the mode.

Both seats are people while a puzzle is on the board (the computer would otherwise answer it,
or reply before the verdict is heard): the door sets them so.

The referee holds the Puzzle as its mode (`referee.mode`); the Puzzle hears the game's changes
as a listener of the referee and writes only its own verdict.
"""

from __future__ import annotations

import logging
from typing import Any

from board_driver.moment import PuzzleFace
from games.ai.puzzles import state_of

log = logging.getLogger("treeboard.referee")


class Puzzle:
    kind = "puzzle"

    def __init__(self, referee: Any, puzzles: dict, index: int):
        if not 0 <= index < len(puzzles["puzzles"]):
            raise ValueError(f"puzzle {index + 1}: the set has {len(puzzles['puzzles'])}")
        self.referee = referee
        self.set = puzzles
        self.index = index
        self.puzzle = puzzles["puzzles"][index]
        self.start_ply = len(self.puzzle["moves"])
        self.verdict: str | None = None
        self.played: str | None = None

    def start(self, now: float, decide: bool = True) -> None:
        """Set the puzzle's position up on the board and listen for its answer (`decide`
        False: from inside the referee's decide loop, which decides next)."""
        ref = self.referee
        state = state_of(self.set["game"], self.puzzle, f"puzzle {self.index + 1}")
        ref.set_up(state, now, purpose="puzzle", decide=decide)
        ref.mode = self
        ref.listeners.append(self.heard)
        log.info("puzzle %d of %d set up", self.index + 1, len(self.set["puzzles"]))

    def heard(self, what: str, move: Any, origin: str) -> None:
        """The game changed: the answer played (judged), or taken back (to try again)."""
        ref = self.referee
        if ref.mode is not self:
            ref.listeners.remove(self.heard)   # (the mode ended: a new game, another puzzle)
            return
        ply = len(ref.state.moves)
        if what == "move" and ply == self.start_ply + 1:
            self.played = str(move)
            self.verdict = "right" if self.played in self.puzzle["answers"] else "wrong"
            log.info("puzzle %d: %s is %s", self.index + 1, self.played, self.verdict)
        elif what == "undo" and ply <= self.start_ply:
            self.verdict, self.played = None, None

    def following(self) -> "Puzzle | None":
        """The next puzzle of the set, or None after the last."""
        if self.index + 1 >= len(self.set["puzzles"]):
            return None
        return Puzzle(self.referee, self.set, self.index + 1)

    def face(self) -> PuzzleFace:
        """What the views draw and say of the puzzle."""
        p = self.puzzle
        result = (p.get("results") or {}).get(self.played) if self.played else None
        return PuzzleFace(number=self.index + 1, count=len(self.set["puzzles"]),
                          mover=int(p.get("to_move", 0)), goal=p["goal"],
                          free=p.get("free"), theme=p.get("theme"), verdict=self.verdict,
                          played=self.played, answers=tuple(p["answers"]), result=result)
