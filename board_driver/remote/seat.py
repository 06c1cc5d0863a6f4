"""A seat played from a browser across the internet: keys, links and messages (pure; see
docs/remote.md, "A seat in a browser").

The browser is a remote peer with rights for one seat of one game. It never holds the family's
secret: an invitation carries the **seat key**, `HMAC(secret, "treeboard seat <game> <seat>")`,
in the link's fragment (which no server sees). With it the browser can read what the hosting
board publishes for that seat and propose that seat's moves; nothing else. The board checks
each proposal with the rules (the browser has none) and answers with a reason.

Seat messages are signed over their exact bytes, not over a canonical JSON re-encoding as the
board-to-board messages are: a browser cannot cheaply reproduce Python's canonical JSON
(ensure_ascii escapes, number forms), and an envelope `{"body": TEXT, "sig": HMAC(key, TEXT)}`
needs no agreement on any re-encoding. Topics, under `treeboard/v1/<game id>/seat/<seat>/`:

  `view`      the board -> the browser: the picture, the sentence, the clocks, the choices
              (retained: a tab opened later, or after the broker restarted, reads it at once)
  `play`      the browser -> the board: one proposed move, with the number of moves it follows
  `answer`    the board -> the browser: that proposal played, or refused with the reason
  `presence`  the browser online / offline (its MQTT will), retained
  `takeback`  the browser -> the board: a takeback asked for (its own last move), or its answer
              to the board's request (remote/takeback.py; the board's side is in the view)

The board's own presence (`presence/<its seat>`, the board-to-board message) carries, in a game
with a browser seat, `seat_sig`: `HMAC(seat key, "presence <game> <seat> <online> <nonce>")`,
which the browser checks; a board reads the message as before.

The lobby: `treeboard/v1/lobby/<lobby id>/offer/<game id>`, retained, signed with the **lobby
key** `HMAC(secret, "treeboard lobby")`; the lobby id is the first 16 hex digits of
`HMAC(secret, "treeboard lobby id")` (the topic names no secret). An offer carries its seat key
wrapped for lobby members: `seat key XOR HMAC(lobby key, "wrap <game> <seat>")`.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from board_driver.remote.protocol import PREFIX, RemoteError, check_game_id

#: A seat message (a proposal, a presence) from a browser is small; anything larger is refused
#: before it is parsed. A view (its picture) is larger, but the board makes those.
MAX_SEAT_MESSAGE = 4096
MAX_VIEW = 200 * 1024
_HEX = re.compile(r"^[0-9a-f]{64}$")
_MOVE = re.compile(r"^[\x20-\x7e]{1,64}$")
_ID = re.compile(r"^[0-9a-f]{8,32}$")
_EPOCH = re.compile(r"^[0-9a-f]{16}$")


def _secret(secret: bytes | str) -> bytes:
    raw = secret.encode() if isinstance(secret, str) else secret
    if len(raw) < 8:
        raise RemoteError("the shared secret must be at least 8 bytes")
    return raw


def seat_key(secret: bytes | str, game_id: str, seat: int) -> bytes:
    """The key of one seat of one game: all an invitation carries (never the secret)."""
    if seat not in (0, 1):
        raise RemoteError(f"a seat is 0 or 1; got {seat!r}")
    label = f"treeboard seat {check_game_id(game_id)} {seat}"
    return hmac.new(_secret(secret), label.encode(), hashlib.sha256).digest()


def lobby_key(secret: bytes | str) -> bytes:
    return hmac.new(_secret(secret), b"treeboard lobby", hashlib.sha256).digest()


def lobby_id(secret: bytes | str) -> str:
    return hmac.new(_secret(secret), b"treeboard lobby id", hashlib.sha256).hexdigest()[:16]


def seat_topic(game_id: str, seat: int, what: str) -> str:
    return f"{PREFIX}/{check_game_id(game_id)}/seat/{seat}/{what}"


def offer_topic(lobby: str, game_id: str) -> str:
    return f"{PREFIX}/lobby/{lobby}/offer/{check_game_id(game_id)}"


def _wrapping(lobby: bytes, game_id: str, seat: int, what: str = "") -> bytes:
    # (`what` names what is wrapped: two things wrapped with one pad would give away their XOR)
    label = f"wrap {game_id} {seat}" + (f" {what}" if what else "")
    return hmac.new(lobby, label.encode(), hashlib.sha256).digest()


def wrap(key: bytes, lobby: bytes, game_id: str, seat: int, what: str = "") -> str:
    """`key` (a seat key; with `what`, another secret of at most 32 bytes) as a lobby member,
    and only one, can unwrap it: hex."""
    pad = _wrapping(lobby, game_id, seat, what)
    if len(key) > len(pad):
        raise RemoteError(f"at most {len(pad)} bytes can be wrapped")
    return bytes(a ^ b for a, b in zip(key, pad)).hex()


def unwrap(wrapped: str, lobby: bytes, game_id: str, seat: int, what: str = "") -> bytes:
    pad = _wrapping(lobby, game_id, seat, what)
    return bytes(a ^ b for a, b in zip(bytes.fromhex(wrapped), pad))


def game_login(secret: bytes | str, game_id: str, seat: int) -> tuple[str, str]:
    """The broker account of one seat of one game (docs/remote.md, "What each may touch"):
    named `<game id>/seat/<seat>`, the path of its seat's topics, so Mosquitto's pattern ACL
    (`treeboard/v1/%u/...`) lets it touch that seat's topics and nothing else: not the other
    seat's view, not another game, not a board's topics or the lobby. Its password is derived
    from the secret, so the board, `treeboard invite --game-login` and the lobby's offer
    (wrapped for lobby members) all know it, and the family registers it once on the broker."""
    if seat not in (0, 1) or isinstance(seat, bool):
        raise RemoteError(f"a seat is 0 or 1, not {seat!r}")
    label = f"treeboard broker login {check_game_id(game_id)} seat {seat}".encode()
    return (f"{game_id}/seat/{seat}",
            hmac.new(_secret(secret), label, hashlib.sha256).hexdigest()[:24])


def presence_sig(key: bytes, game_id: str, seat: int, online: bool, nonce: str) -> str:
    """The board's presence as the browser of `seat` checks it (a fixed string: no JSON)."""
    text = f"presence {game_id} {seat} {'online' if online else 'offline'} {nonce}"
    return hmac.new(key, text.encode(), hashlib.sha256).hexdigest()


