"""A figure a part leaves out: an assumed point held inside the range the shipped catalog measures.

One rule for every efficiency the model assumes: the GEMM efficiency of a data type a part states none for
(`perf.hw.assumed_gemm`), and the HBM, flash-attention and scale-up efficiencies of a part that states none
(`perf.hw.assumed_efficiency`). Each module holds its own table, with the part and source of each end.

* **The range** is the lowest and highest figure that a shipped catalog part states as measured: the part states the
  figure itself (not a default, and not as a range of its own judgement), and its file does not list the figure (or
  a field above it) in its `unconfirmed:` (`model.base.Part.is_unconfirmed`). The tables are written out, not read
  at run time; a test recomputes each from the catalog (`tests/perf/test_assumed_gemm.py`,
  `tests/perf/test_assumed_efficiency.py`) and fails when it drifts.
* **The point** is an assumption, never a measurement. Where it lies outside the range it is the range's nearer end
  (`held_inside`): no measurement in the catalog supports a figure beyond it.
"""

from __future__ import annotations

#: The lowest and highest figure of a measured range.
Range = tuple[float, float]


def held_inside(point: float, measured: Range) -> float:
    """`point`, or the nearer end of the `measured` range where `point` lies outside it."""
    lo, hi = measured
    return min(max(point, lo), hi)
