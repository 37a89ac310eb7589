"""Render one target into memory: the document model, then every requested format, as ``{file name: bytes}``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from archgen.render import diagrams, provenance, rack, tables
from archgen.render.blocks import Document
from archgen.render.common import Scope, requirements_table
from archgen.render.env import environment, render_template


def rack_scope(result: Any, analysis: Any, revision: str | None, date: str | None) -> tuple[Scope, dict[str, int]]:
    """The scope of a rack document: parts used, subjects whose findings belong to it, provenance."""
    specs = result.design.specs
    spec = analysis.rack.spec
    parts, counts = rack.rack_parts(analysis, specs)
    docs = [spec, *parts] + ([analysis.rack.facility] if analysis.rack.facility else [])
    if revision is None:
        files = [specs.sources[d.id].file for d in docs if d.id in specs.sources]
        revision = provenance.git_revision(files)
    subjects = {analysis.rack.path, *(f"part/{p.id}" for p in parts), spec.id}
    scope = Scope(result, analysis.rack.path, spec, parts, subjects, revision, provenance.input_hash(docs), date)
    return scope, counts


def render_target(result: Any, target: Any, formats: tuple[str, ...], templates: Path | None,
                  revision: str | None, date: str | None, step: Callable[[str], None]) -> dict[str, bytes]:
    """Every requested file of one target, rendered in memory."""
    if target.kind != "rack":
        from archgen.render.cluster import render_cluster
        return render_cluster(result, target, formats, templates, revision, date, step)
    step("document model")
    scope, counts = rack_scope(result, target.analysis, revision, date)
    doc = rack.build(scope, target.analysis, counts)
    figures = {name: (lambda draw=draw: draw(target.analysis)) for name, draw in diagrams.RACK_DIAGRAMS.items()}
    csv_tables = {"bom.csv": doc_table(doc, "bom"), "requirements.csv": requirements_table(scope)}
    return render_document(doc, figures, csv_tables, formats, templates, step)


def doc_table(doc: Document, table_id: str) -> Any:
    """The table with id `table_id` in `doc`."""
    return next(t for t in doc.tables() if t.id == table_id)


def render_document(doc: Document, figures: dict[str, Callable[[], Any]], csv_tables: dict[str, Any],
                    formats: tuple[str, ...], templates: Path | None,
                    step: Callable[[str], None]) -> dict[str, bytes]:
    """Diagrams, then the document in each format, then the tables."""
    files: dict[str, bytes] = {}
    image_formats = tuple(f for f in ("svg", "png") if f in formats or (f == "svg" and "md" in formats))
    need_svg = any(f in formats for f in ("html", "pdf"))
    used = {f.name for f in doc.figure_blocks()}
    for name, draw in sorted(figures.items()):
        if name not in used:
            continue
        step(f"diagram {name}")
        fmts = tuple(dict.fromkeys(image_formats + (("svg",) if need_svg else ())))
        if not fmts:
            continue
        rendered = diagrams.render(name, draw, fmts)
        doc.figures[name] = {"svg": rendered.get("svg", b"").decode("utf-8")}
        for f in image_formats:
            files[f"{name}.{f}"] = rendered[f]
    env = environment(templates) if {"md", "html"} & set(formats) else None
    if "md" in formats:
        step("markdown")
        files[f"{doc.target}.md"] = render_template(env, "document.md.j2", doc=doc).encode("utf-8")
    if "html" in formats:
        step("html")
        files[f"{doc.target}.html"] = render_template(env, "document.html.j2", doc=doc,
                                                      svg=_inline_svgs(doc)).encode("utf-8")
    if "pdf" in formats:
        step("pdf")
        from archgen.render.pdf import pdf_bytes
        files[f"{doc.target}.pdf"] = pdf_bytes(doc, templates)
    if "csv" in formats:
        step("csv")
        for name, table in csv_tables.items():
            files[name] = tables.csv_bytes(table)
    if "xlsx" in formats:
        step("xlsx")
        files[f"{doc.target}.xlsx"] = tables.xlsx_bytes(list(csv_tables.values()))
    return files


def _inline_svgs(doc: Document) -> dict[str, str]:
    """Each diagram's SVG without its XML prolog, ready to inline in HTML."""
    from markupsafe import Markup

    out = {}
    for name, fig in doc.figures.items():
        text = fig["svg"]
        start = text.find("<svg")
        out[name] = Markup(text[start:] if start >= 0 else text)
    return out
