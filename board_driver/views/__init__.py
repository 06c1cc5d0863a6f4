"""How each game is shown: its LED frame, its SVG picture for the page, its terminal drawing.

Owns no state: it reads a game's state and the referee's decisions (a frozen `Moment`) and
draws them; `frame.py` composes the whole LED frame once. May import: games, hardware.base,
and the seam's values (board_driver/moment.py); never the referee, daemon, web, remote or cli.

One module per game, `board_driver/views/<module>.py` (the game's registry name with dashes as
underscores), ending with its class: a `GameView` (`game_view.py`, the interface, each part
with its default), listed once in `VIEWS`. A game not listed is shown by `generic` (each piece
in its owner's colour, a list in the terminal). The helpers below read a view's parts
directly, never by probing for them.

The shared machinery is here and in `base`: corrections win over everything, then the
winner's animation, then the game's frame; blinking; colour helpers (`base.kind_colour`,
`base.scale`, `base.legible`), player and piece names in words.
"""

from __future__ import annotations

import math
import pkgutil

from board_driver.views.base import (FRAME_S, MENU_COLOURS, MENU_CORNER, OFF, Colour, Moment,
                                     blink_on, colour_name, correction_words, kind_colour,
                                     next_blink, piece_name, scale)
from board_driver.views.game_view import GameView, say_number  # (say_number: for the views)
from board_driver.views.generic import GenericView
from board_driver.views.paint import Paint
from board_driver.views.words import N_, ngettext, tr
from games.base import State

__all__ = ["Moment", "Colour", "Paint", "GameView", "VIEWS", "render", "view_of", "players",
           "correction_words", "legend", "kind_colour", "scale", "OFF", "FRAME_S"]

#: Every game's view, by the game's registry name: its module and its `GameView` class, loaded
#: on first use (as games/__init__.py's list), so that a board running one game never imports
#: another's drawing. A game not listed here is shown by `GenericView`.
VIEWS: dict[str, str] = {
    "tree-planting": "board_driver.views.tree_planting:TreePlantingView",
    "treeblox": "board_driver.views.treeblox:TreebloxView",
    "fangqi": "board_driver.views.fangqi:FangqiView",
    "arbos": "board_driver.views.arbos:ArbosView",
    "game-for-the-trees": "board_driver.views.game_for_the_trees:GameForTheTreesView",
}
_LOADED: dict[str, type[GameView]] = {}


def view_of(game_name: str) -> type[GameView]:
    """The view of a game, by the game's registry name (`GenericView` when it has none)."""
    found = _LOADED.get(game_name)
    if found is None:
        found = pkgutil.resolve_name(VIEWS[game_name]) if game_name in VIEWS else GenericView
        if not (isinstance(found, type) and issubclass(found, GameView)):
            raise TypeError(f"{VIEWS[game_name]}: a game's view is a GameView "
                            "(see board_driver/views/game_view.py)")
        _LOADED[game_name] = found
    return found


def players(game_name: str) -> tuple[str, str]:
    """The names of the two sides as the game's players read them."""
    return tuple(tr(name) for name in view_of(game_name).PLAYERS)


def title(game_name: str) -> str:
    """The game's name as its players call it, in the board's language."""
    own = view_of(game_name).TITLE
    if own is None:
        import games

        return games.get_game(game_name).short_title
    return tr(own)


def score_name(game_name: str) -> str:
    """What the game's two numbers count, in words ("score"; Fangqi "counters left")."""
    return tr(view_of(game_name).SCORE)


def game_help(game_name: str) -> str:
    """The game's own help lines (its sites, its entries), in the board's language."""
    own = view_of(game_name).HELP
    return tr(own) if own else ""


def say_site(state: State, site: str) -> str:
    """A site as a person says it (the game's view's `say_site`, by default "C seven")."""
    return view_of(state.game.name).say_site(state, site)


