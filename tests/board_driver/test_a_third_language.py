"""A third language is a catalog and nothing else (docs/languages.md, "Adding a language"): a
copy of the package with a French catalog, made and compiled by tools/catalogs.py, speaks
French in the config's check, `--language`, the voice and the page's switch, each of which
asks board_driver/views/words.py's `languages()` and knows no language itself."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

from tests.board_driver.browser_harness import (TREEBOARD, browser, chromium,  # noqa: F401
                                                page_reading, sims)

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import catalogs  # noqa: E402  (tools/catalogs.py: the Babel script)

#: The French the copy's catalog says: its own name, and one sentence a trace says.
FRENCH = {"English": "français", "takeback of {move}": "reprise de {move}"}
# The first square closed by player 1's fourth side, after a takeback (as in test_words.py).
GAME = "place h0.0\nplace v0.0\nlift v0.0\nplace h1.0\nplace v0.0\nplace v0.1\n"


@pytest.fixture(scope="module")
def french(tmp_path_factory) -> Path:
    """A copy of the package whose locale has a French catalog beside English and Chinese:
    board_driver/ copied, the other packages linked."""
    tree = tmp_path_factory.mktemp("french") / "tree"
    shutil.copytree(ROOT / "board_driver", tree / "board_driver",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for top in ("treeboard", "games", "hardware", "firmware_bridge"):
        (tree / top).symlink_to(ROOT / top, target_is_directory=True)
    locale = tree / "board_driver" / "views" / "locale"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(catalogs, "LOCALE", locale)
        with (locale / "treeboard.pot").open("rb") as f:
            po = catalogs.init("fr", read_po(f))
        text = po.read_text(encoding="utf-8")
        for message, french in FRENCH.items():
            entry = f'msgid "{message}"\nmsgstr ""\n'
            assert entry in text, message
            text = text.replace(entry, f'msgid "{message}"\nmsgstr "{french}"\n')
        po.write_text(text, encoding="utf-8")
        catalogs.compile_all()
    assert (locale / "fr.mo").is_file()
    return tree


@pytest.fixture
def in_copy(french, tmp_path, monkeypatch) -> Path:
    """Every process started from here runs the copy (its packages first on the path), and
    speaks through an espeak-ng that writes down how it was called before it speaks."""
    espeak = shutil.which("espeak-ng")
    if espeak is None:
        if os.environ.get("CI") == "true":
            raise RuntimeError("espeak-ng is missing: ./dev installs it (apt-get install espeak-ng)")
        pytest.skip("espeak-ng is not installed (./dev test installs it)")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "espeak-ng"
    wrapper.write_text(f'#!/bin/sh\necho "$@" >> "{tmp_path / "espeak.args"}"\n'
                       f'exec "{espeak}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PYTHONPATH", str(french))
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return french


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(args, capture_output=True, text=True, timeout=120, cwd=cwd)


def test_the_copy_speaks_french_in_the_config_the_command_line_and_the_voice(in_copy, tmp_path):
    # the words module of the copy finds the catalog; this tree's does not
    found = run(sys.executable, "-c", "from board_driver.views import words; import json; "
                "print(json.dumps([words.__file__, words.names()]))", cwd=tmp_path)
    where, names = json.loads(found.stdout)
    assert where.startswith(str(in_copy)) and names == {
        "en": "English", "fr": "français", "zh": "中文"}
    from board_driver.views import words
    assert "fr" not in words.languages()

    # the config's check: the board's language and the voice's
    config = tmp_path / "config.toml"
    config.write_text('language = "fr"\n[voice]\nlanguage = "fr"\n')
    checked = run(sys.executable, "-c", "from board_driver.config import load_config; "
                  f"c = load_config({str(config)!r}); print(c.language, c.voice.language)",
                  cwd=tmp_path)
    assert checked.stdout.split() == ["fr", "fr"], checked.stderr
    config.write_text('language = "de"\n')
    refused = run(sys.executable, "-c", "from board_driver.config import load_config; "
                  f"load_config({str(config)!r})", cwd=tmp_path)
    assert f'{config}: language: expected one of en, fr, zh; got \'de\'' in refused.stderr

    # --language, and the voice it picks (espeak-ng's own "fr": no table names it)
    trace = tmp_path / "game.trace"
    trace.write_text(GAME)
    voice = tmp_path / "voice"
    done = run(TREEBOARD, "trace", "--language", "fr", "--voice-dir", str(voice), str(trace),
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    said = [json.loads(line)["said"] for line in done.stdout.splitlines()]
    assert said[2] == ["reprise de the left groove of row zero, square zero"]
    helped = " ".join(run(TREEBOARD, "trace", "--help", cwd=tmp_path).stdout.split())
    assert "{en,fr,zh}" in helped and "en (English), fr (français), zh (中文)" in helped
    wavs = sorted(p.name for p in voice.glob("*.wav"))
    assert wavs and all(name.endswith("-fr.wav") for name in wavs)
    calls = (tmp_path / "espeak.args").read_text().splitlines()
    assert calls and all(call.split()[:2] == ["-v", "fr"] for call in calls)


def test_the_page_offers_french_and_follows_a_browser_that_reads_it(in_copy, tmp_path, browser,  # noqa: F811
                                                                     sims):  # noqa: F811
    config = tmp_path / "config.toml"
    config.write_text('language = "zh"\n')
    sim = sims("--config", str(config))
    with urllib.request.urlopen(sim.url + "api/words?lang=fr-CA", timeout=5) as r:
        page = json.loads(r.read())
    assert (page["language"], page["board"], page["tag"]) == ("fr", "zh", "fr")
    assert page["languages"] == {"en": "English", "fr": "français", "zh": "中文"}
    # The real page in a browser that reads German (no catalog), then French: French, not the
    # board's Chinese, in the switch and the page's lang; the voice's panel offers it too.
    tab = page_reading(browser, sim, ["de-DE", "fr-CA", "zh-CN"])
    tab.wait_for_selector("html[lang=fr]", state="attached")
    assert tab.input_value("#language") == "fr"
    options = "(S) => Array.from(document.querySelectorAll(S), (o) => [o.value, o.text])"
    assert tab.evaluate(options, "#language option") == [
        ["en", "English"], ["fr", "français"], ["zh", "中文"]]
    assert tab.evaluate(options, "#voice-form [name=language] option") == [
        ["", "the board's"], ["en", "English"], ["fr", "français"], ["zh", "中文"]]
    tab.close()
