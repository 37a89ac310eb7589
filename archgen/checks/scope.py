"""Which checks apply to which objects, and the value and limit a passing rack check compared.

A document lists a check as passed only where the check judged one of its objects: a rack document has no fabric
for NET001 to pass on, and a rack without a liquid loop none for COOL001. Applicability is by the prefix's object
kinds (`KINDS`), narrowed for rack checks by what the rack has (a liquid path, a facility, claimed redundancy).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from archgen.analyse.air_direction import slot_air
from archgen.analyse.rack import parts_coolant
from archgen.checks.hall_figures import utility_unjudged
from archgen.checks.odd_pairs import part_psus
from archgen.checks.ride_through import bridges
from archgen.model.facility import LIQUID_CLASS_MAX
from archgen.units import Q_

#: The kinds of object (the first segment of an object path) each prefix's checks judge.
KINDS: dict[str, tuple[str, ...]] = {
    "SPC": ("rack", "part", "cluster", "workload", "facility", "requirements", "sweep", "model"),
    "REF": ("rack", "part", "cluster", "workload", "facility", "requirements", "sweep", "model"),
    "REQ": ("rack", "cluster", "workload", "requirements"),
    "MECH": ("rack",), "PWR": ("rack",), "COOL": ("rack",), "CAT": ("part",),
    "NET": ("cluster",), "CAB": ("cluster",), "PERF": ("workload",),
    # reliability and cost judge a cluster and the training workloads it runs (their findings' objects: docs/checks.md)
    "REL": ("cluster", "workload"), "COST": ("cluster", "workload"), "SWP": ("sweep",),
}
#: Checks that judge other kinds than their prefix's: a cluster against its facility's stated capacities, and the
#: power figures a cluster's power rests on.
CHECK_KINDS: dict[str, tuple[str, ...]] = {"PWR010": ("cluster",), "COOL009": ("cluster",), "COOL011": ("facility",),
                                              "PWR011": ("cluster",), "PWR012": ("cluster",), "COOL013": ("cluster",),
                                              "PWR017": ("facility",), "PWR018": ("facility",),
                                              "PWR019": ("facility",), "PWR020": ("facility",),
                                              "PWR021": ("facility",), "PWR022": ("cluster",),
                                              "PWR023": ("cluster",)}


def _liquid(r: Any) -> bool:
    return r.spec.cooling.liquid is not None


def _airflow_stated(r: Any) -> bool:
    """A placed part states which way it moves air, for COOL018 to judge (a rack stating none has nothing to pass).

    Only a direction with sides counts, on a part that moves air (`slot_air`): a `passive` or `mixed` part, or one
    cooled wholly by liquid, is listed and not judged, so it alone is no pass (review34).
    """
    return any(s.intake is not None for s in slot_air(r))


def _pressure_stated(r: Any) -> bool:
    """The rack states its loop's pressure drop and its CDU its available pressure, both of which COOL019 compares."""
    return _liquid(r) and r.spec.cooling.liquid.pressure_drop is not None and r.cdu is not None and \
        r.cdu.pressure is not None


def _coolant_volumes(r: Any) -> bool:
    """The rack's loop and at least one of its liquid-cooled parts state a coolant volume, which MECH006 compares."""
    return _liquid(r) and r.spec.cooling.liquid.coolant_volume is not None and \
        parts_coolant(r)[0].magnitude > 0


def _cdu_group(r: Any) -> bool:
    """A rack whose liquid loop names a CDU has a group for COOL020 to lose one of."""
    return _liquid(r) and r.cdu is not None


def _air_heat_in_hall(r: Any) -> bool:
    """A rack in a hall has heat to air for COOL021 (its finding says where the hall states no per-rack figure)."""
    return r.facility is not None


def _in_rack_cdu(r: Any) -> bool:
    """A rack whose liquid path names an in-rack CDU has one for COOL012 to find in its slots."""
    return _liquid(r) and r.cdu is not None and r.cdu.type == "in-rack-cdu"


