"""Whether a job fits in accelerator memory, in one sentence: the document's and `archgen estimate`'s text alike.

The fit (PERF002, the layout search without a memory requirement) is judged at the model's figure, no allocator
waste; where the memory has a range over the caching allocator's waste (`perf.hw.reserve.memory_ends`), the sentence
says whether its high end fits too (newuser102), and `estimate` prints the same line (memfit41), so that the rule is
written once.
"""

from __future__ import annotations

from typing import Any

from archgen import metrics
from archgen.perf.hw.reserve import ALLOCATOR_WASTE_HIGH
from archgen.render import fmt


def fits_text(e: Any) -> str:
    """Whether the job fits in memory: at the model's figure and, with the allocator's range, at its high end too.

    The fit (PERF002, and the layout search where the workload states no memory requirement) is judged at the
    model's figure, no allocator waste; a layout searched to
    the brim fits there and not at the range's high end (llama3-70b-pretrain-b200: 0.035 GB of 193.3 GB left, 337.7 GB
    at the high end), which "Fits in accelerator memory." alone hid above a Band of -144.4 GB headroom (newuser102).
    """
    if not e.fits:
        return " Does not fit in accelerator memory."
    high, spare = e.metrics.get("memory_per_gpu_high"), e.metrics.get("memory_headroom_low")
    if high is None or spare is None or spare.magnitude != spare.magnitude:   # no range (serving, a TPU), or NaN
        return " Fits in accelerator memory."
    waste = (f"{shown(high, 'memory_per_gpu')} with the most allocator waste a published measurement found "
             f"({ALLOCATOR_WASTE_HIGH:.0%} of the memory it reserves holding no tensor)")
    if spare.magnitude >= 0:
        return f" Fits in accelerator memory at both ends of its range, {waste} included."
    point, left = e.metrics["memory_per_gpu"], e.metrics["memory_headroom"]
    return (f" Fits in accelerator memory at the model's figure, {shown(point, 'memory_per_gpu')} with "
            f"{shown(left, 'memory_headroom')} left; not at its range's high end, {waste}, "
            f"{shown(-spare, 'memory_headroom')} over: a run may need that margin (docs/perf-model.md, Memory band).")


def shown(value: Any, name: str) -> str:
    """A workload metric as `archgen estimate` shows it (`display.metric_value`)."""
    m = metrics.find("workload", name)
    return fmt.metric_value(m, value) if m and m.accepts(value) else fmt.q(value, None, 2)