def say_move_text(state: State, move: str) -> str:
    """A move's notation as a person says it (the game's view's `say_move`, by default each
    site in it said as `say_site` says it)."""
    return view_of(state.game.name).say_move(state, move)


def end_words(state: State) -> str | None:
    """Why the game ended, in words, where the game's view says it (its END_REASONS)."""
    reasons = view_of(state.game.name).END_REASONS
    if not reasons or not state.is_over():
        return None
    words = reasons.get(state.end_reason)   # (a view with END_REASONS: its game has them)
    return tr(words) if words else None


def site_words(game_name: str, site: str) -> str:
    """A site as a player says it (`GameView.site_words`; default: its name)."""
    return view_of(game_name).site_words(site)


def show_move(game_name: str, move: str) -> str:
    """A move as a screen shows it, in the board's language (the view's `move_words`, see
    `GameView.move_words`; default: the notation)."""
    return view_of(game_name).move_words(move)


def move_words(game_name: str, moves: list[str]) -> list[str]:
    """The moves as the page's move list shows them (each as `show_move` shows it)."""
    return [show_move(game_name, m) for m in moves]


def piece_fills(game_name: str) -> tuple[str, str] | None:
    """How the page draws each player's pieces, when not in their LED colours (see above)."""
    return view_of(game_name).PIECE_FILLS


def offers_entries(game_name: str) -> bool:
    """Whether the page should look for entries (pieces no sensor sees) in this game."""
    return bool(view_of(game_name).ENTRIES)


def piece_refused(state: State, site: str, kind: str, spoken: bool = False) -> str | None:
    """Why a piece of `kind` on `site` is no move, where the piece is the reason (a sensor or
    an entry that names its kind): another player's piece ("b1: that is a Dark leaf, and it is
    Light's turn"), another kind than the moves put there ("not a Dark branch: a Dark leaf may
    go there now"), or the rules' own reason for that piece there (the view's `why_not`);
    None when the piece is not the reason."""
    game = state.game
    names = players(game.name)
    where = say_site(state, site) if spoken else site
    piece = piece_name(kind, names)
    owner = game.owner_of(kind)
    if state.is_over():
        return None
    if owner is not None and owner != state.to_move:
        return tr("{site}: that is {piece}, and it is {player}'s turn").format(
            site=where, piece=piece, player=names[state.to_move])
    before = state.occupancy()
    kinds = set()
    for move in state.moves_at(site):
        state.play(move)
        after = state.occupancy()
        state.undo()
        if after.get(site) is not None and after.get(site) != before.get(site):
            kinds.add(after[site])
    if kinds and kind not in kinds:
        return tr("{site}: not {piece}: {others} may go there now").format(
            site=where, piece=piece,
            others=tr(" or ").join(piece_name(k, names) for k in sorted(kinds)))
    return view_of(game.name).why_not(state, site, kind) if not kinds else None


def hint_modes(game_name: str) -> tuple[str, ...]:
    """The hint modes a game's view can show (the page offers these)."""
    return tuple(view_of(game_name).HINTS)


def hint_mode(game_name: str, mode: str) -> str:
    """The hint mode a game shows for `mode` (the config's, say): itself where its view has it,
    else what its pictures then light ("safe" where there is no safe: the legal moves)."""
    modes = hint_modes(game_name)
    if mode in modes:
        return mode
    return "legal" if mode == "safe" and "legal" in modes else "off"


def clock_text(seconds: float | None) -> str:
    """A clock as the board shows it: m:ss (h:mm:ss from an hour), tenths in the last 10 s."""
    import math

    if seconds is None:
        return "-"
    if seconds < 10:
        return f"0:{math.floor(seconds * 10) / 10:04.1f}"
    whole = int(math.ceil(seconds - 1e-9))
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def clocks_words(game_name: str, left: list, running: int | None) -> str:
    """Both clocks in one line: "clocks: player 1 4:59 (running), player 2 5:00"."""
    names = players(game_name)
    parts = [(tr("{player} {time} (running)") if running == seat else
              tr("{player} {time}")).format(player=names[seat], time=clock_text(left[seat]))
             for seat in (0, 1) if left[seat] is not None]
    return tr("clocks: {clocks}").format(clocks=tr(", ").join(parts))


