"""treeboard bridge firmware: runs before main.py at every boot (MicroPython's rp2 port does).

It finishes an update that an unplug interrupted. The host (firmware_bridge/flash.py) writes
every new file under a temporary name and checks its hash on the device first; only then does
it write JOURNAL, one "TEMPORARY FINAL" pair a line, and rename the files into place, main.py
last. If the power goes during the renames, this file does the rest before main.py starts, so
the board boots the new firmware whole, never half of it. Without JOURNAL (no update, or one
that stopped before every file was checked) it does nothing and the old firmware boots.
Renames on the Pico's littlefs are atomic: a file is the old one or the new one.
"""

import os

JOURNAL = "update.txt"


def finish_update():
    try:
        f = open(JOURNAL)
    except OSError:
        return  # nothing half done
    try:
        pairs = [line.split() for line in f.read().split("\n") if line.strip()]
    finally:
        f.close()
    for pair in pairs:
        if len(pair) != 2:
            continue  # not ours
        try:
            os.stat(pair[0])
        except OSError:
            continue  # renamed before the unplug
        os.rename(pair[0], pair[1])
    os.remove(JOURNAL)


finish_update()