# --- signed envelopes -----------------------------------------------------------------------

def seal(key: bytes, body: dict[str, Any]) -> bytes:
    """`body` as an envelope signed over the exact text it carries."""
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    sig = hmac.new(key, text.encode(), hashlib.sha256).hexdigest()
    return json.dumps({"body": text, "sig": sig}, separators=(",", ":")).encode()


def open_sealed(key: bytes, payload: bytes, limit: int = MAX_SEAT_MESSAGE) -> dict[str, Any]:
    """The body of an envelope signed with `key`, or RemoteError saying why it is refused."""
    if len(payload) > limit:
        raise RemoteError(f"message of {len(payload)} bytes is over {limit}")
    try:
        outer = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise RemoteError("message is not a signed envelope (JSON)") from None
    if not (isinstance(outer, dict) and isinstance(outer.get("body"), str)
            and isinstance(outer.get("sig"), str)):
        raise RemoteError("message is not a signed envelope")
    want = hmac.new(key, outer["body"].encode(), hashlib.sha256).hexdigest()
    if not hmac.compare_digest(want, outer["sig"]):
        raise RemoteError("bad signature (another seat, another game, or the message was "
                          "altered)")
    try:
        body = json.loads(outer["body"])
    except (ValueError, RecursionError):
        raise RemoteError("the signed body is not JSON") from None
    if not isinstance(body, dict):
        raise RemoteError("the signed body is not an object")
    return body


def check_play(body: dict[str, Any], game_id: str, seat: int) -> dict[str, Any]:
    """A browser's proposal, its fields checked (RemoteError naming the field)."""
    if body.get("type") != "play":
        raise RemoteError(f"expected a play message, got type {body.get('type')!r}")
    if body.get("game_id") != game_id or body.get("seat") != seat:
        raise RemoteError(f"a proposal for game {body.get('game_id')!r} seat "
                          f"{body.get('seat')!r}, not {game_id!r} seat {seat}")
    return _fields(body, "play", [("move", _MOVE), ("id", _ID), ("epoch", _EPOCH)])