def flag_words(game_name: str, seat: int) -> str:
    """What the board says when `seat`'s time ran out."""
    names = players(game_name)
    return tr("{player}'s time ran out: {other} wins on time").format(
        player=names[seat], other=names[1 - seat])


def clock_warning_words(game_name: str, seat: int, mark: float) -> str:
    """What the board says when `seat`'s clock passes a warning mark (60 s, 10 s)."""
    names = players(game_name)
    if mark >= 60:
        return tr("{player}: one minute left").format(player=names[seat])
    seconds = int(mark)
    return ngettext("{player}: {n} second left", "{player}: {n} seconds left", seconds).format(
        player=names[seat], n=seconds)


#: The menu's seat choices in words ({player}: the seat the computer plays).
MENU_SEATS = {"people": N_("two people play"), "computer-2": N_("the computer plays {player}"),
              "computer-1": N_("the computer plays {player}")}
#: The computer's levels in words (the menu, the page's seats).
LEVEL_WORDS = {"beginner": N_("beginner"), "easy": N_("easy"), "medium": N_("medium"),
               "hard": N_("hard"), "strongest": N_("strongest")}
#: The hint modes as the menu says them.
HINT_WORDS = {"off": N_("off"), "legal": N_("legal"), "safe": N_("safe"), "best": N_("best")}


def _menu_choices(game_name: str, chosen: dict) -> dict[str, str]:
    """The menu's choices in words: {"seats", "clock", "hints"}."""
    names = players(game_name)
    who = chosen.get("seats", "people")
    seats = tr(MENU_SEATS[who]).format(player=names[1] if who == "computer-2" else names[0])
    if who != "people":
        level = chosen.get("level", "medium")
        seats = tr("{seats} ({level})").format(seats=seats,
                                               level=tr(LEVEL_WORDS.get(level, level)))
    hints, clock = chosen.get("hints"), chosen.get("clock")
    # (the clock as written, "5+3"; no clock in words)
    clock = tr("as it is") if not clock else tr("none") if clock == "none" else clock
    return {"seats": seats, "clock": clock,
            "hints": tr(HINT_WORDS[hints]) if hints in HINT_WORDS else hints}


def menu_words(game_name: str, chosen: dict, touch: bool, game: bool = False) -> str:
    """What the board says of its menu: what is chosen, and how to apply or leave (`game`:
    the game menu, mid-game: resign, a draw, put away)."""
    if game:
        how = (tr("tap a lit square to choose, the blinking green one to do it; both corners "
                  "again leave") if touch else
               tr("put a piece on a lit free site to choose, on the blinking green one to do "
                  "it; press the menu button again to leave"))
        ending = chosen.get("ending")
        return tr("game menu: {choice}; {how}").format(
            how=how, choice=tr(ENDING_WORDS[ending]) if ending in ENDING_WORDS
            else tr("nothing chosen yet"))
    how = (tr("tap a lit square to choose, the blinking green one to apply; both corners again "
              "leave") if touch else
           tr("put a piece on a lit site to choose, on the blinking green one to apply; lift "
              "both corner pieces to leave"))
    said = tr("menu: {seats}, clock {clock}, hints {hints}; {how}").format(
        how=how, **_menu_choices(game_name, chosen))
    if chosen.get("take up") is not None:
        said = tr("{menu} (chosen: take up game {n} again)").format(menu=said,
                                                                   n=chosen["take up"])
    return said


def menu_applied_words(game_name: str, chosen: dict) -> str:
    """What the board says as its menu applies the choices: the new game's settings (or the
    game put away that it took up again)."""
    if chosen.get("take up") is not None:
        return tr("menu applied: game {n} taken up again").format(n=chosen["take up"])
    return tr("menu applied, a new game: {seats}, clock {clock}, hints {hints}").format(
        **_menu_choices(game_name, chosen))


