"""The board's voice: espeak-ng's WAVs of a traced game are speech in English and Chinese (not
silent, as long as the sentence needs), the queue drops what went stale before it was said, keeps
quiet in quiet hours, and the sim speaks through the daemon's own worker."""

from __future__ import annotations

import array
import datetime
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import wave
from pathlib import Path

import pytest

from board_driver.cli.sim import run_sim
from board_driver import files
from board_driver.config import Voice, sim_config
from board_driver.daemon.speech import PACE, QUEUE_LIMIT, Espeak, Speech, SpeechError
from board_driver.views import words
from board_driver.views.narrate import Said
from tests.full_card import CardFills
from tests.waits import Deadline, scaled, wait_for

if shutil.which("espeak-ng") is None:
    if os.environ.get("CI") == "true":
        raise RuntimeError("espeak-ng is missing: ./dev installs it (apt-get install espeak-ng)")
    pytest.skip("espeak-ng is not installed (./dev test installs it)", allow_module_level=True)

GAME = "place h0.0\nplace v0.0\nlift v0.0\nplace h1.0\nplace v0.0\nplace v0.1\n"


def loudness(path: Path) -> tuple[float, float, float]:
    """(seconds, RMS of the whole, share of 20 ms windows that carry sound) of a 16-bit WAV."""
    with wave.open(str(path)) as w:
        assert w.getsampwidth() == 2 and w.getnchannels() == 1
        rate, frames = w.getframerate(), w.readframes(w.getnframes())
    samples = array.array("h", frames)
    rms = math.sqrt(sum(x * x for x in samples) / max(1, len(samples)))
    step = rate // 50
    windows = [samples[i:i + step] for i in range(0, len(samples), step)]
    voiced = sum(1 for win in windows if max(map(abs, win), default=0) > 1000)
    return len(samples) / rate, rms, voiced / max(1, len(windows))


def expected_seconds(sentence: str, rate: int) -> float:
    """How long a sentence takes at `rate` words a minute: its words, or, in Chinese, its
    characters (a syllable each, which espeak-ng's Mandarin voice paces like words, at the
    language's pace)."""
    han = len(re.findall(r"[\u4e00-\u9fff]", sentence))
    units = han if han else len(sentence.split())
    return units * 60 / (rate * (PACE["zh"] if han else 1))


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_wavs_of_a_traced_game_are_speech(tmp_path, language):
    trace = tmp_path / "game.trace"
    trace.write_text(GAME)
    voices = tmp_path / "voice"
    out = subprocess.run([sys.executable, "-m", "board_driver.cli", "trace", "--language",
                          language, "--voice-dir", str(voices), str(trace)],
                         capture_output=True, text=True, timeout=scaled(120))
    assert out.returncode == 0, out.stderr
    said = [s for line in out.stdout.splitlines() for s in json.loads(line)["said"]]
    wavs = sorted(voices.glob("*.wav"))
    # One WAV for each sentence said, in order, named by its language.
    assert [w.with_suffix(".txt").read_text(encoding="utf-8").strip() for w in wavs] == said
    assert len(said) == 7 and all(w.name.endswith(f"-{language}.wav") for w in wavs)
    for wav, sentence in zip(wavs, said):
        seconds, rms, voiced = loudness(wav)
        want = expected_seconds(sentence, Voice().rate)
        assert rms > 500 and voiced > 0.4, (wav.name, sentence, rms, voiced)
        assert 0.5 * want < seconds < 2.5 * want, (wav.name, sentence, seconds, want)


def voice_dir(tmp_path, **settings) -> Speech:
    voice = Voice(enabled=True, wav_dir=str(tmp_path / "voice"), **settings)
    return Speech(Espeak(voice), voice, "en")


