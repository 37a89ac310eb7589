"""Supply temperatures against their bounds (the bodies of COOL005 and COOL008).

`checks.cooling` holds each check, its docstring and its registration; these give the findings: a rack's inlet air
against its ASHRAE air class at the hall's altitude, and every supply temperature against the plausible range
(`TEMPERATURE_BOUNDS`, each bound with its reason). Split from it for its size.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from archgen.analyse.rack import RackAnalysis
from archgen.checks.registry import Violation
from archgen.display import figure
from archgen.model import Rack
from archgen.model.facility import MAX_ELEVATION, Facility, allowable_air
from archgen.model.field_words import said
from archgen.units import Q_, Q
from archgen.validate import Specs

#: Plausible range of a supply temperature (facility water, facility air, a rack's coolant supply), each bound with
#: its reason: outside it the figure is most likely a unit slip ('30 K' for '30 degC' is -243 °C).
TEMPERATURE_BOUNDS = (
    (Q_(0, "degC"), "water freezes at 0 °C, and the lowest allowable inlet air of any ASHRAE class (A3, A4) is "
                    "5 °C (TC 9.9 Thermal Guidelines, 5th ed., 2021)"),
    (Q_(80, "degC"), "the warmest ASHRAE liquid class, W+, is facility water above 45 °C and the warmest air class, "
                     "A4, allows 45 °C inlet air (TC 9.9, 2021); 80 °C is 35 K beyond both and 20 K short of water's "
                     "boiling point at sea level"))


def air_classes(racks: Mapping[str, RackAnalysis]) -> Iterator[Violation]:
    """COOL005: each rack's inlet air within its class's allowable range, derated above 900 m; none above 3050 m."""
    for path, a in racks.items():
        fac, cls = a.rack.facility, a.rack.spec.cooling.air.class_
        if fac is None:
            continue
        if fac.altitude is not None and fac.altitude > MAX_ELEVATION:
            yield Violation(path, a.rack.spec.id, ("cooling", "air", "class"),
                            f"facility {fac.id} lies at {fac.altitude:~P}, above the {MAX_ELEVATION:~P} to which "
                            f"ASHRAE's air classes (class {cls}) are defined", fac.altitude, MAX_ELEVATION)
            continue
        low, high, derated = allowable_air(cls, fac.altitude)
        t = fac.air.supply.to("degC")
        if not low <= t <= high:
            why = f" {derated}" if derated and t > high else ""
            yield Violation(path, a.rack.spec.id, ("cooling", "air", "class"),
                            f"inlet air {fac.air.supply:~P} is outside class {cls} ({low.magnitude:g}-"
                            f"{high.magnitude:g} °C allowable{why})", fac.air.supply, high if t > high else low)


def implausible_temperatures(specs: Specs) -> Iterator[Violation]:
    """COOL008: each supply temperature (facility water and air, a rack's coolant) outside `TEMPERATURE_BOUNDS`."""
    fields: list[tuple[str, str, tuple[str, ...], Q]] = []
    for fac in specs.of(Facility):
        if fac.water is not None:
            fields.append((f"facility/{fac.id}", fac.id, ("water", "supply"), fac.water.supply))
        fields.append((f"facility/{fac.id}", fac.id, ("air", "supply"), fac.air.supply))
    for rack in specs.of(Rack):
        if rack.cooling.liquid is not None:
            fields.append((f"rack/{rack.id}", rack.id, ("cooling", "liquid", "supply"), rack.cooling.liquid.supply))
    (low, low_reason), (high, high_reason) = TEMPERATURE_BOUNDS
    for subject, owner, path, value in fields:
        t = value.to("degC")
        if low.magnitude <= t.magnitude <= high.magnitude:
            continue
        below = t.magnitude < low.magnitude
        bound, reason, side = (low, low_reason, "below") if below else (high, high_reason, "above")
        shown = f"{value:~P}" if value.units == t.units else f"{value:~P} ({figure(t)})"
        rest = f"{shown} is {side} {bound:~P}: {reason}"
        yield Violation(subject, owner, path, f"{'.'.join(path)} {rest}", value, bound,
                        public=f"{said('.'.join(path))} {rest}")
