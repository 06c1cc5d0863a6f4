"""The supervisor (board_driver/daemon/supervisor.py): the mechanism on a simulated clock, then
a real daemon on every kind of layout with each part killed in turn: the board recovers (or
says why, once, on the page's JSON and the LEDs) and no move is lost."""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import time

import aiohttp
import pytest

from board_driver.config import sim_config
from board_driver.daemon.loop import Daemon
from board_driver.daemon.notify import Notifier
from board_driver.daemon.supervisor import DOWN, RESTARTING, UP, Part, Supervisor
from board_driver.referee.journal import Journal
from tests.waits import until, wait_for
from web_harness import started

# --- the mechanism, on a simulated clock ------------------------------------------------------


class Clock:
    def __init__(self):
        self.t = 0.0

    def __call__(self):
        return self.t


def test_a_part_is_restarted_with_backoff_then_down_then_up_again_each_change_logged_once(caplog):
    clock = Clock()
    changes = []
    sup = Supervisor(clock, on_change=lambda: changes.append(sup.troubled()),
                     backoff_initial=1.0, backoff_max=4.0, give_up_after=3)
    broken = {"why": None}
    tries = []
    sup.add(Part("sensors", check=lambda: broken["why"], restart=lambda: tries.append(clock.t),
                 critical=True))
    caplog.set_level(logging.DEBUG, logger="treeboard.supervisor")
    sup.poll()
    assert sup.parts["sensors"].state == UP and sup.troubled() is None and sup.watchdog_ok()
    broken["why"] = "its scan thread died"
    for t in range(0, 30):
        clock.t = t / 2
        sup.poll()
    part = sup.parts["sensors"]
    # restarted at once, then after 1, 2, 4, 4, ... seconds (backoff doubling up to its cap)
    assert tries[:5] == [0.0, 1.0, 3.0, 7.0, 11.0]
    assert part.state == DOWN and "scan thread died" in part.why
    assert not sup.watchdog_ok() and sup.troubled() == "critical"
    broken["why"] = None
    clock.t = 20.0
    sup.poll()
    assert part.state == UP and sup.watchdog_ok() and sup.troubled() is None
    messages = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert [m.split(":")[0].split(" (")[0] for m in messages] == \
        ["sensors stopped", "sensors is down", "sensors is up again"], messages
    assert changes == ["critical", "critical", None]


def test_only_a_critical_part_that_stays_down_withholds_the_watchdog():
    clock = Clock()
    sup = Supervisor(clock, backoff_initial=1.0, backoff_max=1.0, give_up_after=1)
    sup.add(Part("computer", check=lambda: "its process died", restart=lambda: None))
    sup.add(Part("sensors", check=lambda: None, restart=lambda: None, critical=True))
    for t in range(5):
        clock.t = t
        sup.poll()
    assert sup.parts["computer"].state == DOWN
    assert sup.watchdog_ok() and sup.troubled() == "part"
    # A reason the part cannot classify stays out of the player's line (the log and the
    # page's details have it).
    assert sup.down_words() == "computer down"
    assert sup.down_details() == "computer down: its process died"


def test_a_part_down_says_its_trouble_in_a_few_translated_words():
    from board_driver.views import words
    from hardware.base import MISSING, SILENT, Problem

    clock = Clock()
    sup = Supervisor(clock, backoff_initial=1.0, backoff_max=1.0, give_up_after=1)
    raw = "bridge on /dev/ttyACM0: no heartbeat or change from the firmware for 3.0 s"
    sup.add(Part("bridge", check=lambda: Problem(raw, SILENT), restart=lambda: None,
                 critical=True))

    def cannot():
        raise OSError("espeak-ng vanished")

    sup.add(Part("voice", check=lambda: Problem("espeak-ng is not installed", MISSING),
                 restart=cannot))
    sup.poll()
    assert sup.down_words() == "bridge restarting: no answer; voice restarting: device missing"
    with words.speaking("zh"):
        said = sup.down_words()
    assert said == "微控制器连接正在重启：没有回应；声音正在重启：找不到设备", said
    # The program's own reason, whole, for the log and the page's details
    parts = {p["name"]: p for p in sup.summary()}
    assert parts["bridge"]["why"] == raw and parts["bridge"]["trouble"] == "silent"
    assert "espeak-ng vanished" in parts["voice"]["why"]   # (a restart that failed)
    assert parts["voice"]["trouble"] == "missing"           # keeps its kind
    assert raw in sup.down_details()


