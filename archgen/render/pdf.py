"""PDF through the `typst` wheel: offline, embedded fonts, no system fonts, timestamp 0 (reproducible bytes).

The document model goes to `templates/document.typ` as JSON in ``sys.inputs.data``: Typst markup is never built
from strings, so a spec title such as ``*x* #panic("y") $z$`` prints literally.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from archgen.errors import InternalError
from archgen.quantity_json import json_text
from archgen.render import fmt
from archgen.render.blocks import Bullets, DocumentModel, Figure, Para, Section, Table
from archgen.render.env import TemplateError, template_path
from archgen.render.pdf_cache import compiled

#: Width of each diagram on the page (tall elevations are narrower so they fit with their caption).
FIGURE_WIDTH = {"elevation": 0.78}


def document_json(doc: DocumentModel) -> dict[str, Any]:
    """The document model as plain JSON data for the Typst template (cells already formatted)."""
    control = dict(doc.control)
    return {"title": doc.title, "doc_id": control.get("Document number", control.get("Document", "")),
            "revision": control.get("Revision", ""),
            "confidentiality": control.get("Confidentiality", "").replace("not stated", ""),
            "edition": "" if doc.edition == "internal" else f"{doc.edition} edition",
            "control": [list(row) for row in doc.control], "sections": [_section(s, doc) for s in doc.sections]}


def _section(s: Section, doc: DocumentModel) -> dict[str, Any]:
    blocks = [_block(b, doc) | ({"label": doc.label(b)} if isinstance(b, Table | Figure) else {}) for b in s.blocks]
    return {"id": s.id, "number": s.number, "title": s.title, "blocks": blocks,
            "sections": [_section(c, doc) for c in s.sections]}


def _block(b: Any, doc: DocumentModel) -> dict[str, Any]:
    if isinstance(b, Para):
        return {"kind": "para", "text": b.text, "style": b.style}
    if isinstance(b, Bullets):
        return {"kind": "bullets", "items": list(b.items)}
    if isinstance(b, Figure):
        return {"kind": "figure", "caption": b.caption, "alt": b.text, "svg": doc.figures[b.name]["svg"],
                "width": FIGURE_WIDTH.get(b.name, 1.0)}
    if isinstance(b, Table):
        rows = [[fmt.breakable(c) for c in row] for row in b.text()]
        headings = [fmt.breakable(c.heading) for c in b.columns]
        least = narrowest(headings, rows)
        wide = least > TEXT_WIDTH               # its words alone overfill a portrait page: landscape
        if least > LANDSCAPE_WIDTH:             # and a landscape one: names wrap at their joints
            rows = [[fmt.breakable_names(c) for c in row] for row in b.text()]
        return {"kind": "table", "caption": b.caption, "headings": headings, "landscape": wide,
                "widths": widths(headings, rows, LANDSCAPE_WIDTH if wide else TEXT_WIDTH),
                "aligns": [c.align for c in b.columns], "rows": rows, "status_column": b.status_column}
    raise InternalError(f"unknown block {type(b).__name__}")


#: The text width (A4, 210 mm, less 2 × 16 mm margins) and one table column's insets, in pt.
TEXT_WIDTH, INSETS = 504.6, 7.0
#: The text width of a landscape A4 page (297 mm less 2 × 16 mm), in pt: a table whose columns' longest words alone
#: are wider than `TEXT_WIDTH` is set on one (templates/document.typ), where the requirements compliance matrix's 12
#: columns fit without a word broken ("tokens/ s" over two lines, where Typst squeezed every column below its words).
LANDSCAPE_WIDTH = 751.2
#: Widths of one character of 7.5 pt table text in pt, with a margin: Libertinus Serif regular (digits are 0.5 em,
#: most letters less) and bold (the heading row), as measured with pdftotext on the rendered documents.
CHAR, BOLD = 4.0, 4.8
#: A capital letter in CHARs: 7.5 pt "SHALL" is 22.3 pt wide (4.45 pt a letter), "SHOULD" about 28.6 pt (4.8 pt),
#: where lower case is under 4 pt ("assumed", 3.8 pt a letter; pdftotext -bbox on a rendered cluster document).
CAPITAL = 1.25


def _word_widths(headings: list[str], rows: list[list[str]]) -> list[float]:
    """Per column, the width of its longest unbreakable word (heading in bold) with the insets, in pt."""
    cols = list(zip(headings, *rows, strict=True))
    return [max(BOLD * _word(col[0]), CHAR * max((_word(c) for c in col[1:]), default=0)) + INSETS for col in cols]


def narrowest(headings: list[str], rows: list[list[str]]) -> float:
    """The least width a table takes with no word broken: its columns' longest words side by side, in pt."""
    return sum(_word_widths(headings, rows))


