"""A job's cost from its cluster's: per hour of its accelerators and per token, with the range its spares give.

`archgen.analyse.cost` gives the cluster's cost per used accelerator-hour; this charges a workload with it
(docs/reliability.md, Cost).
"""

from __future__ import annotations

from archgen.analyse.cost import Cost
from archgen.perf.workload.derived import charged_spares, cost_ends, cost_per_token
from archgen.units import Q


def workload_cost(c: Cost, accelerators: int, tokens_per_second: Q | None,
                  goodput: tuple[float, float, float] | None = None, spares: float = 0.0,
                  run_tokens: float | None = None) -> dict[str, Q]:
    """A job's cost per hour (its accelerators' used hours) and per token from its cluster's cost, with their range.

    `tokens_per_second` are the job's tokens per second before goodput, `goodput` a training job's goodput with the
    low and high ends of its range (None for a serving job: cost per served token). The value charges the job's
    accelerators per goodput token; the range's ends are `perf.workload.derived.cost_ends`', the one definition a
    sweep point's range uses too: the low end the job's accelerators at goodput's high end, the high end those and
    the `spares` (hot-spare accelerators, `derived.charged_spares`) at its low end. With the run's `run_tokens` (a
    training job's `checkpoint.tokens`), its whole cost too: `job_cost` = cost per token x tokens, with the same range.
    """
    if c.per_used_accelerator_hour is None:
        return {}
    per_hour = c.per_used_accelerator_hour * accelerators
    m = {"job_cost_per_hour": per_hour}
    tps = tokens_per_second.m_as("1/s") if tokens_per_second is not None else 0.0
    made = tps * (goodput[0] if goodput is not None else 1.0)
    if made > 0:
        per_token = cost_per_token(c.per_used_accelerator_hour, accelerators, made)
        m["cost_per_token"] = per_token
        m["cost_per_million_tokens"] = per_token * 1e6
    ends = cost_ends(c.per_used_accelerator_hour, accelerators, spares, tps if made > 0 else None, goodput)
    m.update(ends)
    for end in ("low", "high"):
        if f"cost_per_token_{end}" in ends:
            m[f"cost_per_million_tokens_{end}"] = ends[f"cost_per_token_{end}"] * 1e6
    for end in ("", "_low", "_high"):   # the run's tokens (a training job's `checkpoint.tokens`), where stated
        if run_tokens and f"cost_per_token{end}" in m:
            m[f"job_cost{end}"] = m[f"cost_per_token{end}"] * run_tokens
    return m


def spare_span(c: Cost, metric: str, job: int, spares: int, accelerators: int) -> str:
    """What a job's cost range spans, in words (REQ004): its `job` accelerators, then the `spares` charged too.

    `spares` are the hot-spare accelerators its goodput counts on, `accelerators` the cluster's; below full
    utilisation, only those beyond the cluster's idle share are charged (`derived.charged_spares`). A cost per token
    (`metric`) is per goodput token at goodput's high end at the low end, at its low end at the high end
    (`derived.cost_ends`); a cost per hour spans the spares alone.
    """
    charged = charged_spares(spares, accelerators, c.utilisation)
    idle = (f" ({(1 - c.utilisation) * accelerators:g} of them the cluster's idle share, (1 − utilisation "
            f"{c.utilisation:g}) × {accelerators}, which its cost per used accelerator-hour already carries)"
            if c.utilisation < 1 and spares else "")
    low, high = ((" per goodput token at goodput_high", ", per goodput token at goodput_low")
                 if metric != "job_cost_per_hour" else (" (the value)", ""))
    which = "" if not charged else f" and the {spares}" if charged == spares else f" and {charged:g} of the {spares}"
    return (f"range from the job's {job} accelerators{low} to {'those' if charged else 'the same'}{which}"
            f"{' hot-spare accelerators its goodput counts on' * bool(charged)}{idle}{high}; docs/reliability.md")