def test_a_restart_that_raises_says_why_and_a_reported_death_is_restarted():
    clock = Clock()
    sup = Supervisor(clock, backoff_initial=1.0)
    state = {"dead": False}

    def restart():
        raise OSError("no such file")

    sup.add(Part("remote link", check=lambda: "task ended" if state["dead"] else None,
                 restart=restart))
    state["dead"] = True
    sup.poll()
    part = sup.parts["remote link"]
    assert part.state == RESTARTING and part.why == "task ended; restart failed: OSError: no such file"
    # a death someone met (the worker's BrokenProcessPool) that the check cannot see
    revived = []
    sup.add(Part("computer", check=lambda: None, restart=lambda: revived.append(1)))
    sup.report("computer", "its process died")
    sup.poll()
    assert revived == [1] and sup.parts["computer"].state == RESTARTING
    sup.poll()
    assert sup.parts["computer"].state == UP
    with pytest.raises(ValueError, match="supervised already"):
        sup.add(Part("computer", check=lambda: None, restart=lambda: None))


# --- a real daemon, every part killed in turn ----------------------------------------------------

FAST = dict(backoff_initial=0.05, backoff_max=0.5, give_up_after=6)


def changes_of(state, move) -> dict[str, str | None]:
    before = state.occupancy()
    after_state = state.copy()
    after_state.play(move)
    after = after_state.occupancy()
    return {s: after.get(s) for s in before.keys() | after.keys() if before.get(s) != after.get(s)}


async def hands(daemon, changes: dict[str, str | None]) -> None:
    """Put pieces on or lift them off, from another thread, as a player's hands would."""
    board = daemon.session.hardware.board

    def act():
        for site, kind in sorted(changes.items(), key=lambda sk: (sk[1] is None, sk[0])):
            if kind is None:
                board.lift(site)
            else:
                board.place(site, kind)
    await asyncio.get_running_loop().run_in_executor(None, act)


async def human_move(daemon) -> None:
    ref = daemon.session.referee
    sensed = set(ref.sensed)
    for move in ref.state.legal_moves():
        changes = changes_of(ref.state, move)
        if changes and set(changes) <= sensed:
            await hands(daemon, changes)
            return
    raise AssertionError("no legal move the sensors can see")


async def match_board(daemon) -> None:
    """Make the computer's move on the board (the pieces the LEDs ask for)."""
    ref = daemon.session.referee
    want = ref.state.occupancy()
    await hands(daemon, {s: want.get(s) for s in ref.sensed if want.get(s) != ref.physical.get(s)})
    await until(lambda: not ref.corrections and not ref.completions, 30, "the board to agree")


def kill_sensors(daemon) -> str:
    """Kill the part the board reads its sensors with, as it dies in the field."""
    source = daemon.session.hardware.source
    if daemon.config.backend == "bridge":
        link = source.link
        receive = link._receive

        def dies(data):  # a bug in the link thread, once
            link._receive = receive
            raise RuntimeError("a bug in the link thread")
        link._receive = dies
        return "bridge"
    from hardware.sensors import PinSource, _PolledSource
    for part in source.sources:
        if isinstance(part, _PolledSource):
            read_all = part._read_all

            def dies(part=part, read_all=read_all):  # the scan thread dies, once
                part._read_all = read_all
                raise OSError("the scan thread met an I/O error")
            part._read_all = dies
        elif isinstance(part, PinSource):
            for device in part._devices.values():  # gpiozero's edge callbacks stop
                device.when_activated = device.when_deactivated = None
    return "sensors"


