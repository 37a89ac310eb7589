"""PDF through the `typst` wheel: offline, embedded fonts, no system fonts, timestamp 0 (reproducible bytes).

The document model goes to `templates/document.typ` as JSON in ``sys.inputs.data``: Typst markup is never built
from strings, so a spec title such as ``*x* #panic("y") $z$`` prints literally.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from archgen.quantity_json import json_text
from archgen.render.blocks import Bullets, DocumentModel, Figure, Para, Section, Table
from archgen.render.env import TemplateError, template_path

#: Width of each diagram on the page (tall elevations are narrower so they fit with their caption).
FIGURE_WIDTH = {"elevation": 0.78}


def document_json(doc: DocumentModel) -> dict[str, Any]:
    """The document model as plain JSON data for the Typst template (cells already formatted)."""
    control = dict(doc.control)
    return {"title": doc.title, "doc_id": control.get("Document id", ""), "revision": control.get("Revision", ""),
            "control": [list(row) for row in doc.control], "sections": [_section(s, doc) for s in doc.sections]}


def _section(s: Section, doc: DocumentModel) -> dict[str, Any]:
    return {"id": s.id, "number": s.number, "title": s.title, "blocks": [_block(b, doc) for b in s.blocks],
            "sections": [_section(c, doc) for c in s.sections]}


def _block(b: Any, doc: DocumentModel) -> dict[str, Any]:
    if isinstance(b, Para):
        return {"kind": "para", "text": b.text, "style": b.style}
    if isinstance(b, Bullets):
        return {"kind": "bullets", "items": list(b.items)}
    if isinstance(b, Figure):
        return {"kind": "figure", "caption": b.caption, "svg": doc.figures[b.name]["svg"],
                "width": FIGURE_WIDTH.get(b.name, 1.0)}
    if isinstance(b, Table):
        return {"kind": "table", "caption": b.caption, "headings": [c.heading for c in b.columns],
                "aligns": [c.align for c in b.columns], "rows": b.text(), "status_column": b.status_column}
    raise TypeError(f"unknown block {type(b).__name__}")


def pdf_bytes(doc: DocumentModel, templates: Path | None = None) -> bytes:
    """Compile the document to PDF bytes with the (possibly overridden) ``document.typ``."""
    try:
        import typst
    except ImportError as err:  # the `pdf` extra is optional
        raise TemplateError("PDF output needs the typst package: pip install 'archgen[pdf]'") from err
    path = template_path("document.typ", templates)
    data = json_text(document_json(doc), ensure_ascii=False, sort_keys=True)
    try:
        return typst.compile(path.read_bytes(), root=str(path.parent), format="pdf",  # type: ignore[call-overload]
                             sys_inputs={"data": data}, timestamp=0, ignore_system_fonts=True)
    except typst.TypstError as err:
        raise TemplateError(f"{path}: typst error: {err}") from None
