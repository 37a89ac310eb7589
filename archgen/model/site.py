"""Halls of a site: where each hall's racks stand on the site plan, so runs between halls get their length.

A cluster's floor is one hall unless it lists `floor.halls`: then each `layout` entry names the hall it stands in
(`Placement.hall`), the racks of each hall are laid out row by row from the hall's own origin, and the site plan
places that origin at (`x`, `y`). A run between two racks of different halls follows the site's cable routes as a
run inside a hall follows its trays, ``2 x tray_drop + |Δx| + |Δy| + slack`` in site coordinates, plus each hall's
`exit_run` (the riser, the meet-me room and the duct bends between the hall and the site's route): its length then
decides the link option (reach) as any other run's, and CAB001 names a run past every option's reach.
"""

from __future__ import annotations

from pydantic import Field

from archgen.model.spec import Id, Spec
from archgen.units import Q_, LengthOrZero


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
