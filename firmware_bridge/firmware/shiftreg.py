"""Scanning a large reed matrix through shift registers: 74HC595s drive the rows, 74HC165s
read the columns, both on one SPI bus. A 20 x 20 Arbos board is 3 + 3 chips and 5 pins.

Runs on MicroPython (main.py gives it the RP2040's SPI and two pins) and on CPython
(firmware_bridge.shiftchain simulates the chips bit by bit). The bus is a tiny shim:

    bus.transfer(out, into)   clock len(out) bytes out on MOSI (MSB first) while reading as
                              many from MISO into `into` (SPI mode 0)
    bus.latch()               pulse the 595s' RCLK: their outputs take what was shifted in
    bus.load()                pulse the 165s' /PL: they capture their inputs (the columns)
    bus.settle()              wait for the column lines to settle after a row changed

Wiring (firmware_bridge/SHIFT-REGISTERS.md): row r is output Q(r % 8) of 595 number r // 8,
counted from the one on MOSI; column c is input (A..H)[c % 8] of 165 number c // 8, counted
from the one on MISO. A reed switch and a diode (anode at the column) sit at each crossing;
the columns have pull-ups. A row is selected by driving it low, the others high, so a
closed reed pulls its column low only on the selected row.

This module imports nothing.
"""


class ShiftRegisterMatrix:
    def __init__(self, bus, rows, cols):
        self.bus = bus
        self.rows = rows
        self.cols = cols
        row_chips = (rows + 7) // 8
        self.col_chips = (cols + 7) // 8
        # One SPI transfer shifts a row pattern in and the columns out together, so both
        # chains are clocked the same number of bytes: the longer chain sets it. Extra bytes
        # go out first (they fall off the end of the 595 chain) and are read last (the last
        # 165's serial input is tied high, so they read 0xFF and are ignored).
        self.nbytes = max(row_chips, self.col_chips)
        pad = self.nbytes - row_chips
        self.patterns = [self._pattern(r, row_chips, pad) for r in range(rows)]
        self.idle = bytes(b"\xff" * self.nbytes)  # every row high: no current through the matrix
        self.col_mask = (1 << cols) - 1
        self.buf = bytearray(self.nbytes)

    @staticmethod
    def _pattern(row, row_chips, pad):
        # The first byte shifted out ends in the farthest 595: send the farthest chip first.
        out = bytearray(b"\xff" * (pad + row_chips))
        chip = row // 8
        out[pad + row_chips - 1 - chip] = 0xFF & ~(1 << (row % 8))
        return bytes(out)

    def scan(self):
        """Every row's columns as a bit mask (bit c set: a magnet closes the reed at column c).

        Pipelined: while the 165s shift out the columns of row r, the 595s shift in the
        pattern of row r + 1, so a 20 x 20 scan is 21 three-byte transfers."""
        bus = self.bus
        buf = self.buf
        patterns = self.patterns
        rows = self.rows
        masks = []
        bus.transfer(patterns[0], buf)
        for r in range(rows):
            bus.latch()   # row r low
            bus.settle()
            bus.load()    # its columns captured
            bus.transfer(patterns[r + 1] if r + 1 < rows else self.idle, buf)
            # byte k, bit j: column 8k + j; low = a closed reed
            m = 0
            for k in range(self.col_chips):
                m |= buf[k] << (8 * k)
            masks.append(~m & self.col_mask)
        bus.latch()  # all rows high again until the next scan
        return masks
