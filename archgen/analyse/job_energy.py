"""A job's facility energy: per million tokens, and for a training run's whole token budget.

A sustainability report states the energy of one training run and of the tokens a service serves (newuser48). The
job draws its share of its cluster's average IT load (`Cost.power_average`: each system's and switch's typical draw
where published, else its maximum, plus optics and the shelves' loss, at the rack feeds), its accelerators over the
cluster's; the hall draws that × its annual PUE (`cost.energy.pue`, The Green Grid White Paper #49: facility energy
over IT energy). Over the job's tokens per second that is its energy per token:

    energy per token = average IT load × (job accelerators / cluster accelerators) × PUE / tokens per second

and a run's energy is that × its `checkpoint.tokens`, the same as the load × PUE × its time to train. Both are at
the estimate's tokens/s, before goodput: the time a failure loses, a restart and a checkpoint's pause add to a
real run's energy (the goodput time to train names that time). Not provided without the hall's `cost:` (no PUE),
nor where the cluster's load is unknown (links without link media, `conversion.unpowered`).

An energy at maximum draw is an upper bound, not an estimate (issue 22): MLPerf Training's measured runs drew well
below their nodes' maximum (docs/facility.md, "Measured energy to train"). `upper_bounds` names such figures, so that
a target one of them misses is not provided, never "not met" (`model.unsettled.unsettled_note`).
"""

from __future__ import annotations

from collections.abc import Mapping

from archgen.analyse.cost import Cost
from archgen.metrics import MEASURED_SHARE
from archgen.perf.workload.derived import job_share
from archgen.perf.workload.upper_bounds import TCO_SHARED, without_energy
from archgen.units import Q_, Q

#: A job's figures at its cluster's maximum IT power, whatever its parts state (`run_figures.run_energy`).
AT_MAXIMUM = ("job_it_energy",)
#: A job's and a cluster's figures at the average load: at maximum draw for every part that states no typical draw.
AT_AVERAGE = ("job_energy", "facility_energy_per_million_tokens", "facility_energy_per_year", "energy_cost_per_year",
              "carbon_per_year", "market_carbon_per_year", "water_per_year", "job_carbon", "job_market_carbon",
              "job_water")
#: Why a figure at maximum draw judges no target it misses: the measured share of the maximum (`metrics.MEASURED_SHARE`,
#: which `tests/perf/test_mlperf_power.py` holds to tests/perf/data/mlperf-training-power.yaml).
MEASURED = (f"MLPerf Training power results measured their nodes at {MEASURED_SHARE} of that maximum over a run "
            "(docs/facility.md, \"Measured energy to train\")")


def named_parts(fell_back: tuple[str, ...]) -> str:
    """The parts whose maximum draw stands in for a typical one, the first three by name."""
    return ", ".join(fell_back[:3]) + (f" and {len(fell_back) - 3} more" if len(fell_back) > 3 else "")


def upper_bound_words(fell_back: tuple[str, ...]) -> str:
    """Why an energy at the average load is an upper bound where `fell_back` names parts at maximum draw; '' if none.

    For the documents, where the figure is shown (the hall's energy per year, the cost section's energy, a job's
    energy per token): the same reason `upper_bounds` gives a requirement on it (review28: the GB200 SU's document
    printed "11,810 MWh" as a point value while check judged the same figure an upper bound).
    """
    if not fell_back:
        return ""
    return (f"an upper bound: the maximum draw of {named_parts(fell_back)} stands in for their typical draw (no "
            f"`power.typical` stated), and {MEASURED}")


def upper_bounds(metrics: Mapping[str, Q], fell_back: tuple[str, ...], idle: tuple[str, ...] = (),
                 bounded: tuple[str, ...] = ()) -> dict[str, tuple[Q | None, str]]:
    """The energies in `metrics` that are upper bounds, each with None as its other end (none known) and why.

    `job_it_energy` always (the maximum IT power); the average-load figures (`AT_AVERAGE`) where some system or
    switch of the cluster states no `power.typical` (`fell_back`, `ClusterAnalysis.typical_from_max`), whose maximum
    stands in; the cluster's idle load (`power_idle`) where some part states no `power.idle` (`idle`,
    `Cost.idle_assumed`), whose average draw stands in, or for those `bounded` their maximum with their accelerators
    idle (`Cost.idle_bounded`) (rel36: `power_idle <= 500 kW` on the MI355X cluster at 50 %
    utilisation read "not met" at 989 kW, every server's maximum). The true figure lies in (0, value]: a target
    met at the value is met, one missed is not provided (`Operations.unsettled`, judged by
    `model.unsettled.unsettled_note`).
    """
    named = named_parts(fell_back)
    why = {**dict.fromkeys(AT_MAXIMUM, f"it is the IT energy at the cluster's maximum draw by definition; {MEASURED}; "
                                       "judge the run's energy on `job_energy`, at the parts' typical draw where they "
                                       "state one"),
           **(dict.fromkeys(AT_AVERAGE, f"its average load takes the maximum draw of {named} (no `power.typical` "
                                        f"stated); {MEASURED}; state their `power.typical` to judge it")
              if fell_back else dict.fromkeys(AT_AVERAGE, idle_words(idle, "it", bounded)) if idle else {})}
    if idle:
        why["power_idle"] = idle_words(idle, "the idle load", bounded)
    return {k: (None, why[k]) for k, v in metrics.items() if k in why and v.m > 0}


