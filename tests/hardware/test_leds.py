"""LED frames: site/index frames, gamma, brightness cap, current limit, writes only on change;
the PixelBuf recording strip; the real neopixel import path."""

import os
import subprocess
import sys
import textwrap

import pytest

from hardware import HardwareError
from hardware.layout import load_layout
from hardware.leds import Leds, RecordingStrip, estimate_milliamps, gamma_table
from tests.waits import scaled

WHITE = (255, 255, 255)


def leds_for(layout, **kw):
    strip = RecordingStrip(layout.led_count, layout.leds.pixel_order)
    return Leds(layout, strip, **kw), strip


def test_a_site_frame_lights_the_sites_leds_and_nothing_else(grid_layout):
    leds, strip = leds_for(grid_layout)
    assert leds.show({"c2": (10, 20, 30), 0: (1, 2, 3), "turn": (0, 0, 9)})
    assert strip.last[3] == (10, 20, 30) and strip.last[0] == (1, 2, 3) and strip.last[9] == (0, 0, 9)
    assert sum(1 for p in strip.last if p != (0, 0, 0)) == 3


def test_the_strip_is_written_only_when_the_corrected_frame_changes(grid_layout):
    leds, strip = leds_for(grid_layout)
    assert leds.show({"a1": (10, 0, 0)})
    assert not leds.show({"a1": (10, 0, 0)})
    assert not leds.show({0: (10, 0, 0)})  # the same pixel, addressed by index
    assert leds.show({"a1": (11, 0, 0)})
    assert len(strip.frames) == 2


def test_recording_strip_sends_bytes_in_the_strips_pixel_order():
    strip = RecordingStrip(2, "GRB")
    strip.show([(1, 2, 3), (4, 5, 6)])
    assert strip.wire[-1] == bytes([2, 1, 3, 5, 4, 6])
    assert strip.last == ((1, 2, 3), (4, 5, 6))
    rgbw = RecordingStrip(1, "GRBW")
    rgbw.show([(7, 8, 9)])
    assert rgbw.wire[-1] == bytes([8, 7, 9, 0])


def test_recording_strip_applies_pixelbufs_own_brightness_like_a_neopixel():
    strip = RecordingStrip(1, "RGB", brightness=0.5)
    strip.show([(200, 100, 0)])
    assert strip.last == ((100, 50, 0),)


def test_closing_blanks_the_strip_once_and_refuses_more_frames():
    strip = RecordingStrip(2)
    strip.show([WHITE, WHITE])
    strip.close()
    strip.close()
    assert strip.last == ((0, 0, 0), (0, 0, 0)) and len(strip.frames) == 2
    with pytest.raises(HardwareError):
        strip.show([WHITE, WHITE])


def test_gamma_darkens_the_middle_and_keeps_the_ends():
    table = gamma_table(2.2)
    assert table[0] == 0 and table[255] == 255 and table[128] == 56


def test_gamma_and_brightness_cap_from_the_layout():
    layout = load_layout("tree-planting-classic-matrix")  # gamma 2.2, brightness 0.4
    leds, strip = leds_for(layout, max_milliamps=1e9)
    leds.show({"h0.0": (128, 255, 0)})
    assert strip.last[layout.leds_of_site["h0.0"][0]] == (round(56 * 0.4), round(255 * 0.4), 0)
    leds.brightness = 1.0  # above the cap
    assert leds.brightness == 0.4


def test_a_frame_over_the_current_budget_is_scaled_down_to_fit(grid_layout):
    leds, strip = leds_for(grid_layout, max_milliamps=300)  # 5 full-white pixels' worth
    all_white = {i: WHITE for i in range(grid_layout.led_count)}
    assert estimate_milliamps([WHITE] * 10) == pytest.approx(600)
    leds.show(all_white)
    assert leds.limited
    assert estimate_milliamps(strip.last) <= 300
    assert estimate_milliamps(strip.last) > 295  # scaled, not blacked out
    assert len({p for p in strip.last}) == 1  # every pixel scaled alike: the hue is kept
    leds.show({0: WHITE})
    assert not leds.limited and strip.last[0] == WHITE


def test_bad_frames_are_refused(grid_layout):
    leds, strip = leds_for(grid_layout)
    with pytest.raises(KeyError, match="past the strip's end"):
        leds.show({10: WHITE})
    with pytest.raises(KeyError, match="'z9' is no LED index, site or named LED"):
        leds.show({"z9": WHITE})
    with pytest.raises(ValueError, match="must be \\(r, g, b\\)"):
        leds.show({"a1": (256, 0, 0)})
    assert strip.frames == [] and strip.shows == 0


def test_a_strip_of_the_wrong_length_is_refused(grid_layout):
    with pytest.raises(HardwareError, match="strip has 3 pixels"):
        Leds(grid_layout, RecordingStrip(3))


def run_blinka(code):
    # Blinka's OS-agnostic board: the real neopixel -> neopixel_write -> Blinka path, with a
    # stand-in board module, in a fresh interpreter so the environment variable is seen first.
    env = dict(os.environ, BLINKA_OS_AGNOSTIC="1")
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, capture_output=True,
                          text=True, timeout=scaled(60),
                          cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))))


def test_the_real_neopixel_import_path_works():
    result = run_blinka("""
        from hardware.leds import NeoPixelStrip
        strip = NeoPixelStrip("NEOPIXEL", 3, "GRB")
        strip.show([(255, 0, 0), (0, 255, 0), (0, 0, 255)])
        print(type(strip._buffer).__module__, *strip._buffer[0])
        strip.close()
        strip.close()
    """)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["neopixel", "255", "0", "0"]


def test_a_pin_the_board_lacks_is_a_clear_error():
    result = run_blinka("""
        from hardware.leds import NeoPixelStrip
        from hardware import HardwareError
        try:
            NeoPixelStrip(18, 3)
        except HardwareError as exc:
            print(exc)
    """)
    assert result.returncode == 0, result.stderr
    assert "no pin D18" in result.stdout