def widths(headings: list[str], rows: list[list[str]], text_width: float = TEXT_WIDTH) -> list[str | float]:
    """Typst column widths from the content: all ``"auto"`` when every cell fits on one line, else weights (pt, fr).

    A column never gets less than its longest word (so no word is broken or overflows its cell); the width left
    over goes to the columns that still wrap, in proportion to their mean text length, a column never getting more
    than its longest cell. So a column of prose wraps, and one long column cannot squeeze the others to a letter a
    line. `text_width`: the page's (`LANDSCAPE_WIDTH` for a table set on a landscape page).
    """
    cols = list(zip(headings, *rows, strict=True))
    natural = [max(BOLD * len(col[0]), CHAR * max((len(c) for c in col[1:]), default=0)) + INSETS for col in cols]
    if sum(natural) <= text_width:
        return ["auto"] * len(cols)
    width = _word_widths(headings, rows)
    mean = [max(sum(len(c) for c in col[1:]) / max(len(col) - 1, 1), 1.0) for col in cols]
    open_ = {i for i, (w, n) in enumerate(zip(width, natural, strict=True)) if w < n}
    while open_ and (left := text_width - sum(width)) > 0.5:
        total = sum(mean[i] for i in open_)
        for i in sorted(open_):
            width[i] = min(natural[i], width[i] + left * mean[i] / total)
        open_ = {i for i in open_ if width[i] < natural[i]}
    return [round(w, 1) for w in width]


def _word(text: str) -> float:
    """Length in CHARs of the longest unbreakable run of `text`, a capital counting `CAPITAL`.

    Words, split again where `fmt.breakable` lets them break; capitals count more so that "SHOULD" is not drawn
    over the next cell.
    """
    return max((len(w) + (CAPITAL - 1) * sum(c.isupper() for c in w) for w in re.split(r"[\s\u200b]+", text)),
               default=0)


def pdf_bytes(doc: DocumentModel, templates: Path | None = None) -> bytes:
    """Compile the document to PDF bytes with the (possibly overridden) ``document.typ``.

    A compile done before with the same inputs is read back from the cache (`archgen.render.pdf_cache`).
    """
    try:
        import typst
    except ImportError as err:  # the `pdf` extra is optional
        raise TemplateError("PDF output needs the typst package: pip install 'archgen[pdf]'") from err
    path = template_path("document.typ", templates)
    data = json_text(document_json(doc), ensure_ascii=False, sort_keys=True)
    try:  # the same compile done before is read back (`pdf_cache`: keyed by all that Typst reads)
        pdf = compiled(typst, path, data, timestamp=0, ignore_system_fonts=True)
    except typst.TypstError as err:
        raise TemplateError(f"{path}: typst error: {err}") from None
    return pdf.replace(SUSPECTS, b" " * len(SUSPECTS), 1)


#: Typst marks a tagged PDF ``/MarkInfo<</Marked true/Suspects false>>``. ``false`` is the default (ISO 32000-1,
#: table 321), and poppler (pdfinfo, pdftotext) reports any Suspects entry that is not ``true`` as "Syntax Error:
#: Suspects object is wrong type". Blanking the entry in place keeps every byte offset, so the xref stays valid.
SUSPECTS = b"/Suspects false"
