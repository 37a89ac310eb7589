"""Figures at maximum draw in a sweep point's judgement: upper bounds, and costs whose energy share is one.

A sweep point's energies are at maximum draw (`UPPER_BOUNDS`): a target they miss is not judged there. A cost in
proportion to the TCO (`TCO_SHARED`) lies between the value without its energy cost and the value where that energy
is at maximum draw (`without_energy`). `unsettled_at` names the requirements such ends, or a point's other end
(no checkpoint blocking, no repair wait), judge differently: `check` leaves them not provided, and a sweep alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TypeVar

from archgen.metrics import MEASURED_SHARE
from archgen.model.requirements import Requirement
from archgen.model.unsettled import unsettled_note
from archgen.units import Q_, Q

#: A sweep point's energies at maximum draw (`point_metrics`): upper bounds, a target they miss not judged there.
UPPER_BOUNDS = ("job_it_energy", "energy_per_token")
#: Cost figures in proportion to the TCO (capital + energy + space per year), so part of each is the energy cost: the
#: cluster's TCO per year and per accelerator-hour, and a job's cost per hour, per token and per run.
TCO_SHARED = ("tco_per_year", "tco_per_accelerator_hour", "tco_per_used_accelerator_hour",
              "tco_per_goodput_accelerator_hour", "tco_per_job_goodput_accelerator_hour", "job_cost_per_hour",
              "cost_per_token", "cost_per_million_tokens", "job_cost")
#: A figure `without_energy` takes: a quantity (`check`'s) or a float in SI units (a sweep point's).
_Figure = TypeVar("_Figure", float, Q)
#: Why a sweep requirement on one of them is not judged where its energy cost is at maximum draw (`unsettled_at`).
SHARE_BOUNDED = ("{metric} counts an energy cost at maximum draw ({share:.1f} % of the TCO; a part states no "
                 "power.typical), so it lies between the value with no energy cost and the value, and the target is "
                 "met at one end only, as `check` leaves it not provided (docs/reliability.md, Cost)")


def without_energy(value: _Figure, share: float) -> _Figure:
    """A TCO-proportional figure's low end where its energy cost, `share` of the TCO, is at maximum draw: no energy.

    Maximum draw is an upper bound on the energy (0 its other end), so such a figure lies in [value x (1 - share),
    value]: the one rule of `check`'s `analyse.job_energy.energy_share_bounds` and a sweep point's (`unsettled_at`).
    """
    return value * (1 - share)


#: Why a requirement on one of them is not provided where its value misses the target (`points.unprovided`).
BOUNDED = ("{metric} is at maximum draw, an upper bound, and misses the target there: MLPerf Training's measured "
           f"runs drew {MEASURED_SHARE} of their nodes' maximum (docs/facility.md, \"Measured energy to train\")")


def unsettled_at(requirements: Iterable[Requirement], metrics: Mapping[str, float],
                 other: Mapping[str, float] | None, units: Mapping[str, str], share: float = 0.0) -> set[str]:
    """The ids of sweep requirements that a point's metrics and `other` judge differently (`unsettled_note`).

    `other` is the same point's metrics with no checkpoint blocking at all where the blocking time is assumed
    (REL008) and no wait for a repair where no hot spare stands in (`perf.train.point_goodput.unblocked_of`): such a
    requirement is not judged, as `check` leaves it not provided. So is one on an energy at maximum draw
    (`UPPER_BOUNDS`) that the value and 0 judge differently: an upper bound, as `check`'s (`analyse.job_energy`).
    So is one on a cost in proportion to the TCO (`TCO_SHARED`) whose energy cost, `share` of the TCO
    (`Machine.energy_share`), is at maximum draw, that the value and the value without it judge differently
    (`without_energy`; newuser64: `check` judged these as ranges, a sweep as points).
    `units` gives each metric's unit (the sweep's metrics are floats in SI units).
    """
    def ends(req: Requirement) -> tuple[float, float] | None:
        value = metrics.get(req.metric)
        if value is None or value != value:
            return None
        if req.metric in UPPER_BOUNDS:
            return value, 0.0
        return (value, without_energy(value, share)) if share > 0 and req.metric in TCO_SHARED else None

    out = {req.id for req in requirements if (pair := ends(req)) is not None and unsettled_note(
        req, Q_(pair[0], units.get(req.metric, "")), {req.metric: (Q_(pair[1], units.get(req.metric, "")), "")})}
    if not other:
        return out
    for req in requirements:   # a range's end is not a figure of one blocking time (`analyse.goodput_notes.unsettled`)
        if req.metric in metrics and req.metric in other and not req.metric.endswith(("_low", "_high")):
            unit = units.get(req.metric, "")
            if unsettled_note(req, Q_(metrics[req.metric], unit), {req.metric: (Q_(other[req.metric], unit), "")}):
                out.add(req.id)
    return out
