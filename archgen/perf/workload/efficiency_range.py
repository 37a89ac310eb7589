"""The range an estimate spans where its accelerator's GEMM efficiency is a stated range, not a measurement.

A catalog part without a measured GEMM rate in some data type carries `efficiency.gemm_range` (the lowest and
highest figure its sources support, derived from a sibling part's measurement) beside the point in
`efficiency.gemm`; so does a part whose published measurements of one data type disagree (the MI300X's BF16:
ml-engineering's MAMF and AMD's own max-achievable FLOPs), the range running between them. An estimate in that data
type is re-timed at both ends of the range, and the span is shown next to the estimate (a workload's notes, a
validation case's "over what it leaves unstated" line); the point alone is scored. Nothing here is fitted: the ends
come from the catalog, and the point is the catalog's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from archgen.perf.hw.hardware import Hardware


def gemm_range(hw: Hardware, dtype: str) -> tuple[float, float] | None:
    """The stated range of `dtype`'s GEMM efficiency on `hw`, or None where the catalog measures it."""
    return hw.gemm_efficiency_range.get(dtype)


def at_efficiency(hw: Hardware, dtype: str, efficiency: float) -> Hardware:
    """`hw` with `dtype`'s GEMM efficiency set to `efficiency`."""
    return dataclasses.replace(hw, gemm_efficiency={**hw.gemm_efficiency, dtype: efficiency})


def over_range(hw: Hardware, dtype: str, predict: Callable[[Hardware], float]) -> tuple[float, float] | None:
    """The lowest and highest of `predict` at the two ends of `dtype`'s efficiency range (None without a range)."""
    rng = gemm_range(hw, dtype)
    if rng is None:
        return None
    ends = [predict(at_efficiency(hw, dtype, e)) for e in rng]
    return min(ends), max(ends)


def efficiency_note(hw: Hardware, dtype: str, step_at: Callable[[Hardware], float]) -> list[str]:
    """A workload note with the step time at both ends of `dtype`'s stated efficiency range (none without one)."""
    rng = gemm_range(hw, dtype)
    span = over_range(hw, dtype, step_at)
    if rng is None or span is None:
        return []
    point = hw.gemm_efficiency[dtype]
    return [f"{dtype} GEMM efficiency of {hw.accelerator} is a stated range, not one measurement (catalog point "
            f"{point:g}, range {rng[0]:g} to {rng[1]:g}): over that range the step time spans {span[0]:.4g} s to "
            f"{span[1]:.4g} s"]
