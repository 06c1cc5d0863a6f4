"""A subprocess that plays random moves into a journal until it is killed.

Used by test_journal.py: ``python journal_player.py PATH SEED PREFIX``. Before each
record it prints ``DO <op>``, after the record is durable ``ACK <op>``, so whoever
kills it knows exactly which records were acknowledged and which one (at most)
was under way. Ops: ``new``, ``move <text>``, ``undo``, ``finish``.
"""

import os
import random
import sys

from board_driver.referee.journal import Journal


def say(verb: str, op: str) -> None:
    # One write(2) per line, well under PIPE_BUF: a kill never leaves half a line.
    os.write(1, f"{verb} {op}\n".encode())


def main(path: str, seed: int, prefix: str) -> None:
    rng = random.Random(seed)
    journal = Journal(path)
    saved = journal.current()  # what a restarting daemon restores
    playing, depth = saved is not None, len(saved.moves) if saved else 0
    for i in range(100_000):  # a bound, in case nobody kills us
        roll = rng.random()
        if not playing:
            op = "new"
        elif roll < 0.04:
            op = "new"  # abandons the game in progress
        elif roll < 0.07:
            op = "finish"
        elif roll < 0.25 and depth:
            op = "undo"
        else:
            op = f"move {prefix}-{i}"
        say("DO", op)
        if op == "new":
            journal.start_game("tree-planting", {"seed": seed})
            playing, depth = True, 0
        elif op == "finish":
            journal.finish({"moves": depth})
            playing = False
        elif op == "undo":
            journal.record_undo()
            depth -= 1
        else:
            journal.record_move(op.split(" ", 1)[1])
            depth += 1
        say("ACK", op)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
