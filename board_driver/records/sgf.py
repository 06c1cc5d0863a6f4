"""Records in SGF FF[4] (docs/records.md): written through sgfmill, read by our own reader.

sgfmill (a well-kept SGF library) writes the game tree: its escaping, its order of
properties, its lines of at most 79 characters; any SGF reader reads what it writes. Our
reader follows the same grammar, and names the line of whatever it refuses (sgfmill's parser
says what is wrong, never where), so a family mending a file by hand knows where to look.

What a record holds:

    root   FF[4] CA[UTF-8] AP[treeboard:1] GM[7001..7005]   the game, by its private number
           XO[board=classic]...   the game's options, one KEY=VALUE each (private)
           PB[...] PW[...]        the players by name (B: the first player, W: the second)
           XB[human] XW[computer:easy]   the seats the board knew (private)
           DT[2026-05-01] RE[B+3] XC[5+3] TM[300]   date, result, time control
    moves  ;B[h0.0]BL[298.5]WL[300]   each move in the game's own notation, with both
           clocks after it; C[...] BM[1] where the review marked it, and the best move
           instead as a variation
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Sequence

from sgfmill import sgf, sgf_grammar

from board_driver.records.record import (COLOURS, Move, Player, Record, RecordError, game_of,
                                         seat_words)
from board_driver.referee.clock import parse_time_control
from games.base import Reason
import games

#: AP's version: of this record form (docs/records.md), not of the program.
FORM = "1"
#: Properties that set up a position before the moves: a record of ours starts from the
#: game's own start, made by its options.
SETUP = ("AB", "AW", "AE", "PL")


def dumps(records: Sequence[Record]) -> bytes:
    """One record, or a collection of them, as SGF (UTF-8 bytes)."""
    return b"".join(_game(record).serialise() for record in records)


def _game(record: Record) -> sgf.Sgf_game:
    game = sgf.Sgf_game(19)
    root = game.get_root()
    root.unset("SZ")   # (the board is the game's options': XO)
    root.set("GM", record.number)
    root.set("AP", ("treeboard", FORM))
    if record.options:
        root.set_raw_list("XO", [_raw(f"{k}={v}") for k, v in record.options.items()])
    for colour, player in zip(COLOURS, record.players):
        if player.shown is not None:
            root.set(f"P{colour}", player.shown)
        if player.seat is not None:
            root.set(f"X{colour}", player.seat)
    for key, value in (("DT", record.date), ("RE", record.result), ("XC", record.control),
                       ("C", record.comment)):
        if value is not None:
            root.set(key, value)
    if record.control is not None:
        starts = {c.start_s for c in parse_time_control(record.control)}
        if len(starts) == 1 and None not in starts:
            root.set("TM", starts.pop())
    _line(root, record.moves)
    return game


def _line(parent: sgf.Tree_node, moves: Sequence[Move]) -> None:
    """The moves as a line of nodes under `parent`, each move's variations its siblings."""
    for move in moves:
        node = parent.new_child()
        node.set_raw(COLOURS[move.player], _raw(move.text))
        for colour, ms in zip(COLOURS, move.left_ms or ()):
            if ms is not None:
                node.set(f"{colour}L", ms / 1000)
        if move.comment is not None:
            node.set("C", move.comment)
        if move.bad:
            node.set("BM", move.bad)
        for variation in move.variations:
            _line(parent, variation)
        parent = node


def _raw(text: str) -> bytes:
    return sgf_grammar.escape_text(text.encode("utf-8"))


# --- reading --------------------------------------------------------------------------------

_TOKEN = re.compile(r"\s*(?:\[(?P<V>[^\\\]]*(?:\\.[^\\\]]*)*)\]|(?P<I>[A-Z]+)|(?P<D>[;()]))",
                    re.DOTALL)


