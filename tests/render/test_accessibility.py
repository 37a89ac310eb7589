"""What an accessibility review of the partner documents checks (WCAG 2.1 AA for the HTML, PDF/UA-style tags).

Each figure (rack elevation, power and cooling diagrams) has a text alternative in every format: Markdown's image
text, the HTML's inline SVG named by its caption (WCAG 2.1 success criterion 1.1.1, technique ARIA10) and the PDF's
``/Alt`` entry on its Figure structure element (ISO 14289-1, PDF/UA-1, 7.3: a figure's alternate description). A
data table's column headings are ``<th scope="col">`` (WCAG technique H63).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from archgen.render import render_all

RACK = "nvl72-test"
#: The test rack's figures, by id, as `archgen.render.rack` captions them.
FIGURES = ("fig-elevation", "fig-power", "fig-cooling")


class _Audit(HTMLParser):
    """The inline SVGs (their role and label), the ids of the page (with their tags) and every table heading cell."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.svgs: list[dict[str, str | None]] = []
        self.ids: dict[str, str] = {}
        self.th: list[dict[str, str | None]] = []
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "svg":
            self._depth += 1
            if self._depth == 1:
                self.svgs.append(a)
        if tag == "th":
            self.th.append(a)
        if a.get("id"):
            self.ids[a["id"] or ""] = tag

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self._depth -= 1


def _literal(raw: bytes, start: int) -> bytes:
    """The PDF literal string that starts at `start` (after its opening bracket): balanced brackets may stand
    unescaped inside one (ISO 32000-1, 7.3.4.2), a backslash escapes the next byte."""
    depth, i, out = 1, start, bytearray()
    while True:
        c = raw[i:i + 1]
        if c == b"\\":
            out += raw[i + 1:i + 2]
            i += 2
            continue
        depth += {b"(": 1, b")": -1}.get(c, 0)
        if not depth:
            return bytes(out)
        out += c
        i += 1


def _audit(path) -> _Audit:
    audit = _Audit()
    audit.feed(path.read_text(encoding="utf-8"))
    return audit


def test_html_figures_are_images_named_by_their_captions(test_run, tmp_path, drawn_once):
    render_all(test_run, tmp_path, target=RACK, formats=("html",), revision="test", progress=False)
    audit = _audit(tmp_path / RACK / f"{RACK}.html")
    assert len(audit.svgs) == len(FIGURES)
    for svg, fig in zip(audit.svgs, FIGURES, strict=True):
        assert svg.get("role") == "img"
        assert svg.get("aria-labelledby") == f"{fig}-caption"
    assert {audit.ids[f"{fig}-caption"] for fig in FIGURES} == {"figcaption"}
    assert (f'<figcaption id="fig-elevation-caption">Figure: Rack elevation of {RACK}, front and rear, coloured by '
            "part class</figcaption>") in (tmp_path / RACK / f"{RACK}.html").read_text(encoding="utf-8")


def test_html_column_headings_have_scope(test_run, tmp_path, drawn_once):
    render_all(test_run, tmp_path, target=RACK, formats=("html",), revision="test", progress=False)
    audit = _audit(tmp_path / RACK / f"{RACK}.html")
    assert audit.th
    # the document-control table heads its rows (it did before); every other table its columns
    assert [th for th in audit.th if th.get("scope") not in ("col", "row")] == []
    assert {th.get("scope") for th in audit.th} == {"col", "row"}


def test_pdf_figures_carry_alternate_text(test_run, tmp_path, drawn_once):
    pytest.importorskip("typst")
    render_all(test_run, tmp_path, target=RACK, formats=("pdf",), revision="test", progress=False)
    raw = (tmp_path / RACK / f"{RACK}.pdf").read_bytes()
    alts = [_literal(raw, m.end()) for m in re.finditer(rb"/Alt\s*\(", raw)]
    assert len(alts) == len(FIGURES)
    assert alts[0] == f"Rack elevation of {RACK}, front and rear, coloured by part class".encode()
