"""The LED frame, composed in one place: the game's own picture (`views.render`: pieces,
the winner's animation, hints, corrections), then what the board shows around the game: a touch
game's selection, the turn LEDs (with the remote link's state when it is not flowing), the
score bars, and the time the turn's clock next needs a frame.

It reads one `Moment` (board_driver/moment.py: the referee's decisions, frozen) and the layout's
LEDs, and changes nothing: the referee decides, this draws.
"""

from __future__ import annotations

import math
from typing import Any, Hashable

from board_driver.views import CLOCK_WARNINGS as WARNINGS
from board_driver.views import render
from board_driver.views.absence import absent_turn, web_away_turn
from board_driver.views.ending import light_turn
from board_driver.views.base import (FRAME_S, MENU_COLOURS, MENU_CORNER, Colour, Moment, scale,
                                     waiting_breath)

#: The last this many seconds of a timed turn are shown running out.
COUNTDOWN_S = 30.0

#: In a clock's last this many seconds the turn LEDs breathe, from BREATHE_HZ[0] at its start
#: to BREATHE_HZ[1] at 0; a flag fall then alternates the "flag" colour and the winner's.
LAST_S = 10.0
BREATHE_HZ = (1.0, 4.0)
FLAG_HZ = 1.0

#: A touch game's selected site; the taps it offers blink in the "safe" (grow) and "unsafe"
#: (stop a chain) colours.
SELECTED: Colour = (200, 200, 200)
TOUCH_BLINK_HZ = 2.0


#: A part of the daemon that is not up (board_driver/daemon/supervisor.py): the turn LEDs (or,
#: on a board without them, the first site's LED) blink this pattern, in the "unsafe" colour
#: (orange) for a part the board can referee without (the computer, the remote link, the page,
#: the voice)
#: and in the "wrong" colour (red) for its sensors: on, off, on, then dark for the rest of
#: TROUBLE_PERIOD_S. A double blink is never a game's own pattern, so it cannot be mistaken.
TROUBLE_PERIOD_S = 2.0
TROUBLE_ON = ((0.0, 0.2), (0.4, 0.6))


def compose(moment: Moment, layout: Any, now: float, link: str | None = None,
            trouble: str | None = None) -> tuple[dict[Hashable, Colour], float | None]:
    """The whole frame at `now` and when it next changes by itself (None: not until something
    happens). `layout` gives the LEDs beside the sites (its named groups: the turn LEDs, score
    bars); `link` is the remote link's state in words (None: no remote seat); `trouble` is
    "critical" or "part" while a part of the daemon is not up (the supervisor's `troubled()`).
    The moment holds the turn's time left at `now`."""
    state, touch = moment.state, moment.touch
    shown = moment.shown()
    colours, named = moment.settings.colours, layout.named_leds
    if moment.menu is not None:
        return menu_frame(moment.menu, colours, now)
    left = moment.turn_left
    if touch is None:
        frame, wake = render(state, shown, now)
    else:
        frame, wake = render(touch.shown, shown, now)
        frame, wake = touch_selection(touch, frame, wake, colours, now)
        frame = fit_parts(frame, named)
    if left is not None:
        # Wake when the last 30 s begin, then often enough for the views' countdown.
        due = now + left - COUNTDOWN_S if left > COUNTDOWN_S else now + max(0.01, min(left, 0.25))
        wake = due if wake is None else min(wake, due)
    if "turn" in named and "turn" not in frame:  # (a game's view may draw them itself)
        frame["turn"], wake = _turn(state, moment.seats, colours, link, now, wake)
        frame["turn"], wake = _clock_turn(frame["turn"], moment, colours, link, now, wake)
    # A draw on offer, a resignation, a draw agreed (views/ending.py says how they look).
    frame, wake = light_turn(frame, moment.ending, colours, layout, now, wake)
    # A web seat's player to move away (no page holds it), then asked or its clock paused
    # (views/absence.py).
    frame, wake = web_away_turn(frame, moment, layout, now, wake)
    frame, wake = absent_turn(frame, moment.absent, colours, layout, now, wake)
    for player in (0, 1):
        bar = named.get(f"score{player}")
        if bar:
            lit = min(len(bar), state.scores()[player])
            colour = colours[f"player{player}"]
            for i, led in enumerate(bar):
                frame[led] = colour if i < lit else (0, 0, 0)
    if trouble is not None:
        frame, wake = trouble_blink(frame, wake, trouble, colours, layout, now)
    return frame, wake


def trouble_blink(frame: dict, wake: float | None, trouble: str, colours: dict[str, Colour],
                  layout: Any, now: float) -> tuple[dict, float | None]:
    """The double blink of a part that is not up, over the turn LEDs (or the first site)."""
    if "turn" in layout.named_leds:
        key: Hashable = "turn"
    else:
        key = next(iter(layout.leds_of_site), None)
        if key is None:
            return frame, wake
    phase = now % TROUBLE_PERIOD_S
    on = any(a <= phase < b for a, b in TROUBLE_ON)
    edges = [a for pair in TROUBLE_ON for a in pair] + [TROUBLE_PERIOD_S]
    nxt = now - phase + next(e for e in edges if e > phase)
    frame = dict(frame)
    frame[key] = colours["wrong" if trouble == "critical" else "unsafe"] if on else (0, 0, 0)
    return frame, nxt if wake is None else min(wake, nxt)


