"""pint, imported without Dask: `from archgen.pint_import import pint` (archgen.units does, first).

pint 0.25 imports `dask.base` (and with it Dask's config, its task graph, jinja2 for its notebook widgets) whenever
Dask is installed, for Quantities that wrap Dask arrays; archgen never makes one. The `distributed` extra installs
Dask, and the import cost every command 124 ms (issue 25). Dask is hidden while pint imports (`find_spec("dask")`
answers None for a module that `sys.modules` maps to None, as the import system documents), so pint sets itself up
as without Dask. `enable_dask` gives pint its Dask support back, as pint would have set it up, for the one command
that uses Dask (`archgen sweep --scheduler`), before any Quantity reaches Dask.
"""

from __future__ import annotations

import sys
from importlib import import_module
from typing import Any

_HIDE = "dask" not in sys.modules  # Dask already imported (by the caller): pint may as well use it
if _HIDE:
    sys.modules["dask"] = None  # type: ignore[assignment]
try:
    import pint
finally:
    if _HIDE and sys.modules.get("dask", 0) is None:
        del sys.modules["dask"]

__all__ = ["enable_dask", "pint"]


class _LazyDaskArray:
    """`dask.array`, imported on first use (pint's own stand-in, `pint.compat._LazyDaskArray`)."""

    def __getattr__(self, attr: str) -> Any:
        return getattr(import_module("dask.array"), attr)


def enable_dask() -> None:
    """Set up pint's Dask facet as pint does when it finds Dask at import (`pint.compat`, `pint.facets.dask`).

    Dask asks every object it is handed whether it is a Dask collection (`__dask_graph__`); without this a Quantity
    answers with an AttributeError. Idempotent; a no-op when pint already found Dask.
    """
    from pint import compat
    from pint.facets import dask as facet

    if compat.HAS_DASK and compat.dask_array is not None:
        return
    from dask.base import compute, persist, visualize

    lazy = _LazyDaskArray()
    for module in (compat, facet):
        module.compute, module.persist, module.visualize = compute, persist, visualize  # type: ignore[attr-defined]
        module.dask_array = lazy  # type: ignore[attr-defined]
    compat.HAS_DASK = True
