"""Every module the import-linter layers name is named in docs/architecture.md (review24).

The layers contract in pyproject.toml lists each top-level module of the package; a module split off for its size
(quantity_text, unit_hints, metrics_facility) was added to the contract but not to the page that says what each
module holds, so a maintainer reading the page could not find it. A layer's module is named on the page as
`name.py` or, for a package, `name/`.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _layer_modules() -> list[str]:
    """The modules of the package-wide layers contract, as paths under archgen/ ('quantity_text', 'perf')."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    found = []
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract["type"] != "layers" or "containers" in contract:  # a package's own layers: its page is its code
            continue
        for layer in contract["layers"]:
            for name in layer.split(":"):
                found.append(name.strip().removeprefix("archgen.").replace(".", "/"))
    return found


def test_every_layer_module_is_on_the_architecture_page() -> None:
    page = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    modules = _layer_modules()
    assert "quantity_text" in modules  # the contract was read
    missing = [m for m in modules if f"{m}.py" not in page and f"{m}/" not in page]
    assert not missing, f"docs/architecture.md names no module {missing}: add a row saying what each holds"


#: Modules of archgen/perf/ the page's `perf/` tree did not name on 2026-12-05 (review25): 32 then, none since audit19
#: named each where its package is. A module leaves this list when the tree names it; none joins it (a new module gets
#: its line in the tree).
_PERF_UNNAMED: frozenset[str] = frozenset()


def test_every_new_perf_module_is_in_the_perf_tree() -> None:
    # the merges of 2026-12-05 added perf/serve/colocation.py and perf/workload/flop_counting.py and named neither
    page = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    tree = page[page.index("archgen/perf/\n"):page.index("archgen/scoring/")]
    perf = REPO / "archgen" / "perf"
    modules = {p.relative_to(perf).with_suffix("").as_posix() for p in perf.rglob("*.py") if p.name != "__init__.py"}
    missing = sorted(m for m in modules - _PERF_UNNAMED if f"{m.rsplit('/', 1)[-1]}.py" not in tree)
    assert not missing, f"docs/architecture.md's perf/ tree names no {missing}: add each where its package is"
    named = sorted(m for m in _PERF_UNNAMED & modules if f"{m.rsplit('/', 1)[-1]}.py" in tree)
    assert not named, f"{named} now named in the perf/ tree: take them off _PERF_UNNAMED"


def test_every_top_level_module_is_in_the_layers_contract() -> None:
    """A module the package-wide contract does not name is free to import any layer (audit19: `metrics_swing` and
    `open_item` were added beside it and never joined it, so nothing held their direction)."""
    package = REPO / "archgen"
    modules = {p.stem for p in package.glob("*.py") if p.stem not in ("__init__", "__main__")}
    modules |= {p.name for p in package.iterdir() if (p / "__init__.py").is_file()}
    unnamed = sorted(modules - set(_layer_modules()))
    assert not unnamed, f"archgen modules the layers contract in pyproject.toml does not name: {unnamed}"
