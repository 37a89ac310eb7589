"""A rack's warmest allowed inlet air where the layout places it: at the altitude of the halls it stands in (hall30).

A rack type names one facility (`Rack.facility`), and its `air_inlet_max` was its ASHRAE air class's allowable top
at that facility's altitude. A cluster whose halls name their own facilities (`floor.halls[].facility`: the
buildings of a campus) places it in those buildings, each at its own altitude, where the top falls 1 K per 300 m
above 900 m (A1, A2; A3 per 175 m, A4 per 125 m: `model.facility.allowable_air`, ASHRAE TC 9.9 Thermal Guidelines,
5th ed., 2021). So a rack standing in such a hall takes that hall's facility's altitude, and one standing in several
places at different altitudes the lowest top of them (the worse), with a note naming each place: one hall at
2,000 m and one at sea level give an A2 rack 35 - 1,100 / 300 = 31.3 °C, not 35 °C. A placement in a hall naming no
facility (or a cluster without halls) stands, as before, in the rack's own facility.
"""

from __future__ import annotations

from archgen.build import Design, RackDesign
from archgen.model import Facility
from archgen.model.facility import allowable_air
from archgen.units import Q

#: Where a rack stands (in words) and the facility there (None: none named, taken at sea level).
Site = tuple[str, Facility | None]


def rack_sites(design: Design) -> dict[str, tuple[Site, ...]]:
    """By rack path, each place the layouts put it where some of them is a hall naming its own facility.

    A place is a hall naming a facility (by cluster and hall), or the rack's own facility for every other placement.
    A rack placed in no such hall is left out: its own facility alone decides, as before.
    """
    out: dict[str, dict[str, Site]] = {}
    halled: set[str] = set()
    for c in design.clusters:
        facs, halls = c.hall_facilities, c.spec.floor.halls
        for i in c.instances:
            path, fac = i.rack.path, facs[i.hall] if i.hall < len(facs) else None
            if fac is None:
                own = i.rack.facility
                out.setdefault(path, {})[""] = (f"its own facility '{own.id}'" if own is not None else
                                                "no facility (taken at sea level)", own)
            else:
                halled.add(path)
                out.setdefault(path, {})[f"{c.spec.id}/{halls[i.hall].id}"] = (
                    f"cluster '{c.spec.id}' hall '{halls[i.hall].id}' (facility '{fac.id}')", fac)
    return {p: tuple(v[k] for k in sorted(v)) for p, v in out.items() if p in halled}


def inlet_air(rack: RackDesign, sites: tuple[Site, ...] = ()) -> tuple[Q, str]:
    """The rack's `air_inlet_max` at the altitude of where it stands (`rack_sites`), and a note where that is a hall.

    Without `sites`: its own facility's altitude (sea level where it names none), and no note.
    """
    cls, own = rack.spec.cooling.air.class_, rack.facility
    if not sites:
        return allowable_air(cls, own.altitude if own is not None else None)[1], ""
    tops = [(allowable_air(cls, f.altitude if f is not None else None)[1], where, f) for where, f in sites]
    top = min(t for t, _, _ in tops)

    def said(t: Q, where: str, f: Facility | None) -> str:
        at = f"{f.altitude.m_as('m'):,.0f} m" if f is not None and f.altitude is not None else "altitude not stated"
        return f"{where}, {at}: {t.m_as('degC'):.1f} °C"

    if len(tops) == 1:
        return top, f"at {said(*tops[0])}, where the layout places it (not its own facility's altitude)"
    lowest = len({round(t.m_as("degC"), 6) for t, _, _ in tops}) > 1
    return top, ("the lowest of the places the layout puts it: " if lowest else "the same at every place the "
                 "layout puts it: ") + "; ".join(said(*x) for x in sorted(tops, key=lambda x: x[0].m_as("degC")))