def idle_words(idle: tuple[str, ...], what: str, bounded: tuple[str, ...] = ()) -> str:
    """Why `what` is at most its value where the parts `idle` state no `power.idle` (`Cost.idle_assumed`).

    Those of them `bounded` (`Cost.idle_bounded`) draw at most their maximum with their accelerators idle instead.
    """
    return (f"its idle hours take {idle_basis(idle, bounded)}, so {what} is at most that; state their `power.idle` to "
            "judge it")


def idle_basis(idle: tuple[str, ...], bounded: tuple[str, ...] = ()) -> str:
    """What the idle hours of the parts `idle` draw, those `bounded` at their accelerators' measured idle draw."""
    plain = tuple(p for p in idle if p not in bounded)
    words = [f"the average draw of {named_parts(plain)}"] if plain else []
    if bounded:
        words.append(f"the maximum draw of {named_parts(bounded)} with each accelerator at its measured idle draw "
                     "instead of its TDP")
    return " and ".join(words) + " (no `power.idle` stated)"


def job_energy(c: Cost, pue: float | None, accelerators: int, cluster_accelerators: int,
               tokens_per_second: Q | None, run_tokens: float | None = None) -> dict[str, Q]:
    """`facility_energy_per_million_tokens` and, with the run's `run_tokens`, `job_energy`; empty where not provided."""
    if (pue is None or c.facility_energy is None or not cluster_accelerators or tokens_per_second is None
            or not tokens_per_second.m > 0):
        return {}
    power = job_share(c.power_average, accelerators, cluster_accelerators) * pue
    per_token = (power / tokens_per_second).to("J")
    m = {"facility_energy_per_million_tokens": (per_token * 1e6).to("kWh")}
    if run_tokens:
        m["job_energy"] = (per_token * run_tokens).to("MWh")
    return m


def energy_share(c: Cost | None, fell_back: tuple[str, ...]) -> float:
    """The share of the TCO that is an energy cost at maximum draw, 0 where the energy is an estimate.

    Energy / TCO per year where some part's maximum stands in for its typical draw (`fell_back`,
    `ClusterAnalysis.typical_from_max`), or its average for its idle draw (`Cost.idle_assumed`, passed by
    `energy_share_bounds`). `energy_share_bounds` and a sweep point's cost (`Machine.energy_share`) read it.
    """
    if c is None or not fell_back or c.tco_per_year is None or c.energy_per_year is None or not c.tco_per_year.m > 0:
        return 0.0
    return float((c.energy_per_year / c.tco_per_year).m_as(""))


#: How `energy_share_bounds`'s reason starts, so a document can tell it from another reason a figure is unsettled.
ENERGY_SHARE = "its energy cost"


def energy_share_bounds(metrics: Mapping[str, Q], c: Cost, fell_back: tuple[str, ...]) -> dict[str, tuple[Q, str]]:
    """The TCO-proportional figures in `metrics` whose energy cost is at maximum draw, each with its other end.

    Where some part's maximum draw stands in for its typical one (`fell_back`), the energy cost is an upper bound
    with no known other end (`upper_bounds`); a figure made of it and the capital and space is then at most its value
    and at least its value x (1 - energy / TCO). A target met at one end only is not provided, as the energy cost's
    is (newuser64: `tco_per_accelerator_hour <= 2.2 USD` on the DGX B200 SuperPOD, 2.321 USD with 0.211 of it the
    energy at maximum draw, read plainly "not met"). So too where every part states its typical draw but some
    states no idle draw and the cluster idles (`Cost.idle_assumed`): its idle hours take that average (rel36).
    """
    idle = () if fell_back else c.idle_assumed
    share = energy_share(c, fell_back or idle)
    if not share:
        return {}
    why = (f"{ENERGY_SHARE}, {share * 100:.1f} % of the TCO, "
           + (f"takes the maximum draw of {named_parts(fell_back)} (no `power.typical` stated), so the figure lies "
              f"between the value with no energy cost and the value; {MEASURED}; state their `power.typical` to judge "
              "it" if fell_back else f"rests on idle hours at {idle_basis(idle, c.idle_bounded)}, so the figure lies "
              "between the value with no energy cost and the value; state their `power.idle` to judge it"))
    out = {k: (without_energy(v, share), why) for k, v in metrics.items()
           if k in TCO_SHARED and 0 < v.m < float("inf")}
    if c.breakeven is not None and "breakeven_utilisation" in metrics:   # its no-energy end, F / (p N H): opex.py
        out["breakeven_utilisation"] = (Q_(c.breakeven[1], ""), why)
    return out
