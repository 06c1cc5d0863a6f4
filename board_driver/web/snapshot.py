"""What the page shows, read from the referee: the game, its picture, the LEDs, the entries.

Read-only: nothing here changes the game (moves are tried on the state and undone, as
reconcile does). Called on the daemon's loop, the referee's one thread.
"""

from __future__ import annotations

import math
from typing import Any

import games
import games.ai
from board_driver import views
from board_driver.referee.endings import LOCAL
from board_driver.referee.reconcile import changed_sites
from board_driver.moment import Correction
from board_driver.views import entry
from board_driver.views.absence import absent_words, choice_words, web_presence_state
from board_driver.views.ending import ended_words, news_words, offer_words
from board_driver.views.narrate import hands_words, owed_by, takeback_words
from board_driver.views import modes
from board_driver.views.words import reason, tr


def entries(state, sensed: set[str]) -> list[dict[str, str]]:
    """The legal moves that put one piece where no sensor sees it (Treeblox cubes above or
    beside the board): what the page offers to enter. Every game, through occupancy()."""
    if state.is_over():
        return []
    before = state.occupancy()
    out = []
    for move in state.legal_moves():
        state.play(move)
        after = state.occupancy()
        state.undo()
        changed = changed_sites(before, after)
        if len(changed) == 1:
            (site,) = changed
            if site not in sensed and site in after:
                out.append({"site": site, "kind": after[site], "move": str(move),
                            "words": views.site_words(state.game.name, site)})
    return out


def web_entry(moment) -> dict[str, Any] | None:
    """The entry model while a web seat is to move (and can: not over, not being set up or put
    right), else None."""
    state = moment.state
    if moment.over or moment.menu is not None or moment.holding \
            or moment.seats[state.to_move] != "web":
        return None
    return entry.model(state)


def steps_in_words(moment, names: tuple[str, str]) -> list[dict[str, str]]:
    """A move in progress (Fangqi's captures, say): what may be done where, in words."""
    from board_driver.views.base import piece_name

    return [{"site": c.site,
             "do": tr("you may take {piece} off").format(piece=piece_name(c.have, names, "the"))
             if c.want is None else
             tr("you may put {piece} here").format(piece=piece_name(c.want, names))}
            for c in moment.completions]


def can_end_turn(state) -> bool:
    move = state.end_turn_move()
    if move is None or state.is_over():
        return False
    try:
        state.copy().play(move)
    except games.IllegalMove:
        return False
    return True


def has_end_turn(state) -> bool:
    """Whether the game has an end-turn move at all (Treeblox does; Tree Planting does not)."""
    return state.end_turn_move() is not None


def _level_words(game_name: str, level: str) -> str:
    """A computer's level as the seat's select reads it: "computer, easy (1180)"."""
    rated = games.ai.ratings(game_name).get(level)
    name = tr(views.LEVEL_WORDS.get(level, level))
    return (tr("computer, {level} ({rating})").format(level=name, rating=round(rated["rating"]))
            if rated is not None else tr("computer, {level}").format(level=name))


def result_words(state, names: tuple[str, str], flagged: int | None = None,
                 ending: Any = None) -> str | None:
    if flagged is not None:
        return views.flag_words(state.game.name, flagged)
    ended = ended_words(state.game.name, ending)   # resigned, or drawn by agreement
    if ended is not None:
        return ended
    if not state.is_over():
        return None
    a, b = state.scores()
    winner = state.winner()
    words = (tr("{player} wins, {a}:{b}").format(player=names[winner], a=a, b=b)
             if winner is not None else tr("a draw, {a}:{b}").format(a=a, b=b))
    why = views.end_words(state)
    return tr("{result} ({why})").format(result=words, why=why) if why else words