#: The game menu's choices in words (board_driver/referee/menu.py, ENDINGS).
ENDING_WORDS = {"resign": N_("resign"), "draw": N_("offer a draw"),
                "away": N_("put the game away"), "accept": N_("accept the draw"),
                "refuse": N_("refuse the draw"), "accept-takeback": N_("accept the takeback"),
                "refuse-takeback": N_("refuse the takeback"),
                # the player to move away (referee/absence.py): the present player's choice
                "absent-pause": N_("pause the clocks until they return"),
                "absent-wait": N_("wait, the clock running"),
                "absent-claim": N_("claim the game"), "absent-draw": N_("call it a draw")}


#: A menu site's choice in words, by its group (the value fills {value}).
MENU_CHOICE_WORDS = {"level": N_("the computer's level: {value}"),
                     "clock": N_("the clock: {value}"), "hints": N_("hints: {value}"),
                     "apply": N_("apply: a new game with these choices"),
                     "take up": N_("take up game {value} again"),
                     "puzzle": N_("the puzzles: set up the first puzzle of this game")}


def menu_lines(game_name: str, menu) -> list[str]:
    """The open menu (a MenuFace), site by site in words, what is chosen marked: what the sim
    shows in place of the game while the menu holds the board."""
    names = players(game_name)
    corners = tr(" and ").join(menu.corners or ())
    lines = [tr("the menu: {corners} are its corners (lift both pieces to leave)").format(
        corners=corners)]
    for site, choice in (menu.sites or {}).items():
        if choice.group == "seats":
            words = tr(MENU_SEATS[choice.value]).format(
                player=names[1] if choice.value == "computer-2" else names[0])
        elif choice.group == "ending":
            words = tr(ENDING_WORDS[choice.value])
        elif choice.group == "apply" and menu.game:
            words = tr("do the one chosen")
        else:
            value = {**LEVEL_WORDS, **HINT_WORDS, "none": "none"}.get(choice.value)
            words = tr(MENU_CHOICE_WORDS[choice.group]).format(
                value=tr(value) if value else choice.value)
        chosen = tr(" (chosen)") if site in menu.selected else ""
        lines.append(f"  {site}: {words}{chosen}")
    return lines


#: The menu's colours in the legend, by group (views/base.py MENU_COLOURS names the colour).
MENU_MEANINGS = {"seats": N_("who plays (bright: the choice made)"),
                 "level": N_("the computer's level (bright: the choice made)"),
                 "clock": N_("the clock (bright: the choice made)"),
                 "hints": N_("the hints (bright: the choice made)"),
                 "apply": N_("blinking: apply the choices and start a new game"),
                 "take up": N_("a game put away: chosen and applied, it is taken up again"),
                 "ending": N_("the game menu: resign, offer or answer a draw, put the game "
                              "away, answer a takeback the other side asks, and while the "
                              "player to move is away, what to do (blinking green: do it)"),
                 "puzzle": N_("the puzzles: a position with one best move, set up on the board")}


def menu_legend(moment: Moment) -> list[dict[str, str]]:
    """The menu's colours and what they mean, while it is open (the legend's entries)."""
    colours = moment.settings.colours
    # (the corners' dim white is nearest a purple by colour_name's reckoning: named as seen)
    out = [{"name": "corner", "label": tr("white"),
            "colour": "#%02x%02x%02x" % MENU_CORNER,
            "means": tr("the menu's corners: lift both pieces to leave")}]
    shown = {choice.group for choice in (moment.menu.sites or {}).values()} \
        if moment.menu is not None else set(MENU_MEANINGS) - {"puzzle"}
    for group, means in MENU_MEANINGS.items():
        if group not in shown or (group == "apply" and "ending" in shown):
            continue   # (only the groups the menu shows; the game menu's apply is its own)
        colour = colours[MENU_COLOURS[group]]
        out.append({"name": f"menu-{group}", "label": tr(colour_name(colour)),
                    "colour": "#%02x%02x%02x" % colour,
                    "means": _game_menu_meaning(moment.menu) if group == "ending" else tr(means)})
    return out


