"""The cluster document's rows for a floor whose halls name their own facilities (`floor.halls[].facility`).

The cluster's `facility` then holds none of its halls (hall29: PWR010, COOL009, PWR011 judge each hall against its
own, `checks.own_halls`), so its UPS, generator and utility rows compare nothing, and its facility power rows read
the halls' PUEs (`analyse.facility.site_facility_power`). These rows say so, and a table gives each hall's own
facility with the figures PWR011 judged it on: its racks' draw (a floor: the cluster's draw outside its racks is
not split by hall) against its usable UPS modules and generator sets.
"""

from __future__ import annotations

from typing import Any

from archgen.analyse.facility import generator_pue, usable_units
from archgen.checks.own_halls import unit_load
from archgen.checks.unit_rating import load_pf
from archgen.render import fmt

NOT_PROVIDED = "not provided"
#: A campus UPS, generator or utility row where the cluster's halls name their own facilities.
NOT_THIS = ("; not judged against this facility: the cluster's halls name their own, which PWR011 judges each on "
            "(the table of each hall's facility)")


def _pues(a: Any) -> tuple[tuple[str, str, Any, Any], ...]:
    """(hall, its facility id or '', its annual PUE, its peak PUE) for each hall holding racks."""
    halls, facs, m = a.cluster.spec.floor.halls, a.cluster.hall_facilities, a.metrics
    out = []
    for k, h in enumerate(halls):
        f = facs[k] if k < len(facs) else None
        if f"hall_power.{h.id}" in m:
            out.append((h.id, "" if f is None else f.id, None if f is None or f.cost is None else f.cost.energy.pue,
                        None if f is None else f.peak_pue))
    return tuple(out)


def _said(fac: str, pue: Any) -> str:
    """A hall's facility and its PUE as a row names them."""
    return "names no facility" if not fac else f"'{fac}' {pue:g}" if pue is not None else f"'{fac}' none"


def site_power_rows(a: Any, m: dict, steady: str) -> dict[str, str]:
    """The facility power rows' values by label: IT power x the halls' one PUE, else why not provided."""
    pues, out = _pues(a), {}
    for label, key, i, name in (("Facility power (IT power × PUE)", "facility_power", 2, "PUE"),
                                ("Facility power at design conditions (IT power × peak PUE)", "facility_power_peak",
                                 3, "peak PUE")):
        each = ", ".join(f"hall {p[0]} {_said(p[1], p[i])}" for p in pues)
        if key in m:
            out[label] = f"{fmt.q(m[key], 'kW', 1)} at {name} {pues[0][i]:g}, each hall's facility's ({each}), {steady}"
        else:
            out[label] = (f"{NOT_PROVIDED}: the halls holding racks read {name}s {each}, and the cluster's draw "
                          "outside its racks is not split by hall, so no one figure applies (never the cluster "
                          "facility's, which holds none of the halls)")
    return out


def hall_unit_rows(a: Any) -> tuple[tuple[str, str], ...]:
    """Each hall naming a facility: its racks' draw against that facility's usable UPS modules and generator sets.

    As PWR011 judges them (`checks.own_halls.units_by_hall`): the UPS load over the facility's distribution
    efficiency, the generator load x its `peak_pue` (else its annual PUE) with its UPS recharge; the cluster's draw
    outside its racks, not split by hall, is not in these loads, so each is a floor.
    """
    halls, m, rows = a.cluster.spec.floor.halls, a.metrics, []
    for k, fac in enumerate(a.cluster.hall_facilities):
        draw = m.get(f"hall_power.{halls[k].id}")
        if fac is None or draw is None:
            continue
        feeds, words = fac.feeds, [f"racks' draw {fmt.q(draw, 'kW', 1)} (a floor: the cluster's draw outside its "
                                   "racks is not split by hall)"]
        pue = generator_pue(fac)
        stages = () if feeds is None else (("UPS", "modules", feeds.ups, feeds.ups_units, True),
                                            ("generator", "sets", feeds.generators, feeds.generator_units, False))
        for label, kind, redundancy, units, ups in stages:
            if units is None:
                continue
            each, usable = (None, None) if units.real(load_pf(fac)) is None else usable_units(units, redundancy, fac)
            if usable is None or each is None or not ups and pue is None:
                words.append(f"{label} {kind} {NOT_PROVIDED} (PWR011's info finding says why)")
                continue
            load = unit_load(fac, draw, ups, pue)
            basis = " (over the distribution's efficiency where stated)" if ups or pue is None else (
                f" (the racks' draw x {'peak PUE' if fac.peak_pue is not None else 'annual PUE, optimistic,'} "
                f"{float(pue):g}, with the UPS recharge where stated)")
            words.append(f"{label} {redundancy or 'N, not stated,'} of {units.count} x {fmt.q(each, 'kW', 0)} "
                         f"{kind}: usable {fmt.q(usable, 'kW', 0)} for {fmt.q(load, 'kW', 1)}{basis}, headroom "
                         f"{fmt.q(usable - load, 'kW', 1)} at most (PWR011)")
        rows.append((f"Hall {halls[k].id}: facility {fac.id}", "; ".join(words)))
    return tuple(rows)
