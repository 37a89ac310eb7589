"""Halls of a site: where each hall's racks stand on the site plan, so runs between halls get their length.

A cluster's floor is one hall unless it lists `floor.halls`: then each `layout` entry names the hall it stands in
(`Placement.hall`), the racks of each hall are laid out row by row from the hall's own origin, and the site plan
places that origin at (`x`, `y`). A run between two racks of different halls follows the site's cable routes as a
run inside a hall follows its trays, ``2 x tray_drop + |Δx| + |Δy| + slack`` in site coordinates, plus each hall's
`exit_run` (the riser, the meet-me room and the duct bends between the hall and the site's route): its length then
decides the link option (reach) as any other run's, and CAB001 names a run past every option's reach. A run's
fibre propagation delay is `fibre_delay` (SITE001, and the estimate's note on a cluster of several halls).
"""

from pydantic import Field

from archgen.model.spec import Id, Ref, Spec
from archgen.units import Q_, LengthOrZero, Q

#: Group index of refraction of standard single-mode fibre at 1310 nm, Corning SMF-28 Ultra's 1.4676 (1.4682 at
#: 1550 nm), as quoted secondhand: https://mapyourtech.com/the-5-microsecond-rule-fiber-propagation-latency-per-kilometer/
#: ("4.895 μs/km @ 1310 nm", "4.897 μs/km @ 1550 nm") and https://ephotonics.com/calculators/optical-fiber-latency/
#: ("Corning SMF-28 fiber has an index of 1.4682 at 1550 nm"); Corning's product sheet was not read here. Fluke's
#: DSP cable analyser takes 1.4719 for 9/125 single-mode at 1300 nm (0.3 % more delay), so the figure is good to
#: about that. Light then takes n / c = 4.895 µs a kilometre one way.
GROUP_INDEX = 1.4676
#: Effective group index of laser-optimised 50/125 multimode fibre (OM3/OM4) at 850 nm, where its SR modules' VCSELs
#: send: 1.483 (1.478 at 1300 nm), Optokon's OM4 fibre data sheet (optokon.com/tr/product/252-multimode-fiber-om4,
#: "Effective group index of refraction at 850 nm"). A multimode run's light takes 4.947 µs a kilometre, 1.05 % more
#: than single-mode's `GROUP_INDEX` (ualink30: multimode trunks were taken at single-mode's).
MULTIMODE_GROUP_INDEX = 1.483
#: Speed of light in vacuum, exact (SI definition of the metre).
LIGHT_SPEED = Q_(299_792_458, "m/s")


def fibre_delay(length: Q, multimode: bool = False) -> Q:
    """One-way propagation delay of a fibre run of `length`: length x n / c.

    n is `GROUP_INDEX` (single-mode), or `MULTIMODE_GROUP_INDEX` where the run is `multimode` fibre.
    """
    return (length * (MULTIMODE_GROUP_INDEX if multimode else GROUP_INDEX) / LIGHT_SPEED).to("us")


class Hall(Spec):
    """A hall of the site: its id and where its first rack stands on the site plan."""

    id: Id = Field(description="Id a `layout` entry names in its `hall:` key, e.g. 'building-a-hall-1'.")
    x: LengthOrZero = Field(default_factory=lambda: Q_(0, "m"), description=(
        "Position of the hall's first rack along the site's x axis (the direction of a row), e.g. '0 m'."))
    y: LengthOrZero = Field(default_factory=lambda: Q_(0, "m"), description=(
        "Position of the hall's first rack along the site's y axis (across rows), e.g. '350 m' for a building "
        "350 m down the campus."))
    exit_run: LengthOrZero = Field(default_factory=lambda: Q_(0, "m"), description=(
        "Cable length a run leaving this hall takes beyond the site-plan distance: riser, meet-me room, patch "
        "panels' slack and the duct's detours between the hall and the site's route (default 0 m: the run is "
        "taken as straight along the site grid, a lower bound)."))
    name: str | None = Field(None, description="Human-readable name, e.g. 'Building A, hall 1'.")
    facility: Ref | None = Field(None, description=(
        "Id of the Facility (the building's hall: its critical IT power, cooling plant) this hall's racks stand in, "
        "e.g. 'building-a'. Stated: PWR010, PWR011 and COOL009 (with its air side) judge this hall's racks against "
        "it, not the cluster's `facility`, and the metric `hall_power.<hall>` gives their draw. Not stated: SITE002 "
        "names the hall's draw, which no facility judges."))


def halls_used(floor_halls: list[Hall], layout: list) -> list[Hall]:
    """The halls the layout places racks in, in floor order (an entry with no `hall` stays in the one before it)."""
    if not floor_halls:
        return []
    by_id = {h.id: h for h in floor_halls}
    current, used = floor_halls[0], []
    for place in layout:
        current = by_id.get(place.hall, current) if place.hall is not None else current
        if current not in used:
            used.append(current)
    return used


def site_span(halls: list[Hall]) -> Q:
    """The largest distance between two halls' first racks on the site plan, with both halls' exit runs."""
    return Q_(max((abs(a.x.m_as("m") - b.x.m_as("m")) + abs(a.y.m_as("m") - b.y.m_as("m")) + a.exit_run.m_as("m")
                   + b.exit_run.m_as("m") for i, a in enumerate(halls) for b in halls[i + 1:]), default=0.0), "m")