def _game_menu_meaning(menu) -> str:
    """The game menu's sites in the legend: the choices it lights now, each by name (a takeback
    the other side asks: accept, refuse; the player to move away: the present player's
    choices), or what it may offer while it is not open."""
    shown = [c.value for c in (menu.sites or {}).values() if c.group == "ending"] \
        if menu is not None and menu.game else []
    if not shown:
        return tr(MENU_MEANINGS["ending"])
    return tr("the game menu: {choices} (blinking green: do it)").format(
        choices=tr(", ").join(tr(ENDING_WORDS[v]) for v in shown if v in ENDING_WORDS))


#: The marks at which a running clock is said aloud (voice) and in the sim's words.
CLOCK_WARNINGS = (60.0, 10.0)


def hint_reason(state: State, move) -> str | None:
    """Why `move` is worth playing, in one sentence from the game's own view (its optional
    `hint_reason(state, move)`, built from the position's shape, the same things its prior
    weighs: never a second search); None when the view has nothing to say about it."""
    return view_of(state.game.name).hint_reason(state, move)


def render(state: State, moment: Moment, now: float) -> tuple[dict[str, Colour], float | None]:
    """The whole LED frame at `now`, and when it next changes by itself (None: not until
    something happens). The game's layer, then the winner's animation, then corrections,
    which always win: a board that disagrees with the game must say so before anything else."""
    frame, wake = view_of(state.game.name).frame(state, moment, now)
    frame = dict(frame)

    if state.is_over() and moment.over_since is not None:
        elapsed = now - moment.over_since
        if 0 <= elapsed < moment.settings.winner_seconds:
            winner = state.winner()
            # The winner's pieces breathe; a draw alternates both players' colours.
            level = 0.5 + 0.5 * math.cos(elapsed * 2 * math.pi)
            lit = set(state.sites())  # pieces above a Treeblox board have no LED of their own
            for site, kind in state.occupancy().items():
                owner = state.game.owner_of(kind)
                if site not in lit or owner is None:
                    continue
                if winner is None:
                    frame[site] = moment.settings.colours[f"player{int(elapsed * 2 + owner) % 2}"]
                elif owner == winner:
                    frame[site] = scale(moment.settings.colours[f"player{winner}"], 0.2 + 0.8 * level)
            wake = min(wake or math.inf, now + FRAME_S)

    if moment.settings.moves == "best" and moment.hints and not state.is_over():
        # The best moves in their own colour, for every game (a game's view may colour more).
        lit = set(state.sites())
        for site, what in moment.hints.items():
            if what == "best" and site in lit and "best" in moment.settings.colours:
                frame[site] = moment.settings.colours["best"]

    if moment.completions:
        # A move in progress: where the piece may go, steady in its colour; pieces that may be
        # taken off breathe in the "choice" colour ("you may take this", not "wrong").
        level = 0.55 + 0.45 * math.cos(now * math.pi)
        for comp in moment.completions:
            if comp.want is None:
                frame[comp.site] = scale(moment.settings.colours["choice"], level)
            else:
                frame[comp.site] = kind_colour(state.game, comp.want, moment.settings.colours)
        wake = min(wake or math.inf, now + FRAME_S)

    if moment.corrections:
        on = blink_on(now, moment.settings.blink_hz)
        for corr in moment.corrections:
            if corr.want is None:
                frame[corr.site] = moment.settings.colours["wrong"]  # steady red: take this piece off
            else:
                need = kind_colour(state.game, corr.want, moment.settings.colours)
                if corr.have is None and corr.site in moment.to_make:
                    # The computer's move, to make: it breathes (an invitation), never blinks.
                    frame[corr.site] = scale(need, 0.55 + 0.45 * math.cos(now * math.pi))
                    wake = min(wake or math.inf, now + FRAME_S)
                elif corr.have is None:
                    frame[corr.site] = need if on else OFF  # blink: put this piece here
                else:
                    frame[corr.site] = need if on else moment.settings.colours["wrong"]  # wrong kind
        wake = min(wake or math.inf, next_blink(now, moment.settings.blink_hz))
    return frame, wake


