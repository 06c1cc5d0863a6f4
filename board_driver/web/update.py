"""The board's software on the page: `GET /api/update` (the version running, a trial under way,
what the last update came to) and `POST /api/update` (the "Update" button: a control action,
so the token where one is set).

The daemon runs sandboxed as an unprivileged user and cannot install anything itself: the
button writes a request file beside the journal (`update-request`), which systemd's
`treeboard-update.path` watches; it starts `treeboard-update.service`, which runs
`treeboard update --scheduled` as root (docs/service.md, "Updates"). Never mid-game: the
button is refused while the game in progress has a move, and the updater checks again.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from board_driver.update.trial import Trial
from board_driver.update.tree import REQUEST, read_json, write_json
from board_driver.update.updater import running_version


class UpdatePanel:
    """The update's status and button, for the door's board."""

    def __init__(self, door: Any):
        self.door = door

    def add_routes(self, router: web.UrlDispatcher) -> None:
        router.add_get("/api/update", self.get)
        router.add_post("/api/update", self.post)

    def _trial(self) -> Trial:
        return Trial(self.door.session.journal.path, running_version())

    async def get(self, request: web.Request) -> web.Response:
        trial = self._trial()
        request_file = trial.marker.with_name(REQUEST)
        return web.json_response({"version": trial.version, "trial": read_json(trial.marker),
                                  "last": trial.last(), "requested": request_file.exists()})

    async def post(self, request: web.Request) -> web.Response:
        if self.door.session.referee.state.moves:
            raise web.HTTPConflict(reason="a game is in progress: the board updates between "
                                          "games (finish it, or start a new one, then update)")
        trial = self._trial()
        if trial.marker.exists():
            raise web.HTTPConflict(reason="an update is on trial already")
        try:
            write_json(trial.marker.with_name(REQUEST), {"from": "page"})
        except OSError as exc:
            raise web.HTTPServiceUnavailable(reason=f"cannot ask for an update: {exc.strerror}")
        return web.json_response({"requested": True})
