"""The daemon's part in an update (board_driver/update/): it confirms a trial of itself, and
says what the last update came to.

Confirming waits for all a working board shows: the daemon started (sensors, LEDs and journal
up, the first frame shown, READY sent), its sensors part up, the loop healthy, and, under
systemd's watchdog, one WATCHDOG=1 sent. A version that hangs before that, or never gets its
sensors up, never confirms, and the boot check or the waiting updater rolls it back.

What an update came to is said once, where a person looks: the log, the voice (a sentence of
the catalogs, in the board's language), the page (web/update.py reads the result file), and
for a rollback the LEDs, as a part down ("update") for NOTICE_S seconds.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from board_driver.daemon.supervisor import DOWN, UP, Part
from board_driver.update.trial import Trial
from board_driver.update.updater import running_version
from board_driver.views import words
from board_driver.views.words import N_

log = logging.getLogger("treeboard.update")

POLL_S = 0.25
#: How long the LEDs show a rollback (as a part down) after the board starts.
NOTICE_S = 600.0

SAID = {"confirmed": N_("Updated to version {version}."),
        "rolled-back": N_("The update to version {version} did not work; "
                          "back to version {running}."),
        "interrupted": N_("The update to version {version} was interrupted; "
                          "version {running} runs on.")}


async def watch_update(daemon: Any) -> None:
    """A task beside the daemon's run (started once it has started, before READY is sent):
    says what an update came to, then confirms a trial."""
    await asyncio.sleep(0)   # (READY goes out in the same step as this task is made)
    try:
        await _watch(daemon, Trial(daemon.session.journal.path, running_version()))
    except OSError as exc:   # (the journal's folder unwritable: the board referees on)
        log.error("cannot read or write the update's files beside the journal: %s", exc)


async def _watch(daemon: Any, trial: Trial) -> None:
    news = trial.news()
    if news is not None and news.get("result") != "confirmed":
        tell(daemon, news)
    if trial.mine() is None:
        return
    log.warning("version %s is on trial: it confirms once its sensors are up and the watchdog "
                "is fed", trial.version)
    while not confirmable(daemon):
        await asyncio.sleep(POLL_S)
    trial.confirm()
    tell(daemon, {"result": "confirmed", "version": trial.version})


def confirmable(daemon: Any) -> bool:
    sensors = next((p for p in daemon.supervisor.parts.values() if p.critical), None)
    fed = daemon.notifier.watchdog_interval() is None or daemon.notifier.pings > 0
    return fed and daemon.healthy() and (sensors is None or sensors.state == UP)


def tell(daemon: Any, result: dict[str, Any]) -> None:
    what = result.get("result")
    if what not in SAID:
        return
    fields = {"version": result.get("version"), "running": result.get("running")}
    log.warning("%s%s", SAID[what].format(**fields),
                f" ({result['why']})" if result.get("why") else "")
    with words.speaking(daemon.voice.language or daemon.config.language):
        daemon.say(words.tr(SAID[what]).format(**fields))
    if what == "rolled-back":
        shown_until = daemon.loop.time() + NOTICE_S
        problem = f"rolled back from {fields['version']}: {result.get('why', '')}"

        def check() -> str | None:
            return problem if daemon.loop.time() < shown_until else None

        part = Part("update", check=check, restart=lambda: None)
        part.state, part.why = DOWN, problem
        daemon.supervisor.add(part)
        daemon.show()
