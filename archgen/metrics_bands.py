"""The metric registry's band ends of a sweep's point, declared as `archgen.metrics.REGISTRY` holds them (last).

Split from `archgen.metrics` for its size only. A point of a sweep carries, beside each banded figure of its
estimate, the ends of the model's error band at that figure (`perf.workload.derived.band_ends`): the same ends that
judge a requirement on it "at risk" (REQ004; docs/sweeps.md), so that a table of points shows the spread of a step time
or an MFU as it shows goodput's and cost's. Each end is declared from its figure's own row (dimension, unit, digits,
direction, jobs): `ends(registry)`.
"""

from __future__ import annotations

from collections.abc import Iterable

from archgen.metric import Metric

#: The figures of a point's estimate whose band ends the point carries (`perf.workload.derived.band_ends`): those the
#: tables of points show (`render.point_table.SHOWN`) that a published run's error bounds, tokens/s per accelerator,
#: and a simulated serving run's percentiles, which a sweep may take as objectives (MLPerf's p99 limits) and whose
#: requirements are judged on their own bands (newuser97: a `ttft_p99` objective showed no ends where `estimate` gave
#: them).
BANDED = ("step_time", "tokens_per_second", "tokens_per_second_per_gpu", "mfu", "ttft", "tpot",
          "ttft_p50", "ttft_p99", "tpot_p50", "tpot_p99")


def ends(registry: Iterable[Metric]) -> tuple[Metric, ...]:
    """`<name>_low` and `<name>_high` of each `BANDED` workload metric of `registry`, a point's (subject "point")."""
    base = {m.name: m for m in registry if m.subject == "workload" and m.name in BANDED}
    return tuple(Metric("point", f"{name}_{end}", m.dimension, m.unit, m.digits, f"{m.title} ({end})",
                        f"The {end} end of the model's error band on the {m.said} at the point (`Band.values`: the "
                        "estimate over 1 + the published error at that end, widened by its span over the part's "
                        "stated efficiency ranges where no run measured the family on it), the end a requirement on "
                        "it is judged at risk by (REQ004); not provided where no published run measured it.",
                        "perf/explore/points.py", m.jobs, m.maximise, True, m.minimise, m.counts)
                 for name in BANDED if (m := base.get(name)) is not None for end in ("low", "high"))
