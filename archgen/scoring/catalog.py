"""Load the accelerator catalog the performance model needs, with located errors."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from pydantic import ValidationError

from archgen.cache import Memo
from archgen.errors import SpecProblem, ValidateError
from archgen.load import SourceDocument, load_paths, shared, shipped_catalog
from archgen.model.accelerator import Accelerator
from archgen.validation_problems import problems_from


def default_catalog_paths() -> list[Path]:
    """Where the shipped accelerator specs live (`spec_files.shipped_catalog`)."""
    accelerators = shipped_catalog() / "accelerators"
    return [accelerators] if accelerators.is_dir() else []


def load_accelerators(paths: Iterable[str | Path] | None = None) -> dict[str, Accelerator]:
    """Every `Accelerator` document under `paths` (default: the shipped catalog), by id (a new dict each call).

    The files are found and read each call (`load_paths`: an added, removed or changed file is seen); their models
    are validated once a process for the same loaded documents (`VALIDATED`).
    """
    docs = tuple(d for d in load_paths(list(paths) if paths is not None else default_catalog_paths())
                 if d.kind == "Accelerator")
    key = tuple(map(id, docs))
    known = VALIDATED.get(key)
    if known is not None and all(a is b for a, b in zip(known[0], docs, strict=True)):
        return dict(known[1])
    found: dict[str, Accelerator] = {}
    problems: list[SpecProblem] = []
    for doc in docs:
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
    if all(shared(d) for d in docs):   # documents `load_file` gave, which no one changes: the objects kept
        VALIDATED.put(key, (docs, dict(found)))
    return found


#: `load_accelerators`' models by the documents they were validated from: it is called some 60 places in the scoring
#: and the tests, and validating the catalog's accelerators again was half of its 3.6 ms (pipe31).
VALIDATED = Memo[tuple[tuple[SourceDocument, ...], dict[str, Accelerator]]](8)