def _turn(state, seats, colours, link, now, wake) -> tuple[Colour, float | None]:
    over = state.is_over()
    who = state.winner() if over else state.to_move
    colour = colours[f"player{who}"] if who is not None else (64, 64, 64)
    if link is None or link in ("connected", "watching") or over:
        return colour, wake
    # Remote play that is not flowing: "no broker" (or out of step) flashes the "wrong" colour
    # twice a second; "waiting for the other board" breathes slowly in the remote seat's colour.
    if link.startswith(("waiting", "connecting")):
        remote_seat = seats.index("remote") if "remote" in seats else 0
        colour = waiting_breath(colours[f"player{remote_seat}"], now)
    else:
        colour = colours["wrong"] if int(now * 4) % 2 else (0, 0, 0)
    return colour, min(wake or math.inf, now + FRAME_S)


#: The menu's colours (views/base.py: MENU_COLOURS by group, MENU_CORNER) and how dim a choice
#: not made is.
MENU_DIM = 0.35


def menu_frame(menu, colours: dict[str, Colour], now: float
               ) -> tuple[dict[Hashable, Colour], float | None]:
    """The menu (a MenuFace): the corner sites white, each choice in its group's colour (the
    chosen one bright, the others dim), the apply site blinking green; nothing else lit."""
    frame: dict[Hashable, Colour] = {}
    selected = menu.selected
    for site, choice in (menu.sites or {}).items():
        colour = colours[MENU_COLOURS[choice.group]]
        frame[site] = colour if site in selected else scale(colour, MENU_DIM)
    on = int(now * 2) % 2 == 0
    apply_site = next((s for s, c in (menu.sites or {}).items() if c.group == "apply"), None)
    if apply_site is not None:
        frame[apply_site] = colours["safe"] if on else (0, 0, 0)
    for corner in () if menu.game else menu.corners or ():   # (the game menu has none)
        frame[corner] = MENU_CORNER
    return frame, (math.floor(now * 2) + 1) / 2


def _clock_turn(colour: Colour, moment: Moment, colours, link, now: float, wake: float | None
                ) -> tuple[Colour, float | None]:
    """The clocks on the turn LEDs: they breathe, faster and faster, through a clock's last
    LAST_S seconds; once a flag has fallen they alternate the "flag" colour and the winner's."""
    if moment.flagged is not None:
        winner = colours[f"player{1 - moment.flagged}"]
        colour = colours["flag"] if int(now * FLAG_HZ * 2) % 2 == 0 else winner
        half = 1.0 / (FLAG_HZ * 2)
        nxt = (math.floor(now / half) + 1) * half
        return colour, nxt if wake is None else min(wake, nxt)
    left = moment.turn_left
    if left is None or link not in (None, "connected", "watching"):
        return colour, wake
    if left > LAST_S:
        # (a frame at each warning mark too: the sim says it, the voice speaks it)
        due = now + left - max(m for m in (*WARNINGS, LAST_S) if m < left)
        return colour, due if wake is None else min(wake, due)
    # The phase is the time used since the last LAST_S began, so the breath speeds up smoothly.
    used = LAST_S - left
    phase = BREATHE_HZ[0] * used + (BREATHE_HZ[1] - BREATHE_HZ[0]) * used * used / (2 * LAST_S)
    level = 0.15 + 0.85 * (0.5 + 0.5 * math.cos(2 * math.pi * phase))
    nxt = now + FRAME_S
    return scale(colour, level), nxt if wake is None else min(wake, nxt)


def touch_selection(touch, frame: dict, wake: float | None, colours: dict[str, Colour],
               now: float) -> tuple[dict, float | None]:
    """A touch game's selection (a TouchFace) on top of the game's frame, and the next blink
    time."""
    lit: dict[str, Colour] = {}
    flash = touch.flash
    if flash is not None and now < flash[1] and touch.selected is None:
        # a tap that did nothing (or cancelled): its square flashes "no", then the frame returns
        lit[flash[0]] = colours["wrong"]
        wake = flash[1] if wake is None else min(wake, flash[1])
    if touch.selected is None:
        return (_light(frame, lit) if lit else frame), wake
    on = int(now * TOUCH_BLINK_HZ * 2) % 2 == 0
    half = 1.0 / (TOUCH_BLINK_HZ * 2)
    nxt = (int(now / half) + 1) * half
    if touch.choice:
        # an offer: a hold's move or one that loses at once blinks "unsafe" until confirmed
        colour = colours["unsafe"] if touch.confirming else SELECTED
        for site in (touch.selected, touch.choice_target):
            if site is not None and on:
                lit[site] = colour
    else:
        for target in touch.targets:
            if target is not None and on:
                lit[target] = colours["unsafe" if target in touch.stops else "safe"]
        lit[touch.selected] = SELECTED
    return _light(frame, lit), nxt if wake is None else min(wake, nxt)


def _light(frame: dict, lit: dict[str, Colour]) -> dict:
    frame = dict(frame)
    for site, colour in lit.items():
        # the whole square, every LED of it, says "tap here"
        for key in [k for k in frame if isinstance(k, str) and k.startswith(site + ":")]:
            frame[key] = colour
        frame[site] = colour
    return frame


def fit_parts(frame: dict, named_leds: Any) -> dict:
    """The frame without the square parts ("SITE:PART") that this layout has no LEDs for."""
    return {k: v for k, v in frame.items()
            if not (isinstance(k, str) and ":" in k) or k in named_leds}
