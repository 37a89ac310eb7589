"""The band of a validation case's measurement: its family's, at its load, arrival and context (`bands.band`).

Apart from `bands` so that a workload's estimate does not import the validation cases' models (issue 25).
"""

from __future__ import annotations

from archgen.model.cases import Case
from archgen.perf.workload.band_families import (
    KINDS,
    QUANTITIES,
    arrival_of,
    at_engine_cap,
    family,
    quantity_family,
    run_scenario,
)
from archgen.perf.workload.band_lookup import context_of
from archgen.perf.workload.band_span import maximise, turned
from archgen.perf.workload.bands import Band, band


def case_family(case: Case, metric: str = "") -> str:
    """The family of a validation case, or that its `metric` takes its band from (`quantity_family`)."""
    if case.training is not None:
        return family("training", case.model is not None and case.model.moe is not None)
    if case.inference is not None:
        inf = case.inference
        own = family("inference", case.model is not None and case.model.moe is not None,
                     run_scenario(inf.scenario, inf.arrival_rate))
        return quantity_family(own, metric, at_engine_cap(inf))
    return "collectives"


def holds(b: Band, error: float) -> bool:
    """Whether a measurement the model's `error` off, (predicted - measured) / measured, lies within its band `b`.

    False where there is no band. Compared in the direction of the band's quantity at the 4 decimals the generated
    table keeps (`band_source.compute_table` rounds to them), so a measurement the band was taken on reads inside.
    Moved from `Band` (issue 19), which an estimate carries: only the validation cases' scoring asks it.
    """
    if not b.measured:
        return False
    low, high, e = b.low, b.high, error
    quantity = QUANTITIES[KINDS[b.family]].get(b.metric, b.metric)
    if maximise(b.metric) != maximise(quantity):
        (low, high), e = turned(low, high), 1 / (1 + error) - 1
    return round(low, 4) <= round(e, 4) <= round(high, 4)


def case_band(case: Case, metric: str, load: float | None = None) -> Band | None:
    """The band an estimate of a validation case's `metric` carries: its family's, at its load, arrival and context.

    The model's error alone (no accelerator, so no span over a part's stated efficiency ranges), as the accuracy
    page's held-out section and `estimate --cases` set a measurement beside it. None where the metric has no band.
    """
    arrival = arrival_of(case.inference.scenario) if case.inference is not None else "poisson"
    return band(case_family(case, metric), metric, load=load, arrival=arrival, context=context_of(case),
                simulated=at_engine_cap(case.inference))
