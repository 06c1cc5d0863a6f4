"""The words of the referee's modes that bring a position to the board (docs/study.md): a
set-up in progress (how many sites are left, which to do next), a record studied (move k of n,
its comment), a puzzle (its prompt, then right or wrong and why). Drawn from the Moment's
`setup`, `study` and `puzzle` faces only; every sentence through the catalogs.

Each function returns (text, spoken): the sentence as the terminal writes it (sites as the
board is labelled) and as a person says it (sites as the game's view names them).
"""

from __future__ import annotations

from board_driver import views
from board_driver.views.base import Moment, piece_name
from board_driver.views.words import N_, ngettext, tr

#: What a puzzle teaches, by its theme key (games/ai/puzzles.py), for the prompt.
THEMES = {
    "chain-endgame": N_("a chain endgame"),
    "long-chain": N_("the long-chain rule"),
    "sacrifice": N_("a sacrifice of two squares to keep control"),
    "safe-groove": N_("the last safe groove"),
    "turning-point": N_("the move that decides the game"),
}
RESULTS = {"win": N_("wins"), "draw": N_("draws"), "loss": N_("loses")}
GOALS = {"win": N_("find the move that wins"), "draw": N_("find the move that saves a draw")}


def _site(moment: Moment, site: str, spoken: bool) -> str:
    return views.say_site(moment.state, site) if spoken else site


def setup_words(moment: Moment, spoken: bool = False) -> str | None:
    """A set-up in progress: "set-up: 5 sites left: put player 1's rod on h0.1; ..."; once it
    is done (the Moment has no set-up) None."""
    face = moment.setup
    if face is None:
        return None
    names = views.players(moment.state.game.name)
    steps = []
    for c in face.next:
        where = _site(moment, c.site, spoken)
        if c.want is None:
            steps.append(tr("take the piece off {site}").format(site=where))
        else:
            steps.append(tr("put {piece} on {site}").format(piece=piece_name(c.want, names),
                                                            site=where))
    return ngettext("set-up: {n} site left: {steps}", "set-up: {n} sites left: {steps}",
                    face.left).format(n=face.left, steps=tr("; ").join(steps))


def set_up_words(moment: Moment) -> str:
    """The set-up is done: whose move it is now (or that the position is the game's end)."""
    state = moment.state
    if state.is_over():
        return tr("the position is set up: the game is over")
    names = views.players(state.game.name)
    return tr("the position is set up: {player} to move").format(player=names[state.to_move])


def study_words(moment: Moment, spoken: bool = False) -> str | None:
    """A studied record at its move: "study: move 12 of 40: h2.1: a comment"."""
    face = moment.study
    if face is None:
        return None
    state = moment.state
    if face.move is None:
        line = tr("study: the start, {n} moves to step through").format(n=face.count)
    else:
        move = views.say_move_text(state, face.move) if spoken else \
            views.show_move(state.game.name, face.move)
        line = tr("study: move {k} of {n}: {move}").format(k=face.at, n=face.count, move=move)
    if face.comment:
        line += tr(": {comment}").format(comment=face.comment)
    if face.next is not None:
        # (made on the board by hand, it steps forward: a board with no buttons needs no more)
        line += tr("; next: {move}").format(move=views.say_move_text(state, face.next) if spoken
                                            else views.show_move(state.game.name, face.next))
    return line


def puzzle_prompt(moment: Moment) -> str | None:
    """A puzzle's prompt: "puzzle 2 of 5: player 1 to move: find the one move that wins (the
    long-chain rule; 9 free grooves)"."""
    face = moment.puzzle
    if face is None:
        return None
    names = views.players(moment.state.game.name)
    line = tr("puzzle {k} of {n}: {player} to move: {goal}").format(
        k=face.number, n=face.count, player=names[face.mover], goal=tr(GOALS[face.goal]))
    about = []
    if face.theme in THEMES:
        about.append(tr(THEMES[face.theme]))
    if face.free is not None:
        about.append(ngettext("{n} move left to play", "{n} moves left to play",
                              face.free).format(n=face.free))
    if about:
        line += tr(" ({about})").format(about=tr("; ").join(about))
    return line


def puzzle_verdict(moment: Moment, spoken: bool = False) -> str | None:
    """Right or wrong, and why: "right: h1.2 wins: ..." / "wrong: v0.1 loses; the answer was
    h1.2: ..." (why: the game's view's reason for the answer, in the position before it); None
    before a move is played."""
    face = moment.puzzle
    if face is None or face.verdict is None:
        return None
    before = moment.state.copy()
    while len(before.moves) > 0 and str(before.moves[-1]) != face.played:
        before.undo()   # (the computer may have replied: back to the answer)
    before.undo()

    def move(text: str) -> str:
        return views.say_move_text(before, text) if spoken else views.show_move(
            before.game.name, text)

    leads = tr(RESULTS[face.result]) if face.result in RESULTS else None
    if face.verdict == "right":
        line = tr("right: {move} {leads}").format(move=move(face.played),
                                                  leads=leads or tr(RESULTS[face.goal]))
    else:
        line = tr("wrong: {move} {leads}; the answer was {answers}").format(
            move=move(face.played), leads=leads or tr("is not the move"),
            answers=tr(" or ").join(move(a) for a in face.answers))
    why = views.hint_reason(before, before.parse_move(face.answers[0]))
    if why:
        line += tr(": {why}").format(why=why)
    return line


def mode_state(moment: Moment) -> dict | None:
    """The mode on the board for the page (GET /api/state's `mode`): its kind, its words, and
    what the page's buttons need; None in plain play."""
    if moment.setup is not None:
        face = moment.setup
        return {"kind": "setup", "words": setup_words(moment), "left": face.left,
                "total": face.total, "purpose": face.purpose}
    if moment.puzzle is not None:
        face = moment.puzzle
        return {"kind": "puzzle", "words": puzzle_prompt(moment),
                "verdict": face.verdict, "verdict_words": puzzle_verdict(moment),
                "number": face.number, "count": face.count}
    if moment.study is not None:
        face = moment.study
        return {"kind": "study", "words": study_words(moment) if not face.off else
                tr("study: off the record at move {k}").format(k=face.at),
                "at": face.at, "count": face.count, "off": face.off, "title": face.title}
    return None
