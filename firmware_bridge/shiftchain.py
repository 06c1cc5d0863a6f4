"""A simulated shift-register chain, for the simulated firmware and the tests: 74HC595s driving
the rows, 74HC165s reading the columns, clocked bit by bit as the chips do it, over a board of
reed switches with a diode each. It is the `bus` that firmware/shiftreg.py scans through
(transfer / latch / load / settle), so the firmware's bit order, chip order and active-low
logic are exercised exactly as on the board (wiring: firmware_bridge/SHIFT-REGISTERS.md).
"""

from __future__ import annotations


class SimulatedShiftChain:
    def __init__(self, rows: int, cols: int, board) -> None:
        """`board[r * cols + c]` is true where a magnet closes the reed at row r, column c.
        It is read at every /PL pulse, so the caller may change it at any time (one byte
        store: atomic under the GIL)."""
        self.rows, self.cols, self.board = rows, cols, board
        self.row_bits = 8 * ((rows + 7) // 8)
        self.col_bits = 8 * ((cols + 7) // 8)
        # 595 chain: bit 8k + i is output Q_i of chip k (chip 0 on MOSI). The shift stages and
        # the storage register (what the outputs drive), high at power-up here for simplicity
        # (on the board /MR is tied high and the firmware latches all-high before scanning).
        self.shift = (1 << self.row_bits) - 1
        self.storage = self.shift
        # 165 chain, in the order it comes out: bit 0 is on MISO now (chip 0's H), bit 7 chip 0's
        # A, bit 8 chip 1's H, ...
        self.out = (1 << self.col_bits) - 1
        self.clocks = 0  # SPI clock edges so far, for the benchmark's wire-time estimate

    # --- the bus firmware/shiftreg.py talks to

    def transfer(self, out: bytes, into: bytearray) -> None:
        for n, byte in enumerate(out):
            got = 0
            for bit in range(7, -1, -1):
                # Rising SCK edge: the master samples MISO (the 165 chain's QH) and the 595
                # chain takes MOSI; then both chains move one stage on.
                got = (got << 1) | (self.out & 1)
                self.out = (self.out >> 1) | (1 << (self.col_bits - 1))  # last 165's DS tied high
                self.shift = ((self.shift << 1) | (byte >> bit & 1)) & ((1 << self.row_bits) - 1)
            if n < len(into):
                into[n] = got
        self.clocks += 8 * len(out)

    def latch(self) -> None:
        self.storage = self.shift

    def load(self) -> None:
        # Each column is pulled up, and pulled low through a diode and a closed reed by any
        # row whose 595 output is low. Unused 165 inputs are tied high.
        low_rows = [r for r in range(self.rows) if not self.storage >> r & 1]
        out = 0
        for c in range(self.col_bits):
            level = 1
            if c < self.cols:
                for r in low_rows:
                    if self.board[r * self.cols + c]:
                        level = 0
                        break
            chip, pin = divmod(c, 8)
            out |= level << (8 * chip + 7 - pin)  # H (pin 7) comes out first
        self.out = out

    def settle(self) -> None:
        """Nothing to wait for in a simulation."""
