"""`archgen validate`: schema, units and references of the specs, without analysis."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from archgen.commands.common import spec_paths
from archgen.pipeline import load
from archgen.validate import validate as validate_specs


def validate(paths: Sequence[Path] | None) -> tuple[str, int]:
    """How many documents are valid; a problem raises `SpecError` (every one of them, located)."""
    docs, library = load(spec_paths(paths))
    specs = validate_specs(docs, library)
    return f"{len(docs)} document(s) valid ({len(specs.items)} with the shipped catalog)\n", 0
