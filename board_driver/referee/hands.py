"""How a move gets in besides the pieces, and the menu's answers (DESIGN.md, "How a move gets
in"): a piece entered where no sensor sees it (a Treeblox cube above the board), the buttons
(end turn, the menu), a touch game's taps and holds, a seat not at this board (the computer, a
remote board), a takeback without the board's hands, and what the menu's answers set going.

The referee owns one Hands and the game; the Hands decide through the referee's own methods
(`accept`, `decide`, `undo_moves`, `begin`, `set_seats`, `set_hint_mode`) and never hold state of
their own. Pure and clock-injected like the referee.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any, Callable

import games
from board_driver.referee import kept
from board_driver.referee.clock import control_text, parse_time_control
from board_driver.referee.menu import applied_seats, current_choices, game_choice_sites
from board_driver.referee.reconcile import candidate_moves, changed_sites
from board_driver import views
from board_driver.views.narrate import takeback_words
from games.base import Reason

log = logging.getLogger("treeboard.referee")


class Hands:
    def __init__(self, referee: Any):
        self.referee = referee
        # The move count the other side's takeback request asks for, while one waits for the
        # people here (a remote link's; set by daemon/remote_part.py), else None.
        self.takeback_asked: Callable[[], int | None] = lambda: None

    def enter(self, site: str, kind: str, now: float) -> None:
        """A piece placed where no sensor sees it (Treeblox above the board): play the one legal
        move that puts `kind` on `site`. Raises games.IllegalMove if there is none."""
        ref = self.referee
        state = ref.state
        before = state.occupancy()
        found = None
        for move in candidate_moves(state, [site]):
            state.play(move)
            after = state.occupancy()
            state.undo()
            if changed_sites(before, after) == {site} and after.get(site) == kind:
                found = move
                break
        if found is None:
            raise games.IllegalMove(f"{kind} at {site}", views.piece_refused(state, site, kind)
                                    or Reason("no legal move puts that piece there now"))
        if not ref.at_board(state.to_move):
            raise games.IllegalMove(f"{kind} at {site}", Reason("it is the other seat's turn"))
        if ref.flagged is not None:
            raise games.IllegalMove(f"{kind} at {site}", Reason("the game is over: time ran out"))
        ref.accept(found, now)
        ref.decide(now)

    def lift_entry(self, site: str, now: float) -> None:
        """The piece entered last on a site no sensor sees, lifted again: a takeback, as
        lifting the last piece off a sensed site is. Raises games.IllegalMove otherwise."""
        ref = self.referee
        state = ref.state
        if not ref.settings.takeback:
            raise games.IllegalMove(f"lift {site}", Reason("takebacks are off (display.takeback)"))
        before = state.occupancy()
        if site not in ref.sensed and site not in before:
            raise games.IllegalMove(f"lift {site}", Reason("nothing to lift at {site}", site=site))
        if not state.moves or site in ref.sensed:
            raise games.IllegalMove(f"lift {site}", Reason("only the last piece entered can be "
                                                           "taken back"))
        last = state.undo()
        after = state.occupancy()
        if site not in before or changed_sites(before, after) != {site}:
            state.play(last)
            raise games.IllegalMove(f"lift {site}", Reason("only the last piece entered can be "
                                                           "taken back"))
        state.play(last)  # put back, to take it back the journalled way
        ref.takeback(now)

    def press(self, name: str, now: float) -> None:
        """A named button: `end_turn` ends the turn (a pass with no placement), where the game
        has such a move; `menu` opens the menu (between games) or leaves it; `forward` and
        `back` step a studied record (study.py)."""
        ref = self.referee
        if name == "menu":   # a layout's menu button: opens the menu between games, or leaves it
            if ref.menu.open:
                self.carry_out(self.answer("leave", now), now)
            elif ref.menu.available and self.menu_may_open():
                self.carry_out(self.answer("enter", now, by_button=True), now)
            elif self.game_menu():
                self.carry_out(self.answer("game", now), now)   # (mid-game: endings)
            return
        if name in ("forward", "back") and ref.mode is not None and ref.mode.kind == "study":
            try:   # a layout's study buttons ([buttons] forward = GPIO, back = GPIO)
                ref.mode.step(1 if name == "forward" else -1, now)
            except games.IllegalMove as exc:
                log.info("%s button ignored: %s", name, exc.reason)
            return
        if name != "end_turn" or ref.over or not ref.at_board(ref.state.to_move):
            return
        move = ref.state.end_turn_move()
        if move is None:
            log.info("end-turn button ignored: the game has no end-turn move")
            return
        try:
            ref.state.copy().play(move)
        except games.IllegalMove as exc:
            log.info("end-turn button ignored: %s", exc.reason)
            return
        ref.accept(move, now)
        ref.decide(now)

    def gesture(self, site: str, held: bool, now: float) -> None:
        """A tap (or, `held`, a hold) of `site` made without the sensors (the sim's `tap` and
        `hold`): the same as the wand's, whatever the time between the typed lines. Raises
        games.IllegalMove in a game that takes no taps, or for a site not on the board."""
        ref = self.referee
        if ref.touch is None:
            raise games.IllegalMove(f"tap {site}", Reason("this game's moves are made with "
                                                          "pieces, not taps: place and lift "
                                                          "them"))
        if site not in ref.state.sites():
            raise games.IllegalMove(f"tap {site}", Reason("{site} is no square of this board",
                                                          site=site))
        if ref.menu.open:   # a tap in the menu chooses
            what = ref.menu.choose(site, now)
            if what is not None:   # apply, or the puzzles
                self.carry_out(self.answer(what, now), now)
            return
        self.gestured(ref.touch.gesture(site, held, now, ref.state, over=ref.over), now)

    def touched(self, site: str, now: float) -> None:
        ref = self.referee
        on = ref.physical[site] is not None
        corners = ref.menu.corners or ()
        corners_on = all(ref.physical.get(c) is not None for c in corners)
        what = ref.menu.touched(site, on, corners_on, self.menu_may_open(), now)
        if what is None:
            self.gestured(ref.touch.sensor(site, on, now, ref.state, over=ref.over), now)
            return
        if what in ("enter", "leave", "corners"):
            # Both corners touched at once (a wand touches one square at a time).
            ref.touch.forget_touches()
        if what == "corners" and self.game_menu():
            what = "game"   # mid-game: the game menu (resign, a draw, put away)
        if what in ("enter", "leave", "apply", "game", "puzzle"):
            self.carry_out(self.answer(what, now), now)

    def game_menu(self) -> list[str]:
        """What the game menu offers now (menu.ENDINGS; none: it does not open): in a game
        under way, resigning and offering a draw when a person here plays a seat, answering a
        draw a person here is asked, putting the game away (not a remote game)."""
        ref = self.referee
        endings = ref.endings
        if ref.over or not ref.state.moves or ref.menu.open:
            return []
        values = []
        if endings.local(0) or endings.local(1):
            values += ["resign"] + (["draw"] if endings.offer is None else [])
        if "remote" not in ref.seats:
            values.append("away")
        if endings.asked() == "board":
            values += ["accept", "refuse"]
        elif self.takeback_asked() is not None:   # (the other side's: the remote link's)
            values += ["accept-takeback", "refuse-takeback"]
        # the player to move away: pause, wait, claim, a draw (referee/absence.py)
        values += [f"absent-{c}" for c in ref.absence.menu_choices()]
        return values

    def gestured(self, what: Any, now: float) -> None:
        ref = self.referee
        if what == "new-game":
            ref.new_game(now)
        elif what is not None:
            if ref.at_board(ref.state.to_move):  # not the computer's or a remote board's turn
                ref.accept(what, now)
            ref.touch.reset()

    def menu_may_open(self) -> bool:
        """Whether the button or a touch board's corners may open the menu now: between games
        (mid-game it would abandon one), never in a remote game."""
        ref = self.referee
        return "remote" not in ref.seats and (not ref.state.moves or ref.over)

    def menu_reading(self, now: float) -> tuple[bool, Callable[[float], None] | None]:
        """A piece board's reading, offered to the menu: the gesture that opens it, and, open,
        its choices. Returns whether the menu took the reading (nothing is played then) and
        what it sets going."""
        ref = self.referee
        menu = ref.menu
        may_open = not (ref.over or ref.holding or "remote" in ref.seats
                        or len(ref.state.moves) > 2)
        expected = {s for s, v in ref.state.occupancy().items() if v is not None}
        was_open = menu.open
        what = menu.reading(ref.reading.occupied(), now, may_open=may_open,
                            only_corners=expected <= set(menu.corners or ()))
        if what is None:
            return was_open, None
        return True, self.answer(what, now)

    def answer(self, what: str, now: float, by_button: bool = False
               ) -> Callable[[float], None] | None:
        """Carry out what the menu answered; returns what follows for the decide loop (a new
        game after "apply", a puzzle set up after "puzzle"; the board reconciled again after
        "leave"), or None while the menu holds the board."""
        ref = self.referee
        if what == "enter":
            if ref.state.moves and not ref.over and not by_button:
                # The corner pieces were legal moves, played at once: the gesture takes them back.
                ref.undo_moves(len(ref.state.moves), "menu")
            ref.menu.enter(now, current_choices(ref.seats, control_text(ref.controls),
                                                ref.settings.moves),
                           ref.reading.occupied(), by_button,
                           [g.game_id for g in ref.endings.away()])
            ref.clear_marks()
            log.info("menu opened")
            ref.tell("menu-open", None, "board")
            return None
        if what == "game":
            free = [s for s in ref.sensed if ref.touch is not None or (
                ref.physical.get(s) is None and s not in (ref.menu.corners or ()))]
            sites = game_choice_sites(free, self.game_menu())
            if sites is None:
                log.info("the game menu has no free sites to show its choices on")
                return None
            ref.menu.enter_game(now, sites, ref.reading.occupied())
            ref.clear_marks()
            log.info("game menu opened: %s", ", ".join(c.value for c in sites.values()
                                                       if c.value))
            ref.tell("menu-open", None, "board")
            return None
        if what == "leave":
            log.info("menu: left, nothing changed")
            ref.menu.close()
            ref.hold_for_pieces()   # the menu's pieces come off before play goes on
            ref.tell("menu-closed", None, "board")
            return lambda now: None
        if what == "apply":
            chosen, game_menu = ref.menu.chosen, ref.menu.game
            ref.menu.close()
            if game_menu or chosen.get("take up") is not None:
                ref.hold_for_pieces()   # the menu's pieces come off before play goes on
                ref.tell("menu-closed", None, "board")
                return partial(self.ending_chosen, chosen.get("ending"), chosen.get("take up"))
            if chosen.get("clock") is not None:
                ref.keeper.set_controls(parse_time_control(chosen["clock"]), now, this_game=False)
            # (a web seat is kept where the choice puts a person: menu.applied_seats; all the
            # choices kept at once, once: each kept as it changed wrote them twice)
            fits = lambda seats: kept.web_refusal(seats, ref.state.game) is None  # noqa: E731
            ref.set_seats(applied_seats(ref.seats, chosen.get("seats", "people"),
                                        chosen.get("level", "medium"), fits), keep=False)
            if chosen.get("hints") is not None:
                ref.set_hint_mode(chosen["hints"], keep=False)
            kept.keep(ref)
            log.info("menu applied: seats %s, clock %s, hints %s", ref.seats,
                     control_text(ref.controls), ref.settings.moves)
            ref.tell("menu-applied", dict(chosen), "board")
            return partial(ref.begin, origin="menu")
        if what == "puzzle":
            ref.menu.close()
            ref.set_seats(("human", "human"))   # (a puzzle is the players' to answer)
            log.info("menu: the puzzles")
            ref.tell("menu-puzzle", None, "board")
            return self.first_puzzle
        return None   # a choice made: the menu holds the board

    def ending_chosen(self, ending: str | None, take_up: int | None, now: float) -> None:
        """What the game menu applied (an ending), or the menu between games (a game put away,
        taken up again), carried out; refused (the game moved on meanwhile): logged."""
        endings = self.referee.endings
        try:
            if take_up is not None:
                endings.take_up(take_up, now, "menu")
            elif ending in ("accept", "refuse"):
                endings.answer(ending == "accept", now, "menu")
            elif ending in ("accept-takeback", "refuse-takeback"):
                # (the remote link answers it, after this decision: daemon/remote_part.py)
                self.referee.tell("takeback-answer", ending == "accept-takeback", "menu")
            elif ending == "resign":
                endings.resign(now, None, "menu")
            elif ending == "draw":
                endings.offer_draw(now, None, "menu")
            elif ending == "away":
                endings.put_away(now, "menu")
            elif ending is not None and ending.startswith("absent-"):
                self.referee.absence.choose(ending.split("-", 1)[1], now, "menu")
        except games.IllegalMove as exc:
            log.info("the menu's %s not done: %s", ending or "take up", exc.reason)

    def first_puzzle(self, now: float) -> None:
        """The menu's puzzle site: the first puzzle of the set shipped for the game, set up on
        the board (the menu's pieces are lit to take off with the rest)."""
        from board_driver.referee.puzzle import Puzzle
        from games.ai.puzzles import PuzzleError, shipped_set

        ref = self.referee
        try:
            Puzzle(ref, shipped_set(ref.state.game.name), 0).start(now, decide=False)
        except PuzzleError as exc:
            log.error("menu: no puzzles: %s", exc)
            ref.hold_for_pieces()

    def carry_out(self, follow: Callable[[float], None] | None, now: float) -> None:
        """An outside call's menu answer: carried out, then the board decided again (while the
        menu is open that only stops the clocks)."""
        ref = self.referee
        if follow is not None:
            follow(now)
        ref.decide(now)

    def for_seat(self, move: Any, now: float, origin: str) -> None:
        """A move of a seat not at this board (the computer, a remote board). It is played in
        the game at once; the board then differs from the game, and the correction machinery
        lights the pieces to put. Raises games.IllegalMove and changes nothing if it is this
        board's turn or the move is not legal."""
        ref = self.referee
        state = ref.state
        if ref.over:
            raise games.IllegalMove(move, Reason("the game is over"))
        if ref.at_board(state.to_move):
            raise games.IllegalMove(move, Reason("it is this board's turn, not the other seat's"))
        if isinstance(move, str):
            move = state.parse_move(move)
        state.copy().play(move)   # raises IllegalMove before anything is recorded
        before = state.occupancy()
        ref.accept(move, now, origin)
        after = ref.state.occupancy()
        # What the move changed is the other seat's move to make on this board, shown as an
        # invitation ("the computer's move: make it"), not as a mistake; moves in a row add up.
        ref.decided.to_make |= {s for s in before.keys() | after.keys()
                         if before.get(s) != after.get(s)}
        ref.decided.to_make_by = origin
        ref.decide(now)

    def takeback_depth(self) -> int:
        """How many moves a takeback takes back. Against the computer, a player's move and the
        computer's reply after it go together (taking back the reply alone, the computer would
        play it again at once); otherwise the last move."""
        ref = self.referee
        here = [ref.at_board(p) for p in (0, 1)]
        if "remote" in ref.seats or all(here) or not any(here):
            return 1
        probe, depth = ref.state.copy(), 0
        while probe.moves:
            probe.undo()
            depth += 1
            if ref.at_board(probe.to_move):   # the player's move: it goes too, and no more
                return depth
        # Only the computer's moves so far (it moved first): none is the players' to take back,
        # and its move not yet made on the board is an invitation, never a piece lifted.
        return 0

    def takeback(self, now: float, origin: str = "page") -> str:
        """Take back the last move without the board's hands (the page's takeback, or one
        agreed with a remote board; lifting the last piece does the same on the board). The
        pieces it put down then light as corrections, and nothing is played until they are
        lifted. The move that ended a game may be taken back too, until the board is cleared
        for the next: the game goes on (journalled as playing again). Returns the move taken
        back; raises games.IllegalMove when there is none, or the game was lost on time."""
        ref = self.referee
        if ref.flagged is not None:
            raise games.IllegalMove("takeback", Reason("the game is over: time ran out; start "
                                                       "a new game instead"))
        if ref.endings.ended is not None:
            raise games.IllegalMove("takeback", Reason("the game is over: its players ended "
                                                       "it; start a new game instead"))
        if not ref.state.moves:
            raise games.IllegalMove("takeback", Reason("no move to take back"))
        depth = ref.takeback_depth()
        if depth == 0:
            raise games.IllegalMove("takeback", Reason("no move of this board's to take back: "
                                                       "the computer's move stands"))
        if ref.state.is_over():
            # The move that ended the game: it goes on, its journal row playing again.
            ref.journal.reopen()
            ref.decided.over_since, ref.decided.end_owed = None, None
            log.info("the game's last move taken back: the game goes on")
        undone = ref.undo_moves(depth, origin)
        ref.hold_for_pieces()   # (a touch board has no pieces to lift)
        ref.decide(now)
        return takeback_words(ref.state.game.name, undone, ref.seats)
