"""The family's language: every player-facing sentence goes through these gettext functions
(`tr` is gettext's `_`, named so because the house rules keep `_` names private).

    from board_driver.views.words import tr, N_, ngettext

    tr("score {a}:{b}").format(a=a, b=b)        # translated now, in the board's language
    HELP = N_("Fangqi: points are a1..")       # marked for the catalog, translated at use: tr(HELP)
    ngettext("lifted {n} piece", "lifted {n} pieces", n).format(n=n)

The catalogs are `board_driver/views/locale/<language>.po` (compiled to `.mo`, which ship in the
wheel), maintained by `tools/catalogs.py` with Babel (extract, update, compile). A language is
added by a catalog alone: `python tools/catalogs.py init LANG`, translate the .po, compile
(docs/languages.md). English is the source language: its catalog is the messages themselves.

This module is the one place that knows the languages: `languages()` finds them from the
shipped catalogs, and the config's check, `--language`, the voice and the page's switch read
it; each catalog says its language's own name (`native`).

The board speaks one language at a time (`use`, set from the config or `--language` before the
daemon starts); the page may ask for another (`translation(code)` is thread-safe and cached).
Command-line errors and logs stay English.
"""

from __future__ import annotations

import contextlib
import contextvars
import gettext
import json
import re
import threading
from html.parser import HTMLParser
from importlib import resources
from typing import Iterable, Iterator

from games.base import Reason

DEFAULT = "en"
#: The page's `lang` attribute where a language's code alone would not say its script (the
#: browser picks the fonts by it); any other language is tagged with its code.
PAGE_TAGS = {"zh": "zh-Hans"}

_lock = threading.Lock()
_cache: dict[str, gettext.NullTranslations] = {}
_current: gettext.NullTranslations = gettext.NullTranslations()
_code = DEFAULT
# A language for one piece of work (the page's state for a browser that reads another): per
# thread and per asyncio task, so it never leaks into the board's own words.
_asked: contextvars.ContextVar[tuple[str, gettext.NullTranslations] | None] = \
    contextvars.ContextVar("treeboard_language", default=None)


def normalize(code: str) -> str | None:
    """A language code as the config, a browser or a locale writes it ("zh-CN", "zh_Hans.UTF-8",
    "EN") -> a shipped language ("zh"), or None when no catalog speaks it."""
    base = code.strip().replace("_", "-").split(".")[0].split("-")[0].lower()
    return base if base in languages() else None


def languages() -> tuple[str, ...]:
    """The languages the board speaks, by the code the config and `--language` take: one for
    each compiled catalog in the package, and English, the messages themselves (a third
    language is a catalog, board_driver/views/locale/<code>.mo)."""
    folder = resources.files(__package__) / "locale"
    found = {p.name[:-3] for p in folder.iterdir() if p.name.endswith(".mo")}
    return tuple(sorted(found | {DEFAULT}))


def native(code: str) -> str:
    """How a shipped language calls itself, as its catalog says ("zh" -> "中文")."""
    return translation(code).gettext(OWN_NAME)


def names() -> dict[str, str]:
    """Every shipped language, code -> its own name (the page's switch, `--language`'s help)."""
    return {code: native(code) for code in languages()}


def page_tag(code: str) -> str:
    """The page's `lang` attribute for a shipped language ("zh" -> "zh-Hans")."""
    return PAGE_TAGS.get(code, code)


def translation(code: str) -> gettext.NullTranslations:
    """The compiled catalog of a language (ValueError naming the shipped ones if none)."""
    lang = normalize(code)
    if lang is None:
        raise ValueError(f"no catalog for language {code!r}; expected one of "
                         f"{', '.join(languages())}")
    with _lock:
        if lang not in _cache:
            mo = resources.files(__package__) / "locale" / f"{lang}.mo"
            if mo.is_file():
                with mo.open("rb") as f:
                    _cache[lang] = gettext.GNUTranslations(f)
            else:
                _cache[lang] = gettext.NullTranslations()  # English: the messages themselves
        return _cache[lang]


def use(code: str) -> str:
    """Speak `code` from now on (the whole process: one board, one language); returns the
    shipped language chosen."""
    global _current, _code
    found = translation(code)
    _current, _code = found, normalize(code)
    return _code


def language() -> str:
    """The language the board speaks now (or the one `speaking` asked for, inside it)."""
    asked = _asked.get()
    return asked[0] if asked is not None else _code


@contextlib.contextmanager
def speaking(code: str) -> Iterator[str]:
    """Words in `code` inside the block, in this thread or task only (the page's language)."""
    lang = normalize(code) or DEFAULT
    token = _asked.set((lang, translation(lang)))
    try:
        yield lang
    finally:
        _asked.reset(token)


def _catalog() -> gettext.NullTranslations:
    asked = _asked.get()
    return asked[1] if asked is not None else _current


def tr(message: str) -> str:
    """`message` in the board's language."""
    return _catalog().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural of a message, as the board's language counts `n`."""
    return _catalog().ngettext(singular, plural, n)


def reason(text: str) -> str:
    """A rule's reason in the board's language: a `games.Reason` by its template, its word
    fields translated too ("Black", "spore"); any other text through the catalog as it is."""
    if not isinstance(text, Reason):
        return tr(text) if text else text
    fields = {k: reason(v) if isinstance(v, str) and v else v for k, v in text.fields.items()}
    return tr(text.template).format(**fields)


def N_(message: str) -> str:
    """Marks a message for the catalog without translating it (module constants: translate at
    use, with `tr`, so a language chosen later applies)."""
    return message


#: The message each catalog translates as its own language's name (the page's switch,
#: `--language`'s help); English, the source language, is called by the message itself.
# TRANSLATORS: not the word for English: the name of this catalog's language in that language
# itself (中文, français, Deutsch), as its speakers look for it in a list of languages.
OWN_NAME = N_("English")


def page_words(code: str, messages: Iterable[str]) -> dict[str, str]:
    """The page's own texts in a language, message -> translation (GET /api/words)."""
    cat = translation(code)
    return {m: cat.gettext(m) for m in messages}


class _Texts(HTMLParser):
    """The text of a page's body, one message per text node (markup, scripts and styles out)."""

    def __init__(self):
        super().__init__()
        self.found: list[tuple[int, str]] = []
        self._body = False
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag == "body":
            self._body = True
        elif tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._skip = max(0, self._skip - 1)

    def handle_data(self, data):
        text = " ".join(data.split())
        if self._body and not self._skip and any(ch.isalpha() for ch in text):
            self.found.append((self.getpos()[0], text))


def html_texts(html: str) -> list[tuple[int, str]]:
    """(line, text) of each text node in a page's body: the page's static words, which it
    swaps for their translations by exact match (GET /api/words)."""
    parser = _Texts()
    parser.feed(html)
    return parser.found


_SCRIPT_TR = re.compile(r'\btr\(\s*"((?:[^"\\]|\\.)*)"')


def script_texts(js: str) -> list[tuple[int, str]]:
    """(line, text) of each tr("...") in the page's script."""
    return [(js.count("\n", 0, m.start()) + 1, json.loads(f'"{m.group(1)}"'))
            for m in _SCRIPT_TR.finditer(js)]
