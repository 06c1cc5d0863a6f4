"""What the board says when something changes: one source for the sim's lines, the voice and
trace's "said" field.

`Narrator` remembers what it last saw of the board (the referee's Moments: the moves, the pieces
to take off, the score) and turns the difference into `Said` items: the sentence as the terminal writes it
(`text`, site names as the board is labelled: "h0.1") and as a person says it (`spoken`, site
names from the game's view: "the top groove of row 1, square 2"). Both in the board's language
(views/words.py). `kind` and `ply` let the speech queue drop what went stale before it was said
(a move taken back before it was spoken is not spoken).
"""

from __future__ import annotations

from dataclasses import dataclass

import games
from board_driver import views
from board_driver.views.base import PIECES, piece_name
from hardware.base import PRESENT
from board_driver.views import absence as absence_words
from board_driver.views import ending as ending_words
from board_driver.views import modes, words
from board_driver.views.words import N_, ngettext, reason, tr


@dataclass(frozen=True)
class Said:
    text: str            # as the terminal writes it
    spoken: str          # as the voice says it
    kind: str = "other"  # new | move | takeback | fix | score | end | link | hint | menu | limited | other
    ply: int | None = None  # the move's number (1-based) for a move or a takeback


def mover(state, index: int) -> int:
    """Who made move `index` (0-based) of `state`."""
    probe = state.copy()
    while len(probe.moves) > index:
        probe.undo()
    return probe.to_move


def why_not(state, site: str, spoken: bool = False, kind: str | None = None) -> str:
    """Why a piece on `site` is no move: the piece itself where the sensor tells its `kind`
    (another player's cube, views.piece_refused), the rules' reason where the site names a
    move (a rod in a groove), else that no move puts a piece there now."""
    refused = views.piece_refused(state, site, kind, spoken) if kind and kind != PRESENT \
        else None
    if refused:
        return refused
    name = views.say_site(state, site) if spoken else site
    try:
        state.copy().play(state.parse_move(site))
    except games.IllegalMove as exc:
        if not isinstance(exc, games.InvalidNotation):
            return f"{name}: {words.reason(exc.reason)}"
    except games.GameError:
        pass
    else:
        return tr("{site}: it is a move, but the board changed in more than one place at "
                 "once").format(site=name)
    return tr("{site}: no move puts a piece there now").format(site=name)


#: The remote link's states (board_driver/remote/link.py), for the catalog: said as they change.
LINK_WORDS = (N_("connecting to the broker"), N_("no broker"), N_("waiting for the other board"),
              N_("connected"), N_("watching"),
              N_("waiting for the player in the browser"))   # (a seat in a browser: remote/guest.py)


