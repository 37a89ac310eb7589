"""The range an estimate spans where its accelerator's GEMM or HBM efficiency is a stated range, not a measurement.

A catalog part without a measured GEMM rate in some data type carries `efficiency.gemm_range` (the lowest and
highest figure its sources support, derived from a sibling part's measurement) beside the point in
`efficiency.gemm`; so does a part whose published measurements of one data type disagree (the MI300X's BF16:
ml-engineering's MAMF and AMD's own max-achievable FLOPs), the range running between them. Likewise a part without
a measured HBM copy rate carries `efficiency.hbm_range` (the catalog's measured copy fractions) beside its point in
`efficiency.hbm`. An estimate is re-timed at the ends of each range that applies, and the span is shown next to the
estimate (a workload's notes, a validation case's "over what it leaves unstated" line); the point alone is scored.
Nothing here is fitted: the ends come from the catalog, and the point is the catalog's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from itertools import product

from archgen.perf.hw.hardware import Hardware


def gemm_range(hw: Hardware, dtype: str) -> tuple[float, float] | None:
    """The stated range of `dtype`'s GEMM efficiency on `hw`, or None where the catalog measures it."""
    return hw.gemm_efficiency_range.get(dtype)


def hbm_range(hw: Hardware) -> tuple[float, float] | None:
    """The stated range of `hw`'s HBM efficiency, or None where the catalog measures it."""
    rng = hw.hbm_efficiency_range
    return (rng[0], rng[1]) if len(rng) == 2 else None


def at_efficiency(hw: Hardware, dtype: str, efficiency: float) -> Hardware:
    """`hw` with `dtype`'s GEMM efficiency set to `efficiency`."""
    return dataclasses.replace(hw, gemm_efficiency={**hw.gemm_efficiency, dtype: efficiency})


def at_hbm(hw: Hardware, efficiency: float) -> Hardware:
    """`hw` with its HBM efficiency set to `efficiency`."""
    return dataclasses.replace(hw, hbm_efficiency=efficiency)


def range_ends(hw: Hardware, dtype: str | None) -> list[Hardware]:
    """`hw` at every combination of the ends of its stated ranges (GEMM in `dtype`, HBM); empty without any."""
    g, m = (gemm_range(hw, dtype) if dtype else None), hbm_range(hw)
    if g is None and m is None:
        return []
    return [at_hbm(at_efficiency(hw, dtype, ge), me) if ge is not None and dtype else at_hbm(hw, me)
            for ge, me in product(g or (None,), m or (hw.hbm_efficiency,))]


def over_range(hw: Hardware, dtype: str, predict: Callable[[Hardware], float]) -> tuple[float, float] | None:
    """The lowest and highest of `predict` at the ends of `dtype`'s GEMM and the HBM ranges (None without any)."""
    ends = [predict(h) for h in range_ends(hw, dtype)]
    return (min(ends), max(ends)) if ends else None


def efficiency_note(hw: Hardware, dtype: str, step_at: Callable[[Hardware], float], what: str = "the step time",
                    unit: str = "s") -> list[str]:
    """A workload note with `what` (the step time) at the ends of the stated efficiency ranges (none without one)."""
    g, m = gemm_range(hw, dtype), hbm_range(hw)
    span = over_range(hw, dtype, step_at)
    if span is None:
        return []
    parts = ([f"{dtype} GEMM efficiency (catalog point {hw.gemm_efficiency[dtype]:g}, range {g[0]:g} to {g[1]:g})"]
             if g else []) + ([f"HBM efficiency (catalog point {hw.hbm_efficiency:g}, range {m[0]:g} to {m[1]:g})"]
                              if m else [])
    return [f"{' and '.join(parts)} of {hw.accelerator} {'are' if len(parts) > 1 else 'is'} a stated range, not one "
            f"measurement: over that range {what} spans {span[0]:.4g} {unit} to {span[1]:.4g} {unit}"]
