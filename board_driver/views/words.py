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

The board speaks one language at a time (`use`, set from the config or `--language` before the
daemon starts); the page may ask for another (`translation(code)` is thread-safe and cached).
Command-line errors and logs stay English.
"""

from __future__ import annotations

import gettext
import threading
from importlib import resources

#: The languages whose catalogs ship, by the code the config and `--language` take.
LANGUAGES = ("en", "zh")
#: How each language calls itself (the page's switch, `--language`'s help).
NATIVE = {"en": "English", "zh": "中文"}
DEFAULT = "en"

_lock = threading.Lock()
_cache: dict[str, gettext.NullTranslations] = {}
_current: gettext.NullTranslations = gettext.NullTranslations()
_code = DEFAULT


def normalize(code: str) -> str | None:
    """A language code as the config, a browser or a locale writes it ("zh-CN", "zh_Hans.UTF-8",
    "EN") -> a shipped language ("zh"), or None when no catalog speaks it."""
    base = code.strip().replace("_", "-").split(".")[0].split("-")[0].lower()
    return base if base in available() else None


def available() -> tuple[str, ...]:
    """The languages with a compiled catalog in the package (a third language is a catalog)."""
    folder = resources.files(__package__) / "locale"
    found = {p.name[:-3] for p in folder.iterdir() if p.name.endswith(".mo")}
    return tuple(sorted(found | {DEFAULT}))


def translation(code: str) -> gettext.NullTranslations:
    """The compiled catalog of a language (ValueError naming the shipped ones if none)."""
    lang = normalize(code)
    if lang is None:
        raise ValueError(f"no catalog for language {code!r}; expected one of "
                         f"{', '.join(available())}")
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
    """The language the board speaks now."""
    return _code


def tr(message: str) -> str:
    """`message` in the board's language."""
    return _current.gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    """The singular or plural of a message, as the board's language counts `n`."""
    return _current.ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Marks a message for the catalog without translating it (module constants: translate at
    use, with `tr`, so a language chosen later applies)."""
    return message


def messages(code: str) -> dict[str, str]:
    """Every message of a language's catalog, msgid -> translation (the page's words)."""
    cat = translation(code)
    return {k: v for k, v in getattr(cat, "_catalog", {}).items()
            if isinstance(k, str) and k}