class Narrator:
    """The sentences for what changed since the last look (see the module docstring)."""

    def __init__(self):
        self._flag_said: tuple | None = None           # the flag already said
        self._warned: tuple = (None, set())           # (the turn, the clock marks said in it)
        self._game = None    # the game last seen (`Moment.game`; a new one: a new game began)
        self._moves: list[str] = []
        self._wrong: set[str] = set()     # sites already reported as "not a move"
        self._missing: set[str] = set()   # sites already missing a piece
        self._waiting: frozenset = frozenset()   # sites of a move already told to wait
        self._occupied: set[str] = set()  # the game's pieces at the last look
        self._score: tuple | None = None
        self._over = False
        self._link: dict = {}
        self._key: tuple | None = None  # what was looked at last (a blink changes none of it)
        self._hint_said: str | None = None   # the hint's reason last said
        self._menu_said: tuple | None = None   # the menu's choices last said (None: closed)
        self._menu_game = None   # the game the menu opened over (another when it closed: applied)
        self._ending_said: int | None = None   # the last ending's news said (its count)
        self._absent_said: tuple | None = None  # the away player's state said, and its news
        self._web_away_said: frozenset = frozenset()   # the web seats said to be away
        self._menu_was_game = False   # the menu last open was the game menu (endings)
        self._limited_said: tuple = ()   # the seats' "limited by time" words last said
        self._modes_said: dict[str, object] = {}   # a set-up's, study's, puzzle's face last said

    def start(self, moment) -> list[Said]:
        """Remember the game as it starts (a Moment); a resumed game says so."""
        state = moment.state
        self._game, self._moves = moment.game, [str(m) for m in state.moves]
        self._occupied = set(state.occupancy())
        self._wrong = {c.site for c in moment.corrections if c.want is None}
        self._score, self._over = state.scores(), state.is_over()
        if not self._moves:
            return []
        n = len(self._moves)
        return [Said(tr("resumed the game at move {n}").format(n=n),
                     tr("resumed the game at move {n}").format(n=views.say_number(n)), "new")]

    def __call__(self, moment) -> list[Said]:
        state = moment.state
        key = (moment.game, len(state.moves), str(state.moves[-1]) if state.moves else None,
               moment.corrections, moment.waiting, moment.setup, moment.study, moment.puzzle)
        if key == self._key:
            return []   # the daemon asks on every frame: a blink has nothing to say
        self._key = key
        if moment.setup is not None or "setup" in self._modes_said or (
                moment.study is not None and not moment.study.off
                and moment.study != self._modes_said.get("study")):
            # A position set up, or a study's step: its moves are the position, not moves just
            # made (remembered, never said one by one).
            return self._positioned(moment) + self._puzzle(moment)
        names = views.players(state.game.name)
        out: list[Said] = []
        moves = [str(m) for m in state.moves]
        if moment.game != self._game:
            out += self._new_game(moment, names)
        common = 0
        while common < min(len(moves), len(self._moves)) and moves[common] == self._moves[common]:
            common += 1
        took_back = common < len(self._moves)
        undone = self._moves[common:]
        missing = {c.site for c in moment.corrections if c.want is not None and c.have is None}
        if not took_back:
            out += self._in_place(moment, missing, names)
        out += self._takebacks(moment, undone, common, names)
        timed_out = moment.timed_out
        for i in range(common, len(moves)):
            last = i + 1 == len(moves)
            who = names[mover(state, i)]
            why = tr(" (the turn's time ran out)") if i + 1 in timed_out else ""
            text = tr("move {n}: {move}").format(
                n=i + 1, move=views.show_move(state.game.name, moves[i])) + why
            # Aloud without its number (the page's move list shows it): who, and the move.
            spoken = tr("{player}: {move}").format(
                player=who, move=views.say_move_text(state, moves[i])) + why
            if last:
                if state.is_over():
                    # (its pieces still to put: the end is said once they are down)
                    text += "" if missing else tr(" (game over)")
                else:
                    text += tr(" ({player} to move)").format(player=names[state.to_move])
            if not moment.at_board(mover(state, i)) and moment.touch is None:
                text += tr("; {player}'s move: put it on the board").format(player=who)
                spoken += tr("; put it on the board")   # (its player said already)
            out.append(Said(text, spoken, "move", i + 1))
        self._moves = moves
        occupied = set(state.occupancy())
        # A piece whose move was just taken back is to be lifted, as the takeback said: no
        # "not a move" for it.
        taken_back = self._occupied - occupied if took_back else set()
        self._occupied = occupied
        wrong = {c.site for c in moment.corrections if c.want is None}
        have = {c.site: c.have for c in moment.corrections}
        owed = first_to_make(moment, names, guest=bool(self._link.get("guest")))
        for site in sorted(wrong - self._wrong - taken_back):
            if owed:
                out.append(Said(tr("not a move: {site}: {owed}").format(site=site, owed=owed[0]),
                                tr("not a move: {site}: {owed}").format(
                                    site=views.say_site(state, site), owed=owed[1]), "fix"))
            else:
                out.append(Said(tr("not a move: {why}").format(
                                    why=why_not(state, site, kind=have[site])),
                                tr("not a move: {why}").format(
                                    why=why_not(state, site, True, have[site])), "fix"))
        self._wrong = wrong
        out += self._waits(moment, names)
        # A piece of the last move lifted where lifting takes nothing back: say why.
        last_sites = _last_sites(state)
        off = None
        if last_sites and (missing - self._missing) & last_sites and not took_back:
            if not moment.settings.takeback:
                off = tr("takebacks by lifting are off (display.takeback = false): put it "
                         "back, or type takeback")
            elif "remote" in moment.seats and not self._link.get("guest"):
                # (with a seat in a browser, lifting asks it: the link says what came of it)
                off = tr("in a remote game a takeback is asked of the other board: put it "
                         "back, or type takeback")
        if off:
            out.append(Said(off, off, "fix"))
        self._missing = missing
        return out + self._score_or_end(state, bool(missing), names) + self._puzzle(moment)

    def _positioned(self, moment) -> list[Said]:
        """A position being set up (how many sites are left, said as it changes; once done,
        whose move), or a studied record's step (move k of n, its comment): the game is
        remembered as it stands, and only that is said."""
        state = moment.state
        self._game, self._moves = moment.game, [str(m) for m in state.moves]
        self._occupied, self._missing = set(state.occupancy()), set()
        self._wrong = {c.site for c in moment.corrections if c.want is None}
        self._score, self._over = state.scores(), state.is_over()
        said, face = self._modes_said, moment.setup
        if face is not None:
            if said.get("setup") == face:
                return []
            said["setup"] = face
            return [Said(modes.setup_words(moment), modes.setup_words(moment, True), "fix")]
        out = []
        if said.pop("setup", None) is not None:
            line = modes.set_up_words(moment)
            out.append(Said(line, line, "new"))
        if moment.study is not None and moment.study != said.get("study"):
            said["study"] = moment.study
            out.append(Said(modes.study_words(moment), modes.study_words(moment, True), "move",
                            len(state.moves)))
        return out

    def _puzzle(self, moment) -> list[Said]:
        """A puzzle's prompt once its position is set up, and its verdict once answered."""
        face, said = moment.puzzle, self._modes_said
        if face is None or moment.setup is not None:
            said.pop("puzzle", None)
            return []
        was, said["puzzle"] = said.get("puzzle"), face
        out = []
        if was is None or (was.number, was.count) != (face.number, face.count):
            line = modes.puzzle_prompt(moment)
            out.append(Said(line, line, "new"))
        if face.verdict is not None and (was is None or was.verdict != face.verdict
                                         or was.played != face.played):
            out.append(Said(modes.puzzle_verdict(moment), modes.puzzle_verdict(moment, True),
                            "end"))
        return out

    def _score_or_end(self, state, missing: bool, names: tuple[str, str]) -> list[Said]:
        """The end, once (and only once the last move's pieces are all down, not `missing`),
        or the score when it changed."""
        out = []
        score, over = state.scores(), state.is_over()
        if over and missing:
            over = False   # the last move's pieces are not all down yet: not over on the board
        elif over and not self._over:
            out.append(_end(state, names))
        elif score != self._score and state.moves:
            a, b = score
            line = tr("{score} {a} to {b}").format(score=views.score_name(state.game.name),
                                                   a=a, b=b)
            out.append(Said(line, line, "score", len(state.moves)))
        self._score, self._over = score, over
        return out

    def _new_game(self, moment, names: tuple[str, str]) -> list[Said]:
        """A new game began: said, and the pieces still standing from the last one (or from the
        menu that started it) to lift, in one sentence, never each as "not a move"."""
        state = moment.state
        # (the menu that started it first: what it applied)
        out = self.menu(moment) if moment.menu is None and self._menu_said is not None else []
        news = moment.ending.news if moment.ending is not None else None
        if not (news and news[1] == "taken-up" and news[0] != self._ending_said):
            # (a game taken up again is said so by `ending`: its moves stand)
            line = tr("new game of {game}").format(game=views.title(state.game.name))
            out.append(Said(line, line, "new"))
        self._game, self._occupied, self._missing = moment.game, set(), set()
        self._moves = [str(m) for m in state.moves]
        self._score, self._over = state.scores(), False
        self._wrong = {c.site for c in moment.corrections if c.want is None}
        left = views.leftovers_words(moment)
        if left:
            out.append(Said(left, views.leftovers_words(moment, spoken=True), "fix"))
        return out

    def _takebacks(self, moment, undone: list[str], common: int,
                   names: tuple[str, str]) -> list[Said]:
        """The moves taken back since the last look (`undone`, from move `common` on): against
        the computer the player's move and its reply together; the menu's corner pieces, which
        were moves until it opened, as such; a takeback made without the board's hands (the
        page, the sim) with what they do now."""
        state = moment.state
        if not undone:
            return []
        if moment.menu is not None:
            line = tr("the menu's corners, not moves: took back {moves}")
            return [Said(line.format(moves=tr(" and ").join(
                             views.show_move(state.game.name, m) for m in undone)),
                         line.format(moves=tr(" and ").join(
                             views.say_move_text(state, m) for m in undone)),
                         "takeback", common + 1)]
        done = len(state.moves) == common
        if len(undone) > 1 and done and not all(map(moment.at_board, (0, 1))):
            # Against the computer: the player's move and the computer's reply, together.
            out = [Said(tr("takeback of {move}").format(
                            move=with_reply(moment, state, undone, False)),
                        tr("takeback of {move}").format(
                            move=with_reply(moment, state, undone, True)),
                        "takeback", common + 1)]
        else:
            out = [Said(tr("takeback of {move}").format(move=views.show_move(state.game.name, m)),
                        tr("takeback of {move}").format(move=views.say_move_text(state, m)),
                        "takeback", common + i + 1)
                   for i, m in reversed(list(enumerate(undone)))]
        if done and moment.touch is None:
            out[-1] = _with_hands(out[-1], moment, names)
        return out

    def _in_place(self, moment, missing: set[str], names: tuple[str, str]) -> list[Said]:
        """What the last move owed the board (`_missing` at the last look), now in place:
        "player 2's tree in place on t0.0" (the other seat's move made is said by the move)."""
        state, out = moment.state, []
        put = self._missing - missing - moment.to_make
        occupancy = state.occupancy() if put else {}
        for site in sorted(put):
            if occupancy.get(site) is not None:
                piece = piece_name(occupancy[site], names)
                line = tr("{piece} in place on {site}")
                out.append(Said(line.format(piece=piece, site=site),
                                line.format(piece=piece, site=views.say_site(state, site)),
                                "fix"))
        return out

    def _waits(self, moment, names: tuple[str, str]) -> list[Said]:
        """The next move put before what is owed (`Moment.waiting`): it counts once that is in
        place ("not a move yet: h0.1: first put player 2's tree on t0.0; then it counts")."""
        out = []
        new, self._waiting = moment.waiting - self._waiting, moment.waiting
        owed = first_to_make(moment, names, owed_by_anyone=True,
                             guest=bool(self._link.get("guest"))) if new else None
        for site in sorted(new):
            if owed:
                line = tr("not a move yet: {site}: {owed}; then it counts")
                out.append(Said(line.format(site=site, owed=owed[0]),
                                line.format(site=views.say_site(moment.state, site),
                                            owed=owed[1]), "fix"))
        return out

    def clock(self, moment) -> list[Said]:
        """The clocks, said once each: the running clock passing one minute and ten seconds
        left, and a flag."""
        out = []
        flagged = moment.flagged
        if flagged is not None and self._flag_said != (moment.game, flagged):
            self._flag_said = (moment.game, flagged)
            line = views.flag_words(moment.state.game.name, flagged)
            out.append(Said(line, line, "end"))
        seat, left = moment.clock_running, moment.turn_left
        if seat is None or left is None:
            return out
        turn = (moment.game, len(moment.state.moves), seat)
        if self._warned[0] != turn:
            self._warned = (turn, set())
        for mark in views.CLOCK_WARNINGS:
            if mark - 5 < left <= mark and mark not in self._warned[1]:
                self._warned[1].add(mark)
                line = views.clock_warning_words(moment.state.game.name, seat, mark)
                out.append(Said(line, line, "other"))
        return out

    def ending(self, moment) -> list[Said]:
        """A game its players end or pause (views/ending.py), a player away (views/absence.py):
        each thing done said once."""
        return self.absence(moment) + self._ended(moment)

    def absence(self, moment) -> list[Said]:
        """The player to move away: the question (or the clocks paused) said when it begins,
        each choice and return said once; a web seat's player going away and coming back."""
        face = moment.absent
        key = None if face is None else (face.seat, face.asked, face.paused, face.news)
        # a web seat's player went away or is back (web/presence.py: the pages holding it)
        lines = absence_words.web_presence_news(moment, self._web_away_said)
        self._web_away_said = absence_words.web_away(moment)
        if key == self._absent_said:
            return [Said(line, line, "other") for line in lines]
        was, self._absent_said = self._absent_said, key
        name = moment.state.game.name
        if face is not None and face.news is not None and (was is None or was[3] != face.news):
            lines.append(absence_words.absence_news_words(name, face))
        if face is not None and (was is None or was[:3] != key[:3]):
            lines.append(absence_words.absent_words(name, face))
        return [Said(line, line, "other") for line in lines if line]

    def _ended(self, moment) -> list[Said]:
        face = moment.ending
        news = None if face is None else face.news
        if news is None or news[0] == self._ending_said:
            return []
        self._ending_said = news[0]
        line = ending_words.news_words(moment.state.game.name, face)
        return [Said(line, line, "end" if news[1] in ("resigned", "agreed", "forfeit",
                                                      "drawn_away") else "other")] \
            if line else []

    def menu(self, moment) -> list[Said]:
        """The menu (a board set up with no screen): what is chosen, said when it opens and
        after each choice, and as it closes what it applied (the new game's settings) or that
        it changed nothing."""
        menu = moment.menu
        now = tuple(sorted(menu.chosen.items())) if menu is not None else None
        if now == self._menu_said:
            return []
        was, self._menu_said = self._menu_said, now
        name = moment.state.game.name
        if now is None:
            # (the game menu's closing is said by what it did, if anything: `ending`)
            line = "" if was is None or self._menu_was_game else views.menu_applied_words(
                name, dict(was)) if moment.game != self._menu_game else \
                tr("menu: closed, nothing changed")
        else:
            self._menu_game = moment.game if was is None else self._menu_game
            self._menu_was_game = menu.game
            line = views.menu_words(name, dict(menu.chosen), menu.touch, menu.game)
        return [Said(line, line, "menu")] if line else []

    def hint(self, moment) -> list[Said]:
        """The hint's reason, said once when it arrives (hints "best": the computer's worker
        answers after the turn began), so a player who cannot see the LEDs hears why."""
        reason = (moment.hint_reason if moment.settings.moves == "best" and moment.hints
                  else None)
        if reason == self._hint_said:
            return []
        self._hint_said = reason
        if not reason:
            return []
        line = tr("hint: {reason}").format(reason=reason)
        move = moment.hint_move
        # Spoken, the move as a person says it ("v0.1" -> "the left groove of row zero, square
        # one"), wherever the reason names it.
        spoken = line
        if move:
            said = views.say_move_text(moment.state, move)
            shown = views.show_move(moment.state.game.name, move)
            spoken = spoken.replace(shown, said) if shown in spoken else spoken.replace(move, said)
        return [Said(line, spoken, "hint")]

    def limited(self, moment) -> list[Said]:
        """A computer seat the time cap cut short, said once when it begins (the page shows it
        beside the seat): "computer (hard, limited by time)"."""
        now = tuple(views.limited_words(moment))
        was, self._limited_said = self._limited_said, now
        return [Said(line, line, "limited") for i, line in enumerate(now)
                if line and (len(was) <= i or was[i] != line)]

    def link(self, summary: dict) -> list[Said]:
        """A remote game: the link to the other board going down or coming back, and its
        takeback requests (`summary`: RemoteLink.summary())."""
        was, self._link = self._link, summary
        out = []
        if summary["status"] != was.get("status"):
            status = summary["status"]   # a LINK_WORDS state, or a conflict (a Reason)
            line = tr("other board: {status}").format(status=reason(status))
            out.append(Said(line, line, "link"))
        if summary["request"] is not None and summary["request"] != was.get("request"):
            line = (tr("the player in the browser asks to take back move {n}: accept or refuse")
                    if summary.get("guest") else
                    tr("the other board asks to take back move {n}: accept or refuse")).format(
                n=summary["request"] + 1)
            out.append(Said(line, line, "link"))
        said = summary.get("takeback_said")   # (a seat in a browser: how its takeback ended)
        if said is not None and said != was.get("takeback_said"):
            out.append(Said(said[1], said[1], "link"))
        return out

    def turn(self, moment) -> Said:
        """Whose turn it is and the score (the `repeat` command's last line)."""
        state = moment.state
        names = views.players(state.game.name)
        if state.is_over():
            return _end(state, names)
        a, b = state.scores()
        line = tr("{score} {a} to {b}, {player} to move").format(
            score=views.score_name(state.game.name), a=a, b=b, player=names[state.to_move])
        return Said(line, line, "score")


