"""A sweep point's failure figures and cost on a cluster, as `check`'s reliability-and-cost stage gives the cluster's.

`sweep_figures` gives a sweep point on a cluster the failure figures `check` uses for goodput and the ends of its
range, and the cost per accelerator-hour in USD; `facility_figures` the same cost where the sweep's facility axes
(`electricity_price`, `pue`, ...) replace the hall's `cost:` figures; `energy_price` and `sweep_energy_share` what a
point's TDP level costs beyond the cluster's own. Split from `analyse.operations_stage` for its size.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from archgen.analyse.assumed import sweep_words
from archgen.analyse.cost import analyse_cost
from archgen.analyse.goodput import failure_ends, failures_of, rate_sets
from archgen.analyse.job_energy import energy_share
from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.reliability import analyse_reliability
from archgen.analyse.site_cost import cost_facility
from archgen.analyse.sweep_inputs import usd_per_hour
from archgen.model.sweep_axes import FACILITY_FIELDS
from archgen.money import currency
from archgen.perf.train.goodput import Failures
from archgen.validate import Specs


def sweep_figures(specs: Specs, a: ClusterAnalysis, in_memory: bool = False,
                  swept: tuple[str, ...] = ()) -> tuple[Failures, tuple[Failures, ...], float | None, str, float]:
    """What a sweep point on cluster `a` needs for goodput, its range and cost per token (cost only in USD).

    The failure figures `check` uses for the cluster's goodput and the ends of its range (`goodput_range.failure_ends`);
    in words, their rate sets and the assumed inputs under goodput and cost per token (`assumed.sweep_words`); and
    the facility's utilisation, the idle share the cost range leaves uncharged (`derived.charged_spares`). `swept`:
    the facility axes the sweep gives (`sweep_words`).
    """
    rel = analyse_reliability(specs, a)
    cost = analyse_cost(specs, a)
    per_hour, _ = usd_per_hour(cost, a.cluster.spec.id)
    central = failures_of(rel, specs, a)
    return (central, failure_ends(rel, specs, a),
            per_hour.m_as("USD") if per_hour is not None else None, "; ".join(filter(None, (
                rate_sets(rel), sweep_words(a, rel, cost, in_memory, swept)))),
            cost.utilisation if cost is not None else 1.0)


def sweep_energy_share(specs: Specs, a: ClusterAnalysis) -> float:
    """The share of cluster `a`'s TCO that is an energy cost at maximum draw (`job_energy.energy_share`): a sweep's."""
    return energy_share(analyse_cost(specs, a), a.typical_from_max)


def sweep_capex_left_out(specs: Specs, a: ClusterAnalysis) -> str:
    """What cluster `a`'s capex leaves out (`capex_bounds.left_out`; "" for nothing): a sweep's costs are lower bounds.

    `check` judges a cost target its lower bound meets at risk (`model.unsettled.at_lower_bound`); a sweep read it
    plainly met (newuser99: REQ-NX-T3, cost per token <= 2 uUSD, met at every point, at risk in `check`).
    """
    cost = analyse_cost(specs, a)
    return cost.left_out if cost is not None else ""


def energy_price(a: ClusterAnalysis, levels: Mapping[str, Any] | None = None) -> float:
    """USD per kWh of IT energy in cluster `a`'s hall: its electricity price x PUE, at a sweep's `levels` where given.

    What a sweep point's `tdp` level costs per hour beyond the cluster's own TDP (`perf.explore.point_axes.point_base`):
    the hall's energy is the IT load x PUE x price (`analyse.cost`). 0 where the hall has no `cost:` in USD.
    """
    facility = cost_facility(a)[0]
    if facility is None or facility.cost is None or currency(facility.cost.energy.price) != "USD":
        return 0.0
    levels = levels or {}
    price, pue = levels.get("electricity_price"), levels.get("pue")
    price = facility.cost.energy.price if price is None else price
    return price.m_as("USD/kWh") * (facility.cost.energy.pue if pue is None else pue)


def facility_figures(specs: Specs, a: ClusterAnalysis,
                     levels: Mapping[str, Any]) -> tuple[float | None, float, float, float]:
    """A sweep point's cost per accelerator-hour (USD; None: not provided), utilisation, energy share and energy price.

    The energy share is that of its TCO that is an energy cost at maximum draw (`sweep_energy_share`); the energy
    price USD per kWh of IT energy (`energy_price`).

    The cluster's cost analysed with its facility's `cost:` taking the sweep's levels of its facility axes (`levels`,
    by axis: `model.sweep_axes.FACILITY_FIELDS` names the field each replaces; an axis not given: the hall's own), as
    `sweep_figures` gives them at the hall's own; the facility has a `cost:`.
    """
    facility = cost_facility(a)[0]
    assert facility is not None and facility.cost is not None, "the sweep refuses a facility axis on a hall without"
    fc = facility.cost
    energy = {FACILITY_FIELDS[k][1]: v for k, v in levels.items() if v is not None and len(FACILITY_FIELDS[k]) == 2}
    update: dict[str, Any] = {FACILITY_FIELDS[k][0]: v for k, v in levels.items()
                              if v is not None and len(FACILITY_FIELDS[k]) == 1}
    if energy:
        update["energy"] = fc.energy.model_copy(update=energy)
    hall = facility.model_copy(update={"cost": fc.model_copy(update=update)})
    cost = analyse_cost(specs, replace(a, cluster=replace(a.cluster, facility=hall, hall_facilities=())))
    per_hour, _ = usd_per_hour(cost, a.cluster.spec.id)
    return (per_hour.m_as("USD") if per_hour is not None else None,
            cost.utilisation if cost is not None else 1.0, energy_share(cost, a.typical_from_max),
            energy_price(a, levels) if per_hour is not None else 0.0)
