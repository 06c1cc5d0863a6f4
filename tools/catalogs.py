"""The translation catalogs: extract, update and compile, with Babel, in one command.

    python tools/catalogs.py            extract the messages, update every catalog, compile them
    python tools/catalogs.py check      fail (exit 1) when a catalog lacks a translation, has a
                                        stale or fuzzy one, breaks a {placeholder}, or its .mo
                                        does not say what its .po says (the tests run this)
    python tools/catalogs.py init LANG  start a new language's catalog from the template

The catalogs live in board_driver/views/locale/: treeboard.pot (the template, from the source),
<lang>.po (one per language, edited by translators) and <lang>.mo (compiled, shipped in the
wheel; board_driver/views/words.py reads them). English is the source language: its catalog's
translations are the messages themselves, filled in by `update`.

Messages are found where the code marks them: tr("..."), N_("...") and ngettext("...", "...", n)
in board_driver/, Reason("...") in games/ (the rules' reasons), tr("...") in the page's app.js, and every text of the page's index.html
(docs/languages.md).
"""

from __future__ import annotations

import copy
import datetime
import io
import re
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo, write_mo
from babel.messages.pofile import read_po, write_po

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from board_driver.views.words import html_texts, script_texts  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "board_driver"
LOCALE = SOURCE / "views" / "locale"
TEMPLATE = LOCALE / "treeboard.pot"
SOURCE_LANGUAGE = "en"
#: The marking functions of board_driver/views/words.py (gettext's `_` is `tr` there).
KEYWORDS = {"tr": None, "N_": None, "ngettext": (1, 2), "Reason": None}
#: The catalogs' header date, fixed: a date that changed on every run would make every branch
#: that runs this conflict with every other in the header alone.
STABLE_DATE = datetime.datetime(2026, 1, 1, tzinfo=datetime.timezone.utc)
_FIELD = re.compile(r"\{([^{}]*)\}")


def _page_html(fileobj, keywords, comment_tags, options):
    """Babel's extraction method for the page: each text node of index.html's body."""
    for line, text in html_texts(fileobj.read().decode("utf-8")):
        yield line, None, text, []


def _page_script(fileobj, keywords, comment_tags, options):
    """Babel's extraction method for the page's script: each tr("...")."""
    for line, text in script_texts(fileobj.read().decode("utf-8")):
        yield line, "tr", text, []


def extract() -> Catalog:
    """Every marked message of board_driver/ (and every text of the page), with where."""
    catalog = Catalog(project="treeboard", version="0.1.0", charset="utf-8",
                      creation_date=STABLE_DATE)
    for filename, lineno, message, comments, context in extract_from_dir(
            str(SOURCE), method_map=[("**.py", "python"), ("web/static/index.html", _page_html),
                                     ("web/static/app.js", _page_script)], keywords=KEYWORDS,
            comment_tags=("TRANSLATORS:",), strip_comment_tags=True):
        catalog.add(message, None, [(f"board_driver/{filename}", lineno)],
                    auto_comments=comments, context=context)
    # The rules' reasons: games/ marks each with games.base.Reason("...", field=...).
    for filename, lineno, message, comments, context in extract_from_dir(
            str(ROOT / "games"), method_map=[("**.py", "python")], keywords={"Reason": None},
            comment_tags=("TRANSLATORS:",), strip_comment_tags=True):
        catalog.add(message, None, [(f"games/{filename}", lineno)],
                    auto_comments=comments, context=context)
    # Each game's one-line description (Game.description: the page's header says it).
    import games

    for name in games.names():
        game = games.get_game(name)
        module = type(game).__module__.split(".")[-1]
        catalog.add(game.description, None, [(f"games/{module}.py", 0)],
                    auto_comments=[f"the description of {name}"])
    return catalog


def _write(catalog: Catalog, path: Path) -> None:
    buf = io.BytesIO()
    write_po(buf, catalog, width=96, omit_header=False, sort_output=True,
             include_previous=False)
    path.write_bytes(buf.getvalue())


def _read(path: Path, locale: str | None = None) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=locale)


def languages() -> list[str]:
    return sorted(p.stem for p in LOCALE.glob("*.po"))


def update(template: Catalog) -> None:
    """Bring each catalog up to the template: new messages in, gone ones out (obsolete)."""
    for lang in languages():
        path = LOCALE / f"{lang}.po"
        catalog = _read(path, lang)
        # A copy each: update() adopts the template's new messages as they are, and filling in
        # English would fill them in for every language after it.
        catalog.update(copy.deepcopy(template), no_fuzzy_matching=True)
        catalog.obsolete.clear()
        if lang == SOURCE_LANGUAGE:
            for message in catalog:
                if message.id:
                    message.string = message.id
                    message.flags.discard("fuzzy")
        _write(catalog, path)


def _compiled(catalog: Catalog) -> bytes:
    buf = io.BytesIO()
    write_mo(buf, catalog, use_fuzzy=False)
    return buf.getvalue()


