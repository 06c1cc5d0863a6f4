"""The game on the board: synchronous, single-threaded, its clock injected.

Owns the game being played and everything decided about it: the referee (debounce ->
channel-to-site -> reconcile -> journal -> what the board shows), the reconciliation of the
sensors with the game, touch input, the seats and the computer's turn, the journal, the session
that opens a board from its config, and the tracer that drives the same referee on a simulated
clock (for `trace`, the sim's actions and the tests).

May import: games, games.ai, hardware, firmware_bridge, board_driver.config, board_driver.views,
board_driver.moment (the frozen value it hands the views). Never the daemon, web, remote or cli
rooms, which drive it.

  referee.py    the Referee: the one owner of the game on the board; `moment(now)` for the views
  decisions.py  what it decided the board shows, and the frozen Moments made of it
  reading.py    the sensors, settled: debounce, channel to site
  pieces.py     a move made with pieces: the reading against the game
  hands.py      a move made otherwise (entries, buttons, taps, another seat), the menu's answers
  timekeeper.py the clocks of the game, and what a clock running out does to it
  clock.py      time controls and the two clocks
  menu.py       the menu, a mode: a board set up with no screen
  setup.py      a position coming to the board: the hands led until the pieces match it
  study.py      a record studied on the board, a mode: its moves stepped, a branch played
  puzzle.py     a puzzle on the board, a mode: its answer judged, right or wrong and why
  kept.py       what a session changed of the board, kept in the journal
  door.py       the one way in for everything that acts on a board
  reconcile.py  sensors against the game: which move, what to correct
  touch.py      taps and holds (Game for the Trees)
  seats.py      who plays each seat; the computer's and hints' requests
  journal.py    the game's moves in SQLite, so a power cut loses nothing
  session.py    a board opened from its config: hardware, journal, referee
  actions.py    the physical actions (place, lift, tap, hold, press, wait): read and done
  tracer.py     physical actions on a simulated clock
"""