LAYOUTS = ["tree-planting-classic-matrix", "tree-planting-classic-pins", "treeblox-adc",
           "tree-planting-classic-bridge"]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_killing_each_part_in_turn_the_board_recovers_and_loses_nothing(tmp_path, layout, monkeypatch,
                                                                       caplog):
    import threading

    monkeypatch.setattr(threading, "excepthook", lambda args: None)  # the deaths are the point
    journal = str(tmp_path / "j.sqlite")
    extra = dict(backend="bridge", bridge_port="sim") if layout.endswith("bridge") else {}
    config = sim_config(journal=journal, layout=layout, **extra)
    config.players = ("human", "computer:easy")
    config.web_port = 0
    daemon = Daemon(config, notifier=Notifier(None), new_game=True, web=True, supervision=FAST)
    recovered: dict[str, float] = {}
    caplog.set_level(logging.WARNING)

    async def scenario():
        async with started(daemon):
            ref = daemon.session.referee
            sup = daemon.supervisor
            moves = lambda: len(ref.state.moves)  # noqa: E731

            await human_move(daemon)
            await until(lambda: moves() >= 2, 30, "the computer's first move")
            await match_board(daemon)

            # 1. the computer's worker, killed (the OOM killer) while idle: its next search meets
            # a broken pool inside the redraw; the supervisor starts a new worker and it plays.
            for child in multiprocessing.active_children():
                os.kill(child.pid, signal.SIGKILL)
            killed = time.monotonic()
            await human_move(daemon)
            await until(lambda: moves() >= 3, 30, "the player's move after the worker died")
            await until(lambda: moves() == 4, 30, "the computer's move from a new worker")
            recovered["computer"] = time.monotonic() - killed
            assert sup.parts["computer"].total_restarts >= 1
            await match_board(daemon)

            # 2. the sensors' thread (or callbacks, or the bridge's link thread), killed; a piece
            # placed meanwhile is not lost.
            name = kill_sensors(daemon)
            killed = time.monotonic()
            part = sup.parts[name]
            if name == "bridge":  # the thread dies as the next bytes arrive
                # (seen down, or already restarted: the supervisor may bring it back between
                # two looks of a loaded machine's test; CI once missed a 0.2 s down)
                await until(lambda: part.state != UP or part.total_restarts >= 1, 30,
                            "the bridge link's death to be seen")
            await human_move(daemon)
            await until(lambda: part.total_restarts >= 1, 30, f"the {name} to be restarted")
            await until(lambda: part.state == UP, 30, f"the {name} to be up again")
            await until(lambda: moves() >= 5, 30, "the move made while the sensors were dead")
            recovered[name] = time.monotonic() - killed
            await until(lambda: moves() >= 6, 30, "the computer's next move")
            await match_board(daemon)

            # 3. the page's listening socket, closed under it: served again.
            daemon.web._listener._server.close()
            killed = time.monotonic()
            await until(lambda: sup.parts["page"].total_restarts >= 1, 30,
                        "the page to be restarted")
            await until(lambda: sup.parts["page"].state == UP and daemon.web is not None, 30,
                        "the page to be served again")
            recovered["page"] = time.monotonic() - killed
            async with aiohttp.ClientSession() as http:
                async with http.get(f"http://127.0.0.1:{daemon.web.port}/api/state") as resp:
                    body = await resp.json()
            assert resp.status == 200
            assert {p["name"]: p["state"] for p in body["parts"]} == \
                {name: "up", "journal": "up", "page": "up", "computer": "up"}
            assert body["parts_down"] is None
            played = [str(m) for m in ref.state.moves]
        return played

    played = asyncio.run(scenario())
    # (six at least: the computer's sixth move may close a square and earn it another)
    assert len(played) >= 6
    with Journal(journal) as saved:
        assert saved.current().moves == played  # every move journaled, none twice
    print(f"{layout}: recovery after a kill (s): " +
          ", ".join(f"{k} {v:.2f}" for k, v in recovered.items()))
    said = [r.getMessage() for r in caplog.records if r.name == "treeboard.supervisor"]
    assert any(m.startswith("computer stopped") for m in said)
    assert any(m.startswith("page is up again") for m in said)


def test_a_part_that_is_not_up_shows_on_the_leds_as_a_double_blink(tmp_path):
    from board_driver.referee.session import open_session
    from board_driver.views.frame import TROUBLE_PERIOD_S

    config = sim_config(journal=str(tmp_path / "j.sqlite"))
    session = open_session(config, clock=lambda: 0.0, autoscan=False)
    try:
        ref, named = session.referee, session.layout.named_leds
        red, orange = config.colours["wrong"], config.colours["unsafe"]
        fine = ref.frame(0.1)[0]["turn"]
        assert fine not in (red, orange)
        for trouble, colour in (("critical", red), ("part", orange)):
            seen = [ref.frame(t * TROUBLE_PERIOD_S / 20, trouble=trouble)[0]["turn"]
                    for t in range(20)]
            # on, off, on, then dark: two blinks a period
            blinks = sum(1 for a, b in zip([(0, 0, 0)] + seen, seen) if b == colour and a != colour)
            assert blinks == 2, seen
        assert "turn" in named
    finally:
        session.close()


