"""Remote play's wire protocol: pure, no network, no clock (see docs/remote.md).

Two boards share one game through an MQTT broker. Everything here is a function of the
messages and the local game, so the tests check every rule without a broker, and
`board_driver.remote.link` only moves bytes.

Topics, under `treeboard/v1/<game id>/`:
  `move`            one message per move (QoS 1, not retained)
  `state/<seat>`    the full game as the board of that seat knows it (QoS 1, retained)
  `presence/<seat>` "online" / "offline" (retained; "offline" is also the client's will)
  `takeback`        a takeback request and its answer (QoS 1, not retained)

Protocol 1.3 (remote/away.py): an `away` message on the `move` topic carries a player's choice
about the other board's player, away and to move (pause, wait, claim, draw), numbered (`seq`)
against replays; the retained state repeats it (`away`) and says a game claimed or drawn so
(`forfeit`, `drawn_away`).

Clocks (protocol 1.1, readable by 1.0 boards, which ignore what they do not know): a move may
carry `clock_ms`, its mover's clock when the move was made (before its increment), which the
other board takes as that seat's clock; a `flag` message on the `move` topic (and `flag` in
the retained state) says that the sender's seat ran out of time. Each board runs and flags only
its own seats' clocks, so the time a move spends on the way is charged to nobody: the mover's
clock stopped when it moved, and the other's starts when the move arrives.

Every message but presence is a JSON object signed with HMAC-SHA256 under a key derived from
the game's shared secret and the game id, so a message from anyone without the secret, or
from another game, is refused. Each carries the game's `version`: the number of changes
(moves and takebacks) the game has seen. A move also carries the move text and a hash of the
position after it, which the receiver checks by playing it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from dataclasses import dataclass, field
from typing import Any, Sequence

import games
from games.base import Reason
from treeboard.exc import TreeboardError

PREFIX = "treeboard/v1"
_GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
MAX_MESSAGE = 256 * 1024      # a whole Arbos game is a few kB; anything larger is not ours
#: The largest MQTT packet a board accepts (MQTT 5's Maximum Packet Size, sent in CONNECT: the
#: broker must not send a larger one, it drops it instead): a message, its topic and headers.
MAX_PACKET = MAX_MESSAGE + 4096
MAX_PENDING = 64              # early moves kept while a gap is filled


def cut(text: str, n: int) -> str:
    return text if len(text) <= n else text[:n - 1] + "…"


class RemoteError(TreeboardError, ValueError):
    """A message or setting remote play refuses; `reason` is a sentence a person can read."""

    def __init__(self, reason: str):
        self.reason = reason
        super().__init__(reason)


def check_game_id(game_id: str) -> str:
    if not isinstance(game_id, str) or not _GAME_ID.match(game_id):
        raise RemoteError("a game id is 1 to 64 letters, digits, '-' or '_' "
                          f"(it becomes part of an MQTT topic); got {game_id!r}")
    return game_id


def topics(game_id: str) -> dict[str, str]:
    base = f"{PREFIX}/{check_game_id(game_id)}"
    return {"base": base, "move": f"{base}/move", "takeback": f"{base}/takeback",
            "state": f"{base}/state/+", "presence": f"{base}/presence/+"}


def state_topic(game_id: str, seat: int) -> str:
    return f"{PREFIX}/{game_id}/state/{seat}"


def presence_topic(game_id: str, seat: int) -> str:
    return f"{PREFIX}/{game_id}/presence/{seat}"


def position_hash(state: games.State) -> str:
    """What both boards must agree on: the game, its options and every move, in order."""
    body = json.dumps({"game": state.game.name,
                       "options": {k: str(v) for k, v in sorted(state.options().items())},
                       "moves": [str(m) for m in state.moves]},
                      sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(body.encode()).hexdigest()[:32]


_NONCE = re.compile(r"^[0-9a-f]{16}$")


def epoch_of(nonces: Sequence[str | None]) -> str | None:
    """The playing of a game both boards are in: seat 0's board's nonce, then seat 1's (each
    board makes its own when it joins the game afresh). None until both are known."""
    if any(n is None for n in nonces):
        return None
    return ".".join(nonces)  # type: ignore[arg-type]


def drawn_options(state: games.State, game_id: str) -> dict[str, int]:
    """The options `state`'s game draws for each game (games/base.py, `Game.drawn_options`),
    drawn from the game id: the same on both boards. Each below 2**32."""
    out = {}
    for name in sorted(state.game.drawn_options & state.options().keys()):
        digest = hashlib.sha256(f"{game_id} {name}".encode()).digest()
        out[name] = int.from_bytes(digest[:4], "big")
    return out


class Signer:
    """Signs and checks messages for one game. The key binds the secret to the game id, so a
    message signed for one game is refused by another that shares the secret, and to the game's
    epoch (both boards' nonces), so a message of an earlier playing of the same game id is
    refused too. Presence messages, which carry the nonces, are signed without an epoch."""

    def __init__(self, secret: bytes | str, game_id: str, epoch: str | None = None):
        if isinstance(secret, str):
            secret = secret.encode()
        if len(secret) < 8:
            raise RemoteError("the shared secret must be at least 8 bytes")
        self.game_id = check_game_id(game_id)
        self.epoch = epoch
        label = f"treeboard remote {game_id}" + (f" epoch {epoch}" if epoch else "")
        self._key = hmac.new(secret, label.encode(), hashlib.sha256).digest()

    def _mac(self, body: dict) -> str:
        text = json.dumps(body, sort_keys=True, separators=(",", ":"))
        return hmac.new(self._key, text.encode(), hashlib.sha256).hexdigest()

    def encode(self, body: dict) -> bytes:
        body = dict(body, game_id=self.game_id)
        return json.dumps(dict(body, sig=self._mac(body)), sort_keys=True,
                          separators=(",", ":")).encode()

    def decode(self, payload: bytes) -> dict:
        """The message's body, or RemoteError saying why it is refused."""
        if len(payload) > MAX_MESSAGE:
            raise RemoteError(f"message of {len(payload)} bytes is over {MAX_MESSAGE}")
        try:
            data = json.loads(payload.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            # (ValueError: not JSON, or an integer of over 4,300 digits)
            raise RemoteError(f"message is not JSON text we take ({cut(str(exc), 80)})") from None
        except RecursionError:
            raise RemoteError("message is JSON nested too deeply") from None
        if not isinstance(data, dict) or not isinstance(data.get("sig"), str):
            raise RemoteError("message is not a signed object")
        sig = data.pop("sig")
        if not hmac.compare_digest(sig, self._mac(data)):
            raise RemoteError("bad signature (another secret, another playing of this game id, "
                              "or the message was altered)")
        if data.get("game_id") != self.game_id:
            raise RemoteError(f"message is for game {data.get('game_id')!r}, not {self.game_id!r}")
        kind = data.get("type")
        need = _FIELDS.get(kind)
        if need is None:
            raise RemoteError(f"unknown message type {kind!r}")
        for key, types in need.items():
            value = data.get(key)
            if not isinstance(value, types) or (types is int and isinstance(value, bool)):
                raise RemoteError(f"{kind} message: {key!r} missing or of the wrong type")
        if data.get("takebacks", 0) < 0 or data.get("index", 0) < 0 or not 0 <= data["seat"] <= 1:
            raise RemoteError(f"{kind} message: takebacks, index or seat out of range")
        if kind == "away" and not away_fields_ok(data):
            raise RemoteError("away message: 'choice', 'seq' or 'clock_ms' out of range")
        if kind == "presence" and not _NONCE.match(data["nonce"]):
            raise RemoteError("presence message: its nonce is not 16 hex digits")
        if (kind == "presence") != (self.epoch is None):
            raise RemoteError(f"a {kind} message signed " +
                              ("for a game's epoch" if kind == "presence" else "without an epoch"))
        for key, check in _OPTIONAL.items():
            if key in data and data[key] is not None and not check(data[key]):
                raise RemoteError(f"{kind} message: {key!r} of the wrong type or out of range")
        return data


_FIELDS: dict[str, dict[str, Any]] = {
    "move": {"takebacks": int, "seat": int, "index": int, "move": str, "hash": str},
    "state": {"takebacks": int, "seat": int, "index": int, "moves": list, "hash": str,
              "name": str, "options": dict},
    "takeback": {"takebacks": int, "seat": int, "index": int},
    "takeback-answer": {"takebacks": int, "seat": int, "index": int, "accept": bool},
    "flag": {"takebacks": int, "seat": int, "index": int},
    # protocol 1.2 (remote/endings.py): the sender's seat resigns, offers a draw, answers one
    "resign": {"takebacks": int, "seat": int, "index": int},
    "draw-offer": {"takebacks": int, "seat": int, "index": int},
    "draw-answer": {"takebacks": int, "seat": int, "index": int, "accept": bool},
    "presence": {"seat": int, "online": bool, "nonce": str},
    # protocol 1.3 (remote/away.py): the sender's player chose what happens while the other
    # board's player, to move, is away; `seq` counts this board's choices (a replay is older)
    "away": {"takebacks": int, "seat": int, "index": int, "choice": str, "seq": int},
}

#: What the present player may choose about an away board's player (referee/absence.py's
#: CHOICES: the remote room may not import the referee; a test keeps the two the same).
AWAY_CHOICES = ("pause", "wait", "claim", "draw")
#: The most choices one playing of a game may send (a bound on `seq`, far above any game's).
MAX_AWAY_SEQ = 1_000_000

#: Protocol 1.1's optional fields: a move's `clock_ms` (the mover's clock), a state's `flag`;
#: 1.2's: a state's `resigned` (the seat that resigned) and `agreed` (a draw agreed).
MAX_CLOCK_MS = 48 * 3600 * 1000
_OPTIONAL: dict[str, Any] = {
    "clock_ms": lambda v: isinstance(v, int) and not isinstance(v, bool)
    and 0 <= v <= MAX_CLOCK_MS,
    "flag": lambda v: v in (0, 1) and not isinstance(v, bool),
    "resigned": lambda v: v in (0, 1) and not isinstance(v, bool),
    "agreed": lambda v: v is True,
    # 1.3's (remote/away.py): a state's `forfeit` / `drawn_away` (the away seat: the game
    # claimed or drawn while it was away) and `away` (the sender's last choice about it)
    "forfeit": lambda v: v in (0, 1) and not isinstance(v, bool),
    "drawn_away": lambda v: v in (0, 1) and not isinstance(v, bool),
    "away": lambda v: isinstance(v, dict) and away_fields_ok(v),
    # a presence's `board` (who the board is) and `met` (the board it met in the lobby and
    # plays with): remote/meet.py
    "board": lambda v: isinstance(v, str) and bool(_NONCE.match(v)),
    "met": lambda v: isinstance(v, str) and bool(_NONCE.match(v)),
}


def _count(v: Any, top: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= top


def away_fields_ok(body: dict) -> bool:
    """Whether an `away` message's fields (or a state's `away`) hold together: a known choice,
    `seq` 1 to MAX_AWAY_SEQ, counts in range, `clock_ms` (the away seat's clock as the choice
    was made) absent or in range."""
    return (body.get("choice") in AWAY_CHOICES and _count(body.get("seq"), MAX_AWAY_SEQ)
            and body["seq"] >= 1 and _count(body.get("takebacks"), 1 << 31)
            and _count(body.get("index"), 1 << 31)
            and (body.get("clock_ms") is None or _count(body["clock_ms"], MAX_CLOCK_MS)))


def presence_message(seat: int, online: bool, nonce: str) -> dict:
    """The board of `seat` is online (or, as its MQTT will, offline), in the playing of the game
    its `nonce` names."""
    return {"type": "presence", "seat": seat, "online": online, "nonce": nonce}


def _options(state: games.State) -> dict[str, str]:
    return {k: str(v) for k, v in state.options().items()}


def move_message(state: games.State, takebacks: int, seat: int,
                 clock_ms: int | None = None) -> dict:
    """The message for the move just played in `state` (the last of its moves); `clock_ms`
    the mover's clock as it moved (a timed game)."""
    body = {"type": "move", "takebacks": takebacks, "seat": seat, "index": len(state.moves) - 1,
            "move": str(state.moves[-1]), "hash": position_hash(state)}
    if clock_ms is not None:
        body["clock_ms"] = int(clock_ms)
    return body


def state_message(state: games.State, takebacks: int, seat: int, flag: int | None = None,
                  ended: dict | None = None, away: dict | None = None) -> dict:
    """The whole game as the board of `seat` knows it; `flag` the sender's seat out of time,
    `ended` how its players ended it ({"resigned": seat}, {"agreed": True}, or, a player away,
    {"forfeit": seat} or {"drawn_away": seat}), if they did; `away` the sender's last choice
    about the other board's player away (`away_message`'s fields, remote/away.py)."""
    body = {"type": "state", "takebacks": takebacks, "seat": seat, "index": len(state.moves),
            "moves": [str(m) for m in state.moves], "hash": position_hash(state),
            "name": state.game.name, "options": _options(state)}
    if flag is not None:
        body["flag"] = flag
    body.update({k: v for k, v in (ended or {}).items()
                 if k in ("resigned", "agreed", "forfeit", "drawn_away")})
    if away is not None:
        body["away"] = {k: v for k, v in away.items() if k != "type"}
    return body


def away_message(choice: str, seq: int, takebacks: int, seat: int, index: int,
                 clock_ms: int | None = None) -> dict:
    """`seat`'s player (the sender's) chose `choice` about the other board's player, away and
    to move after `index` moves; `clock_ms` the away seat's clock as this board showed it then
    (a pause gives the away board back the time from then; protocol 1.3, remote/away.py)."""
    body = {"type": "away", "choice": choice, "seq": seq, "takebacks": takebacks, "seat": seat,
            "index": index}
    if clock_ms is not None:
        body["clock_ms"] = int(clock_ms)
    return body


def ending_message(kind: str, state: games.State, takebacks: int, seat: int,
                   accept: bool | None = None) -> dict:
    """`seat` (the sender's) resigns ("resign"), offers a draw ("draw-offer") or answers the
    other's offer ("draw-answer", `accept`), after the game's moves so far (protocol 1.2)."""
    body = {"type": kind, "takebacks": takebacks, "seat": seat, "index": len(state.moves)}
    if kind == "draw-answer":
        body["accept"] = bool(accept)
    return body


def in_this_game(state: games.State, takebacks: int, msg: dict) -> bool:
    """Whether a message was sent about this very game as it stands (the same takebacks and
    the same number of moves): an ending of an earlier position is no longer meant."""
    return msg["takebacks"] == takebacks and msg["index"] == len(state.moves)


def flag_message(state: games.State, takebacks: int, seat: int) -> dict:
    """`seat` (the sender's) ran out of time after the game's moves so far."""
    return {"type": "flag", "takebacks": takebacks, "seat": seat, "index": len(state.moves)}


def flags(state: games.State, takebacks: int, msg: dict, remote_seat: int) -> bool:
    """Whether a `flag` message, or a state's `flag`, says the remote seat lost on time in
    this very game (the same takebacks, the same moves)."""
    flagged = msg["seat"] if msg["type"] == "flag" else msg.get("flag")
    return (flagged == remote_seat == msg["seat"] and msg["takebacks"] == takebacks
            and msg["index"] == len(state.moves))


def takeback_message(takebacks: int, seat: int, index: int) -> dict:
    """Ask the other board to take the game back to `index` moves."""
    return {"type": "takeback", "takebacks": takebacks, "seat": seat, "index": index}


def answer_message(takebacks: int, seat: int, index: int, accept: bool) -> dict:
    return {"type": "takeback-answer", "takebacks": takebacks, "seat": seat, "index": index,
            "accept": accept}


# --- deciding what a message means for the local game ----------------------------------------

@dataclass
class Verdict:
    """What to do with a message, in order: take the game back to `undo_to` moves (None: no
    takeback), then play `moves` (the remote seat's); set the takeback count to `takebacks`.
    Or nothing at all (a duplicate, an old state). `refused` is a reason to log (the message is
    dropped; the retained state will bring what it lacked); `conflict` a reason to show: the
    boards are out of step and neither can put it right alone."""

    moves: list[Any] = field(default_factory=list)
    clock_ms: int | None = None   # the remote mover's clock as it made the (one) move
    undo_to: int | None = None
    takebacks: int | None = None
    refused: str | None = None
    conflict: str | None = None


def _extend(state: games.State, start: int, texts: Sequence[str], remote_seat: int,
            last_hash: str | None) -> tuple[list[Any], str | None]:
    """`texts` as the remote seat's moves, played on a copy of `state` cut to `start` moves.
    Returns the moves, or why they cannot be played here."""
    trial = state.copy()
    while len(trial.moves) > start:
        trial.undo()
    moves = []
    for text in texts:
        n = len(trial.moves) + 1
        if trial.is_over():
            return [], f"move {n} ({text!r}) comes after the end of the game"
        if remote_seat is not None and trial.to_move != remote_seat:
            return [], f"move {n} ({text!r}) is for this board's seat, which only this board plays"
        try:
            move = trial.parse_move(text)
            trial.play(move)
        except games.IllegalMove as exc:
            return [], Reason("move {n} ({move}) is not legal here: {why}", n=n, move=repr(text),
                              why=exc.reason)
        moves.append(move)
    if last_hash is not None and position_hash(trial) != last_hash:
        return [], Reason("the position after it does not match its hash (the boards play "
                          "different games)")
    return moves, None


def on_move(state: games.State, takebacks: int, msg: dict, remote_seat: int) -> Verdict:
    """A `move` message from the other board."""
    if msg["seat"] != remote_seat:
        return Verdict()  # this board's own move, echoed by the broker
    if msg["takebacks"] < takebacks:
        return Verdict()  # sent before a takeback both boards agreed to: stale
    if msg["takebacks"] > takebacks:
        return Verdict(refused="a move after a takeback this board has not seen yet; "
                               "waiting for the other board's state")
    index, have = msg["index"], len(state.moves)
    if index < have:
        if str(state.moves[index]) == msg["move"]:
            return Verdict()  # a duplicate, or a replay of a move this board has
        return Verdict(conflict=Reason("the other board has {theirs} as move {n}, this board "
                                       "has {ours}", theirs=repr(msg["move"]), n=index + 1,
                                       ours=str(state.moves[index])))
    if index > have:
        return Verdict(refused=f"move {index + 1} came before move {have + 1}; waiting for it")
    moves, why = _extend(state, have, [msg["move"]], remote_seat, msg["hash"])
    if why:
        return Verdict(refused=why)
    return Verdict(moves=moves, clock_ms=msg.get("clock_ms"))


def _unfit_state(state: games.State, msg: dict) -> Verdict | None:
    """A state message of another game (a conflict to show), or one that does not hold together
    (refused); None when it can be compared with this board's game."""
    if msg["name"] != state.game.name or msg["options"] != _options(state):
        return Verdict(conflict=Reason("the other board plays {theirs} {their_options}, this "
                                       "board {ours} {options}", theirs=msg["name"],
                                       their_options=msg["options"],
                                       ours=state.game.name,
                                       options=_options(state)))
    if not all(isinstance(t, str) for t in msg["moves"]) or msg["index"] != len(msg["moves"]):
        return Verdict(refused="state message: 'moves' must be its 'index' move texts")
    return None


def on_state(state: games.State, takebacks: int, msg: dict, remote_seat: int,
             asked_to: int | None = None) -> Verdict:
    """The other board's retained full state: catch up with it, or say why not. `asked_to` is
    the move count this board asked to take the game back to, if it asked."""
    if msg["seat"] != remote_seat:
        return Verdict()  # this board's own retained state, echoed by the broker
    unfit = _unfit_state(state, msg)
    if unfit is not None:
        return unfit
    theirs = msg["moves"]
    ours = [str(m) for m in state.moves]
    if msg["takebacks"] < takebacks:
        return Verdict()  # from before a takeback we both agreed to: stale
    start = len(ours)
    if msg["takebacks"] > takebacks:
        # The other board carried out a takeback: only one this board asked for.
        if asked_to is None or msg["takebacks"] != takebacks + 1:
            return Verdict(conflict=Reason("the other board took back moves this board did not "
                                           "agree to"))
        if ours[:asked_to] != theirs[:asked_to]:
            return Verdict(conflict=Reason("the other board's game before the takeback is not "
                                           "this one"))
        start = asked_to
    common = 0
    for a, b in zip(ours[:start], theirs):
        if a != b:
            return Verdict(conflict=Reason("the boards disagree from move {n}: here {ours}, "
                                           "there {theirs}", n=common + 1, ours=a,
                                           theirs=b))
        common += 1
    undo_to = start if start < len(ours) else None
    if len(theirs) <= start:
        # They lag behind (or are level): this board's state and moves bring them along.
        return Verdict(undo_to=undo_to, takebacks=msg["takebacks"])
    moves, why = _extend(state, start, theirs[start:], remote_seat, msg["hash"])
    if why:
        return Verdict(conflict=Reason("cannot follow the other board: {why}", why=why))
    return Verdict(moves=moves, undo_to=undo_to, takebacks=msg["takebacks"])


def on_state_watching(state: games.State, takebacks: int, msg: dict) -> Verdict:
    """A spectator's reading of either board's retained state: follow whichever is newer (more
    takebacks, or as many and more moves). A spectator plays no seat, so it can never be out
    of step with a board, only behind it; a state from another game is said, not followed."""
    unfit = _unfit_state(state, msg)
    if unfit is not None:
        return unfit
    theirs = msg["moves"]
    ours = [str(m) for m in state.moves]
    if msg["takebacks"] < takebacks or (msg["takebacks"] == takebacks and
                                        theirs == ours[:len(theirs)]):
        return Verdict()   # older than what this board shows, or the same
    common = 0
    while common < min(len(ours), len(theirs)) and ours[common] == theirs[common]:
        common += 1
    moves, why = _extend(state, common, theirs[common:], None, msg["hash"])
    if why:
        return Verdict(refused=f"cannot follow the board of seat {msg['seat']}: {why}")
    return Verdict(moves=moves, undo_to=common if common < len(ours) else None,
                   takebacks=msg["takebacks"])
