"""The facility a cluster's cost, energy and carbon read: its own `facility`, or on a site the halls' own (hall30).

A cluster whose racks stand in halls that name their own facility (`floor.halls[].facility`: a campus of buildings)
draws its energy through those buildings' PUE, at their electricity price, from their grids (`sustainability:`),
not through its own `facility`, which holds none of the halls. Before, its `facility_power` took the halls' PUE
(hall29fix, `analyse.facility.site_facility_power`) while its energy, energy cost, rent and carbon per year took the
campus's: PUE 1.2 beside 1.6 in one document.

The cluster's average load is not split by hall: the optics outside systems, the switches in no rack and the storage
stand in no hall (`analyse.network.hall_draws`). So the sum over the halls is known where every hall holding racks
names a facility and all state the same `cost:` figures (and the same `sustainability:` figures): the cluster's
figures are then its load times them: quantities compared by value, whatever their units, and provenance (`source`,
`basis`, dates, `sunk` capital) no figure (review45: 90 USD/MWh beside 0.09 USD/kWh, a date or a building's sunk
capital withheld every cost figure), the agreed block the least settled of theirs (`_merged`). Otherwise each is
not provided, and the reason names the hall or the figures that differ: never the cluster facility's figure applied
to the buildings' racks.
"""

from __future__ import annotations

import math
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
    several, one with the `cost:` (`sustainability:`) they all state, figure for figure (`_alike`, `_merged`), named
    by their ids joined; a block some hall lacks or that differs between them is None, and the reason (keyed
    `cost`, `sustainability`) says which hall or figures.
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
    differ = sorted({name for _, fig in figures for name in fig if not _alike([g.get(name) for _, g in figures])})
    if not differ:
        return _merged([b for _, _, b in blocks]), ""
    seen: dict[str, dict[str, Any]] = dict(figures)
    said = "; ".join(f"{name} " + ", ".join(f"{fid} {_shown(fig.get(name))}" for fid, fig in seen.items())
                     for name in differ)
    return None, f"the halls' facilities state different `{key}:` figures ({said}) and " + \
        _UNSPLIT.format(what="energy, energy cost and rent" if key == "cost" else "carbon and water")


def _alike(values: list[Any]) -> bool:
    """Whether `values` are one figure: quantities equal in value whatever their units (0.09 USD/kWh, 90 USD/MWh)."""
    first = values[0]
    if hasattr(first, "units"):
        return all(hasattr(v, "units") and v.is_compatible_with(first) and
                   math.isclose(v.to(first.units).m, first.m, rel_tol=1e-9) for v in values)
    return all(str(v) == str(first) for v in values)


def _merged(blocks: list[Any]) -> Any:
    """The halls' one block from theirs, alike in figures: its provenance the least settled of theirs (review45).

    `basis` is assumed where any hall's is; an electricity price's `date` the earliest stated (the widest gap to the
    parts' prices COST006 judges) and the cost's `as_of` the latest; `sunk` capital every building's (never in the
    TCO). The first block's figures, units and `source` texts otherwise.
    """
    def least(block: Any, others: list[Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if "basis" in type(block).model_fields:
            out["basis"] = "assumed" if any(o.basis == "assumed" for o in others) else block.basis
        if "date" in type(block).model_fields and (dates := sorted(o.date for o in others if o.date is not None)):
            out["date"] = dates[0]
        if "as_of" in type(block).model_fields and (ends := sorted(o.as_of for o in others if o.as_of is not None)):
            out["as_of"] = ends[-1]
        if "sunk" in type(block).model_fields:
            out["sunk"] = tuple(s for o in others for s in o.sunk)
        if "energy" in type(block).model_fields:
            out["energy"] = block.energy.model_copy(update=least(block.energy, [o.energy for o in others]))
        return out
    return blocks[0].model_copy(update=least(blocks[0], blocks))


#: A block's provenance, not its figures: where the halls' differ, `_merged` takes the least settled.
_PROVENANCE = ("source", "basis", "date", "as_of", "sunk")


def _figures(block: Any) -> dict[str, Any]:
    """A `cost:` or `sustainability:` block's figures by dotted name, its provenance (`_PROVENANCE`) left out."""
    out: dict[str, Any] = {}
    for name, value in block:
        if name in _PROVENANCE:
            continue
        if isinstance(value, BaseModel):
            out |= {f"{name}.{k}": v for k, v in _figures(value).items()}
        else:
            out[name] = value
    return out


def _shown(value: Any) -> str:
    """A figure as a message shows it: a quantity in its own unit, an unstated one 'not stated'."""
    return "not stated" if value is None else f"{value:~P}" if hasattr(value, "units") else str(value)