def _meaning(mo: bytes) -> dict:
    """What a compiled catalog tells the board: each message's translation (by its context and
    id), the plural rule and the charset its strings are read in. Never the header lines a
    Babel release writes (`Generated-By`), nor anything else of the .mo's bytes."""
    catalog = read_mo(io.BytesIO(mo))
    messages = {}
    for m in catalog:
        if m.id:
            key = (m.context, tuple(m.id) if isinstance(m.id, (list, tuple)) else m.id)
            messages[key] = tuple(m.string) if isinstance(m.string, (list, tuple)) else m.string
    return {"messages": messages, "plural forms": catalog.plural_forms,
            "charset": (catalog.charset or "").lower()}


def _disagreement(mo: Path, catalog: Catalog) -> str | None:
    """How the shipped .mo differs from what its .po compiles to, in words (None: it does not).
    The two are compared by their meaning, so a .mo made by another Babel still agrees."""
    if not mo.is_file():
        return "missing"
    try:
        have = _meaning(mo.read_bytes())
    except Exception as e:  # a truncated or foreign file: Babel names what it could not read
        return f"unreadable ({e})"
    want = _meaning(_compiled(catalog))
    for field in ("plural forms", "charset"):
        if have[field] != want[field]:
            return f"its {field} are {have[field]!r}, the .po's {want[field]!r}"
    hm, wm = have["messages"], want["messages"]
    differ = sorted((k for k in hm.keys() | wm.keys() if hm.get(k) != wm.get(k)), key=str)
    if not differ:
        return None
    context, msgid = differ[0]
    first = msgid[0] if isinstance(msgid, tuple) else msgid
    more = f" and {len(differ) - 1} more" if len(differ) > 1 else ""
    return f"{first!r} is {hm.get(differ[0])!r} there, {wm.get(differ[0])!r} in the .po{more}"


def compile_all() -> None:
    """Each .po to its .mo; a .mo that already says what its .po says is left as it is (a newer
    Babel's header alone changes nothing in the tree)."""
    for lang in languages():
        catalog = _read(LOCALE / f"{lang}.po", lang)
        mo = LOCALE / f"{lang}.mo"
        if _disagreement(mo, catalog) is not None:
            mo.write_bytes(_compiled(catalog))


def problems() -> list[str]:
    """What is wrong with the shipped catalogs, one line each (empty: all is well)."""
    out = []
    template = extract()
    wanted = {m.id for m in template if m.id}
    for lang in languages():
        path = LOCALE / f"{lang}.po"
        catalog = _read(path, lang)
        have = {m.id for m in catalog if m.id}
        for missing in sorted(wanted - have, key=str):
            out.append(f"{path.name}: no entry for {missing!r} (run tools/catalogs.py)")
        for stale in sorted(have - wanted, key=str):
            out.append(f"{path.name}: {stale!r} is no longer in the source (run tools/catalogs.py)")
        for message in catalog:
            if not message.id:
                continue
            ids = message.id if isinstance(message.id, tuple) else (message.id,)
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            where = f"{path.name}:{message.lineno}"
            if "fuzzy" in message.flags:
                out.append(f"{where}: {ids[0]!r} is marked fuzzy (check it, then drop the flag)")
            if not all(strings):
                out.append(f"{where}: {ids[0]!r} has no translation")
                continue
            fields = set(_FIELD.findall(ids[0]))
            # A plural's forms may say the count ({n}) where the singular says "a" ("a square"
            # / "{n} squares"): a one-form language (Chinese) says {n} in its only form.
            every = set().union(*(_FIELD.findall(i) for i in ids))
            for s in strings:
                said = set(_FIELD.findall(s))
                if said != fields and not (len(ids) > 1 and fields <= said <= every):
                    out.append(f"{where}: {ids[0]!r}: the translation's placeholders "
                               f"{sorted(set(_FIELD.findall(s)))} are not the message's "
                               f"{sorted(fields)}")
        mo = LOCALE / f"{lang}.mo"
        wrong = _disagreement(mo, catalog)
        if wrong is not None:
            out.append(f"{mo.name}: not compiled from {path.name}: {wrong} "
                       "(run tools/catalogs.py)")
    return out


def init(lang: str, template: Catalog) -> Path:
    path = LOCALE / f"{lang}.po"
    if path.exists():
        raise SystemExit(f"{path} exists; `python tools/catalogs.py` updates it")
    catalog = Catalog(locale=lang, project="treeboard", version="0.1.0", charset="utf-8",
                      creation_date=STABLE_DATE, revision_date=STABLE_DATE)
    catalog.update(template)
    _write(catalog, path)
    return path


def main(argv: list[str]) -> int:
    if argv[:1] == ["check"]:
        found = problems()
        for line in found:
            print(line, file=sys.stderr)
        return 1 if found else 0
    template = extract()
    LOCALE.mkdir(parents=True, exist_ok=True)
    _write(template, TEMPLATE)
    if argv[:1] == ["init"]:
        if len(argv) != 2 or not re.fullmatch(r"[a-z]{2,3}", argv[1]):
            raise SystemExit("usage: tools/catalogs.py init LANG (a language code such as fr)")
        print(f"{init(argv[1], template)}: translate it, then run tools/catalogs.py")
        return 0
    if argv:
        raise SystemExit(__doc__)
    update(template)
    compile_all()
    found = problems()
    for line in found:
        print(line, file=sys.stderr)
    print(f"{len(template)} messages; {', '.join(languages())}: "
          f"{'complete' if not found else f'{len(found)} problems'}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
