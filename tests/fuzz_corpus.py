"""The fuzz corpus (issue 23): every file a user hands archgen, parsed once, with the files each one runs with.

A scenario is one file to mutate and the unchanged files it needs: every shipped spec under `specs/` (a catalog part
with the smallest rack that places it), the GB300 example, every file of every check case in `tests/checks/cases`,
the fabric and reliability data under `tests/data`, and both validation-case files (run by `estimate --cases`).
`tests/test_fuzz.py` runs the scenarios in-process, `tests/fuzz_round.py` in forked children from files on disk.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.conftest import SPECS

REPO = SPECS.parent
CASE_FILES = sorted((REPO / "tests" / "data").glob("validation-*.yaml"))
DATA = [REPO / "tests" / "data" / d for d in ("fabrics", "minimal", "efa", "placement")]


@dataclass(frozen=True)
class Scenario:
    """A file to mutate (`name`, relative to the spec root it is written under) and the unchanged files beside it."""

    name: str
    text: str
    docs: list                  # its documents, parsed
    others: list                # documents of the files it runs with, parsed
    files: dict[str, str] = field(default_factory=dict)  # those files' text, by name relative to the spec root
    cases: bool = False         # a validation-case file (estimate --cases), not specs


@dataclass(frozen=True, repr=False)
class World:
    """The corpus, every id in it, the keys that hold references, and the values seen at each key (enum swaps)."""

    scenarios: list[Scenario]
    ids: list[str]
    ref_keys: set[str]
    values: dict[str, list]
    library: list

    def __repr__(self) -> str:
        return f"<{len(self.scenarios)} fuzz scenarios>"


def leaves(data: Any, path: tuple = ()) -> list[tuple]:
    """Every path into plain data (the root included)."""
    if isinstance(data, dict):
        return [path] + [p for k, v in data.items() for p in leaves(v, path + (k,))]
    if isinstance(data, list):
        return [path] + [p for i, v in enumerate(data) for p in leaves(v, path + (i,))]
    return [path]


def strings(data: Any) -> set[str]:
    """Every string value in plain data."""
    if isinstance(data, dict):
        return {s for v in data.values() for s in strings(v)}
    if isinstance(data, list):
        return {s for v in data for s in strings(v)}
    return {data} if isinstance(data, str) else set()


def get(data: Any, path: tuple) -> Any:
    """The value at `path`."""
    for k in path:
        data = data[k]
    return data


def build_world() -> World:
    """Parse the corpus once."""
    from archgen.load import cached, load_file, shipped_catalog
    from archgen.pipeline import load
    files = sorted(p for p in SPECS.rglob("*.yaml") if p.is_file())
    parsed = {f: load_file(f) for f in files}
    owner = {d.id: f for f, docs in parsed.items() for d in docs}
    catalog = SPECS / "catalog"
    refs = {f: {owner[s] for d in docs for s in strings(d.data) if s in owner} - {f} for f, docs in parsed.items()}

    def closure(f: Path) -> set[Path]:
        seen, todo = set(), [f]
        while todo:
            for g in refs[todo.pop()]:
                if g not in seen and not g.is_relative_to(catalog):
                    seen.add(g)
                    todo.append(g)
        return seen - {f}

    def scenario(f: Path, root: Path, need: set[Path], docs: list | None = None) -> Scenario:
        need = sorted(need)
        return Scenario(str(f.relative_to(root)), f.read_text(encoding="utf-8"), docs or parsed[f],
                        [d for g in need for d in (parsed.get(g) or load_file(g))],
                        {str(g.relative_to(root)): g.read_text(encoding="utf-8") for g in need})

    scenarios = []
    for f in files:
        need = closure(f)
        if f.is_relative_to(catalog):  # a part runs with the smallest rack that places it, if any
            racks = sorted((g for g in files if g.is_relative_to(SPECS / "racks") and f in refs[g]),
                           key=lambda g: g.stat().st_size)
            need = ({racks[0]} | closure(racks[0])) if racks else set()
        scenarios.append(scenario(f, SPECS, need))
    groups = [sorted((REPO / "examples" / "gb300-nvl72-su").rglob("*.yaml"))]
    groups += [sorted(d.rglob("*.yaml")) for d in DATA]
    for group in groups:
        docs = {g: load_file(g) for g in group}
        for g in group:
            scenarios.append(scenario(g, REPO, set(group) - {g}, docs[g]))
    for case_file in sorted((REPO / "tests" / "checks" / "cases").glob("*.yml")):
        for case in _yaml(case_file)["cases"]:
            texts = case.get("files") or {}
            docs = {name: cached(text, name) for name, text in texts.items()}  # parsed once a machine
            for name, text in texts.items():
                others = [d for n, ds in docs.items() if n != name for d in ds]
                scenarios.append(Scenario(name, text, docs[name], others,
                                          {n: t for n, t in texts.items() if n != name}))
    for f in CASE_FILES:
        scenarios.append(Scenario(f.name, f.read_text(encoding="utf-8"), _case_docs(f), [], {}, cases=True))
    all_docs = [d for s in scenarios for d in s.docs]
    ref_keys = {next(k for k in reversed(p) if isinstance(k, str)) for docs in parsed.values() for d in docs
                for p in leaves(d.data) if isinstance(get(d.data, p), str) and get(d.data, p) in owner
                and any(isinstance(k, str) for k in p)} - {"id", "name"}
    values: dict[str, set] = {}
    for d in all_docs:
        for p in leaves(d.data):
            v = get(d.data, p)
            key = next((k for k in reversed(p) if isinstance(k, str)), None)
            if key and isinstance(v, str | bool) and len(str(v)) <= 40:
                values.setdefault(key, set()).add(v)
    library = load([shipped_catalog()])[0]  # the shipped catalog, as `pipeline.load` gives it
    return World(scenarios, sorted(owner), ref_keys,
                 {k: sorted(v, key=repr) for k, v in sorted(values.items()) if len(v) > 1}, library)


class _Doc:
    """A validation-case file's one document, shaped like a `SourceDocument` for the mutators."""

    def __init__(self, data: Any) -> None:
        self.data = data


def _case_docs(f: Path) -> list:
    return [_Doc(_yaml(f))]


def _yaml(f: Path) -> Any:
    """`yaml.safe_load` of a file with libyaml where PyYAML has it (the same data; the Python parser took half of
    `build_world`, once per worker)."""
    import yaml
    return yaml.load(f.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