def test_a_move_taken_back_before_it_was_said_is_not_said(tmp_path):
    speech = voice_dir(tmp_path)
    speech.say([Said("move 1: h0.0", "move one", "move", 1)])
    speech.flush()
    speech.say([Said("move 2: v0.0", "move two", "move", 2),
                Said("not a move", "not a move at C one", "fix")])
    speech.say([Said("takeback of v0.0", "takeback of v0.0", "takeback", 2),
                Said("not a move", "not a move at C two", "fix")])
    assert speech.pending() == ["not a move at C two"]   # the newer correction replaced the older
    speech.flush()
    assert [text for text, _ in speech.said] == ["move one", "not a move at C two"]
    assert len(list((tmp_path / "voice").glob("*.wav"))) == 2
    # A takeback of a move already said is said.
    speech.say([Said("takeback of h0.0", "takeback of move one", "takeback", 1)])
    assert speech.pending() == ["takeback of move one"]


def test_the_queue_is_bounded_and_keeps_the_newest(tmp_path):
    speech = voice_dir(tmp_path)
    speech.say([f"sentence {i}" for i in range(QUEUE_LIMIT + 5)])
    waiting = speech.pending()
    assert len(waiting) == QUEUE_LIMIT and waiting[-1] == f"sentence {QUEUE_LIMIT + 4}"
    assert speech.dropped == 5


def test_quiet_hours_keep_the_board_quiet(tmp_path):
    voice = Voice(enabled=True, wav_dir=str(tmp_path / "v"), quiet_hours=(22 * 60, 7 * 60))
    night = Speech(Espeak(voice), voice, "en", now=lambda: datetime.datetime(2026, 1, 1, 23, 5))
    night.say(["move one"])
    night.flush()
    assert not list((tmp_path / "v").glob("*.wav"))
    day = Speech(Espeak(voice), voice, "en", now=lambda: datetime.datetime(2026, 1, 1, 7, 0))
    day.say(["move one"])
    day.flush()
    assert len(list((tmp_path / "v").glob("*.wav"))) == 1


def test_an_engine_that_cannot_speak_says_why_and_the_queue_lives_on(tmp_path):
    with pytest.raises(SpeechError, match="apt-get install espeak-ng"):
        Espeak(Voice(), program="no-such-espeak-ng")
    speech = voice_dir(tmp_path, voice="nosuchvoice")
    speech.start()
    speech.say(["move one"])
    speech.stop()
    assert speech.health == "stopped" and not speech.said
    # The voice dir gone (a full disk, a tmpfs cleared): said why, and the queue goes on.
    gone = voice_dir(tmp_path / "gone")
    shutil.rmtree(tmp_path / "gone")
    gone.say(["move one"])
    gone.flush()
    assert gone.health.startswith("down: ") and not gone.said
    speech = voice_dir(tmp_path, voice="nosuchvoice")
    speech.say(["move one"])
    speech.flush()
    assert speech.health == "down: espeak-ng: Error: The specified espeak-ng voice does not exist."


def test_the_words_beside_a_recording_are_whole_or_absent(tmp_path, monkeypatch):
    """The card fills while the words are written: no empty or half caption is left for a
    reader that lists the folder (CI once read an empty one while it was being written)."""
    speech = voice_dir(tmp_path)
    speech.say(["move one"])
    speech.flush()
    monkeypatch.setattr(files, "os", CardFills(keep=2))
    speech.say(["move two"])
    speech.flush()
    monkeypatch.undo()
    captions = sorted((tmp_path / "voice").glob("*.txt"))
    assert [p.read_text(encoding="utf-8") for p in captions] == ["move one\n"]
    assert not list((tmp_path / "voice").glob("*" + files.PART))
    assert speech.health.startswith("down: ") and "No space left" in speech.health