def _facility(r: Any) -> bool:
    return r.facility is not None


def _hall_states(field: str) -> Callable[[Any], bool]:
    """Whether a hall states `field` (a capacity a cluster check compares the cluster's total with)."""
    def stated(hall: Any) -> bool:
        return hall is not None and getattr(hall, field) is not None
    return stated


def _rated_cdu(r: Any) -> bool:
    """A rack with a CDU or rear door, in a hall, has a capacity's conditions for COOL010 to judge."""
    return r.facility is not None and (_liquid(r) and r.cdu is not None or r.rear_door is not None)


def _hall_units(hall: Any) -> bool:
    """Whether a hall states UPS modules, generator sets or utility feeds (PWR011 compares the cluster's load).

    Or a utility count, voltage or redundancy without their capacity: PWR011's info finding (`utility_unjudged`).
    """
    feeds = hall.feeds if hall is not None else None
    return feeds is not None and (utility_unjudged(feeds) or any(u is not None for u in (
        feeds.ups_units, feeds.generator_units, feeds.utility_units)))


def _hall_utility(hall: Any) -> bool:
    """PWR011's scope: a hall's units (`_hall_units`), or a utility connection it shares with other halls."""
    return _hall_units(hall) or (hall is not None and hall.feeds is not None and hall.feeds.shared_utility is not None)


def _tier_claimed(hall: Any) -> bool:
    """Whether a hall claims an Uptime tier or concurrent maintainability and states some redundancy (PWR018)."""
    feeds = hall.feeds if hall is not None else None
    return feeds is not None and (hall.tier is not None or hall.concurrently_maintainable is True) and \
        any(getattr(feeds, key) is not None for key in ("ups", "generators", "cooling"))


def _hall_rated(hall: Any) -> bool:
    """Whether a hall states the conditions of its cooling capacity (COOL011 compares them with the site)."""
    return hall is not None and hall.cooling_rated_at is not None


def _water(r: Any) -> bool:
    return r.facility is not None and r.facility.water is not None and _liquid(r)


def _inlet_stated(r: Any) -> bool:
    """A rack in a hall with a part stating its own inlet air range has a range for COOL015 to judge."""
    return _facility(r) and any(getattr(getattr(p.part, "cooling", None), "inlet_max", None) is not None or
                                getattr(getattr(p.part, "cooling", None), "inlet_min", None) is not None
                                for p in r.items)


def _air_flow(r: Any) -> bool:
    """A rack one of whose systems states its rated air flow has a figure for COOL007 to compare."""
    return any(getattr(p.part, "airflow", None) is not None for p in r.items)


def _coolant(r: Any) -> bool:
    """A rack fed by facility water through a CDU with a stated approach has a coolant supply for COOL004."""
    return _water(r) and r.cdu is not None and r.cdu.approach is not None


def _claims(stage: str) -> Callable[[Any], bool]:
    def claimed(r: Any) -> bool:
        if stage == "feeds":
            return r.spec.power.feeds.redundancy != "N"
        group = r.spec.power.shelves or r.spec.power.pdus
        return group is not None and group.redundancy != "N"
    return claimed


def _two_n(r: Any) -> bool:
    """A rack with an N+N group for PWR005: its feeds, shelves or PDUs, its CDU group, or a part's PSUs."""
    group, lp = r.spec.power.shelves or r.spec.power.pdus, r.spec.cooling.liquid
    psus = (part_psus(p.part) for p in r.items)
    return "N+N" in (r.spec.power.feeds.redundancy, group.redundancy if group else "",
                     lp.cdu_redundancy if lp else "", *(u.redundancy for u in psus if u is not None))


def _temperatures(r: Any) -> bool:
    """A rack with a coolant supply or a facility has temperatures for COOL008 to judge."""
    return _liquid(r) or _facility(r)


