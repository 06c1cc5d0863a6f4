"""A small SVG writer for the kit's drawings, on xml.etree (which escapes every text and
attribute): a document sized in millimetres or pixels, layers a laser cutter's software reads
(Inkscape's `inkscape:groupmode="layer"`, which LightBurn and LaserGRBL import too), and
numbers written short."""

from __future__ import annotations

import xml.etree.ElementTree as ET

SVG_NS = "http://www.w3.org/2000/svg"
INKSCAPE_NS = "http://www.inkscape.org/namespaces/inkscape"


def num(value: float) -> str:
    """A coordinate as SVG text: at most three decimals, no trailing zeros."""
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _attrs(attrs: dict) -> dict[str, str]:
    out = {}
    for key, value in attrs.items():
        if value is None:
            continue
        name = key.rstrip("_").replace("__", ":").replace("_", "-")
        out[name] = num(value) if isinstance(value, float) else str(value)
    return out


def document(width: float, height: float, *, unit: str = "mm", title: str = "") -> ET.Element:
    """An <svg> root whose user unit is one `unit` ("mm": true scale for printing and cutting;
    "" for a screen drawing in pixels)."""
    root = ET.Element("svg", _attrs({
        "xmlns": SVG_NS, "xmlns__inkscape": INKSCAPE_NS, "version": "1.1",
        "width": f"{num(width)}{unit}", "height": f"{num(height)}{unit}",
        "viewBox": f"0 0 {num(width)} {num(height)}"}))
    if title:
        ET.SubElement(root, "title").text = title
    return root


def add(parent: ET.Element, tag: str, text: str | None = None, **attrs) -> ET.Element:
    """A child element; attribute names in Python spelling: `class_` is class, `data_site` is
    data-site, `inkscape__label` is inkscape:label; a float is written with `num`."""
    element = ET.SubElement(parent, tag, _attrs(attrs))
    if text is not None:
        element.text = text
    return element


def layer(parent: ET.Element, ident: str, label: str, **attrs) -> ET.Element:
    """A layer a laser cutter's software lists by name (an Inkscape layer)."""
    return add(parent, "g", id=ident, inkscape__groupmode="layer", inkscape__label=label, **attrs)


def text(root: ET.Element) -> str:
    """The document as text, with the XML declaration."""
    ET.indent(root, space=" ")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