def test_the_sim_speaks_through_the_daemons_worker_and_repeats(tmp_path):
    config = sim_config(journal=str(tmp_path / "j.sqlite"), language="zh")
    config.voice = Voice(enabled=True, wav_dir=str(tmp_path / "voice"), repeat_moves=2)
    out = io.StringIO()
    read, write = os.pipe()
    hands, lines = os.fdopen(write, "w"), os.fdopen(read)
    done: list[int] = []
    sim = threading.Thread(target=lambda: done.append(run_sim(config, stdin=lines, out=out)),
                           daemon=True)

    def captions():
        return [p.read_text(encoding="utf-8").strip()
                for p in sorted((tmp_path / "voice").glob("*.txt"))]

    try:
        sim.start()
        hands.write("place h0.0\nplace v0.0\nplace h1.0\nrepeat\n")
        hands.flush()
        # Quit once all six are said: a quit gives the voice a few seconds to finish what is
        # queued (Speech.stop), which a loaded machine's espeak-ng may need for one sentence.
        wait_for(lambda: len(captions()) >= 6, timeout=60, what="six sentences said",
                 interval=0.05)
        hands.write("quit\n")
        hands.close()
        sim.join(scaled(30))
        assert done == [0]
    finally:
        lines.close()
        words.use("en")
    said = captions()
    # (aloud, a move without its number: the page shows it)
    assert said[:3] == ["一号玩家：零号行零号格的上槽",
                        "二号玩家：零号行零号格的左槽",
                        "一号玩家：一号行零号格的上槽"]
    # repeat: the last two moves, numbered, then whose turn and the score
    assert said[3:] == ["第二步，二号玩家：零号行零号格的左槽",
                        "第三步，一号玩家：一号行零号格的上槽",
                        "比分0比0，轮到二号玩家"]
    assert "第 3 步：h1.0" in out.getvalue()


def test_the_voice_says_why_the_hinted_move(tmp_path):
    # Hints "best" on a 2x2 Tree Planting board: after h0.0 v0.0 h1.0 the computer's worker
    # finds v0.1 (exact), and the board says why, in Chinese, once.
    config = sim_config(journal=str(tmp_path / "j.sqlite"), language="zh", moves="best",
                        layout="tree-planting-4x4-matrix", game_options={"board": "2x2"})
    config.voice = Voice(enabled=True, wav_dir=str(tmp_path / "voice"))
    out = io.StringIO()
    read, write = os.pipe()
    hands, lines = os.fdopen(write, "w"), os.fdopen(read)
    done: list[int] = []
    sim = threading.Thread(target=lambda: done.append(run_sim(config, stdin=lines, out=out)),
                           daemon=True)
    said: list[str] = []
    try:
        sim.start()
        hands.write("place h0.0\nplace v0.0\nplace h1.0\n")
        hands.flush()
        # (the worker's answer comes when it comes: on a loaded machine, seconds)
        deadline = Deadline(60)
        while not deadline.passed() and not any("围成" in s for s in said):
            said = [p.read_text(encoding="utf-8").strip()
                    for p in sorted((tmp_path / "voice").glob("*.txt"))]
            time.sleep(0.05)
        hands.write("quit\n")
        hands.close()
        sim.join(scaled(30))
        assert done == [0]
    finally:
        lines.close()
        words.use("en")
    said = [p.read_text(encoding="utf-8").strip()
            for p in sorted((tmp_path / "voice").glob("*.txt"))]
    import games
    from board_driver import views

    state = games.get_game("tree-planting").new_state(board="2x2")
    state.play_all(["h0.0", "v0.0", "h1.0"])
    with words.speaking("zh"):
        reason = views.hint_reason(state, state.parse_move("v0.1"))
        sentence = words.tr("hint: {reason}").format(reason=reason)
    assert "v0.1" in reason and not reason.isascii()
    # spoken with the move as a person says it
    with words.speaking("zh"):
        sentence = sentence.replace("v0.1", views.say_move_text(state, "v0.1"))
    assert "v0.1" not in sentence and "零号行一号格的左槽" in sentence
    # said once, after the third move (the hints of the positions before: their own reasons)
    assert said.count(sentence) == 1
    assert said.index(sentence) > said.index("一号玩家：一号行零号格的上槽")


# --- the ALSA path: espeak-ng's --stdout into aplay on [voice] device -------------------------

if shutil.which("aplay") is None and os.environ.get("CI") == "true":
    raise RuntimeError("aplay is missing: ./dev installs it (apt-get install alsa-utils)")
needs_aplay = pytest.mark.skipif(shutil.which("aplay") is None,
                                 reason="aplay is not installed (./dev test installs alsa-utils)")