# --- the other silent deaths of the issue -------------------------------------------------------

def test_game_for_the_trees_against_the_computer_plays_again_after_a_new_game_or_a_takeback(tmp_path):
    """A touch game has no pieces to wait for: a new game or a page's takeback must not hold
    the computer for ever (it did: `_hold` was set and only the piece path cleared it)."""
    from concurrent.futures import Future

    from board_driver.referee.seats import ComputerSeat
    from board_driver.referee.tracer import Tracer

    t = Tracer(sim_config(journal=str(tmp_path / "j.sqlite"), layout="game-for-the-trees-matrix"))
    try:
        asked = []

        def submit(fn, *args):
            asked.append(args)
            return Future()   # never answers: only whether it is asked matters

        referee = t.referee
        # (seat 0's moves come in as another seat's would: a touch move needs taps otherwise)
        referee.set_seats(("remote", "computer:easy"))
        seat = ComputerSeat(referee, {1: games_level()}, submit=submit,
                            call_soon=lambda fn, *a: fn(*a), clock=lambda: 0.0)
        first = referee.state.legal_moves()[0]
        referee.play_for_seat(str(first), 0.0, "remote")
        seat.poke()
        assert len(asked) == 1 and not referee.holding
        t.door.takeback()
        assert not referee.holding
        referee.play_for_seat(str(referee.state.legal_moves()[1]), 0.0, "remote")
        seat.poke()
        assert len(asked) == 2   # thinks again after the takeback
        t.door.new_game()
        assert not referee.holding
        referee.play_for_seat(str(referee.state.legal_moves()[0]), 0.0, "remote")
        seat.poke()
        assert len(asked) == 3   # and after a new game
    finally:
        t.close()


def games_level():
    import games.ai
    return games.ai.level("easy")


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def remote_config(tmp_path, **extra):
    config = sim_config(journal=str(tmp_path / "j.sqlite"))
    config.players = ("human", "remote")
    config.remote = {"broker": f"mqtt://127.0.0.1:{free_port()}", "game": "kitchen-1",
                     "secret": "a shared secret", **extra}
    return config


def test_a_missing_ca_file_is_the_configs_mistake_named_at_start(tmp_path):
    from board_driver.config import ConfigError

    config = remote_config(tmp_path, ca_file=str(tmp_path / "no-such-ca.pem"))
    with pytest.raises(ConfigError, match=r"remote.ca_file: expected a readable file of PEM "
                                          r"certificates .*no-such-ca.pem: No such file"):
        asyncio.run(Daemon(config, notifier=Notifier(None)).run())
    (tmp_path / "junk.pem").write_text("not a certificate\n")
    config = remote_config(tmp_path, ca_file=str(tmp_path / "junk.pem"))
    with pytest.raises(ConfigError, match=r"remote.ca_file: .*junk.pem"):
        asyncio.run(Daemon(config, notifier=Notifier(None)).run())


def test_the_remote_links_task_that_dies_is_restarted_and_says_why(tmp_path, caplog):
    """The link's task dies (its CA file vanished since the start): the supervisor says why,
    once, on the page's JSON and the log, restarts it with backoff, and the link comes back
    when the file does."""
    import dataclasses

    ca = tmp_path / "ca.pem"
    config = remote_config(tmp_path)
    daemon = Daemon(config, notifier=Notifier(None), new_game=True,
                    supervision=dict(backoff_initial=0.02, backoff_max=0.1, give_up_after=3))
    caplog.set_level(logging.WARNING)

    async def scenario():
        async with started(daemon):
            sup, link = daemon.supervisor, daemon.remote
            part = sup.parts["remote link"]
            await until(lambda: link.status == "no broker", 30, "the link to find no broker")
            settings = link.settings
            # the next reconnect meets a CA file that is not there
            link.settings = dataclasses.replace(settings, tls=True, ca_file=str(ca))
            await until(lambda: part.state == DOWN, 30, "the remote link to be down")
            assert "FileNotFoundError" in part.why and sup.troubled() == "part"
            parts, words = daemon.door.parts()
            assert words == "remote link down: stopped working"   # the player's few words
            # and the program's own reason in the page's details
            assert [p["why"] for p in parts if p["name"] == "remote link"][0].startswith(
                "FileNotFoundError")
            assert sup.watchdog_ok()  # the board still referees its own moves
            link.settings = settings   # mended
            await until(lambda: part.state == UP, 30, "the remote link to be up again")
            await until(lambda: daemon.remote_part.problem() is None, 30, "the link's task to run")

    asyncio.run(scenario())
    said = [r.getMessage() for r in caplog.records if r.name == "treeboard.supervisor"]
    assert [m.split(":")[0].split(" (")[0] for m in said] == \
        ["remote link stopped", "remote link is down", "remote link is up again"], said


