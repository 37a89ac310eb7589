"""The one JSON envelope of every command, and the JSON shapes of a quantity and a finding (ARCHITECTURE.md)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, TypeVar

from archgen import __version__, metrics
from archgen.errors import Location
from archgen.load import packaged, shown
from archgen.metric import RENAMED, unbounded
from archgen.quantity_json import json_text
from archgen.quantity_json import to_json as quantity_json
from archgen.render.fmt import code
from archgen.units import Q_, Q

if TYPE_CHECKING:  # the checks are imported by the commands that run them, not by `archgen estimate` (issue 25)
    from archgen.checks import Finding


def quantity(q: Q | None) -> dict | None:
    """The JSON contract for a quantity: {"value": float, "unit": str} in SI units."""
    return None if q is None else quantity_json(q)


def metric_quantity(name: str, q: Q | None) -> dict | None:
    """`quantity` of a value of the metric `name`: an infinite one says why in the text's words (`metric.unbounded`).

    `quantity_json` knows only the unit (a cost's reason, else "no upper bound"); a restart time's high end says
    that more nodes are in repair than spares (REL009), a goodput time to train's that goodput's low end is 0, as
    `check`'s and `estimate`'s text and the documents say (leftovers21). So does a figure made from such a value
    that is infinite the other way (a diff's change from an unbounded BASE, a gap row's headroom under an unbounded
    value): ``{"value": null, "unit": ..., "unbounded": ...}``, where `quantity` gave a bare null value. Money per an
    hour (`Metric.money_rate`), held as the amount for one hour, is written as the rate it is, per second as every
    JSON time is (``USD/s``; newuser103 read ``"unit": "USD"`` of a cost per accelerator-hour as a total).
    """
    if q is not None and (rate := metrics.money_rate(name)) is not None:
        q = q / Q_(1, rate.per)
    if q is not None and math.isinf(q.magnitude):
        return {**quantity_json(Q_(math.inf, q.units)), "unbounded": unbounded(name)}
    return quantity(q)


V = TypeVar("V")


def with_old_names(values: dict[str, V]) -> dict[str, V]:
    """`values` by metric name, with a renamed metric's value under its old name too, next (`metric.RENAMED`).

    The JSON outputs keep a renamed metric's old key (`tflops_per_gpu`, the same value as `model_flops_per_gpu`,
    in FLOP/s) until the release after, so that a reader of the old key (`jq .metrics[...].tflops_per_gpu`) still
    finds it, as a renamed spec key still works (SPC003).
    """
    former = {new: old for old, (new, _) in RENAMED.items()}
    return {name: v for k, v in values.items() for name in (k, former.get(k)) if name is not None}


def finding(f: Finding, absolute: bool = False) -> dict:
    """One finding in the `check --format json` contract (``waived``, ``hint`` and ``caused_by`` only where set).

    Its file relative, no machine paths (`load.shown`); `absolute`: a file outside the working directory named by its
    absolute path, as `check`'s own reports name it.
    """
    loc = shown(f.location, absolute)
    out = {"id": f.id, "severity": f.severity, "object": f.object, "file": loc.file if loc else None,
           "line": loc.line if loc and loc.line else None,          # 0: the file as a whole, no line of it
           "column": loc.column if loc and loc.line and loc.column else None, "message": f.message,
           "value": quantity(f.value), "limit": quantity(f.limit), "requirement": f.requirement or None}
    if f.waived:
        out["waived"] = f.waived
    if f.hint:
        out["hint"] = f.hint
    if f.caused_by:
        out["caused_by"] = f.caused_by
    return out


def document(**fields: Any) -> dict[str, Any]:
    """A command's JSON document: the archgen version first, then `fields` in their order."""
    return {"archgen": __version__, **fields}


def dumps(data: Any, *, ascii_only: bool = True, sort_keys: bool = False) -> str:
    """Strict JSON text (`quantity_json.json_text`: a non-finite number is null), two-space indent, final newline."""
    return json_text(data, indent=2, ensure_ascii=ascii_only, sort_keys=sort_keys) + "\n"


#: What a Markdown report (`gap`, `diff`) says after a location in the catalog installed with archgen
#: (`spec_files.packaged`): its ``catalog/<kind>/<file>`` is `check`'s text for it, and names no folder of the
#: user's repository, which may hold a ``catalog/`` of its own (SARIF names it under ``ARCHGEN_CATALOG``).
SHIPPED = " (the catalog shipped with archgen)"


def located(location: Location | None) -> str:
    """A finding's, waiver's or price's file:line:col as a Markdown cell: a code span as `check`'s text names it.

    A location in the shipped catalog (`spec_files.packaged`) is followed by `SHIPPED`; "" where there is none.
    """
    if location is None:
        return ""
    return code(shown(location)) + (SHIPPED if packaged(location.file) is not None else "")