@dataclass
class Node:
    """One node of a game tree as read: its properties' raw values, and where each began."""
    line: int
    props: dict[str, list[str]] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)
    children: list["Node"] = field(default_factory=list)

    def text(self, key: str, simple: bool = True) -> str | None:
        """A property's (first) value, unescaped as SGF's SimpleText (or Text); None if absent."""
        values = self.props.get(key)
        if values is None:
            return None
        convert = sgf_grammar.simpletext_value if simple else sgf_grammar.text_value
        return convert(values[0].encode("utf-8")).decode("utf-8")


def read(data: bytes) -> list[Record]:
    """The records of an SGF file (one game, or a collection), each as written. Raises
    RecordError with the line and the reason for a file that is not UTF-8, not SGF, or not
    a record of this board's games (its moves are checked by `record.checked`)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        byte = "0x%02X" % data[exc.start]
        raise RecordError(data.count(b"\n", 0, exc.start) + 1, Reason(
            "this file is not UTF-8 (byte {byte}): a record is read in UTF-8",
            byte=byte)) from None
    try:
        return [_record(root) for root in parse(text.removeprefix("\ufeff"))]
    except RecursionError:
        raise RecordError(None, Reason("its variations are nested too deeply")) from None


def parse(text: str) -> list[Node]:
    """The game trees of an SGF text, as nodes (each tree's root). Only whitespace may stand
    between and around them."""
    roots: list[Node] = []
    opened: list[Node | None] = []   # for each open "(", the node its sequence hangs from
    node: Node | None = None          # the node last read
    key, pos, line = None, 0, 1
    while True:
        m = _TOKEN.match(text, pos)
        if m is not None and m.lastgroup != "V" and key is not None and not node.props[key]:
            raise RecordError(line, Reason("{key} has no value ([...])", key=key))
        if m is None:
            rest = text[pos:].lstrip()
            line += text.count("\n", pos, len(text) - len(rest))
            if not rest and not opened:
                break
            raise RecordError(line, _unexpected(rest, bool(opened), bool(roots)))
        kind, token = m.lastgroup, m.group(m.lastgroup)
        line += text.count("\n", pos, m.start(kind))
        if not opened and token != "(":
            raise RecordError(line, _unexpected(text[m.start(kind):], False, bool(roots)))
        pos = m.end()
        if token == "(" and kind == "D":
            if opened and node is None:
                raise RecordError(line, Reason("a game tree begins with ';' (a node)"))
            opened.append(node)
            node, key = None, None
            _expect_node(text, pos, line)
        elif token == ";" and kind == "D":
            parent, node, key = node, Node(line), None
            if parent is None and opened[-1] is None:
                roots.append(node)
            else:
                (parent or opened[-1]).children.append(node)
        elif kind == "D":
            node, key = opened.pop(), None
        elif kind == "I":
            if node is None or token in node.props:   # (node: None only right after "(")
                raise RecordError(line, Reason("{key} stands outside a node, or twice in one",
                                               key=token))
            key = token
            node.props[key], node.lines[key] = [], line
        else:
            if key is None:
                raise RecordError(line, Reason("a value ([...]) with no property before it"))
            node.props[key].append(token)
            line += token.count("\n")
    if not roots:
        raise RecordError(1, Reason("this is not an SGF record: it holds no game tree ('(;')"))
    return roots


def _expect_node(text: str, pos: int, line: int) -> None:
    m = _TOKEN.match(text, pos)
    if m is None or m.group("D") != ";":
        raise RecordError(line, Reason("a game tree begins with ';' (a node)"))


def _unexpected(rest: str, inside: bool, any_tree: bool) -> Reason:
    if rest.startswith("["):
        return Reason("a value that never ends: '[' without its ']'")
    if inside:
        if not rest:
            return Reason("the file ends inside a game tree: a ')' is missing")
        return Reason("{text} is not SGF (a property's name is capital letters)",
                      text=repr(rest[:12]))
    if any_tree:
        return Reason("{text} after the game trees is not SGF", text=repr(rest[:12]))
    return Reason("this is not an SGF record: it does not begin with '(;'")


def _record(root: Node) -> Record:
    """A game tree as a record: its root's game, options, players and result, its main line
    of moves with their variations."""
    game = _game_of(root)
    ff, ca = root.text("FF"), root.text("CA")
    if ff is not None and ff.strip() != "4":
        raise RecordError(root.lines["FF"], Reason("FF[{ff}]: this board reads SGF FF[4]",
                                                   ff=ff))
    if ca is not None and ca.strip().lower().replace("_", "-") not in ("utf-8", "utf8"):
        raise RecordError(root.lines["CA"], Reason(
            "CA[{ca}]: this board reads records in UTF-8 (CA[UTF-8])", ca=ca))
    options = {}
    for raw in root.props.get("XO", ()):
        key, sep, value = sgf_grammar.simpletext_value(raw.encode()).decode().partition("=")
        if not sep or not key:
            raise RecordError(root.lines["XO"], Reason(
                "XO[{option}] is no option as a record writes it (KEY=VALUE)", option=raw))
        options[key] = value
    players = tuple(_player(root, colour) for colour in COLOURS)
    return Record(game, options, players, _moves(root), root.text("DT"), root.text("RE"),
                  root.text("XC"), root.text("C", simple=False), line=root.line,
                  lines=dict(root.lines))


def _game_of(root: Node) -> str:
    gm = root.text("GM")
    if gm is None:
        raise RecordError(root.line, Reason(
            "it names no game (GM[...]): SGF reads it as Go (GM[1]), a game this board does not "
            "play"))
    try:
        number = int(gm)
    except ValueError:
        number = None
    name = game_of(number) if number is not None else None
    if name is None:
        ours = ", ".join(f"GM[{games.get_game(n).sgf_number}] {games.get_game(n).short_title}"
                         for n in games.names())
        raise RecordError(root.lines["GM"], Reason(
            "GM[{gm}] is a game this board does not play (it plays {ours})", gm=gm, ours=ours))
    return name


def _player(root: Node, colour: str) -> Player:
    seat, name = root.text(f"X{colour}"), root.text(f"P{colour}")
    return Player(seat, None if name == seat_words(seat) and seat is not None else name)


def _moves(first: Node) -> tuple[Move, ...]:
    """The moves from `first` down its first children, each with the lines of its siblings
    (the moves played instead of it) as its variations."""
    moves: list[Move] = []
    node: Node | None = first
    siblings: list[Node] = []
    while node is not None:
        for key in SETUP:
            if key in node.props:
                raise RecordError(node.lines[key], Reason(
                    "{key}[...] sets up a position: a record of this board starts from the "
                    "game's own start (its options)", key=key))
        move = _move(node, tuple(_moves(s) for s in siblings))
        if move is not None:
            moves.append(move)
        siblings = node.children[1:]
        node = node.children[0] if node.children else None
    return tuple(moves)


def _move(node: Node, variations: tuple[tuple[Move, ...], ...]) -> Move | None:
    played = [c for c in COLOURS if c in node.props]
    if not played:
        return None
    if len(played) == 2:
        raise RecordError(node.line, Reason("a node holds two moves (B and W)"))
    left = []
    for key in ("BL", "WL"):
        value = node.text(key)
        try:
            seconds = None if value is None else float(value)
            if seconds is not None and not 0 <= seconds < 10 ** 9:
                raise ValueError(value)
        except ValueError:
            raise RecordError(node.lines[key], Reason(
                "{key}[{value}] is no time left in seconds", key=key, value=value)) from None
        left.append(None if seconds is None else round(seconds * 1000))
    bad = node.text("BM")
    return Move(COLOURS.index(played[0]), node.text(played[0]) or "",
                None if left == [None, None] else (left[0], left[1]),
                node.text("C", simple=False), 0 if bad is None else 2 if bad.strip() == "2" else 1,
                variations, line=node.lines[played[0]])
