"""The companion page: the board live in any browser, the entries no sensor can see, game
control. Served by aiohttp from the daemon's own loop (`server.WebServer`); `snapshot` reads
what the page shows from the referee; `static/` holds the page itself (HTML, JS, CSS: no CDN,
works offline).

Owns the page's connections and its caches, no game state: it acts only through the board's
door (`referee.door.Door`) and reads the referee. May import: games, games.ai, the referee,
views and records rooms, config; never the daemon, remote or cli. `library.py` is the page's
library (board_driver/records/: the journal's games searched, a record downloaded or imported);
`play.py` a web seat's moves (POST /api/play, GET /api/entry); `presence.py` whether a web
seat's player is there (the pages holding it).

API (JSON; control actions need `X-Treeboard-Token` when the config sets web.token):
    GET  /api/state                 {"game", "corrections", "leds", ...what the page needs}
    POST /api/enter {"site","kind"} a piece where no sensor sees it (Treeblox above the board)
    POST /api/press {"button"}      end_turn
    POST /api/takeback              the last move (in a remote game: asked of the other board)
    POST /api/takeback-answer {"answer"}   accept | refuse the other board's takeback request
    POST /api/remote/join {"broker","game","seat","secret"}   play (seat 0 or 1) or watch a
                                    remote game (docs/remote.md); kept across restarts
    POST /api/remote/leave          both seats played here again
    POST /api/invitation            {"link","qr"}: the invitation to the browser's seat of the
                                    game this board hosts (docs/remote.md), and its QR code
    GET  /api/lobby                 the games the family's boards offer in the lobby now
    POST /api/lobby/take {"game"}   take one: play its open seat as a remote board (web/lobby.py)
    POST /api/new-game {options}    start over (same game; its options may change)
    POST /api/hint {"mode"}         off | legal | safe (| best)
    POST /api/seats {"seat","player"}   seat 0 or 1 played by human | web | computer:LEVEL
                                    (beginner, easy, medium, hard, strongest; perfect:
                                    strongest), at once; not in a remote game
    POST /api/play {"move"}         a web seat's move, in the game's notation (web/play.py):
                                    409 with the reason out of turn or against the rules
    POST /api/presence {"tab","seats"}   a page (tab: hex id) holds the web seats ("1", "0 1",
                                    "none": lets go): their player is there (web/presence.py)
    GET  /api/presence              {"held", "away"}: the web seats held, and those away
    GET  /api/entry                 the entry model: every move the mover may make with the
                                    taps on the pictures' [data-site] ids (views/entry.py)
    POST /api/resign {"seat"?}      a seat played here resigns (web/endings.py)
    POST /api/draw {"seat"?}        a seat played here offers a draw
    POST /api/draw-answer {"answer"}   accept | refuse a draw a person here is asked
    POST /api/away                  the game put away (a new game starts)
    POST /api/take-up {"id"}        a game put away taken up again
    GET  /api/away                  the games put away
    POST /api/absent {"choice"}     the player to move away: pause | wait | claim | draw
    GET  /api/picture3d?turn=N      the 3D picture turned N quarter turns (Treeblox)
    GET  /api/games                 the journal's finished games (played at this board)
    GET  /api/library?game=&player=&result=&ended=&from=&to=   the library: every game no
                                    longer in progress, imported ones too, searched (records)
    GET  /api/games/<id>/record     its SGF record (?format=json), with the page's review
    POST /api/records {"name","data"}   a record file (base64) imported: all its games or none
    GET  /api/games/<id>            one as its replay object (?download=1: as a file)
    GET  /api/games/<id>/position?move=N   its picture after N moves
    GET  /api/games/<id>/review     {"moves": [{"n","player","move","before","after","exact",
                                    "best","changed_result","loss"}]} (games.ai.review; the
                                    computer's worker, some seconds the first time; cached)
    GET  /api/kit/<file>            the maker's kit of this board (web/kit.py): parts.csv,
                                    wiring.svg, template.svg, as `treeboard kit` writes them
    GET  /ws                        the state, pushed after every change (?tab=ID: a page that
                                    may hold a web seat; its closing lets the seat go)
A refusal is a 4xx with {"error": "<the reason a player can read>"}, and changes nothing.
"""

from board_driver.web.server import WebServer

__all__ = ["WebServer"]
