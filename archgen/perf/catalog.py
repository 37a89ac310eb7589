"""Load the accelerator catalog the performance model needs, with located errors."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from archgen.errors import Location, SpecError, SpecProblem
from archgen.load import Document, load_paths
from archgen.model.accelerator import Accelerator


def default_catalog_paths() -> list[Path]:
    """Where the shipped accelerator specs live.

    ``archgen/catalog/accelerators`` in the package, else the repository's ``specs/catalog/accelerators``.
    """
    pkg = Path(__file__).resolve().parent.parent / "catalog" / "accelerators"
    repo = Path(__file__).resolve().parents[2] / "specs" / "catalog" / "accelerators"
    for p in (pkg, repo):  # archgen/catalog may be a link to specs/catalog: use the first that exists
        if p.is_dir():
            return [p]
    return []


def locate(doc: Document, path: tuple) -> Location:
    """Location of `path` in `doc`, skipping positions lost to YAML merge keys (line 0)."""
    for n in range(len(path), -1, -1):
        loc = doc.locate(path[:n])
        if loc.line:
            return loc
    return doc.locate(())


def problems_from(err: ValidationError, doc: Document, prefix: tuple = ()) -> list[SpecProblem]:
    """Turn a pydantic error into located `SpecProblem`s (one per error)."""
    out = []
    for e in err.errors():
        path = prefix + tuple(p for p in e["loc"] if not (isinstance(p, str) and "[" in p))
        out.append(SpecProblem(locate(doc, path), path=".".join(str(p) for p in path), message=e["msg"]))
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
            problems.append(SpecProblem(locate(doc, ("id",)), path="id", message=f"duplicate accelerator id "
                                        f"'{acc.id}'"))
        found[acc.id] = acc
    if problems:
        raise SpecError(problems)
    return found
