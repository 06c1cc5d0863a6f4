"""The page offers the microcontroller's update when its firmware is older than the board's
(board_driver/web/firmware.py), and does it over the bridge's own line while the daemon runs:
the link lends the port, the update writes and checks the files, the board resets and the link
connects again. The device is MicroPython's unix port on a folder playing the Pico's flash
(firmware_bridge/mpy.py's MicroPythonDevice; tests/firmware_bridge/test_firmware_update.py
says what only a Pico can check)."""

from __future__ import annotations

import asyncio
import threading

import aiohttp
import pytest

from board_driver.config import sim_config
from board_driver.daemon.loop import Daemon
from firmware_bridge.firmware import controller
from firmware_bridge.mpy import MicroPythonDevice
from tests.firmware_bridge.flashes import micropython_or_skip, old_flash
from tests.waits import scaled, until
from web_harness import base_url, started

pytestmark = pytest.mark.timeout(180)


@pytest.fixture
def device(tmp_path):
    micropython_or_skip()
    dev = MicroPythonDevice(old_flash(tmp_path / "flash", leds=42))  # the layout's strip
    dev.boot()
    yield dev
    dev.close()


def test_the_page_offers_and_does_the_firmware_update(tmp_path, device):
    cfg = sim_config(journal=str(tmp_path / "j.sqlite"), backend="bridge",
                     bridge_port=device.port, layout="tree-planting-classic-bridge")
    cfg.web_port, cfg.web_token = 0, None
    daemon = Daemon(cfg, new_game=True, web=True)

    def power_cycle_after_reset():
        # A Pico comes back by itself after machine.reset(); the unix port's process ends.
        device.wait_reset(scaled(120))
        device.boot()

    async def firmware(http, lang="en"):
        async with http.get(base_url(daemon) + f"/api/firmware?lang={lang}") as r:
            assert r.status == 200
            return await r.json()

    async def scenario():
        async with started(daemon), aiohttp.ClientSession() as http:
            await until(lambda: daemon.session.hardware.source.firmware_info() is not None,
                        15, "the firmware's INFO")
            before = await firmware(http, "zh")
            reset = threading.Thread(target=power_cycle_after_reset, daemon=True)
            reset.start()
            async with http.post(base_url(daemon) + "/api/firmware/update", json={}) as r:
                answer = (r.status, await r.json())
            reset.join(scaled(60))
            link = daemon.session.hardware.source.link
            await until(lambda: link.firmware_info is not None
                        and link.firmware_info[0] == controller.RELEASE, 30,
                        "the updated firmware's INFO")
            return before, answer, await firmware(http)

    before, answer, after = asyncio.run(scenario())
    assert before["bridge"] and before["release"] == 2 and before["offer"]
    assert before["said"].startswith("微控制器的固件比本棋盘的旧")
    assert answer[0] == 200 and answer[1]["updated"][-1] == "main.py"
    assert after["release"] == controller.RELEASE and not after["offer"] and after["said"] is None
    assert after["last"]["ok"]
    assert (device.files / "boot.py").exists()


def test_a_board_without_a_bridge_has_no_firmware_to_offer(tmp_path):
    from web_harness import running

    async def scenario():
        async with running(tmp_path) as daemon, aiohttp.ClientSession() as http:
            async with http.get(base_url(daemon) + "/api/firmware") as r:
                got = await r.json()
            async with http.post(base_url(daemon) + "/api/firmware/update", json={}) as r:
                return got, r.status

    got, status = asyncio.run(scenario())
    assert got == {"bridge": False} and status == 409
