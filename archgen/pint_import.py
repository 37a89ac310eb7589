"""pint, imported without Dask and without `importlib.metadata`: `from archgen.pint_import import pint` (archgen.units).

pint 0.25 imports `dask.base` (and with it Dask's config, its task graph, jinja2 for its notebook widgets) whenever
Dask is installed, for Quantities that wrap Dask arrays; archgen never makes one. The `distributed` extra installs
Dask, and the import cost every command 124 ms (issue 25). Dask is hidden while pint imports (`find_spec("dask")`
answers None for a module that `sys.modules` maps to None, as the import system documents), so pint sets itself up
as without Dask. `enable_dask` gives pint its Dask support back, as pint would have set it up, for the one command
that uses Dask (`archgen sweep --scheduler`), before any Quantity reaches Dask.

pint, flexcache and flexparser each take their `__version__` from `importlib.metadata.version` at import, and that
module imports `email` (and with it `socket`, `calendar`, ...), `csv` and `zipfile`: 2.1 % of the instructions of
`archgen estimate --workload llama3-70b-pretrain-b200`, the only use of the module in that command (issue 25,
defer35). While pint imports, `importlib.metadata` is a stand-in whose `version` reads the Version header of the
distribution's `METADATA` in its `.dist-info` folder, found on `sys.path` the way `importlib.metadata` finds it
(the first path entry that holds a folder of that normalized name); a distribution found any other way (an
`.egg-info`, a zip on the path, no header), and any other name the stand-in is asked for, is `importlib.metadata`'s
own answer. The stand-in is gone once pint is imported: a later import gets the real module.
"""

from __future__ import annotations

import os
import re
import sys
import types
from importlib import import_module
from typing import Any

_METADATA = "importlib.metadata"


def _real(attr: str) -> Any:
    """`importlib.metadata`'s own `attr`, the real module imported (in place of the stand-in) if need be."""
    if sys.modules.get(_METADATA) is _STAND_IN:
        del sys.modules[_METADATA]
    return getattr(import_module(_METADATA), attr)


def _normal(name: str) -> str:
    """A distribution's name as `importlib.metadata` compares it (its `Prepared.normalize`)."""
    return re.sub(r"[-_.]+", "_", name).lower()


def installed_version(name: str) -> str:
    """`importlib.metadata.version(name)`, read from the `.dist-info` folder that holds it (module doc)."""
    folder = _dist_info(_normal(name))
    version = None if folder is None else _version_header(folder)
    if version is None:
        version = _real("version")(name)
    return version


def _dist_info(wanted: str) -> str | None:
    """The `.dist-info` folder `importlib.metadata` reads distribution `wanted` from, where it is the one plain folder.

    The first `sys.path` entry that holds a folder of that normalized name decides. None where the entry holds an
    `.egg-info` or more than one folder of the name, where a file on the path (a zip: `importlib.metadata` reads
    inside it) comes first, or where no entry holds one: `importlib.metadata`'s own answer then.
    """
    for entry in sys.path:
        try:
            folders = os.listdir(entry or ".")
        except OSError:  # no folder (a zip on the path is a file: `importlib.metadata` reads inside it)
            if os.path.isfile(entry):
                return None
            continue
        found = [f for f in folders if f.lower().endswith((".dist-info", ".egg-info"))
                 and _normal(f.lower().rpartition(".")[0].partition("-")[0]) == wanted]
        if found:
            one = len(found) == 1 and found[0].lower().endswith(".dist-info")
            return os.path.join(entry or ".", found[0]) if one else None
    return None


def _version_header(folder: str) -> str | None:
    """The Version header of `folder`'s `METADATA` (the headers only); None without one or where it cannot be read."""
    try:
        with open(os.path.join(folder, "METADATA"), encoding="utf-8") as text:
            for line in text:
                if not line.strip():
                    return None  # the end of the headers
                header, _, value = line.partition(":")
                if header.lower() == "version":
                    return value.strip()
    except OSError:
        pass
    return None


class _StandIn(types.ModuleType):
    """`importlib.metadata` while pint imports: its `version`, and the real module's any other name."""

    version = staticmethod(installed_version)

    def __getattr__(self, attr: str) -> Any:
        if attr.startswith("__"):  # what the import system probes for (`__path__`): none
            raise AttributeError(attr)
        return _real(attr)


_STAND_IN = _StandIn(_METADATA)

_HIDE = "dask" not in sys.modules  # Dask already imported (by the caller): pint may as well use it
if _HIDE:
    sys.modules["dask"] = None  # type: ignore[assignment]
sys.modules.setdefault(_METADATA, _STAND_IN)
try:
    import pint
finally:
    if _HIDE and sys.modules.get("dask", 0) is None:
        del sys.modules["dask"]
    if sys.modules.get(_METADATA) is _STAND_IN:
        del sys.modules[_METADATA]

__all__ = ["enable_dask", "installed_version", "pint"]


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
