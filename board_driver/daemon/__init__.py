"""The running service: one asyncio loop that owns all state, with threads only at the edges
(gpiozero callbacks, the serial reader, the computer's worker process, the speech worker)
handing results to the loop with `call_soon_threadsafe`; systemd's notify socket and watchdog.

May import: board_driver.referee, board_driver.views, board_driver.web, board_driver.remote,
board_driver.config, games, hardware. Only the cli imports it.

  loop.py    the Daemon: sources and sinks, the computer's worker, the refresh timer
  remote_part.py  the remote link as a supervised part; joining and leaving for the page
  guest_view.py   what the board shows a seat played from a browser (the views draw it)
  supervisor.py   the parts that can die, restarted with backoff
  notify.py  sd_notify (READY, STATUS, WATCHDOG) without libsystemd
  speech.py  the voice: a bounded queue of sentences, a worker thread, espeak-ng or WAV files
"""
