"""Every `module.name` the docs point at exists in archgen (docsync21).

The docs (docs/*.md and README.md above its changelog) name code by backticked dotted names: `layout_rules.interleaves`,
`stack_profiles.VENDOR_STACKS`, `archgen.perf.train.layer.layer_times`. When a function moves to another module (tidy21
split twelve modules at their seams) a name that still reads `training.layer_times` points at nothing. This test reads
every backticked dotted name whose first part (after an optional `archgen.`) is the tail of an archgen module's path
(`layer`, `train.layer`, `perf.train.layer`), imports that module and looks the rest up attribute by attribute; a name
that resolves in no module of that tail fails, with its file:line, and so does a function or class that the module
only imports (`training.layer_times` resolves, but `layer_times` is defined in `layer`; a package's imports are its
API and pass: `model.Document`).

Not code, so not checked: spec keys and JSON/YAML keys whose every part is a field of an archgen pydantic model
(`power.max`, `scale_up.bandwidth`, `training.fp8_recipe`: `power`, `training` are also module names), check names
(`references.unknown`) and metric names (`torus.links`), file names (`diff.full.md`, `mlperf.conf`) and what
`NOT_CODE` lists with its reason. The changelog entries of earlier sessions are history: they name modules as they
were when written.

A second rule catches a module that is gone (`search.layout_problems`, when `search` was no module): a dotted name
whose first part is no archgen module but whose last part is a function, class or constant defined at the top level
of an archgen module fails too, unless its first part is another package (`FOREIGN`) or `NOT_CODE` lists it.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from functools import cache
from pathlib import Path

import pytest
from pydantic import BaseModel

import archgen
from tests.parsed_source import tree

REPO = Path(__file__).resolve().parent.parent
CODE_SPAN = re.compile(r"`([^`\n]+)`")
DOTTED = re.compile(r"(?:archgen\.)?[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?")
FILE_SUFFIXES = {"md", "py", "yaml", "yml", "json", "j2", "html", "csv", "svg", "png", "pdf", "xlsx", "toml", "conf",
                 "txt", "cfg", "ini", "rst", "sh", "log", "gz", "zip"}
#: First parts that name another package's code, not archgen's.
FOREIGN = {"torch", "np", "numpy", "pint", "pydantic", "typer", "click", "jinja2", "math", "os", "sys", "json", "dask"}
#: Dotted names in the docs that are neither archgen code nor a spec/JSON key this test can derive, with the reason.
NOT_CODE = {
    "plan.model_only.taken": "a key of `estimate --search-plan`'s JSON (perf/explore/plan.py), not code",
    "inference.disaggregated": "a workload key refused as not modelled (model/engine.py DISAGGREGATED); no field",
    "conventions.mfu_peak": "a key of an estimate's `conventions` (JSON), not the function unconfirmed_note.mfu_peak",
    "placed.estimate()": "docs/python-api.md's example variable `placed` (a pipeline.JobOnCluster), not a module",
    "band.describe()": "docs/python-api.md's example variable `band` (a bands.Band), not a module",
    "specs.entry": "docs/python-api.md's example variable `specs` (a Specs), not a module",
}


def pages() -> list[tuple[str, str]]:
    """(name, text) of every page the test reads: docs/*.md and README.md up to its changelog."""
    readme = (REPO / "README.md").read_text(encoding="utf-8").split("\n## Changelog\n")[0]
    return [("README.md", readme)] + [(f"docs/{p.name}", p.read_text(encoding="utf-8"))
                                      for p in sorted((REPO / "docs").glob("*.md"))]


@cache
def modules() -> dict[str, tuple[str, ...]]:
    """Every tail of every archgen module's dotted path (`layer`, `train.layer`, ...) -> the modules it names."""
    tails: dict[str, set[str]] = {}
    for info in pkgutil.walk_packages(archgen.__path__, "archgen."):
        parts = info.name.split(".")[1:]
        for i in range(len(parts)):
            tails.setdefault(".".join(parts[i:]), set()).add(info.name)
    return {k: tuple(sorted(v)) for k, v in tails.items()}


@cache
def top_level_names() -> frozenset[str]:
    """Functions, classes and assigned names at the top level of every archgen module (read, not imported)."""
    names: set[str] = set()
    for path in (REPO / "archgen").rglob("*.py"):
        for node in tree(path).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(t.id for t in targets if isinstance(t, ast.Name))
    return frozenset(names)


@cache
def keys() -> tuple[frozenset[str], frozenset[str]]:
    """Field names (and aliases) of every archgen pydantic model, and every check and metric name."""
    for name in sorted({m for tails in modules().values() for m in tails}):
        importlib.import_module(name)
    fields: set[str] = set()
    todo: list[type] = [BaseModel]
    while todo:
        cls = todo.pop()
        todo += cls.__subclasses__()
        if cls.__module__.startswith("archgen"):
            for name, f in cls.model_fields.items():
                fields.update({name, f.alias or name})
    from archgen.checks import REGISTRY as CHECKS
    from archgen.metrics import REGISTRY as METRICS
    return frozenset(fields), frozenset({c.name for c in CHECKS.values()} | {m.name for m in METRICS})


def _has(obj: object, attr: str) -> tuple[bool, object]:
    if hasattr(obj, attr):
        return True, getattr(obj, attr)
    declared = {**getattr(obj, "__dataclass_fields__", {}), **getattr(obj, "model_fields", {}),
                **getattr(obj, "__annotations__", {})} if isinstance(obj, type) else {}
    return attr in declared, None


def problem(text: str) -> str | None:
    """Why the dotted name `text` points at nothing in archgen, or None (it resolves, or it is not code)."""
    name = text.removesuffix("()")
    if name.rsplit(".", 1)[1] in FILE_SUFFIXES or text in NOT_CODE:
        return None
    fields, named = keys()
    if name in named or all(p in fields for p in name.split(".")):
        return None
    parts = name.removeprefix("archgen.").split(".")
    tails = modules()
    found = [(tails[".".join(parts[:i])], parts[i:]) for i in range(len(parts), 0, -1) if ".".join(parts[:i]) in tails]
    if not found:
        if parts[0] in FOREIGN or not parts[0].islower() or parts[-1] not in top_level_names():
            return None
        return f"no archgen module `{parts[0]}` (its last part is defined in archgen: moved?)"
    imported = ""
    for mods, rest in found:
        for mod in mods:
            obj: object = importlib.import_module(mod)
            package = hasattr(obj, "__path__")  # a package's imports are its API
            home = mod
            for attr in rest:
                ok, obj = _has(obj, attr)
                if not ok:
                    break
                if attr == rest[0] and callable(obj):
                    home = getattr(obj, "__module__", mod)
            else:
                if home == mod or package or not home.startswith("archgen."):
                    return None
                imported = imported or f"{mod} only imports it: defined in {home}"
    where = " or ".join(m for mods, _ in found for m in mods)
    return imported or f"not in {where}"


def test_not_code_entries_are_still_in_the_docs():
    texts = "\n".join(t for _, t in pages())
    assert [n for n in NOT_CODE if f"`{n}`" not in texts] == []


def test_a_moved_function_is_caught():
    assert problem("training.layer_times") == ("archgen.perf.train.training only imports it: defined in "
                                               "archgen.perf.train.layer")
    assert problem("training.no_such_function") == "not in archgen.perf.train.training"
    assert problem("layer.layer_times") is None and problem("archgen.perf.train.layer.layer_times") is None
    assert problem("switches.VENDOR_STACKS") == "not in archgen.model.switches"  # a constant: no __module__
    assert problem("search.layout_problems") is not None  # no module `search`
    assert problem("power.max") is None and problem("torus.links") is None and problem("mlperf.conf") is None


@pytest.mark.parametrize("page", [name for name, _ in pages()])
def test_every_dotted_name_resolves(page):
    text = dict(pages())[page]
    bad = [f"{page}:{n}: `{m.group(1)}`: {why}"
           for n, line in enumerate(text.splitlines(), 1) for m in CODE_SPAN.finditer(line)
           if DOTTED.fullmatch(m.group(1)) and (why := problem(m.group(1)))]
    assert bad == [], "\n".join(bad)