#: What each colour of the config means on every board, in the order a legend lists them; a
#: game's view may say one in its own words (`COLOUR_MEANINGS`, a colour name -> words, or
#: None for a colour it never shows). "player0"/"player1" are the players' own.
MEANINGS: dict[str, str] = {
    "safe": N_("a move that gives nothing away (hints: safe)"),
    "unsafe": N_("a move that hands something over (hints: safe)"),
    "best": N_("the computer's best move (hints: best)"),
    "wrong": N_("steady: take this piece off; blinking with a piece's colour: the wrong piece"),
    "choice": N_("breathing: you may take this piece off (a capture to choose)"),
    "waiting": N_("the board waits for a piece it cannot sense"),
}
#: Which hint modes show a hint colour (the others are always shown when they apply).
_HINT_COLOURS = {"safe": ("safe", "best"), "unsafe": ("safe", "best"), "best": ("best",)}


def _said(row: dict, key: str) -> str:
    """A picture legend's words in the board's language."""
    words = row[key]
    return tr(words)


def legend(state: State, moment: Moment) -> list[dict[str, str]]:
    """Every colour the LEDs may show now and what it means: the one legend the sim prints
    and the page shows (its state JSON's "legend"). Each entry: {"name": the config's colour
    name, "label": the colour in words ("sky blue"), "colour": "#rrggbb", "means": words}; a
    game's own colours (`picture_legend`) also carry "colours", every colour the picture draws
    for the entry (the page lists those beside the picture). While the menu is open, its own
    colours (`menu_legend`)."""
    if moment.menu is not None:
        return menu_legend(moment)
    names = players(state.game.name)
    own = view_of(state.game.name).COLOUR_MEANINGS
    def entry(name: str, means: str) -> dict[str, str]:
        colour = moment.settings.colours[name]
        return {"name": name, "label": tr(colour_name(colour)),
                "colour": "#%02x%02x%02x" % colour, "means": means}

    out = [entry(f"player{p}", tr(own[f"player{p}"]) if own.get(f"player{p}") else
                 tr("{player}: pieces, turn and score").format(player=names[p]))
           for p in (0, 1)]
    # The game's own colours (Game for the Trees' terrain), with every colour the picture draws
    # them in ("colours"): the page lists these beside the picture, the sim with the rest.
    out += [{"name": row["what"], "label": _said(row, "how"), "colour": row["colours"][0],
             "colours": row["colours"], "means": _said(row, "what")}
            for row in picture_legend(state, moment)]
    if state.game.input_mode != "touch":   # (a touch board has no pieces to put)
        out.append({"name": "blinking", "label": tr("blinking"), "colour": "",
                    "means": tr("a piece's colour blinking: put that piece here; breathing: the "
                                "other seat's move, to make on the board")})
    for name, means in MEANINGS.items():
        modes = _HINT_COLOURS.get(name)
        means = own.get(name, means)
        # (a touch game's selection blinks in the hint colours whatever the hint mode)
        if modes and moment.settings.moves not in modes and state.game.input_mode != "touch":
            continue
        if means is None or name not in moment.settings.colours:
            continue
        out.append(entry(name, tr(means)))
    if moment.clocks is not None:
        # A timed game: what the turn LEDs say of the clocks.
        out.append({"name": "clock", "label": tr("breathing faster"), "colour": "",
                    "means": tr("the turn LEDs, in a clock's last 10 seconds")})
        if "flag" in moment.settings.colours:
            out.append(entry("flag", tr("time ran out: the turn LEDs alternate it with the "
                                        "winner's colour")))
    return out


