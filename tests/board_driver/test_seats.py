"""The computer's seat: thinks and plays only on its turn with the board agreeing, drops
answers the game has moved past, and parses levels from the config's seats."""

from __future__ import annotations

import dataclasses
from concurrent.futures import Future
from types import SimpleNamespace

import pytest

import games
from board_driver.referee.clock import NONE, Clocks
from board_driver.referee.seats import ComputerSeat, computer_seats, think


class FakeReferee:
    """What the seat reads and calls on the referee, over a real game state."""

    def __init__(self, state):
        self.state = state
        self.corrections, self.completions, self.hints = [], [], {}
        self.settings = SimpleNamespace(moves="safe")
        self.hint_reason = self.hint_move = None
        self.played: list[str] = []
        self.holding = False   # no takeback waiting for its pieces to come off
        self.clocks = Clocks((NONE, NONE))
        self.menu = SimpleNamespace(open=False)
        self.endings = SimpleNamespace(asked=lambda: None, offer=None)   # (no draw on offer)
        # (the seat writes decided.limited: a search the cap cut short)
        self.decided = SimpleNamespace(limited={})

    @property
    def over(self):
        return self.state.is_over()

    def at_board(self, player):
        return player == 0

    def set_hints(self, hints, reason=None, move=None):
        self.hints = hints
        self.hint_reason = reason
        self.hint_move = move

    def play_for_seat(self, move, now, origin):
        assert origin == "computer"
        self.state.play(self.state.parse_move(move))
        self.played.append(move)


class Worker:
    """Runs a submitted search when told to, as a worker process would, later."""

    def __init__(self):
        self.jobs: list[tuple[Future, tuple]] = []

    def submit(self, fn, *args):
        f = Future()
        self.jobs.append((f, (fn, args)))
        return f

    def finish(self, i=0):
        f, (fn, args) = self.jobs.pop(i)
        f.set_result(fn(*args))


def seat_for(state, worker, think_ahead=False):
    referee = FakeReferee(state)
    seat = ComputerSeat(referee, {1: games.ai.level("0.05")}, submit=worker.submit,
                        call_soon=lambda fn, *a: fn(*a), clock=lambda: 0.0, seed=1,
                        think_ahead=think_ahead)
    return referee, seat


def test_plays_its_turn_once_the_board_agrees():
    state = games.get_game("tree-planting").new_state(board="2x2")
    worker = Worker()
    referee, seat = seat_for(state, worker)
    seat.poke()
    assert not worker.jobs  # the human's turn
    state.play("h0.0")
    referee.corrections = ["h0.0 still to put"]
    seat.poke()
    assert not worker.jobs  # the board disagrees: no thinking yet
    referee.corrections = []
    seat.poke()
    seat.poke()
    assert len(worker.jobs) == 1  # one search per position
    referee.corrections = ["someone is fiddling"]
    worker.finish()
    assert referee.played == []  # the answer waits for the board
    referee.corrections = []
    seat.poke()
    assert len(referee.played) == 1
    assert str(state.moves[-1]) == referee.played[0]


def test_drops_an_answer_the_game_moved_past():
    state = games.get_game("tree-planting").new_state(board="2x2")
    state.play("h0.0")
    worker = Worker()
    referee, seat = seat_for(state, worker)
    seat.poke()
    assert len(worker.jobs) == 1
    state.undo()  # a takeback while it thinks
    worker.finish()
    assert referee.played == []
    assert not worker.jobs  # the human's turn again: nothing new to think about
    state.play("v0.0")
    seat.poke()
    worker.finish()
    assert len(referee.played) == 1 and str(state.moves[-1]) == referee.played[0]


def test_the_worker_function_answers_a_legal_move_text():
    state = games.get_game("treeblox").new_state()
    state.play("La1")
    move, _ = think(state.to_json(), games.ai.level("0.05"), 3)
    assert state.parse_move(move) in state.legal_moves()
    move, limited = think(state.to_json(), games.ai.level("beginner"), 3)
    assert state.parse_move(move) in state.legal_moves()
    assert limited is False   # a glance has no effort to cut short


def test_a_level_cut_short_by_its_cap_says_so():
    # `medium`'s 160 iterations within a millionth of a second: the cap cuts the search (the
    # first iteration always runs), and the answer says so; with its own cap it does not.
    state = games.get_game("treeblox").new_state()
    state.play("La1")
    medium = games.ai.LEVELS["medium"]
    move, limited = think(state.to_json(), dataclasses.replace(medium, seconds=1e-6), 3)
    assert limited is True and state.parse_move(move) in state.legal_moves()
    thought = games.ai.think_level(state, dataclasses.replace(medium, seconds=600), seed=3)
    assert not thought.limited and thought.iterations == thought.wanted == 64  # (its own)


def test_the_seat_keeps_which_computer_was_limited():
    state = games.get_game("treeblox").new_state()
    state.play("La1")
    worker = Worker()
    referee, seat = seat_for(state, worker)
    seat.levels = {1: dataclasses.replace(games.ai.LEVELS["hard"], seconds=1e-6)}
    seat.poke()
    worker.finish()
    assert referee.decided.limited == {1: "hard"}
    seat.poke()
    assert referee.played   # it played its (weaker) move
    assert referee.decided.limited == {1: "hard"}   # until a search says otherwise
    state.undo()
    seat.levels = {1: dataclasses.replace(games.ai.LEVELS["easy"], seconds=600)}
    seat.poke()
    worker.finish()
    assert referee.decided.limited == {}


def test_levels_from_the_config():
    assert set(computer_seats(("human", "computer:easy"))) == {1}
    assert computer_seats(("computer", "human"))[0].name == "medium"
    assert computer_seats(("computer:2", "human"))[0].seconds == 2.0
    assert computer_seats(("human", "human")) == {}
    with pytest.raises(ValueError, match="computer level 'genius'"):
        computer_seats(("human", "computer:genius"))


