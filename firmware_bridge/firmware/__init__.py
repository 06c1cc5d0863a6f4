"""The MicroPython firmware. main.py, controller.py and protocol.py are copied flat onto the
RP2040; on the host, protocol and controller are imported from here (the simulator, the link)."""
