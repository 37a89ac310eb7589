"""The facility a cluster's cost, energy and carbon read: its own `facility`, or on a site the halls' own (hall30).

A cluster whose racks stand in halls that name their own facility (`floor.halls[].facility`: a campus of buildings)
draws its energy through those buildings' PUE, at their electricity price, from their grids (`sustainability:`),
not through its own `facility`, which holds none of the halls. Before, its `facility_power` took the halls' PUE
(hall29fix, `analyse.facility.site_facility_power`) while its energy, energy cost, rent and carbon per year took the
campus's: PUE 1.2 beside 1.6 in one document.

The cluster's average load is not split by hall: the optics outside systems, the switches in no rack and the storage
stand in no hall (`analyse.network.hall_draws`). So the sum over the halls is known where every hall holding racks
names a facility and all state the same `cost:` figures (and the same `sustainability:` figures): the cluster's
figures are then its load times them, the facilities' `source` texts aside. Otherwise each is not provided, and the
reason names the hall or the figures that differ: never the cluster facility's figure applied to the buildings'
racks.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from archgen.analyse.network import ClusterAnalysis
from archgen.model import Facility

#: What no hall's facility gives: why the site's energy, cost and rent (`cost`) or its carbon and water
#: (`sustainability`) are not provided.
_WHAT = {"cost": "`cost:` (energy price and PUE, rent, depreciation and discount rate)",
         "sustainability": "`sustainability:` (carbon and water intensities)"}
#: Why the load's rest outside the racks takes no hall's figure.
_UNSPLIT = ("the cluster's average load is not split by hall (optics outside systems, switches in no rack and "
            "storage stand in none), so its {what} have no one figure")


def cost_facility(a: ClusterAnalysis) -> tuple[Facility | None, dict[str, str]]:
    """The facility whose `cost:` and `sustainability:` cluster `a`'s cost, energy and carbon read; why one is None.

    A cluster none of whose halls names a facility: its own `facility`, and no reason. Otherwise the halls holding
    racks (every hall where the layout is not expanded) decide: one facility named by all of them is that facility;
    several, one with the `cost:` (`sustainability:`) they all state, figure for figure, named by their ids joined;
    a block some hall lacks or that differs between them is None, and the reason (keyed `cost`, `sustainability`)
    says which hall or figures.
    """
    halls, facs = a.cluster.spec.floor.halls, a.cluster.hall_facilities
    if not any(facs):
        return a.cluster.facility, {}
    used = [k for k, h in enumerate(halls) if f"hall_power.{h.id}" in a.metrics] or list(range(len(halls)))
    named = [(halls[k].id, facs[k] if k < len(facs) else None) for k in used]
    base = next(f for f in facs if f is not None)
    bare = [hid for hid, f in named if f is None]
    if bare:
        said = ", ".join(f"'{h}'" for h in bare)
        why = {key: f"hall {said} names no facility of its own, so nothing states its racks' {what} (the cluster's "
               "`facility` holds none of its halls once one names its own)" for key, what in _WHAT.items()}
        return base.model_copy(update={"cost": None, "sustainability": None}), why
    own = {f.id: f for _, f in named if f is not None}
    if len(own) == 1:
        return next(iter(own.values())), {}
    out, why = {"id": ", ".join(own)}, {}
    for key, what in _WHAT.items():
        block, reason = _agreed(key, what, named)
        out[key] = block
        if reason:
            why[key] = reason
    return next(iter(own.values())).model_copy(update=out), why


def _agreed(key: str, what: str, named: list[tuple[str, Any]]) -> tuple[Any, str]:
    """The `key` block (`cost`, `sustainability`) every hall's facility states alike, or None and why not."""
    blocks = [(hid, f.id, getattr(f, key)) for hid, f in named]
    missing = [f"'{fid}' (hall '{hid}')" for hid, fid, b in blocks if b is None]
    if len(missing) == len(blocks):
        return None, ""   # none states one: each figure's own reason ("states no `sustainability.wue`") says so
    if missing:
        return None, f"facility {', '.join(missing)} gives no {what}"
    figures = [(fid, _figures(b)) for _, fid, b in blocks]
    differ = sorted({name for _, fig in figures for name in fig if len({str(g.get(name)) for _, g in figures}) > 1})
    if not differ:
        return blocks[0][2], ""
    seen: dict[str, dict[str, Any]] = dict(figures)
    said = "; ".join(f"{name} " + ", ".join(f"{fid} {_shown(fig.get(name))}" for fid, fig in seen.items())
                     for name in differ)
    return None, f"the halls' facilities state different `{key}:` figures ({said}) and " + \
        _UNSPLIT.format(what="energy, energy cost and rent" if key == "cost" else "carbon and water")


def _figures(block: Any) -> dict[str, Any]:
    """A `cost:` or `sustainability:` block's figures by dotted name, its `source` texts left out."""
    out: dict[str, Any] = {}
    for name, value in block:
        if name == "source":
            continue
        if isinstance(value, BaseModel):
            out |= {f"{name}.{k}": v for k, v in _figures(value).items()}
        else:
            out[name] = value
    return out


def _shown(value: Any) -> str:
    """A figure as a message shows it: a quantity in its own unit, an unstated one 'not stated'."""
    return "not stated" if value is None else f"{value:~P}" if hasattr(value, "units") else str(value)

