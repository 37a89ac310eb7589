"""`archgen validate`: schema, units and references of the specs, without analysis."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from archgen.commands.common import spec_paths
from archgen.load import shipped_catalog
from archgen.output import findings as output
from archgen.pipeline import references


def validate(paths: Sequence[Path] | None) -> tuple[str, int]:
    """How many of the user's documents are valid with their references resolved.

    A schema or unit problem raises `ValidateError` (every one of them, located); an unresolved reference is a REF
    finding, printed as `archgen check` prints it, with exit code 1. A key under a name since renamed is an SPC003
    warning, printed before the count (exit code 0).
    """
    specs, findings = references(spec_paths(paths))
    if any(f.severity == "error" and not f.waived for f in findings):
        return output.text(findings), 1
    catalog = shipped_catalog().resolve()
    mine = sum(1 for s in specs.sources.values() if not Path(s.file).resolve().is_relative_to(catalog))
    warnings = [f for f in findings if not f.waived]
    lead = output.text(warnings) if warnings else ""
    return f"{lead}{mine} document(s) valid, references resolved ({len(specs.items)} with the shipped catalog)\n", 0