#: Whose move still waits to be put on the board (Moment.to_make_by), as the page's banner
#: says it: "remote" is the other board's, or the player in the browser's when the link is a
#: guest's (remote/guest.py); "web" a seat played on this board's own page.
OWED_BY = {"computer": N_("The computer's move."), "remote": N_("The other board's move."),
           "guest": N_("The move of the player in the browser."),
           "web": N_("The web seat's move.")}


def owed_by(moment, guest: bool = False) -> str:
    """Whose move waits to be put on the board, as a person reads it: `guest`, the remote seat
    is played in a browser (the link's summary says so), not at another board."""
    by = "guest" if guest and moment.to_make_by == "remote" else moment.to_make_by
    return tr(OWED_BY[by]) if by in OWED_BY else tr("The other seat's move.")


def first_to_make(moment, names: tuple[str, str], owed_by_anyone: bool = False,
                  guest: bool = False) -> tuple[str, str] | None:
    """While the other seat's move still waits to be made on the board, what to do first
    ("first put the computer's rod on v1.2"), as written and as said; None when nothing is
    owed. `owed_by_anyone`: a piece the last move owes the board, whoever made it, too
    ("first put player 2's tree on t0.0"); `guest`: the remote seat is played in a browser."""
    owed = [c for c in moment.corrections if c.want is not None and c.have is None
            and c.site in moment.to_make]
    if not owed and owed_by_anyone:
        owed = [c for c in moment.corrections if c.want is not None and c.have is None]
        if not owed:
            return None
        state = moment.state
        words = tr("first put {piece} on {sites}")
        noun = piece_name(owed[0].want, names, "")
        return (words.format(piece=noun, sites=tr(" and ").join(c.site for c in owed)),
                words.format(piece=noun, sites=tr(" and ").join(views.say_site(state, c.site)
                                                                for c in owed)))
    if not owed:
        return None
    kind = owed[0].want
    noun = piece_name(None, names, "") if kind == PRESENT else \
        tr(PIECES.get(kind.partition(":")[0], kind.partition(":")[0])) if ":" in kind else \
        piece_name(kind, names, "")
    words = (tr("first put the move of the player in the browser, {piece}, on {sites}")
             if moment.to_make_by == "remote" and guest else
             tr("first put the other board's {piece} on {sites}")
             if moment.to_make_by == "remote" else
             tr("first put the web seat's {piece} on {sites}")
             if moment.to_make_by == "web" else
             tr("first put the computer's {piece} on {sites}"))
    state = moment.state
    return (words.format(piece=noun, sites=tr(" and ").join(c.site for c in owed)),
            words.format(piece=noun, sites=tr(" and ").join(views.say_site(state, c.site)
                                                            for c in owed)))


