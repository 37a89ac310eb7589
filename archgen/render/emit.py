"""A document model rendered into files in memory: its diagrams, the document in each format, and its tables."""

from __future__ import annotations

import html
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from archgen import __version__
from archgen.render import diagrams, glossary, tables
from archgen.render.blocks import Column, DocumentModel, Table
from archgen.render.edition import customer, data_table, file_name
from archgen.render.env import environment, render_template


def doc_table(doc: DocumentModel, table_id: str) -> Any:
    """The table with id `table_id` in `doc`."""
    return next(t for t in doc.tables() if t.id == table_id)


def control_table(doc: DocumentModel) -> Table:
    """The document's control rows (number, revision, input digest...) and archgen's version, as a data table.

    Written as ``document.csv`` beside the data CSVs and as the workbook's first sheet, so that a table imported on
    its own (``bom.csv``) is tied to a revision and an input digest; a separate file, not comment lines, because a
    procurement or tracker import reads a CSV's first line as its header and would take a comment for data.
    """
    return Table("document", "Document control", (Column("Field"), Column("Value")),
                 (*doc.control, ("archgen version", __version__)))


#: The control rows every data CSV repeats in its last columns (`revision_stamp`).
STAMPED = ("Document number", "Revision")


def revision_stamp(doc: DocumentModel) -> tuple[tuple[str, str], ...]:
    """The document number and revision the data CSVs carry on every row, as the edition's control table gives them.

    A CSV forwarded or imported on its own (a BOM into an ODM's ERP) then says which release it belongs to, as PLM
    exports carry the parent's number and revision on each line (newuser87: two revisions' ``bom.csv`` could not be
    told apart). Constant columns, not a comment line (`control_table`), and only what the specs state or git gives:
    the same input, the same bytes. The workbook needs none: its first sheet is the control table.
    """
    control = dict(doc.control)
    return tuple((field, str(control.get(field, ""))) for field in STAMPED)


def titled(svg: bytes, doc: DocumentModel, name: str) -> bytes:
    """A diagram's SVG file with a ``<title>`` naming the document number, revision and diagram.

    SVG's own title element (SVG 1.1, 5.4), first child of the root: a browser shows it as the tab's title and a
    drawing tool as the document's, so an elevation sent on its own still says which release it belongs to
    (newuser87). Only the file: the copy inlined in the HTML and PDF stands under the document's control table. A
    PNG has no such field here (a diagram one rack and its cluster share is saved once, `diagrams.drawn_once`).
    """
    number, revision = (value for _, value in revision_stamp(doc))   # a sweep's document states neither
    text = html.escape(f"{number or doc.target}{f' revision {revision}' if revision else ''}: {name}", quote=False)
    start = svg.find(b"<svg")
    end = svg.find(b">", start) + 1 if start >= 0 else 0
    return svg if end <= 0 else svg[:end] + f"\n <title>{text}</title>".encode() + svg[end:]


def render_document(doc: DocumentModel, figures: Mapping[str, Callable[[], Any]], csv_tables: dict[str, Any],
                    formats: tuple[str, ...], templates: Path | None,
                    step: Callable[[str], None], edition: str = "internal") -> dict[str, bytes]:
    """Diagrams, then the document (its customer edition when asked) in each format, then the tables.

    The document and table files of an edition other than the internal one carry its name (`edition.file_name`:
    ``<target>.customer.pdf``); the diagrams, the same in both, keep theirs, which the Markdown links.
    """
    files: dict[str, bytes] = {}
    if edition == "customer":
        customer(doc)
        # the cost sheet gives each part's unit price: held back where the document withholds them (newuser64)
        csv_tables = {name: data_table(t) for name, t in csv_tables.items()
                      if doc.show_prices or name != "cost.csv"}
    glossary.used(doc)                 # after the edition: the terms of the text the reader gets
    csv_tables = {"document.csv": control_table(doc), **csv_tables}   # the edition's control rows
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
            files[f"{name}.{f}"] = titled(rendered[f], doc, name) if f == "svg" else rendered[f]
    env = environment(templates) if {"md", "html"} & set(formats) else None
    if env is not None and "md" in formats:
        step("markdown")
        files[f"{doc.target}.md"] = render_template(env, "document.md.j2", doc=doc).encode("utf-8")
    if env is not None and "html" in formats:
        step("html")
        files[f"{doc.target}.html"] = render_template(env, "document.html.j2", doc=doc,
                                                      svg=_inline_svgs(doc)).encode("utf-8")
    if "pdf" in formats:
        step("pdf")
        from archgen.render.pdf import pdf_bytes  # typst is an optional extra
        files[f"{doc.target}.pdf"] = pdf_bytes(doc, templates)
    if "csv" in formats:
        step("csv")
        stamp = revision_stamp(doc)
        for name, table in csv_tables.items():
            files[name] = tables.csv_bytes(table, () if name == "document.csv" else stamp)
    if "xlsx" in formats:
        step("xlsx")
        files[f"{doc.target}.xlsx"] = tables.xlsx_bytes(list(csv_tables.values()))
    diagram_files = {f"{name}.{f}" for name in figures for f in ("svg", "png")}
    return {(k if k in diagram_files else file_name(k, edition)): v for k, v in files.items()}


def _inline_svgs(doc: DocumentModel) -> dict[str, Any]:
    """Each diagram's SVG without its XML prolog, ready to inline in HTML."""
    from markupsafe import Markup

    out = {}
    for name, fig in doc.figures.items():
        text = fig["svg"]
        start = text.find("<svg")
        out[name] = Markup(text[start:] if start >= 0 else text)
    return out
