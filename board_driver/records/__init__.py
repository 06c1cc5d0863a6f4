"""Games that leave the board and come back: records in SGF FF[4] (and JSON), their import
and export, and the library's queries over the journal (docs/records.md).

Owns: the record's form (`Record`: the game, its options, both players, the date, the
clocks at each move, the result and how it ended, the review's marks and comments), how it
is written (SGF, through sgfmill, a well-kept SGF library; JSON, a superset of the replay
object) and read back (our own reader, which names the line of whatever it refuses), the
check of a record against the game's rules before anything is written, and the library's
search. The journal stays the one owner of the file: a record goes in through
`Journal.add_games`, in one transaction, never touching the game in progress.

May import: games, board_driver.referee (the journal, the clocks' notation) and
board_driver.views (the words of players and results). The cli and the web import it;
nothing here imports the daemon, the web, the remote link or the cli.

  record.py   the Record (players, moves, clocks, result) made from the journal, and checked
              against the game's rules into what the journal keeps
  sgf.py      SGF written (sgfmill) and read (with the line of each refusal)
  library.py  export and import (journal <-> files), the library's search and its words
"""

from board_driver.records.record import Move, Player, Record, RecordError

__all__ = ["Move", "Player", "Record", "RecordError"]