def test_a_game_whose_sites_the_layout_lacks_is_refused_at_start_naming_the_key(tmp_path):
    """It crashed at the first frame with a KeyError ('h0.0' is no LED index ...)."""
    from board_driver.config import ConfigError
    from board_driver.referee.session import open_session

    config = sim_config(journal=str(tmp_path / "j.sqlite"), layout="grid-8x8-matrix",
                        game="tree-planting")
    with pytest.raises(ConfigError, match=r"game: expected a game whose sites layout "
                                          r"grid-8x8-matrix has sensors for .*h0\.0.*"
                                          r"tree-planting-classic-matrix"):
        open_session(config, clock=lambda: 0.0, autoscan=False)
    assert not (tmp_path / "j.sqlite").exists()  # refused before anything was opened


def test_a_restarted_simulated_bridge_board_comes_up_with_its_pieces_in_place(tmp_path):
    """The simulated firmware came up empty and got the restored pieces only after the board
    had resynced: a one-move game journaled an undo and the move again."""
    journal = str(tmp_path / "j.sqlite")

    def config():
        return sim_config(journal=journal, backend="bridge", bridge_port="sim",
                          layout="tree-planting-classic-bridge")

    async def play_one():
        daemon = Daemon(config(), notifier=Notifier(None), new_game=True)
        async with started(daemon):
            await hands(daemon, {"h0.0": "rod"})
            await until(lambda: len(daemon.session.referee.state.moves) == 1, 30,
                        "the first move")

    async def restart():
        daemon = Daemon(config(), notifier=Notifier(None))
        async with started(daemon):
            ref = daemon.session.referee
            # the firmware's scans reach the referee and settle (a debounce and more)
            link = daemon.session.hardware.source.link
            seen = link.stats["snapshots"]
            await until(lambda: link.stats["snapshots"] > seen or ref.physical.get("h0.0"), 30,
                        "the firmware's board")
            await until(lambda: ref.next_deadline() is None, 30, "the sensors to settle")
            moves = [str(m) for m in ref.state.moves]
            physical = ref.physical.get("h0.0")
        return moves, physical

    asyncio.run(play_one())
    moves, physical = asyncio.run(restart())
    assert moves == ["h0.0"] and physical is not None
    with Journal(journal) as saved:
        game = saved.current()
        assert game.moves == ["h0.0"] and game.events == 1   # no undo, no second h0.0


def test_revive_brings_back_edge_callbacks_and_a_dead_scan_thread_with_what_was_missed(monkeypatch):
    """`SensorSource.revive()`, what the supervisor calls for the sensors: gpiozero's edge
    callbacks set again (the change missed meanwhile reported), a scan thread started again
    (the change made while it was dead reported by its first scan)."""
    import threading

    from hardware.layout import load_layout
    from hardware.sensors import STALL_S, MatrixSource, PinSource
    from hardware.sim import SimulatedBoard

    monkeypatch.setattr(threading, "excepthook", lambda args: None)
    board = SimulatedBoard(load_layout("tree-planting-classic-pins"), autoscan=True)
    pins = next(s for s in board.source.sources if isinstance(s, PinSource))
    matrix = next(s for s in board.source.sources if isinstance(s, MatrixSource))
    now = [500.0]
    pins.monotonic = lambda: now[0]
    events = []
    board.source.start(events.append)
    try:
        gpio = board.layout.channels_of_site["t0.0"][0]
        for device in pins._devices.values():
            device.when_activated = device.when_deactivated = None
        read_all = matrix._read_all

        def dies():
            matrix._read_all = read_all
            raise OSError("row driver shorted")
        matrix._read_all = dies
        assert wait_for(lambda: not matrix._thread.is_alive())
        board.place("t0.0")       # a hole on a pin: no edge comes
        board.place("h0.0")       # a groove on the matrix: no scan sees it
        board.source.health()
        now[0] += STALL_S + 0.5
        assert board.source.health() is not None
        board.source.revive()
        assert wait_for(lambda: {e.channel for e in events} >= {gpio, *board.layout.channels_of_site["h0.0"]})
        assert board.source.health() is None and matrix._thread.is_alive()
        board.lift("t0.0")       # and the edges reach us again
        assert wait_for(lambda: events[-1].channel == gpio and events[-1].value is None)
    finally:
        board.close()


