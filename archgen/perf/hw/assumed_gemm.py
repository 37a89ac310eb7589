"""The GEMM efficiency of a data type an accelerator states none for: an assumed point inside a measured range.

A user-defined part may leave `efficiency.gemm` out, or state it for some data types only. The model still needs a
figure for every data type a workload runs in. It takes a point that is an assumption, never a measurement, and
gives it the range the shipped catalog's measurements span, as `specs/catalog/accelerators/tpu-v4.yaml` states its
`gemm_range`. The estimate is re-timed at both ends of that range and its notes say the efficiency is not measured
(`perf.workload.efficiency_range`). The range and the point follow the rule of `perf.hw.measured_range`; here:

* **The range** of a data type is over the GEMM efficiencies measured in that data type (a figure derived from a
  sibling part is listed in `unconfirmed:` too). A data type the catalog measures on no part (tf32, int8, fp6, fp64)
  takes the range over every measured data type.
* **The point** is the part's own lowest stated GEMM efficiency where it states any (the figure closest to what
  the part is known to reach), else 0.7, a round figure inside the measured bf16, fp16 and fp8 ranges (TPU v4's
  assumption), held inside the data type's range (`measured_range.held_inside`). 0.7 lies above fp4's range (0.382
  to 0.574), so a part stating no efficiency runs fp4 at the range's middle, 0.478, not at its high end (MI355X's
  best), and the estimate spans the whole range.
"""

from __future__ import annotations

from collections.abc import Mapping

from archgen.perf.hw.measured_range import Range, held_inside

#: The point a part with no GEMM efficiency at all is given (an assumption, see the module docstring).
ASSUMED_GEMM_EFFICIENCY = 0.7

#: Lowest and highest measured dense-GEMM fraction of peak in the shipped catalog, per data type, each end with the
#: part and source its catalog file cites (`efficiency.source`):
#: fp16 0.500 mi300x (AMD ROCm blog, Measuring Max-Achievable FLOPs - Part 2, Table 1: 654 / 1,307.4) to 0.859
#: a100-sxm4-80gb (stas00/ml-engineering MAMF: 267.9 / 312); bf16 0.511 mi300x (ml-engineering MAMF v2: 668.4 /
#: 1,307.4) to 0.859 a100-sxm4-80gb (as fp16); fp8 0.487 mi300x (the ROCm blog's Table 1: 1,273 / 2,614.9) to 0.769
#: gaudi3 (ml-engineering MAMF v2: 1,289.5 / 1,677); fp4 0.382 b300-sxm-288gb (NVIDIA/TransformerEngine
#: gemm_profiling.rst, NVFP4 training shapes, over its dense 14,000 TFLOP/s) to 0.574 mi355x (ROCm/aiter PR 2037:
#: 5,775 / 10,066.3 TFLOP/s).
MEASURED_GEMM_RANGE: dict[str, Range] = {
    "fp16": (0.5, 0.859), "bf16": (0.511, 0.859), "fp8": (0.487, 0.769), "fp4": (0.382, 0.574)}

#: The parts the ends of `MEASURED_GEMM_RANGE` were measured on (as above), named in an estimate's note: the fp4
#: range runs from an NVIDIA part's NVFP4 to AMD's MXFP4, which an NVIDIA part that states none should be told.
MEASURED_GEMM_ENDS: dict[str, tuple[str, str]] = {
    "fp16": ("mi300x", "a100-sxm4-80gb"), "bf16": ("mi300x", "a100-sxm4-80gb"), "fp8": ("mi300x", "gaudi3"),
    "fp4": ("b300-sxm-288gb", "mi355x")}

#: The range over every measured data type, for a data type the catalog measures on no part: 0.382 (b300-sxm-288gb,
#: fp4) to 0.859 (a100-sxm4-80gb, bf16).
MEASURED_GEMM_RANGE_ANY = (0.382, 0.859)
#: The parts of `MEASURED_GEMM_RANGE_ANY`'s ends.
MEASURED_GEMM_ENDS_ANY = ("b300-sxm-288gb", "a100-sxm4-80gb")


def measured_range(dtype: str) -> Range:
    """The catalog's measured GEMM efficiency range for `dtype` (over every data type where it measures none)."""
    return MEASURED_GEMM_RANGE.get(dtype, MEASURED_GEMM_RANGE_ANY)


def assumed_point(dtype: str, stated: Mapping[str, float]) -> float:
    """The assumed GEMM efficiency of `dtype` on a part that states `stated` (other data types) and not `dtype`."""
    point = min(stated.values()) if stated else ASSUMED_GEMM_EFFICIENCY
    return held_inside(point, measured_range(dtype))


def measured_ends(dtype: str) -> tuple[str, str]:
    """The parts the ends of `measured_range(dtype)` were measured on (low end, high end)."""
    return MEASURED_GEMM_ENDS.get(dtype, MEASURED_GEMM_ENDS_ANY)