@needs_aplay
def test_the_speech_thread_plays_through_aplay_on_an_alsa_device(tmp_path):
    # ALSA's null PCM needs no sound card: the whole pipe runs, and nothing is said wrong.
    sentence = "player 1: the top groove of row zero, square zero"
    speech = Speech(Espeak(Voice(enabled=True, device="null")), Voice(device="null"), "en")
    speech.start()
    speech.say([sentence])
    speech.stop()
    assert speech.health == "stopped" and [text for text, _ in speech.said] == [sentence]
    # ALSA's file PCM writes what aplay played: espeak-ng's speech came through the pipe.
    raw = tmp_path / "played.raw"
    device = f"file:'{raw}',raw"
    speech = Speech(Espeak(Voice(enabled=True, device=device)), Voice(device=device), "en")
    speech.start()
    speech.say([sentence])
    speech.stop()
    assert [text for text, _ in speech.said] == [sentence]
    samples = array.array("h", raw.read_bytes())   # espeak-ng: 22050 Hz, 16 bit, mono
    seconds = len(samples) / 22050
    assert 0.5 * expected_seconds(sentence, 160) < seconds < 2.5 * expected_seconds(sentence, 160)
    assert max(map(abs, samples)) > 1000   # sound, not silence


@needs_aplay
def test_a_bad_alsa_device_is_the_voice_down_on_the_board(tmp_path):
    """aplay cannot open the device: the daemon's supervisor shows the voice down, with
    aplay's reason, on the LEDs' turn blinks and the page; the board referees on."""
    import asyncio

    from board_driver.daemon.loop import Daemon
    from board_driver.daemon.notify import Notifier
    from board_driver.daemon.supervisor import DOWN

    config = sim_config(journal=str(tmp_path / "j.sqlite"))
    config.voice = Voice(enabled=True, device="nosuchdevice")
    daemon = Daemon(config, notifier=Notifier(None), new_game=True)

    async def scenario():
        runner = asyncio.ensure_future(daemon.run())
        await asyncio.wait_for(daemon.started.wait(), 30)
        daemon.say("move one")
        part = daemon.supervisor.parts["voice"]
        for _ in range(300):
            if part.state == DOWN:
                break
            await asyncio.sleep(0.1)
        assert part.state == DOWN
        parts, words_down = daemon.door.parts()
        assert words_down == "voice down: device missing", words_down
        why = [p["why"] for p in parts if p["name"] == "voice"][0]   # the page's details
        assert why.startswith("aplay -D nosuchdevice:") and "Unknown PCM nosuchdevice" in why
        assert daemon.supervisor.watchdog_ok()   # the board still referees
        daemon.stop()
        await asyncio.wait_for(runner, 30)

    asyncio.run(scenario())


@pytest.mark.parametrize("rate", [None, 200])
def test_chinese_is_spoken_at_a_natural_pace_at_the_default_rate(tmp_path, rate):
    """espeak-ng at English's words a minute said 2.3 Chinese characters a second (7.4 s for
    the first move's sentence); a native listener hears 4-5 as natural. A rate set faster is
    faster in both languages."""
    voice = Voice(enabled=True) if rate is None else Voice(enabled=True, rate=rate)
    engine = Espeak(voice)
    zh = "第一步，一号玩家：第一行第一格的上槽"
    engine.render(zh, "zh", tmp_path / "zh.wav")
    seconds = loudness(tmp_path / "zh.wav")[0]
    per_second = len(re.findall(r"[\u4e00-\u9fff]", zh)) / seconds
    if rate is None:
        assert 4.0 <= per_second <= 5.2, per_second
    else:
        assert per_second > 5.2, per_second
    en = "move one, player 1: the top groove of row one, square one"
    engine.render(en, "en", tmp_path / "en.wav")   # English as it was: words a minute
    minute = len(en.split()) / loudness(tmp_path / "en.wav")[0] * 60
    assert 0.9 * voice.rate < minute < 1.3 * voice.rate, minute