def notice(state: State) -> str | None:
    """What the player to move must do now that the board cannot show by a piece alone, in one
    sentence from the game's view (`GameView.notice`; Arbos: "4 trees: lift your
    spores until three remain"), or None."""
    return None if state.is_over() else view_of(state.game.name).notice(state)


def seat_words(game_name: str, seats: tuple[str, str], colours: dict[str, Colour]) -> str | None:
    """In a remote game, which player this board plays ("you play White, drawn blue"); None
    when no seat is remote."""
    if "remote" not in seats:
        return None
    names = players(game_name)
    here = [p for p in (0, 1) if seats[p] != "remote"]
    if not here:
        return tr("you are watching: both players are on other boards")
    return tr(" and ").join(tr("you play {player}, drawn {colour}").format(
        player=names[p], colour=tr(colour_name(colours[f'player{p}']))) for p in here)


def limited_words(moment: Moment) -> list[str | None]:
    """Per seat, a computer whose last search the wall-time cap cut short in words ("computer
    (hard, limited by time)": it plays weaker than its level's rating on this board), else
    None."""
    return [tr("computer ({level}, limited by time)").format(
                level=tr(LEVEL_WORDS.get(moment.limited[p], moment.limited[p])))
            if p in moment.limited else None for p in (0, 1)]


def svg(state: State, moment: Moment) -> str:
    """The board's picture for the page (see `GameView.svg`)."""
    return view_of(state.game.name).svg(state, moment)


def picture_legend(state: State, moment: Moment) -> list[dict]:
    """What each colour of the game's own picture means (see `GameView.picture_legend`)."""
    return view_of(state.game.name).picture_legend(moment)


def terminal(state: State, moment: Moment, paint: Paint) -> str:
    """The board drawn for a terminal (see `GameView.terminal`)."""
    return view_of(state.game.name).terminal(state, moment, paint)


def site_list(sites) -> str:
    """Sites in a sentence: "a1", "a1 and b2", "a1, b2 and c3"."""
    sites = list(sites)
    if len(sites) < 2:
        return "".join(sites)
    return tr(" and ").join([tr(", ").join(sites[:-1]), sites[-1]])


def leftovers(moment: Moment) -> list[str]:
    """The pieces of the last game (or of the menu that started this one) still standing on a
    new game's board, to lift before it begins; [] when there are none (or anything else is
    to put right)."""
    fixes = moment.corrections
    if not moment.holding or moment.state.moves or not fixes or \
            any(c.want is not None for c in fixes):
        return []
    return sorted(c.site for c in fixes)


def leftovers_words(moment: Moment, spoken: bool = False) -> str | None:
    """The pieces to lift before a new game begins, in one sentence ("lift the pieces on a1,
    b2 and g7 to begin"), or None."""
    left = leftovers(moment)
    if not left:
        return None
    names = [say_site(moment.state, s) for s in left] if spoken else left
    return ngettext("lift the piece on {sites} to begin", "lift the pieces on {sites} to begin",
                    len(left)).format(sites=site_list(names))


def corrections_in_words(state: State, moment: Moment) -> list[dict[str, str]]:
    """Each site that disagrees with the game and what to do there, for the banner and sim;
    then each site of a move put before what is owed (`Moment.waiting`: no mistake, it counts
    once the rest is in place)."""
    names = players(state.game.name)
    owed = site_list(c.site for c in moment.corrections if c.want is not None) \
        if moment.waiting else ""
    return [{"site": c.site, "do": correction_words(c, names),
             # the other seat's move (the computer's, a remote board's), to make: no mistake
             "move": c.have is None and c.want is not None and c.site in moment.to_make,
             "waiting": False}
            for c in moment.corrections] + [
        {"site": site, "do": tr("the next move: it counts once {sites} is in place").format(
            sites=owed), "move": False, "waiting": True} for site in sorted(moment.waiting)]
