"""Which assumed inputs an estimate's own figures rest on: the part's unconfirmed figures and another vendor's stack.

One rule for every reader (nu99fix: newuser99's `archgen estimate` printed "REQ-NX-T1: step_time <= 12 s: met" on a
part listed `unconfirmed: true`, where `check` (REQ005), the compliance matrix and `gap` said "met (on assumed
inputs: ...)"): `analyse.assumed` adds what a cluster's cost and reliability rest on to it, and `archgen estimate`
judges its requirements on it alone (`job_on_cluster`), so both print the same status words (`Outcome.shown`).
"""

from __future__ import annotations

from typing import Any

from archgen.metrics import declared
from archgen.perf.workload.band_families import MADE_FROM_RATE
from archgen.perf.workload.derived import MEMORY_METRICS

#: The workload metrics the performance model computes (the registry's, by the module that computes each).
PERF_METRICS = frozenset(m.name for m in declared("workload") if m.source.startswith("perf/"))
#: A workload's figures that rest on its estimate's step or token rate, beside the performance model's own: those
#: that take its band (`band_families.MADE_FROM_RATE`; review23: the time to train, accelerator-hours, job cost and
#: IT energy were met on an unconfirmed peak without REQ005 naming it).
RATE_FIGURES = MADE_FROM_RATE


def on_unconfirmed(m: dict[str, tuple[str, ...]], est: Any) -> dict[str, tuple[str, ...]]:
    """`m` with the part's unconfirmed figures the estimate read (`Estimate.unconfirmed`) added to what rests on them.

    So does what the estimate assumes for the part (`Estimate.assumed`: an NVIDIA training stack on a part whose
    vendor has none, every metric, its memory too). The estimate's note names them
    (`perf.workload.unconfirmed_note`); a requirement judged on one of its metrics,
    or on a figure built on its rate, names them too ("met (on assumed inputs: rubin peak.fp8 (unconfirmed))",
    REQ005), so the compliance matrix does not read an announced peak as a datasheet's. The memory metrics rest on
    `memory` alone. `m` is by metric (empty: the estimate's own figures alone, as `archgen estimate` judges them).
    """
    if est is None or not (est.unconfirmed or est.assumed):
        return m
    words = {f: f"{est.accelerator} {f} (unconfirmed)" for f in est.unconfirmed}
    out = dict(m)
    for metric in (*(k for k in est.metrics if k in PERF_METRICS), *(f for f in RATE_FIGURES if f in est.metrics)):
        own = tuple(w for f, w in words.items() if metric not in MEMORY_METRICS or f == "memory")
        out[metric] = tuple(dict.fromkeys(out.get(metric, ()) + own + est.assumed))   # the stack reaches memory too
    return out
