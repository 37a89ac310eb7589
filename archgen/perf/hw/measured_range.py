"""A figure a part leaves out: an assumed point held inside the range the shipped catalog measures.

One rule for every efficiency the model assumes: the GEMM efficiency of a data type a part states none for
(`perf.hw.assumed_gemm`), and the HBM, flash-attention and scale-up efficiencies of a part that states none
(`perf.hw.assumed_efficiency`). Each module holds its own table, with the part and source of each end.

* **The range** is the lowest and highest figure that a shipped catalog part states as measured: the part states the
  figure itself (not a default, and not as a range of its own judgement), and its file does not list the figure (or
  a field above it) in its `unconfirmed:` (`model.base.Part.is_unconfirmed`). The tables are written out, not read
  at run time; a test recomputes each from the catalog (`tests/perf/test_assumed_gemm.py`,
  `tests/perf/test_assumed_efficiency.py`) and fails when it drifts.
* **The point** is an assumption, never a measurement (`held_inside`). Where it lies below the range it is the
  range's low end (the pessimistic end: no measurement in the catalog supports a figure below it). Where it lies
  above the range it is the range's middle, not its high end: a point above every measurement says nothing about
  where in the range the part sits, and the high end would give an unmeasured part the best part's figure (0.7
  against fp4's 0.382 to 0.574 gave 0.574, MI355X's best MXFP4 and above every NVIDIA NVFP4 point in the catalog,
  0.382 to 0.488 at this writing; newuser46). The middle is the point nearest both ends (its error to either end
  is half the range's width, the least any point has), and the whole range stays in the estimate's span
  (`perf.workload.efficiency_range`).
"""

from __future__ import annotations

#: The lowest and highest figure of a measured range.
Range = tuple[float, float]


def held_inside(point: float, measured: Range) -> float:
    """`point` inside the `measured` range; below it, the low end; above it, the range's middle (never the high end)."""
    lo, hi = measured
    return lo if point < lo else (lo + hi) / 2 if point > hi else point