def _chain(r: Any) -> bool:
    """A rack that places both shelves and PDUs, or says how they connect, has a chain for PWR009 to judge."""
    kinds = {type(p.part).__name__ for p in r.items}
    power = r.spec.power
    return {"PowerShelf", "PDU"} <= kinds or bool(power.shelves and power.shelves.fed_from != "feeds") or \
        bool(power.pdus and power.pdus.serves)


def _inputs(r: Any) -> bool:
    """A rack with a part that states its power input, or with parts fed from outside it, has PWR013 to judge."""
    return bool(r.spec.power.external) or any(getattr(getattr(p.part, "power", None), "input", None) is not None
                                              for p in r.items)


def _busbar_rated(r: Any) -> bool:
    """A rack whose shelves state their busbar's rating has a current for PWR014 to judge."""
    return r.spec.power.shelves is not None and r.spec.power.shelves.busbar_rating is not None


def _outlets(r: Any) -> bool:
    """A rack with a PDU that states its outlets has counts for PWR016 to compare."""
    return any(getattr(p.part, "outlets", 0) for p in r.items)


def _pdus_claimed(r: Any) -> bool:
    """A rack with PDUs under a redundancy above N has PDU failure cases for PWR024 to judge."""
    return r.spec.power.pdus is not None and r.spec.power.pdus.redundancy != "N" and \
        any(type(p.part).__name__ == "PDU" for p in r.items)


#: Checks that judge something only some racks (or the halls of the racks a cluster places) have.
RACK_NEEDS: dict[str, Callable[[Any], bool]] = {
    "COOL001": _liquid, "COOL002": _liquid, "COOL016": _liquid,
    "COOL003": _water, "COOL004": _coolant, "COOL005": _facility,
    "COOL007": _air_flow, "COOL010": _rated_cdu, "COOL012": _in_rack_cdu, "COOL014": lambda r: r.rear_door is not None,
    "COOL008": _temperatures, "MECH004": _facility, "PWR003": _claims("feeds"), "PWR004": _claims("units"),
    "PWR005": _two_n, "PWR009": _chain, "PWR013": _inputs, "PWR014": _busbar_rated, "PWR016": _outlets,
    "PWR024": _pdus_claimed,
    "PWR015": lambda r: _hall_states("voltage")(r.facility), "COOL015": _inlet_stated,
    "COOL018": _airflow_stated, "COOL019": _pressure_stated, "COOL020": _cdu_group, "COOL021": _air_heat_in_hall,
    "MECH006": _coolant_volumes,
}
#: Checks that judge a hall's stated capacity (a cluster's totals against its hall, COOL011 the hall itself): they
#: apply where the document's hall states it: a cluster document's is the hall the cluster names, which may not be
#: the hall its racks name (COOL013); a rack document's, the rack's.
HALL_NEEDS: dict[str, Callable[[Any], bool]] = {
    "PWR010": _hall_states("critical_it_power"),
    "COOL009": lambda h: _hall_states("cooling_capacity")(h) or _hall_states("air_cooling_capacity")(h),
    "PWR011": _hall_utility, "PWR022": lambda h: _hall_units(h) or _hall_states("feeds")(h) and
    (h.feeds.load_step_limit is not None or h.feeds.ramp_rate_limit is not None), "COOL011": _hall_rated,
    "PWR017": _hall_units, "PWR018": _tier_claimed,
    "PWR019": bridges, "PWR020": _hall_states("deployed"),
    "PWR023": lambda h: h is not None and h.feeds is not None and h.feeds.ups_units is not None,
}


