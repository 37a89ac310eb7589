"""Load the accelerator catalog the performance model needs, with located errors."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from archgen.errors import SpecError, SpecProblem
from archgen.load import Document, load_paths, shipped_catalog
from archgen.model.accelerator import Accelerator


def default_catalog_paths() -> list[Path]:
    """Where the shipped accelerator specs live (`load.shipped_catalog`)."""
    accelerators = shipped_catalog() / "accelerators"
    return [accelerators] if accelerators.is_dir() else []


def problems_from(err: ValidationError, doc: Document, prefix: tuple = ()) -> list[SpecProblem]:
    """Turn a pydantic error into located `SpecProblem`s (one per error)."""
    out = []
    for e in err.errors():
        path = prefix + tuple(p for p in e["loc"] if not (isinstance(p, str) and "[" in p))
        out.append(SpecProblem(doc.locate(path), path=".".join(str(p) for p in path), message=e["msg"]))
    return out


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
            problems.extend(problems_from(err, doc))
            continue
        if acc.id in found:
            problems.append(SpecProblem(doc.locate(("id",)), path="id", message=f"duplicate accelerator id "
                                        f"'{acc.id}'"))
        found[acc.id] = acc
    if problems:
        raise SpecError(problems)
    return found
