"""A whole Arbos game on the 20x20 bridge board: the simulated RP2040 firmware on a real pty
scans 400 presence sensors and drives 400 LEDs; the host link, debounce, reconcile, journal and
the Arbos view run as on the real board (real time). The misplays of the issue are each lit and
put right, and the power goes off between a replacement and its two follow-ups."""

from __future__ import annotations

import queue
import time

import games
from board_driver.config import sim_config
from board_driver.referee.session import open_session
from hardware.base import PRESENT
from tests.waits import Deadline, wait_for

LAYOUT = "arbos-20x20-bridge"
# 20 seeds four apart: white puts black's down first (A1, A9, E1, ...), black puts white's.
SEED_CELLS = [f"{r}{c}" for r in "AEIMQ" for c in (1, 5, 9, 13)]


class BridgeBoard:
    """The board's session on the simulated firmware, driven from the test thread: sensor
    events from the link thread are queued and handed to the referee here, as the daemon's
    loop would."""

    def __init__(self, journal: str, *, new_game: bool):
        cfg = sim_config(layout=LAYOUT, backend="bridge", bridge_port="sim", journal=journal,
                         turn_seconds=0, debounce_ms=5,
                         game_options={"board": "20x20", "setup": "chosen"})
        self.session = open_session(cfg, clock=time.monotonic, new_game=new_game)
        self.ref = self.session.referee
        self.layout = self.session.layout
        self.hands = self.session.hardware.board
        self.firmware = self.hands.firmware
        self.events: queue.Queue = queue.Queue()
        source = self.session.hardware.source
        source.start(self.events.put)
        # (a resumed game's pieces were put back on the simulated board: wait until the host
        # sees them all, then take the snapshot, as the daemon does once it listens)
        want = {self.channel(s) for s in self.ref.state.occupancy()}
        wait_for(lambda: {ch for ch, v in source.snapshot().items() if v} == want,
                 what="the host to see the board")
        self.ref.resync(source.snapshot(), time.monotonic())
        self.ref.show(time.monotonic())

    def channel(self, site: str) -> int:
        return self.layout.channels_of_site[site][0]

    def act(self, *actions: str) -> None:
        """Do the actions (`place C7`, `lift C7`) at once, then let the board settle."""
        expect = set()
        with self.firmware.at_once():   # (no scan between two pieces put down together)
            for action in actions:
                verb, site = action.split()
                getattr(self.hands, verb)(site)
                expect.add((self.channel(site), PRESENT if verb == "place" else None))
        self.settle(expect)

    def settle(self, expect: set, timeout: float = 5.0) -> None:
        got: set = set()
        deadline = Deadline(timeout)
        while True:
            try:
                event = self.events.get(timeout=0.002)
            except queue.Empty:
                event = None
            if event is not None:
                self.ref.feed(event)
                got.add((event.channel, event.value))
                continue
            now = time.monotonic()
            self.ref.tick(now)
            if expect <= got and self.ref.next_deadline() is None:
                break
            if deadline.passed():
                raise deadline.failure(f"the board to settle: saw {got}, expected {expect}")
        self.ref.show(time.monotonic())

    def move(self, text: str) -> None:
        """A move as a player makes it on the board."""
        if text == "pass":
            self.ref.press("end_turn", time.monotonic())  # the page's pass (no button here)
        elif text.startswith("seed "):
            self.act(f"place {text[5:]}")
        elif text.endswith("="):
            self.act(f"lift {text[:-1]}")
            self.act(f"place {text[:-1]}")
        elif text.startswith("x"):
            self.act(f"lift {text[1:]}")
        else:
            self.act(f"place {text}")

    def fixes(self) -> list[str]:
        return [c.site for c in self.ref.corrections]

    def moves(self) -> list[str]:
        return [str(m) for m in self.ref.state.moves]

    def shown(self, site: str) -> tuple:
        return tuple(self.ref.site_colours()[site])

    def strip_is_the_frame(self) -> None:
        leds = self.session.hardware.leds
        wait_for(lambda: self.firmware.leds() == list(leds.shown),
                 what="the firmware's strip to show the daemon's frame")

    def close(self) -> None:
        self.session.close()


def test_a_whole_game_on_the_20x20_bridge_with_misplays_and_a_power_cut(tmp_path):
    journal = str(tmp_path / "journal.sqlite")
    reference = games.get_game("arbos").new_state(board="20x20", setup="chosen")
    board = BridgeBoard(journal, new_game=True)
    colours = board.session.config.colours
    leds = board.session.hardware.leds
    played: list[str] = []

    def make(*moves):
        for text in moves:
            board.move(text)
            reference.play(text)
            played.append(text)
            assert board.moves() == played and board.fixes() == [], (text, board.fixes())

    try:
        make(*(f"seed {c}" for c in SEED_CELLS))
        assert reference.phase == "play" and board.ref.state.occupancy()["E5"] == "seed:0"
        make("D4", "A8")

        # 1. a spore where no move allows it: white on A7, beside black's A8, near no seed
        board.act("place A7")
        assert board.fixes() == ["A7"] and board.moves() == played
        assert board.shown("A7") == leds.correct([colours["wrong"]])[0]
        board.strip_is_the_frame()
        board.act("lift A7")
        assert board.fixes() == []
        make("F6")

        # 2. a seed lifted when it may not be replaced: black lifts white's seed E5
        board.act("lift E5")
        assert board.fixes() == ["E5"] and board.moves() == played
        assert board.ref.corrections[0].want == "seed:0"  # blinks: put white's seed back
        board.act("place E5")
        assert board.fixes() == []
        make("A10")

        # 3. two tokens at once: both are lit to come off; lifting one plays the other
        board.act("place G7", "place C3")
        assert board.fixes() == ["C3", "G7"] and board.moves() == played
        board.act("lift C3")
        reference.play("G7")
        played.append("G7")
        assert board.moves() == played and board.fixes() == []

        # 4. black replaces the seed I1: lifted, then the power goes off
        board.act("lift I1")
        reference.play("I1=")
        played.append("I1=")
        assert board.moves() == played and board.fixes() == ["I1"]
        board.close()
    except BaseException:
        board.close()
        raise

    # The power is back: the journal has the replacement; the board kept its tokens, with I1
    # still empty (the seed is off, the spore not yet put).
    board = BridgeBoard(journal, new_game=False)
    try:
        state = board.ref.state
        assert board.moves() == played and state.follow_ups_left == 2 and state.to_move == 1
        board.act("lift I1")  # (the simulated board put every token back; this one was off)
        assert board.fixes() == ["I1"] and board.ref.corrections[0].want == "spore:1"
        board.act("place I1")
        assert board.fixes() == [] and state.follow_ups_left == 2
        make("H2", "J1")
        assert board.ref.state.to_move == 0 and board.ref.state.follow_ups_left == 0
        make("pass", "pass")
        summary = board.ref.state.summary()
        assert summary == reference.summary()
        assert summary["over"] and summary["scores"] == [1, 1] and summary["winner"] == 1
        assert board.session.journal.history(limit=1)[0].summary["scores"] == [1, 1]
        board.strip_is_the_frame()
    finally:
        board.close()