def hands_words(fixes, names: tuple[str, str], spoken_in=None) -> str:
    """What the hands do to put the board right after a takeback, from the sites that differ
    (Corrections: what must be there, what is there): "lift the piece on h1.0", "put White's
    spore back on F2"; "" when nothing. `spoken_in`: a state, to say the sites as a person
    does."""
    def site(name: str) -> str:
        return views.say_site(spoken_in, name) if spoken_in is not None else name

    ordered = sorted(fixes, key=lambda c: c.site)
    lift = [site(c.site) for c in ordered if c.want is None]
    parts = []
    if lift:
        parts.append(ngettext("lift the piece on {sites}", "lift the pieces on {sites}",
                              len(lift)).format(sites=tr(" and ").join(lift)))
    for c in ordered:
        if c.want is not None:
            parts.append(tr("put {piece} back on {site}").format(
                piece=piece_name(c.want, names), site=site(c.site)))
    return tr("; ").join(parts)


def _with_hands(said: Said, moment, names: tuple[str, str]) -> Said:
    """A takeback made without the board's hands (the page, the sim), with what they do now:
    "takeback of h1.0: lift the piece on h1.0"."""
    hands = hands_words(moment.corrections, names)
    if not hands:
        return said
    line = tr("{takeback}: {hands}")
    return Said(line.format(takeback=said.text, hands=hands),
                line.format(takeback=said.spoken,
                            hands=hands_words(moment.corrections, names, moment.state)),
                said.kind, said.ply)