def applies(check_id: str, subjects: Iterable[str], racks: Iterable[Any] = (), halls: Iterable[Any] | None = None
            ) -> bool:
    """Whether a check judges any of `subjects` (object paths); `racks` are the `RackDesign`s among them.

    `halls` are the document's halls (a cluster's, or a rack's): a hall check (`HALL_NEEDS`) applies where one of
    them states what it compares; without `halls`, the racks' halls.
    """
    kinds = CHECK_KINDS.get(check_id) or KINDS.get(check_id.rstrip("0123456789"), ())
    if not any(s.split("/", 1)[0] in kinds for s in subjects):
        return False
    racks = list(racks)
    if check_id in HALL_NEEDS:
        judged = [r.facility for r in racks] if halls is None else list(halls)
        return any(HALL_NEEDS[check_id](h) for h in judged)
    need = RACK_NEEDS.get(check_id)
    return need is None or any(need(r) for r in racks)


def coolant_supply(water: Any, cdu: Any) -> Any:
    """The coolant supply a CDU gives: facility water plus its approach (COOL004's value)."""
    return (water.supply.to("K") + cdu.approach.to("K")).to("degC")


#: Of `rack_figures`, the value each check compares that sums the rack's parts' draws, by the figure it is built on
#: (`analyse.unconfirmed_share.RackShares`): its IT power (a stage's or feed's load, the busbar current), its heat
#: to liquid (the CDU group's load and flow) or to air; a passed check's value carries its share, as the documents'
#: figures do.
RACK_FIGURE_SHARES = {"PWR001": "it", "PWR002": "it", "PWR003": "it", "PWR004": "it", "PWR014": "it",
                      "COOL001": "liquid", "COOL002": "liquid", "COOL020": "liquid", "COOL021": "air",
                      "COOL014": "air", "COOL007": "air"}


def rack_figures(check_id: str, a: Any) -> tuple[Any, Any] | None:
    """(value, limit) a rack check compares, from the rack's analysis (`analyse.rack.RackAnalysis`), or None."""
    p, c, s = a.power, a.cooling, a.space
    conv = p.conversion
    feeds = min(p.feed_groups, key=lambda g: (g.usable - g.load).m_as("W"))  # the tightest group of feeds
    facility = a.rack.facility
    water, lp = facility.water if facility else None, a.rack.spec.cooling.liquid
    table: dict[str, Callable[[], tuple[Any, Any] | None]] = {
        "PWR001": lambda: (conv.load, conv.usable) if conv else None,
        "PWR002": lambda: (feeds.load, feeds.usable),
        "PWR003": lambda: (feeds.load, feeds.after_one_loss),
        "PWR004": lambda: (conv.load, conv.after_one_loss) if conv else None,
        "MECH003": lambda: (s.payload, a.rack.spec.form_factor.max_payload),
        "MECH004": lambda: (s.floor_load, facility.floor_rating) if facility else None,
        "COOL001": lambda: (c.cdu_load, c.cdu.usable) if c.cdu else None,
        "COOL002": lambda: (c.cdu_flow_needed, c.cdu_flow) if c.cdu_flow is not None else None,
        "COOL003": lambda: (water.supply, Q_(LIQUID_CLASS_MAX[lp.class_], "degC")) if lp and water else None,
        "COOL004": lambda: (coolant_supply(water, a.rack.cdu), lp.supply) if lp and water and a.rack.cdu and
        a.rack.cdu.approach else None,
        "COOL020": lambda: (c.cdu_load, c.cdu.after_one_loss) if c.cdu else None,
        "COOL021": lambda: (c.heat_air, facility.air_cooling_per_rack) if facility and
        facility.air_cooling_per_rack is not None else None,
        "COOL014": lambda: (c.rear_door.air_heat, c.rear_door.capacity) if c.rear_door else None,
        "COOL007": lambda: (c.rated_needed.to("m**3/h"), c.rated.flow.to("m**3/h"))  # SI, as the air path
        if c.rated is not None and c.rated_needed is not None else None,
        "PWR014": lambda: (p.busbar_current, a.rack.spec.power.shelves.busbar_rating) if _busbar_rated(a.rack) and
        p.busbar_current is not None else None,
    }
    get = table.get(check_id)
    return get() if get else None
