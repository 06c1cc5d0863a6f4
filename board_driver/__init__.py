"""treeboard's board driver: everything between the hardware and the people, in rooms
(docs/architecture.md):

  referee/   the game on the board (synchronous, clock injected) and its one door
  daemon/    the running service around it
  views/     how each game is shown and said; the LED frame composed once
  web/       the companion page
  remote/    a seat played from another board
  cli/       the `treeboard` command
  config.py  the config file

Arrows point down (cli -> daemon -> referee -> games); tests/test_architecture.py checks it.
"""
