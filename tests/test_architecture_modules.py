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
