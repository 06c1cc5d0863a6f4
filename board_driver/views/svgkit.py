"""Small helpers for writing SVG text by hand: escaping, colours, elements.

Every value that reaches the SVG goes through `esc` (site names, labels, titles), so a
picture can be put into a page as it is.
"""

from __future__ import annotations

from html import escape

from board_driver.views.base import Colour


def esc(value: object) -> str:
    return escape(str(value), quote=True)


def hexc(colour: Colour) -> str:
    r, g, b = colour
    return f"#{r:02x}{g:02x}{b:02x}"


def attrs(**kw: object) -> str:
    """Attributes from keywords; a trailing underscore is dropped (class_), and an underscore
    inside becomes a dash (data_site -> data-site, stroke_width -> stroke-width). None skips."""
    out = []
    for key, value in kw.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("_", "-")
        if isinstance(value, float):
            value = f"{value:.2f}".rstrip("0").rstrip(".")
        out.append(f'{name}="{esc(value)}"')
    return " ".join(out)


def el(tag: str, body: str | None = None, **kw: object) -> str:
    a = attrs(**kw)
    head = f"<{tag} {a}" if a else f"<{tag}"
    return f"{head}/>" if body is None else f"{head}>{body}</{tag}>"


def title(text: str) -> str:
    """A tooltip (and what a screen reader says) for the element it is put in."""
    return f"<title>{esc(text)}</title>"


def document(width: float, height: float, body: list[str], *, label: str, class_: str,
             **kw: object) -> str:
    return el("svg", "".join(body), xmlns="http://www.w3.org/2000/svg",
              viewBox=f"0 0 {width:g} {height:g}", role="img", aria_label=label, class_=class_,
              **kw)
