"""Remote play: a seat played from another board, over an MQTT broker.

Owns the link to the broker (its connection, its state, what is waiting to be sent) and the
protocol (signed messages, their parsing and checks). The game itself stays the referee's: a
remote move reaches it through the board's door like any other.

May import: games, board_driver.config. Never the referee, daemon, web or cli rooms.

  link.py      the asyncio MQTT link (aiomqtt) in the daemon's loop
  protocol.py  topics, message encoding, signatures, validation
  seat.py      a seat played from a browser: seat and lobby keys, links, signed envelopes (pure)
  guest.py     the hosting board's link to a browser's seat (a RemoteLink whose peer is a browser)
  takeback.py  its takebacks: the board asks the browser, the browser asks the board
  lobby.py     the lobby's offer of a browser's seat, on a connection of its own (its will)
"""
