"""The board's voice: what the narrator says (views/narrate.py), spoken by espeak-ng, off the
sensor path.

    Speech(engine, voice_settings, language)   owned by the daemon; start() / stop()
    speech.say(items)                          from the loop: never blocks, never waits
    speech.health                              "up", "stopped", or "down: why" (the supervisor's)

One worker thread takes utterances from a bounded queue and hands them to the engine: to the
audio device (espeak-ng's sound piped to ALSA's `aplay -D DEVICE`) or, where there is no audio
device (CI, a laptop without one, `--voice-dir`), as one WAV file per utterance. Newer speech
supersedes what went stale before it was said: a move taken back before it was spoken is not
spoken (nor is its takeback), a newer correction or score replaces a waiting one, and a full
queue drops its oldest sentence, never the newest.

The engine is a small interface (`Engine`: `render` to a WAV, `play` aloud): a better voice (a
neural one, where its model files are installed) replaces `Espeak` without touching a sentence.
"""

from __future__ import annotations

import datetime
import logging
import shutil
import subprocess
import threading
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Protocol

from board_driver.config import Voice
from board_driver.files import write_whole
from hardware.base import DIED, MISSING, SILENT, Problem
from treeboard.exc import TreeboardError

log = logging.getLogger("treeboard.speech")

#: The espeak-ng voice of a language whose code is not espeak-ng's name for it (`espeak-ng
#: --voices=LANG`). Which languages the board speaks is its catalogs' (views/words.py); any
#: other one is spoken by the voice its code names (fr -> espeak-ng's "fr").
ESPEAK_VOICES = {"en": "en-gb", "zh": "cmn"}
#: How much faster than [voice] rate (words a minute, as English counts them) a language is
#: spoken, so that the same rate sounds as natural to each language's listeners. espeak-ng paces
#: Mandarin a syllable (a character) at a time as if it were a word: at English's 160 a minute
#: it said 2.3 characters a second, half what a native listener finds natural (4-5); at 1.85
#: times, 4.5 (benchmarks/voice_rate.py measures both). Any other language: 1.
PACE = {"zh": 1.85}
#: How many utterances may wait; past this the oldest goes (a voice minutes behind is no help).
QUEUE_LIMIT = 16
#: How many WAV files a voice dir keeps (the oldest go first): a board runs for months.
WAV_LIMIT = 500
#: The longest an engine may take over one utterance before it is called stuck.
ENGINE_TIMEOUT_S = 30.0


class SpeechError(TreeboardError, RuntimeError):
    """The engine could not say something (missing program, device busy, timeout); `kind`, as
    `hardware.base.Problem`'s, where it is known (a missing program: MISSING; a timeout:
    SILENT)."""

    def __init__(self, message: str, kind: str | None = None):
        super().__init__(message)
        self.kind = kind


class Engine(Protocol):
    def render(self, text: str, language: str, path: Path) -> None:
        """Write `text`, spoken in `language`, as a WAV file at `path`."""

    def play(self, text: str, language: str) -> None:
        """Say `text` aloud on the audio device; returns when it has been said."""

    def configure(self, voice: Voice) -> None:
        """The [voice] settings (voice, rate, volume, device) for the next utterance."""