def with_reply(moment, state, undone: list[str], spoken: bool) -> str:
    """Moves taken back together, from the position before them: "h0.0 and the computer's
    reply v1.2"."""
    probe, mine, reply = state.copy(), [], []
    for text in undone:
        (mine if moment.at_board(probe.to_move) else reply).append(
            views.say_move_text(probe, text) if spoken else views.show_move(state.game.name, text))
        probe.play(probe.parse_move(text))
    return _together(mine, reply, moment.seats)


def _together(mine: list[str], reply: list[str], seats: tuple[str, ...] = ()) -> str:
    """Moves taken back together, in order: this board's, and the reply after of the seat not
    at the board (`seats`: the computer's, or a web seat's)."""
    if not mine or not reply:
        return tr(" and ").join(mine or reply)
    line = (tr("{moves} and the web seat's reply {reply}") if "web" in seats else
            tr("{moves} and the computer's reply {reply}"))
    return line.format(moves=tr(" and ").join(mine), reply=" ".join(reply))


def _last_sites(state) -> set[str]:
    """The sites the last move changed (empty before the first)."""
    if not state.moves:
        return set()
    probe = state.copy()
    after = probe.occupancy()
    probe.undo()
    before = probe.occupancy()
    return {s for s in before.keys() | after.keys() if before.get(s) != after.get(s)}