def page_state(referee, *, layout_name: str, token_required: bool, version: int,
               instance: str, now: float, remote: dict[str, Any] | None = None,
               parts: list[dict[str, Any]] = (), parts_down: str | None = None) -> dict[str, Any]:
    """The object GET /api/state answers and the WebSocket pushes, drawn from the referee's
    moment at `now` (and the strip's colours). Its first three keys are what `treeboard trace`
    prints after an action."""
    view = referee.moment(now)
    state, shown = view.state, view.shown()   # (hints only for a player at this board)
    names = views.players(state.game.name)
    module = views.view_of(state.game.name)
    sensed = set(view.sensed)
    offered = entries(state, sensed) if views.offers_entries(state.game.name) else []
    svg3d = None
    if module.svg_3d is not None:
        svg3d = module.svg_3d(state, shown, sorted({e["site"] for e in offered}))
    return {
        "game": state.summary(),
        "corrections": [c.site for c in referee.corrections],
        "leds": referee.site_colours(),
        "version": version,      # grows with every change this server pushes
        "parts": list(parts),    # the daemon's parts (the supervisor's): name, state, why
        "parts_down": parts_down,  # one sentence while a part is not up, else null
        "instance": instance,    # a new server (a restarted daemon) starts its versions again
        "title": views.title(state.game.name),
        "about": tr(state.game.description),
        "layout": layout_name,
        "players": list(names),
        # what the two numbers of game.scores count ("score"; Fangqi "counters left")
        "score_name": views.score_name(state.game.name),
        "colours": {f"player{p}": "#%02x%02x%02x" % view.settings.colours[f"player{p}"]
                    for p in (0, 1)},
        # each player's pieces as the picture draws them (None: in the colours above)
        "pieces": views.piece_fills(state.game.name),
        "fixes": views.corrections_in_words(state, view),
        # whose move waits to be put down (a browser's seat across the internet: its player's)
        "owed_by": owed_by(view, guest=bool(remote and remote.get("guest"))),
        "steps": steps_in_words(view, names),
        "result": result_words(state, names, view.flagged, view.ending),
        # A game its players end or pause (web/endings.py acts on it): a draw on offer, who
        # answers it, and what a person here may do now.
        "ending": ending_state(view),
        # The player to move away (web/endings.py acts on it): the sentence, the choices.
        "absent": absent_state(view),
        # Each web seat's player, there or away: whether a page holds the seat (web/presence.py).
        "presence": web_presence_state(view),
        "entries": offered,
        # While a web seat is to move: every move it may make, with the taps on the pictures
        # that make it (views/entry.py), for the page's entry.js; else None.
        "entry": web_entry(view),
        "end_turn": can_end_turn(state),
        "end_turn_button": has_end_turn(state),
        # (the move that ended the game too, until the board is cleared: not a flag)
        "takeback": bool(state.moves) and view.flagged is None and not (
            view.ending is not None and view.ending.over),
        # The players' clocks (None: an untimed game): ms left, whose runs, the control.
        "clocks": clocks_state(view),
        "hint": view.settings.moves,
        # Why the lit best move, in one sentence ("d4 completes your square."), or None.
        "hint_reason": view.hint_reason if view.settings.moves == "best" and view.hints else None,
        "hints": list(views.hint_modes(state.game.name)),
        "hint_words": {m: tr(views.HINT_WORDS.get(m, m)) for m in views.hint_modes(state.game.name)},
        "options": {k: str(v) for k, v in state.options().items()},
        "option_help": {k: reason(v) for k, v in state.game.options().items()},
        "token_required": token_required,
        "svg": views.svg(state, shown),   # hints only for a player at this board
        "svg3d": svg3d,
        # the moves as the move list shows them (Treeblox cubes beside the board in words)
        "move_words": views.move_words(state.game.name, [str(m) for m in state.moves]),
        # Who plays each seat ("human" here, "computer:LEVEL", "remote"), and the link to the
        # other board in a remote game (None otherwise).
        "seats": list(view.seats),
        # Per seat, "computer (hard, limited by time)" where the cap cut its search short.
        "limited": views.limited_words(view),
        "seat_choices": ["human", "web"] + [f"computer:{name}" for name in games.ai.LEVELS],
        # How the select reads each choice: a level with its rating in this game (Elo, a
        # greedy player 1000; docs/ai.md), "computer, easy (1180)".
        "seat_labels": {"human": tr("human"), "web": tr("web seat (plays on this page)"), **{
            f"computer:{name}": _level_words(state.game.name, name) for name in games.ai.LEVELS}},
        # (with the link's state in the page's words: `status` stays the state as sent)
        "remote": None if remote is None else {**remote, "status_words": reason(remote["status"])},
        # What the board means, from the views: every colour it may show now (the legend the
        # sim prints too), what the mover must do that no piece shows, and in a remote game
        # which player this board plays.
        "legend": views.legend(state, view),
        "notice": views.notice(state),
        "you": views.seat_words(state.game.name, view.seats, view.settings.colours),
        # What the takeback button asks before it acts (against the computer: the player's
        # move and the computer's reply together).
        "takeback_question": takeback_question(view),
        # A position being set up, a study or a puzzle (views/modes.py; docs/study.md), or None.
        "mode": modes.mode_state(view),
    }


def ending_state(moment) -> dict[str, Any]:
    """What the page shows of a game's ending: the draw on offer (by which seat, who answers,
    in words), and whether resigning, offering a draw and putting the game away may be asked
    now (the board says why not when they are asked anyway)."""
    face, state = moment.ending, moment.state
    local = [s for s in (0, 1) if moment.seats[s].split(":", 1)[0] in LOCAL]
    playing = not moment.over and moment.menu is None
    return {"offer_by": None if face is None else face.offer_by,
            "asked": None if face is None else face.asked,
            "offer_words": offer_words(state.game.name, face),
            "news": None if face is None or face.news is None else face.news[0],
            "news_words": news_words(state.game.name, face),
            "can_resign": playing and bool(local),
            "can_offer": playing and bool(local) and (face is None or face.offer_by is None),
            "can_answer": face is not None and face.asked == "board",
            "can_put_away": playing and bool(state.moves) and "remote" not in moment.seats}