class Espeak:
    """espeak-ng (Debian's package): offline, small, Mandarin among its voices."""

    def __init__(self, voice: Voice, program: str = "espeak-ng", player: str = "aplay"):
        self.settings = voice
        self.program = shutil.which(program)
        self.player = player
        nice = shutil.which("nice")
        self._nice = [nice, "-n", "19"] if nice else []
        if self.program is None:
            raise SpeechError(f"{program} is not installed (Debian: apt-get install espeak-ng)",
                              MISSING)

    def configure(self, voice: Voice) -> None:
        self.settings = voice   # (one reference: read whole by the next utterance)

    def _args(self, language: str) -> list[str]:
        v = self.settings
        name = v.voice or ESPEAK_VOICES.get(language, language)
        rate = round(v.rate * PACE.get(language, 1.0))
        # At the lowest CPU priority: synthesis must never take a core from the sensor path
        # (the scan thread and the loop), only what they leave over.
        return [*self._nice, self.program, "-v", name, "-s", str(rate), "-a", str(v.volume)]

    def render(self, text: str, language: str, path: Path) -> None:
        self._run(self._args(language) + ["-w", str(path)], text)

    def play(self, text: str, language: str) -> None:
        if self.settings.device is None:
            self._run(self._args(language), text)   # espeak-ng's own output: the default device
            return
        player = shutil.which(self.player)
        if player is None:
            raise SpeechError(f"{self.player} is not installed (Debian: apt-get install "
                              "alsa-utils), and voice.device needs it", MISSING)
        # espeak-ng's WAV on stdout into aplay on the chosen ALSA device. The sentence goes to
        # espeak-ng's stdin first (and its stdin is closed): espeak-ng speaks only at the end of
        # its input, and aplay waits for espeak-ng's.
        with subprocess.Popen(self._args(language) + ["--stdout"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as speak:
            try:
                speak.stdin.write(text.encode("utf-8"))
                speak.stdin.close()
                done = subprocess.run([player, "-q", "-D", self.settings.device],
                                      stdin=speak.stdout, capture_output=True,
                                      timeout=ENGINE_TIMEOUT_S, check=False)
            except subprocess.TimeoutExpired:
                speak.kill()
                raise SpeechError(f"aplay -D {self.settings.device} took over "
                                  f"{ENGINE_TIMEOUT_S:.0f} s", SILENT) from None
            finally:
                speak.stdout.close()
            try:
                speak.wait(timeout=ENGINE_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                speak.kill()
                raise SpeechError(f"espeak-ng took over {ENGINE_TIMEOUT_S:.0f} s", SILENT) from None
        if done.returncode != 0:
            said = done.stderr.decode(errors='replace').strip()
            # (ALSA names a device it does not have "Unknown PCM"; a card gone: "No such")
            missing = "Unknown PCM" in said or "No such" in said
            raise SpeechError(f"aplay -D {self.settings.device}: {said}",
                              MISSING if missing else None)

    def _run(self, args: list[str], text: str) -> None:
        try:
            done = subprocess.run(args, input=text.encode("utf-8"), capture_output=True,
                                  timeout=ENGINE_TIMEOUT_S, check=False)
        except subprocess.TimeoutExpired:
            raise SpeechError(f"espeak-ng took over {ENGINE_TIMEOUT_S:.0f} s", SILENT) from None
        if done.returncode != 0:
            raise SpeechError(f"espeak-ng: {done.stderr.decode(errors='replace').strip()}")


@dataclass
class Utterance:
    text: str
    kind: str = "other"
    ply: int | None = None


class Speech:
    """The speech queue (see the module docstring). Owned by the daemon; `say` is called on
    the loop, the engine runs on the worker thread; the queue is shared under one lock."""

    def __init__(self, engine: Engine, voice: Voice, language: str,
                 now: Callable[[], datetime.datetime] = datetime.datetime.now):
        self.engine, self.voice, self.language, self.now = engine, voice, language, now
        self.wav_dir = Path(voice.wav_dir) if voice.wav_dir else None
        self._queue: deque[Utterance] = deque()
        self._lock = threading.Lock()
        self._wake = threading.Condition(self._lock)
        self._thread: threading.Thread | None = None
        self._running = False
        self.health = "stopped"
        self.said: deque[tuple[str, Path | None]] = deque(maxlen=64)  # what was said last
        self.dropped = 0      # stale or over the limit: superseded before it was said
        self._count = 0       # utterances rendered (the WAV files' numbers)
        if self.wav_dir is not None:
            self.wav_dir.mkdir(parents=True, exist_ok=True)
            self._count = max((int(p.stem.split("-")[0]) for p in self.wav_dir.glob("*.wav")
                               if p.stem.split("-")[0].isdigit()), default=0)

    # --- the loop's side ---------------------------------------------------------------------

    def configure(self, voice: Voice, language: str) -> None:
        """New settings (the page): they apply from the next utterance; the one being said
        finishes as it began."""
        with self._lock:
            self.voice, self.language = voice, language
            self.engine.configure(voice)

    def say(self, items: Iterable) -> None:
        """Queue sentences: `Said` items (views/narrate.py) or plain strings. Never blocks."""
        with self._lock:
            for item in items:
                u = (Utterance(item) if isinstance(item, str) else
                     Utterance(item.spoken, item.kind, item.ply))
                if not u.text:
                    continue
                self._supersede(u)
            self._wake.notify()

    def _supersede(self, u: Utterance) -> None:
        q = self._queue
        if u.kind == "takeback":
            # The move it takes back, still unsaid: neither is said.
            for old in list(q):
                if old.kind in ("move", "score") and old.ply == u.ply:
                    q.remove(old)
                    self.dropped += 1
                    if old.kind == "move":
                        self.dropped += 1  # the takeback itself
                        return
        elif u.kind in ("fix", "score", "hint", "menu"):
            for old in [o for o in q if o.kind == u.kind]:
                q.remove(old)
                self.dropped += 1
        q.append(u)
        while len(q) > QUEUE_LIMIT:
            q.popleft()
            self.dropped += 1

    def pending(self) -> list[str]:
        with self._lock:
            return [u.text for u in self._queue]

    # --- the worker -----------------------------------------------------------------------------

    def start(self) -> None:
        if self._thread is not None and self._thread.is_alive():
            return
        self._running = True
        self.health = "up"
        self._thread = threading.Thread(target=self._work, name="treeboard-speech", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Say what is still queued (for at most `timeout` seconds), then stop the worker."""
        with self._lock:
            self._running = False
            self._wake.notify()
        if self._thread is not None:
            self._thread.join(timeout)
            if self._thread.is_alive():
                with self._lock:
                    log.info("stopping the voice: %d sentences left unsaid", len(self._queue))
                    self.dropped += len(self._queue)
                    self._queue.clear()   # it ends after the sentence it is saying
                self._thread.join(ENGINE_TIMEOUT_S + 1)   # (the engine's own time limit)
                if self._thread.is_alive():
                    log.warning("the speech worker did not stop")
            self._thread = None
        self.health = "stopped"

    def _work(self) -> None:
        try:
            while True:
                with self._lock:
                    while self._running and not self._queue:
                        self._wake.wait()
                    if not self._queue:
                        return   # stopped, and everything queued was said
                    u = self._queue.popleft()
                self._speak(u)
        except Exception as exc:  # the supervisor restarts us; the board referees on
            self.health = Problem(f"down: {exc}", DIED)
            log.error("speech worker died: %s", exc)

    def flush(self) -> None:
        """Say everything waiting now, in the caller's thread (trace, on simulated time)."""
        while True:
            with self._lock:
                if not self._queue:
                    return
                u = self._queue.popleft()
            self._speak(u)

    def _speak(self, u: Utterance) -> None:
        now = self.now()
        with self._lock:
            voice, language = self.voice, self.language
        if voice.quiet_at(now.hour * 60 + now.minute):
            with self._lock:
                self.dropped += 1
            return
        try:
            if self.wav_dir is not None:
                self._count += 1
                path = self.wav_dir / f"{self._count:05d}-{language}.wav"
                self.engine.render(u.text, language, path)
                # Its words beside it, whole or not at all: a reader (a test, a hearing aid's
                # caption) that lists the folder never finds an empty file.
                write_whole(path.with_suffix(".txt"), u.text + "\n", durable=False)
                self._trim()
            else:
                path = None
                self.engine.play(u.text, language)
        except (SpeechError, OSError) as exc:
            # (OSError: the voice dir went away or filled up.) Said once per change of state,
            # not once per sentence.
            if self.health != f"down: {exc}":
                log.error("cannot speak: %s", exc)
            self.health = Problem(f"down: {exc}", exc.kind if isinstance(exc, SpeechError)
                                  else MISSING if isinstance(exc, FileNotFoundError) else None)
            return
        if self.health.startswith("down"):
            log.info("speaking again")
            self.health = "up" if self._running else "stopped"
        self.said.append((u.text, path))

    def _trim(self) -> None:
        wavs = sorted(self.wav_dir.glob("*.wav"))
        for old in wavs[:max(0, len(wavs) - WAV_LIMIT)]:
            old.unlink(missing_ok=True)
            old.with_suffix(".txt").unlink(missing_ok=True)


def open_speech(voice: Voice, language: str) -> Speech:
    """The board's voice from its [voice] table (SpeechError when espeak-ng is missing)."""
    return Speech(Espeak(voice), voice, voice.language or language)