def test_the_daemon_plays_the_computer_seat_and_waits_for_the_board(tmp_path):
    """The real daemon on the simulated board, the search in its spawned worker process: the
    human's rod is played, the computer answers in the game, the board then lacks that rod
    (a correction to make) until a hand puts it, and the game goes on."""
    import asyncio
    from functools import partial

    from board_driver.config import sim_config
    from board_driver.daemon.loop import Daemon
    from tests.waits import wait_for
    from web_harness import started

    wait_for = partial(wait_for, timeout=30.0)  # the worker process starts first
    daemon = Daemon(sim_config(journal=str(tmp_path / "j.sqlite"),
                               players=("human", "computer:0.2")), new_game=True)

    async def scenario():
        async with started(daemon):
            loop = asyncio.get_running_loop()
            assert await loop.run_in_executor(None, wait_for, lambda: daemon.computer is not None)
            referee = daemon.session.referee
            board = daemon.session.hardware.board
            await loop.run_in_executor(None, board.place, "h0.0")
            answered = await loop.run_in_executor(None, wait_for,
                                                  lambda: len(referee.state.moves) == 2)
            assert answered, "the computer did not move"
            computer_move = str(referee.state.moves[1])
            assert [c.site for c in referee.corrections] == [computer_move]  # to put on the board
            # shown as "make it" (breathing, never dark), not as a mistake (blinking on and off)
            from board_driver.views import render

            assert referee.to_make == {computer_move}
            lit = [render(referee.state, referee.moment(0), 100 + i / 20)[0][computer_move]
                   for i in range(40)]
            assert all(any(c) for c in lit) and len(set(lit)) > 1
            await loop.run_in_executor(None, board.place, computer_move)
            assert await loop.run_in_executor(None, wait_for, lambda: not referee.corrections)
            assert referee.state.to_move == 0 and len(referee.state.moves) == 2

    asyncio.run(scenario())


def test_hints_mark_the_best_grooves_and_whether_the_others_keep_the_result():
    from board_driver.referee.seats import hints
    from games.ai.tree_planting import solver_for

    state = games.get_game("tree-planting").new_state(board="2x2")
    state.play_all(["h0.0", "v0.0", "h1.1"])
    found = hints(state.to_json(), 5.0)
    values = solver_for(state.board).move_values(state.position_key()[0])
    top = max(values.values())
    for g, v in values.items():
        name = state.board.grooves[g].name
        expected = "best" if v == top else "keeps" if (v > 0) - (v < 0) == (top > 0) - (top < 0) \
            else "loses"
        assert found[name] == expected
    # other games: the best move's site only
    tb = games.get_game("treeblox").new_state()
    found = hints(tb.to_json(), 0.05)
    assert list(found.values()) == ["best"] and set(found) <= set(tb.sites())


def test_hints_follow_the_game_for_players_at_the_board():
    state = games.get_game("tree-planting").new_state(board="2x2")
    worker = Worker()
    referee = FakeReferee(state)
    referee.settings.moves = "best"
    referee.hints = {}
    referee.at_board = lambda player: True
    seat = ComputerSeat(referee, {}, submit=worker.submit, call_soon=lambda fn, *a: fn(*a),
                        clock=lambda: 0.0, hint_seconds=5.0)
    seat.poke()
    seat.poke()
    assert len(worker.jobs) == 1
    worker.finish()
    assert len(referee.hints) == 12 and "best" in referee.hints.values()
    assert referee.hint_reason.endswith(".")  # why, from the game's view
    state.play("h0.0")
    seat.poke()
    assert referee.hints == {}  # stale hints go at once
    assert len(worker.jobs) == 1  # and new ones are on the way


def test_best_mode_colours_the_grooves_on_the_leds():
    from board_driver.config import DEFAULT_COLOURS
    from board_driver.views import Moment, render

    state = games.get_game("tree-planting").new_state(board="2x2")
    view = Moment.still(dict(DEFAULT_COLOURS), moves="best",
                hints={"h0.0": "best", "h0.1": "keeps", "v0.0": "loses"})
    frame, _ = render(state, view, 0.0)
    assert frame["h0.0"] == DEFAULT_COLOURS["best"]
    assert frame["h0.1"] == DEFAULT_COLOURS["safe"]
    assert frame["v0.0"] == DEFAULT_COLOURS["unsafe"]
    assert frame["v0.1"] == (0, 0, 0)  # no hint yet: dark
    tb = games.get_game("treeblox").new_state()
    frame, _ = render(tb, Moment.still(dict(DEFAULT_COLOURS), moves="best", hints={"b2": "best"}),
                      0.0)
    assert frame["b2"] == DEFAULT_COLOURS["best"]


def test_a_limited_computer_in_words_on_the_page_and_by_voice():
    from board_driver.moment import Moment
    from board_driver.config import DEFAULT_COLOURS
    from board_driver.views import limited_words, words
    from board_driver.views.narrate import Narrator

    state = games.get_game("treeblox").new_state()
    moment = Moment.still(dict(DEFAULT_COLOURS), state=state, seats=("human", "computer:hard"),
                          limited={1: "hard"})
    assert limited_words(moment) == [None, "computer (hard, limited by time)"]
    with words.speaking("zh"):
        assert limited_words(moment)[1] == "电脑（困难，受时间限制）"
    narrator = Narrator()
    said = narrator.limited(moment)
    assert [s.spoken for s in said] == ["computer (hard, limited by time)"]
    assert narrator.limited(moment) == []   # said once
    assert narrator.limited(Moment.still(dict(DEFAULT_COLOURS), state=state)) == []
