"""Load the catalog parts the performance model and the scoring need (accelerators, models), with located errors."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import TypeVar, cast

from pydantic import ValidationError

from archgen.cache import Memo
from archgen.errors import SpecProblem, ValidateError
from archgen.load import SourceDocument, load_paths, shared, shipped_catalog
from archgen.model.accelerator import Accelerator
from archgen.model.spec import Document
from archgen.validation_problems import problems_from


def default_catalog_paths() -> list[Path]:
    """Where the shipped accelerator specs live (`spec_files.shipped_catalog`)."""
    accelerators = shipped_catalog() / "accelerators"
    return [accelerators] if accelerators.is_dir() else []


#: A catalog document's class (`load_parts`).
D = TypeVar("D", bound=Document)


def load_accelerators(paths: Iterable[str | Path] | None = None) -> dict[str, Accelerator]:
    """Every `Accelerator` document under `paths` (default: the shipped catalog), by id (`load_parts`)."""
    return load_parts(Accelerator, paths if paths is not None else default_catalog_paths())


def load_parts(cls: type[D], paths: Iterable[str | Path]) -> dict[str, D]:
    """Every document of `cls`'s kind under `paths` as a `cls`, by id (a new dict each call); located errors.

    The files are found and read each call (`load_paths`: an added, removed or changed file is seen); their models
    are validated once a process for the same loaded documents (`VALIDATED`).
    """
    kind = cls.model_fields["kind"].default
    docs = tuple(d for d in load_paths(list(paths)) if d.kind == kind)
    key = (cls, tuple(map(id, docs)))
    known = VALIDATED.get(key)
    if known is not None and all(a is b for a, b in zip(known[0], docs, strict=True)):
        return cast("dict[str, D]", dict(known[1]))
    found: dict[str, D] = {}
    problems: list[SpecProblem] = []
    for doc in docs:
        try:
            part = cls.model_validate(doc.data)
        except ValidationError as err:
            problems.extend(problems_from(err, doc, cls))
            continue
        if part.id in found:
            problems.append(SpecProblem(doc.locate(("id",)), path="id", message=f"duplicate {kind.lower()} id "
                                        f"'{part.id}'"))
        found[part.id] = part
    if problems:
        raise ValidateError(problems)
    if all(shared(d) for d in docs):   # documents `load_file` gave, which no one changes: the objects kept
        VALIDATED.put(key, (docs, dict(found)))
    return found


#: `load_parts`' models by their class and the documents they were validated from: `load_accelerators` is called
#: some 60 places in the scoring and the tests, and validating the catalog's accelerators again was half of its 3.6 ms
#: (pipe31); `unstated_shape.catalog_match` validated the catalog's nine models again for each case that leaves a
#: field out (fidelity41).
VALIDATED = Memo[tuple[tuple[SourceDocument, ...], dict[str, Document]]](8)