def _fields(body: dict[str, Any], kind: str, fields: list[tuple[str, re.Pattern]]
            ) -> dict[str, Any]:
    """`body` with each of `fields` a string its pattern matches and an `index` in range."""
    for key, pattern in fields:
        if not isinstance(body.get(key), str) or not pattern.match(body[key]):
            raise RemoteError(f"{kind} message: {key!r} missing or malformed")
    index = body.get("index")
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index <= 100_000:
        raise RemoteError(f"{kind} message: 'index' missing or out of range")
    return body


def check_takeback(body: dict[str, Any], game_id: str, seat: int) -> dict[str, Any]:
    """A browser's takeback message, its fields checked (RemoteError naming the field): its
    request (`takeback`: `index` the moves it was asked after) or its answer to the board's
    request (`takeback-answer`: `ask` that request's id, `index` the moves it goes back to,
    `accept`)."""
    kind = body.get("type")
    if kind not in ("takeback", "takeback-answer"):
        raise RemoteError(f"expected a takeback message, got type {kind!r}")
    if body.get("game_id") != game_id or body.get("seat") != seat:
        raise RemoteError(f"a takeback for game {body.get('game_id')!r} seat "
                          f"{body.get('seat')!r}, not {game_id!r} seat {seat}")
    fields = [("id", _ID), ("epoch", _EPOCH)]
    if kind == "takeback-answer":
        fields.append(("ask", _ID))
        if not isinstance(body.get("accept"), bool):
            raise RemoteError("takeback-answer message: 'accept' missing or not true/false")
    return _fields(body, kind, fields)


def check_presence(body: dict[str, Any], game_id: str, seat: int) -> bool:
    """A browser's presence: whether it is online."""
    if (body.get("type") != "presence" or body.get("game_id") != game_id
            or body.get("seat") != seat or not isinstance(body.get("online"), bool)):
        raise RemoteError("not a presence message of this seat")
    return body["online"]


# --- links ------------------------------------------------------------------------------------

def invitation(page: str, broker: str, game_id: str, seat: int, key: bytes,
               login: tuple[str, str] | None = None) -> str:
    """The link that grants one seat of one game: the page, then in the fragment (never sent
    to any server) the broker, the game, the seat and the seat's key; and `login`, the
    broker's guest account (its ACL lets it touch seat and lobby topics only), if it has one."""
    _check_urls(page, broker)
    return (f"{page}#broker={quote(broker, safe='')}&game={check_game_id(game_id)}"
            f"&seat={seat}&key={key.hex()}" + _login(login))


def lobby_link(page: str, broker: str, secret: bytes | str,
               login: tuple[str, str] | None = None) -> str:
    """The family's lobby link: lists the offers, takes one. Carries the lobby key only."""
    _check_urls(page, broker)
    return (f"{page}#broker={quote(broker, safe='')}&lobby={lobby_id(secret)}"
            f"&key={lobby_key(secret).hex()}" + _login(login))


def _login(login: tuple[str, str] | None) -> str:
    if login is None:
        return ""
    return f"&user={quote(login[0], safe='')}&pass={quote(login[1], safe='')}"


def _check_urls(page: str, broker: str) -> None:
    if urlsplit(page).scheme not in ("http", "https") or "#" in page:
        raise RemoteError(f"the seat page is an http:// or https:// URL without '#'; got {page!r}")
    if urlsplit(broker).scheme not in ("ws", "wss") or not urlsplit(broker).hostname:
        raise RemoteError(f"the broker for a browser is ws://host:port[/path] or "
                          f"wss://host:port[/path]; got {broker!r}")


def read_link(link: str) -> dict[str, Any]:
    """An invitation's fields (what the seat page reads), checked; RemoteError otherwise."""
    fields = {k: v[0] for k, v in parse_qs(urlsplit(link).fragment).items()}
    key = fields.get("key", "")
    if not _HEX.match(key):
        raise RemoteError("the link's key is not 64 hex digits")
    login = {k: fields[k] for k in ("user", "pass") if k in fields}
    if "lobby" in fields:
        return {"lobby": fields["lobby"], "broker": fields.get("broker"), "key": bytes.fromhex(key),
                **login}
    try:
        seat = int(fields.get("seat", ""))
    except ValueError:
        raise RemoteError("the link names no seat") from None
    return {"broker": fields.get("broker"), "game": check_game_id(fields.get("game", "")),
            "seat": seat, "key": bytes.fromhex(key), **login}