def absent_state(moment) -> dict[str, Any] | None:
    """The player to move away, as the page shows it: the sentence, and the choices the present
    player has (each with its button's words); None when no one is away past the grace."""
    face = moment.absent
    said = absent_words(moment.state.game.name, face)
    if said is None:
        return None
    names = choice_words()
    return {"seat": face.seat, "words": said, "paused": face.paused,
            "choices": [{"choice": c, "words": names[c]} for c in face.choices]}


def clocks_state(moment) -> dict[str, Any] | None:
    """Both clocks as the page shows them at the moment: ms left for players 0 and 1 (None: an
    untimed seat), which one runs (None: neither), the seat whose time ran out, and the time
    control."""
    if moment.clocks is None:
        return None
    left = [None if v is None else int(math.floor(v * 1000 + 1e-6)) for v in moment.clocks]
    return {"left_ms": left, "running": moment.clock_running, "flag": moment.flagged,
            "control": moment.clock_control}


def clocks_key(referee, now: float) -> tuple:
    """What of the clocks makes the page's state new: whose runs, a flag, the control, and
    while one runs its whole seconds (a page asking anew gets them to the second; the page
    counts down by itself between the board's pushes)."""
    clocks = referee.clocks
    if not clocks.timed:
        return ()
    running = clocks.running
    second = None if running is None else int(clocks.left(running, now))
    return (running, referee.flagged, clocks.controls, second)


def takeback_question(moment) -> str | None:
    """What the takeback button asks before it acts (None: nothing to take back)."""
    state = moment.state
    if not state.moves or moment.flagged is not None or not moment.takeback_depth:
        return None
    probe, undone = state.copy(), []
    for _ in range(moment.takeback_depth):
        move = probe.undo()
        undone.append((str(move), moment.at_board(probe.to_move)))
    question = tr("Take back {moves}?").format(moves=takeback_words(state.game.name, undone,
                                                                     moment.seats))
    # What the hands then do on the board (a touch game's LEDs change back by themselves).
    before, after = state.occupancy(), probe.occupancy()
    hands = "" if moment.touch is not None else hands_words(
        [Correction(s, after.get(s), before.get(s)) for s in changed_sites(before, after)],
        views.players(state.game.name))
    return tr("{question} Then {hands}.").format(question=question, hands=hands) if hands \
        else question


def saved_state(saved, upto: int | None = None) -> games.State:
    """A journal's saved game replayed, to its end or its first `upto` moves (raises
    games.GameError if it does not replay)."""
    state = games.get_game(saved.game).new_state(**saved.options)
    state.play_all(saved.moves if upto is None else saved.moves[:upto])
    return state


def history_entry(saved) -> dict[str, Any]:
    names = views.players(saved.game)
    summary = saved.summary or {}
    winner = summary.get("winner")
    scores = summary.get("scores")
    result = None
    if scores:
        result = (tr("{player} wins, {a}:{b}").format(player=names[winner], a=scores[0],
                                                          b=scores[1]) if winner in (0, 1)
                  else tr("a draw, {a}:{b}").format(a=scores[0], b=scores[1]))
    return {"id": saved.game_id, "game": saved.game, "options": saved.options,
            "moves": len(saved.moves), "result": result, "status": saved.status,
            "started_at": saved.started_at, "finished_at": saved.finished_at}


def review_words(game: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each review row's move and best moves as the page shows them, in the language asked for
    (`views.show_move`: Arbos `seed C2`, zh 播种 C2); the rows keep the notation."""
    return [{"move": views.show_move(game, r["move"]),
             "best": [views.show_move(game, b) for b in r["best"]]} for r in rows]


REVIEW_SECONDS = 8.0   # a whole game's review, shared among its positions
REVIEW_MOST_PER_MOVE = 0.5


def review_rows(game: str, options: dict[str, Any], moves: list[str]) -> list[dict[str, Any]]:
    """In the computer's worker: `games.ai.review` of a saved game (as `treeboard review`
    prints it), within REVIEW_SECONDS in all."""
    from games.ai.review import review

    state = games.get_game(game).new_state(**options)
    state.play_all(moves)
    seconds = min(REVIEW_MOST_PER_MOVE, REVIEW_SECONDS / max(1, len(moves)))
    return review(state, seconds=seconds, seed=0)
