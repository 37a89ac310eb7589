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
    assert (f'<figcaption id="fig-elevation-caption">Figure 1: Rack elevation of {RACK}, front and rear, coloured by '
            "part class</figcaption>") in (tmp_path / RACK / f"{RACK}.html").read_text(encoding="utf-8")


def test_html_column_headings_have_scope(test_run, tmp_path, drawn_once):
    render_all(test_run, tmp_path, target=RACK, formats=("html",), revision="test", progress=False)
    audit = _audit(tmp_path / RACK / f"{RACK}.html")
    assert audit.th
    # the document-control table heads its rows (it did before); every other table its columns
    assert [th for th in audit.th if th.get("scope") not in ("col", "row")] == []
    assert {th.get("scope") for th in audit.th} == {"col", "row"}


def _alts(raw: bytes) -> list[str]:
    """Every ``/Alt`` string of the PDF, decoded: a literal (ASCII) or a hex string (UTF-16BE with its BOM, as typst
    writes text outside ASCII, such as '×'; ISO 32000-1, 7.9.2.2)."""
    out = []
    for m in re.finditer(rb"/Alt\s*([(<])", raw):
        if m.group(1) == b"(":
            out.append(_literal(raw, m.end()).decode("latin-1"))
        else:
            hexed = raw[m.end():raw.index(b">", m.end())]
            out.append(bytes.fromhex(hexed.decode()).decode("utf-16"))
    return out


#: What the test rack's elevation shows, as its text alternative says it (tests/data/racks: the slots, bottom up).
ELEVATION_ALT = re.compile(rf"Front and rear elevation of {RACK}, a \d+ U \w+ rack with \d+ U used and \d+ U free; "
                           r"bottom to top: U1(-\d+)? \d+ × [\w.-]+ \((compute|cpu|switch|power|cooling|other)")


def test_pdf_figures_carry_alternate_text(test_run, tmp_path, drawn_once):
    # small26: the /Alt was the caption, which names a figure but says not what it shows; each is now built from the
    # data the diagram is drawn from (render/alt_text.py): the elevation's parts and units, the stages' loads.
    pytest.importorskip("typst")
    render_all(test_run, tmp_path, target=RACK, formats=("pdf",), revision="test", progress=False)
    alts = _alts((tmp_path / RACK / f"{RACK}.pdf").read_bytes())
    assert len(alts) == len(FIGURES)
    assert ELEVATION_ALT.match(alts[0]), alts[0]
    assert alts[1].startswith(f"Bar charts, one per stage of {RACK}'s power chain.") and " load " in alts[1]
    assert alts[2].startswith(f"A bar of {RACK}'s ") and "liquid" in alts[2]


def test_html_and_markdown_figures_say_what_they_show(test_run, tmp_path, drawn_once):
    # The HTML SVG keeps its caption as its name and gets the same text as its <desc>, the Markdown as image text.
    render_all(test_run, tmp_path, target=RACK, formats=("md", "html"), revision="test", progress=False)
    page = (tmp_path / RACK / f"{RACK}.html").read_text(encoding="utf-8")
    desc = re.search(r'<svg role="img" aria-labelledby="fig-elevation-caption" aria-describedby="fig-elevation-desc"'
                     r'[^>]*><desc id="fig-elevation-desc">([^<]*)</desc>', page)
    assert desc and ELEVATION_ALT.match(desc.group(1))
    md = (tmp_path / RACK / f"{RACK}.md").read_text(encoding="utf-8")
    images = re.findall(r"^!\[(.*)\]\((\w+)\.svg\)$", md, re.M)
    assert [name for _, name in images] == ["elevation", "power", "cooling"]
    assert ELEVATION_ALT.match(images[0][0].replace("\\", ""))


def _luminance(colour: str) -> float:
    """Relative luminance of ``#rrggbb`` (WCAG 2.1, definition "relative luminance", sRGB)."""
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a: str, b: str) -> float:
    """(L1 + 0.05) / (L2 + 0.05), the lighter over the darker (WCAG 2.1, definition "contrast ratio")."""
    light, dark = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_stylesheets_text_colours_have_aa_contrast():
    """WCAG 2.1 SC 1.4.3: at least 4.5:1 for text. The section anchors ("#" after each heading, a link) were drawn
    in the rule colour #d5dbe5, 1.39:1 on white; the muted text colour #5b6474 is 5.97:1. Every text colour is
    judged on the page (white) and the contents bar; the body's ink, which table cells inherit, on every background
    the stylesheet gives (heading cells, status cells)."""
    from archgen.render.env import shipped_templates
    css = (shipped_templates() / "document.css").read_text(encoding="utf-8")
    variables = dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6})", css))

    def value(v: str) -> str:
        m = re.fullmatch(r"var\(--([\w-]+)\)", v)
        return variables[m.group(1)] if m else v

    texts = {value(v) for v in re.findall(r"(?<![-\w])color:\s*([^;}\s]+)", css)} - {"inherit"}
    backgrounds = {value(v) for v in re.findall(r"background:\s*([^;}\s]+)", css)} - {"none"}
    nav = value(re.search(r"nav\.toc \{[^}]*background:\s*([^;}\s]+)", css).group(1))
    ink = value(re.search(r"body \{[^}]*(?<![-\w])color:\s*([^;}\s]+)", css).group(1))
    pairs = {(t, b) for t in texts for b in ("#ffffff", nav)} | {(ink, b) for b in backgrounds}
    assert len(texts) >= 3 and len(pairs) > len(texts) * 2
    assert sorted((round(_contrast(t, b), 2), t, b) for t, b in pairs if _contrast(t, b) < 4.5) == []


def test_tables_and_figures_are_numbered_alike_in_every_format(test_run, tmp_path, drawn_once):
    """The PDF numbered its tables and figures ("Table 3:", "Figure 1:") while Markdown and HTML wrote "Table:" and
    "Figure:", so a reviewer's "see Table 12" pointed nowhere in two of the three formats."""
    import shutil
    import subprocess
    formats = ("md", "html", "pdf") if shutil.which("pdftotext") and _has_typst() else ("md", "html")
    render_all(test_run, tmp_path, target=RACK, formats=formats, revision="test", progress=False)
    md = (tmp_path / RACK / f"{RACK}.md").read_text(encoding="utf-8")
    page = (tmp_path / RACK / f"{RACK}.html").read_text(encoding="utf-8")
    in_md = re.findall(r"^\*((?:Table|Figure) \d+): ", md, re.M)
    in_html = re.findall(r"<(?:fig)?caption[^>]*>((?:Table|Figure) \d+): ", page)
    tables, figures = [x for x in in_md if x.startswith("Table")], [x for x in in_md if x.startswith("Figure")]
    assert tables == [f"Table {n}" for n in range(1, len(tables) + 1)] and len(tables) > 10
    assert figures == [f"Figure {n}" for n in range(1, len(FIGURES) + 1)]
    assert in_html == in_md
    if "pdf" in formats:
        text = subprocess.run(["pdftotext", "-raw", str(tmp_path / RACK / f"{RACK}.pdf"), "-"], capture_output=True,
                              text=True, check=True).stdout
        for caption in re.findall(r"^\*((?:Table|Figure) \d+: [^*\n]{0,30})", md, re.M):
            assert caption.replace("\\", "") in " ".join(text.split()), caption


def _has_typst() -> bool:
    import importlib.util
    return importlib.util.find_spec("typst") is not None