def _end(state, names) -> Said:
    a, b = state.scores()
    winner = state.winner()
    line = (tr("game over, {a} to {b}: a draw").format(a=a, b=b) if winner is None else
            tr("game over, {a} to {b}: {player} wins").format(a=a, b=b, player=names[winner]))
    why = views.end_words(state)
    if why:
        line = tr("{result} ({why})").format(result=line, why=why)
    return Said(line, line, "end")


def last_moves(moment, count: int) -> list[Said]:
    """The last `count` moves, oldest first, then whose turn and the score: what "say it
    again" says."""
    state = moment.state
    names = views.players(state.game.name)
    moves = [str(m) for m in state.moves]
    out = []
    for i in range(max(0, len(moves) - count), len(moves)):
        who = names[mover(state, i)]
        out.append(Said(tr("move {n}: {move}").format(
                            n=i + 1, move=views.show_move(state.game.name, moves[i])),
                        tr("move {n}, {player}: {move}").format(
                            n=views.say_number(i + 1), player=who,
                            move=views.say_move_text(state, moves[i])), "move", i + 1))
    if not moves:
        line = tr("no move yet")
        out.append(Said(line, line))
    out.append(Narrator().turn(moment))
    return out


def takeback_words(game_name: str, undone: list[tuple[str, bool]],
                   seats: tuple[str, ...] = ()) -> str:
    """What a takeback took back, in words: "h1.0", or against the computer "h1.0 and the
    computer's reply v1.2" (`undone`: each move and whether it was made at this board, last
    move first; each move as a screen shows it, `views.show_move`)."""
    shown = [(views.show_move(game_name, m), here) for m, here in reversed(undone)]
    return _together([m for m, here in shown if here], [m for m, here in shown if not here],
                     seats)


__all__ = ["Said", "Narrator", "why_not", "mover", "last_moves", "first_to_make", "owed_by",
           "with_reply", "takeback_words", "hands_words"]
