"""How fast the board's voice speaks: Chinese characters a second (English words a minute) of
the sentences the board says, as espeak-ng renders them at the voice's default settings.

    python benchmarks/voice_rate.py [--rate 160]

The sentences are the narrator's own (views/narrate.py), in each language: a Tree Planting game
traced as in tests/board_driver/test_words.py (two moves, a takeback, a move, a square closed
and the score), and against the computer, its move to put on the board and a piece put where
its move is owed. Each is rendered by the board's engine (daemon/speech.py's `Espeak`, at
[voice] rate = --rate) to a WAV; its length is frames / frame rate. A Chinese character is a
syllable (a digit too: espeak-ng says it as one); a native listener hears 4-5 a second as
natural. Prints one JSON object: per language, the totals, and every sentence with its seconds.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import wave
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from board_driver.config import Voice, sim_config  # noqa: E402
from board_driver.daemon.speech import Espeak  # noqa: E402
from board_driver.referee.tracer import Tracer  # noqa: E402
from board_driver.views import words  # noqa: E402

GAME = ["place h0.0", "place v0.0", "lift v0.0", "place h1.0", "place v0.0", "place v0.1"]


def sentences(language: str, journal: Path) -> list[str]:
    """What the board says, aloud, over a short game and one against the computer."""
    said: list[str] = []
    for players in (("human", "human"), ("human", "computer")):
        config = sim_config(journal=str(journal / f"{language}-{players[1]}.sqlite"),
                            language=language, players=players)
        tracer = Tracer(config)
        try:
            for line in GAME if players[1] == "human" else GAME[:1]:
                verb, *args = line.split()
                said += tracer.step(verb, args)["said"]
            if players[1] == "computer":
                # The computer's reply, played as its seat plays it; then a piece put on
                # another site while that move is owed.
                tracer.referee.play_for_seat("h1.0", tracer.clock(), "computer")
                said += [s.spoken for s in tracer.narrator(tracer.moment())]
                said += tracer.step("place", ["v0.0"])["said"]
        finally:
            tracer.close()
    words.use("en")
    return said


def syllables(text: str) -> int:
    return len(re.findall(r"[\u4e00-\u9fff0-9]", text))


def measure(language: str, rate: int, folder: Path) -> dict:
    engine = Espeak(Voice(enabled=True, rate=rate))
    rows, seconds = [], 0.0
    for n, text in enumerate(sentences(language, folder)):
        path = folder / f"{language}-{n}.wav"
        engine.render(text, language, path)
        with wave.open(str(path)) as w:
            length = w.getnframes() / w.getframerate()
        seconds += length
        rows.append((round(length, 2), text))
    out = {"rate": rate, "seconds": round(seconds, 1)}
    if language == "zh":
        count = sum(syllables(text) for _, text in rows)
        out["characters"] = count
        out["characters_a_second"] = round(count / seconds, 2)
    else:
        count = sum(len(text.split()) for _, text in rows)
        out["words"] = count
        out["words_a_minute"] = round(count / seconds * 60)
    out["sentences"] = [f"{length:5.2f} s  {text}" for length, text in rows]
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate", type=int, default=Voice().rate,
                        help="[voice] rate, words a minute (default: the config's default)")
    args = parser.parse_args()
    if shutil.which("espeak-ng") is None:
        print("voice_rate: espeak-ng is not installed (apt-get install espeak-ng)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="treeboard-voice-") as tmp:
        result = {lang: measure(lang, args.rate, Path(tmp)) for lang in ("en", "zh")}
    print(json.dumps(result, ensure_ascii=False, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
