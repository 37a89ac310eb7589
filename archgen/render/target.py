"""Render one target (a rack or a cluster) into memory as ``{file name: bytes}``."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from archgen.render import diagrams, provenance, rack
from archgen.render.cluster import render_cluster
from archgen.render.common import Scope
from archgen.render.compliance import requirements_table
from archgen.render.emit import doc_table, render_document
from archgen.render.tables import bom_data


def rack_scope(result: Any, analysis: Any, revision: str | None, date: str | None) -> tuple[Scope, dict[str, int]]:
    """The scope of a rack document: parts used, subjects whose findings belong to it, provenance."""
    specs = result.design.specs
    spec = analysis.rack.spec
    parts, counts = rack.rack_parts(analysis, specs)
    docs = [spec, *parts] + ([analysis.rack.facility] if analysis.rack.facility else [])
    if revision is None:
        files = [specs.sources[d.id].file for d in docs if d.id in specs.sources]
        revision = provenance.git_revision(files)
    hall = analysis.rack.facility
    subjects = {analysis.rack.path, *(f"part/{p.id}" for p in parts), spec.id,
                *([f"facility/{hall.id}"] if hall is not None else [])}  # the hall's own findings (COOL008, COOL011)
    scope = Scope(result, analysis.rack.path, spec, parts, subjects, revision, provenance.input_hash(docs), date)
    return scope, counts


def render_target(result: Any, target: Any, formats: tuple[str, ...], templates: Path | None,
                  revision: str | None, date: str | None, step: Callable[[str], None],
                  edition: str = "internal") -> dict[str, bytes]:
    """Every requested file of one target, rendered in memory, in the `edition` of `render.edition`."""
    if target.kind != "rack":
        return render_cluster(result, target, formats, templates, revision, date, step, edition)
    step("document model")
    scope, counts = rack_scope(result, target.analysis, revision, date)
    doc = rack.build(scope, target.analysis, counts)
    figures = {name: partial(draw, target.analysis) for name, draw in diagrams.RACK_DIAGRAMS.items()}
    csv_tables = {"bom.csv": bom_data(doc_table(doc, "bom")), "requirements.csv": requirements_table(scope)}
    return render_document(doc, figures, csv_tables, formats, templates, step, edition)


def reused_drawers(result: Any, target: Any) -> list[Callable[[], Any]]:
    """The diagrams of `target`'s document that other documents draw too (`diagrams.drawn_once`'s users).

    A rack's elevation, and in a cluster's document the elevation of each of its rack types.
    """
    if target.kind == "rack":
        return [partial(diagrams.elevation, target.analysis)]
    return list(diagrams.rack_elevations(result, target.analysis).values())