def speaking_daemon(tmp_path) -> Daemon:
    """A simulated board whose voice writes WAVs, its parts retried within a fraction of a
    second."""
    from board_driver.config import Voice

    config = sim_config(journal=str(tmp_path / "j.sqlite"))
    config.voice = Voice(enabled=True, wav_dir=str(tmp_path / "voice"))
    return Daemon(config, notifier=Notifier(None), new_game=True,
                  supervision=dict(backoff_initial=0.05, backoff_max=0.2))


def test_the_voice_worker_that_dies_is_restarted_and_said(tmp_path, caplog, monkeypatch):
    """The speech worker's thread dies of a bug (not an engine's refusal, which it survives):
    the supervisor names it, starts the worker again, and the board speaks on."""
    import threading

    monkeypatch.setattr(threading, "excepthook", lambda args: None)
    daemon = speaking_daemon(tmp_path)
    caplog.set_level(logging.WARNING)

    async def scenario():
        async with started(daemon):
            speech, part = daemon.speech, daemon.supervisor.parts["voice"]
            speak = speech._speak

            def dies(u):
                speech._speak = speak
                raise RuntimeError("a bug in the voice")
            speech._speak = dies
            daemon.say("the first sentence")
            await until(lambda: part.total_restarts >= 1, 30, "the voice to be restarted")
            daemon.say("the second sentence")
            await until(lambda: any(t == "the second sentence" for t, _ in speech.said), 30,
                        "the second sentence said")
            await until(lambda: part.state == UP, 30, "the voice up again")

    asyncio.run(scenario())
    said = [r.getMessage() for r in caplog.records if r.name == "treeboard.supervisor"]
    assert any(m.startswith("voice stopped: a bug in the voice") for m in said), said


def test_a_voice_without_espeak_ng_is_a_part_down_and_speaks_once_it_is_installed(
        tmp_path, caplog, monkeypatch):
    """[voice] enabled on a board without espeak-ng: the voice is down on the page's parts and
    the LEDs (device missing), said in one log line; the board referees on, and the voice
    speaks once espeak-ng is there (the supervisor tries again)."""
    import shutil

    espeak = shutil.which("espeak-ng")
    bare = tmp_path / "bin"
    bare.mkdir()
    monkeypatch.setenv("PATH", str(bare))   # no espeak-ng on it
    daemon = speaking_daemon(tmp_path)
    caplog.set_level(logging.INFO)

    async def scenario():
        runner = asyncio.ensure_future(daemon.run())
        await asyncio.wait_for(daemon.started.wait(), 30)
        parts, words_down = daemon.door.parts()
        voice = [p for p in parts if p["name"] == "voice"]
        assert voice and voice[0]["state"] == DOWN and "espeak-ng" in voice[0]["why"], parts
        assert voice[0]["trouble"] == "missing" and words_down == "voice down: device missing"
        assert daemon.supervisor.troubled() == "part" and daemon.supervisor.watchdog_ok()
        assert daemon.voice_settings()["health"].startswith("down: espeak-ng is not installed")
        await asyncio.sleep(0.5)   # retried, still missing: nothing more in the log
        said = [r.getMessage() for r in caplog.records if "espeak-ng" in r.getMessage()]
        assert len(said) == 1 and said[0].startswith("voice is down: espeak-ng"), said
        if espeak is None:
            assert os.environ.get("CI") != "true", "espeak-ng is missing: ./dev installs it"
            pytest.skip("espeak-ng is not installed here: the voice cannot come back")
        (bare / "espeak-ng").symlink_to(espeak)   # installed meanwhile
        await until(lambda: daemon.supervisor.parts["voice"].state == UP, 30, "the voice up")
        daemon.say("now I speak")
        await until(lambda: any(t == "now I speak" for t, _ in daemon.speech.said), 30,
                    "the sentence said")
        daemon.stop()
        await asyncio.wait_for(runner, 30)

    asyncio.run(scenario())
