"""Load the accelerator catalog the performance model needs, with located errors."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from archgen.errors import SpecProblem, ValidateError
from archgen.load import load_paths, shipped_catalog
from archgen.model.accelerator import Accelerator
from archgen.validation_problems import problems_from


def default_catalog_paths() -> list[Path]:
    """Where the shipped accelerator specs live (`spec_files.shipped_catalog`)."""
    accelerators = shipped_catalog() / "accelerators"
    return [accelerators] if accelerators.is_dir() else []


def load_accelerators(paths: Iterable[str | Path] | None = None) -> dict[str, Accelerator]:
    """Every `Accelerator` document under `paths` (default: the shipped catalog), by id."""
    docs = load_paths(list(paths) if paths is not None else default_catalog_paths())
    found: dict[str, Accelerator] = {}
    problems: list[SpecProblem] = []
    for doc in docs:
        if doc.kind != "Accelerator":
            continue
        try:
            acc = Accelerator.model_validate(doc.data)
        except ValidationError as err:
            problems.extend(problems_from(err, doc, Accelerator))
            continue
        if acc.id in found:
            problems.append(SpecProblem(doc.locate(("id",)), path="id", message=f"duplicate accelerator id "
                                        f"'{acc.id}'"))
        found[acc.id] = acc
    if problems:
        raise ValidateError(problems)
    return found
