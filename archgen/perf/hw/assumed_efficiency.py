"""The HBM, flash-attention and scale-up efficiency of a part that states none: an assumed point in a measured range.

A user-defined part may leave `efficiency.hbm`, `efficiency.flash` or `efficiency.scale_up` out (or `efficiency`
altogether). The model still needs a figure for each. It takes the field's default, an assumption for this part and
never a measurement of it, and gives it the range the shipped catalog's measurements span, as
`specs/catalog/accelerators/tpu-v4.yaml` states its `hbm_range`, `flash_range` and `scale_up_range` by hand. The
estimate is re-timed at both ends of each range and its notes say the efficiency is not measured
(`perf.workload.efficiency_range`), as for a GEMM efficiency left out (`perf.hw.assumed_gemm`). The range and the
point follow the rule of `perf.hw.measured_range`; here:

* **The range** of an efficiency is over the parts that state the field itself, not listed in `unconfirmed:` under
  the field or `efficiency`. A part's own stated range (MI300X's second HBM copy measurement, 0.738) is that part's
  judgement and stays out, as the GEMM table leaves out `gemm_range`.
* **The point** is the field's default (`model.accelerator.Efficiency`): HBM 0.85, flash 0.787 (FlashAttention-3 on
  an H100, `perf.hw.kernels.FLASH_EFFICIENCY`), scale-up 0.8. Each lies inside its range today.
* A part that states a field or its range (every shipped part) keeps its own figures: nothing here moves them.
"""

from __future__ import annotations

from archgen.model.accelerator import Accelerator, Efficiency
from archgen.perf.hw.measured_range import Range, held_inside

#: Lowest and highest measured fraction in the shipped catalog, per efficiency, each end with the part and source its
#: catalog file cites (`efficiency.source`):
#: hbm (BabelStream Copy over peak) 0.783 mi300x (samuel-bohman/AI-benchmarking-guide ND_MI300X_v5_results.md at
#: bf209ab: 4.15 / 5.3 TB/s) to 0.866 h100-sxm5-80gb (Azure/AI-benchmarking-guide ND_H100_v5_results.md at ae0b6a7:
#: 2.90 / 3.35 TB/s); a100-sxm4-80gb's 0.790 and h200-sxm-141gb's 0.835 lie between.
#: flash (forward rate over the best dense GEMM) 0.787 h100-sxm5-80gb (FlashAttention-3, pytorch/benchmark PR 2391:
#: 620.73 TFLOP/s over 794.5 through the size ramp) to 0.850 a100-sxm4-80gb (FlashAttention-2, arXiv 2307.08691:
#: 73 % of peak over the A100's 0.859 GEMM fraction).
#: scale_up (ring all-reduce bus bandwidth over the link) 0.61 a100-sxm4-80gb (microsoft/vidur a100_dgx
#: all_reduce.csv, 8 GPUs, 64 MiB) to 0.824 h100-sxm5-80gb (ASTRA-sim HGX-H100 validation: 741.34 / 900);
#: mi300x's 0.75 (AMD ROCm blog, ~48 of 64 GB/s per xGMI link) and h200-sxm-141gb's 0.824 lie between.
MEASURED_RANGE: dict[str, Range] = {
    "hbm": (0.783, 0.866), "flash": (0.787, 0.85), "scale_up": (0.61, 0.824)}

#: The parts the ends of `MEASURED_RANGE` were measured on (as above), named in an estimate's note.
MEASURED_ENDS: dict[str, tuple[str, str]] = {
    "hbm": ("mi300x", "h100-sxm5-80gb"), "flash": ("h100-sxm5-80gb", "a100-sxm4-80gb"),
    "scale_up": ("a100-sxm4-80gb", "h100-sxm5-80gb")}

#: The efficiencies this module covers, in the order estimates name them.
NAMES = ("hbm", "flash", "scale_up")


def assumed_point(name: str, default: float) -> float:
    """The assumed `name` efficiency of a part that states none: `default`, held inside the measured range."""
    return held_inside(default, MEASURED_RANGE[name])


def unstated(eff: Efficiency) -> tuple[str, ...]:
    """The efficiencies of `NAMES` that `eff` states neither as a figure nor as a range (in `NAMES` order)."""
    return tuple(n for n in NAMES if n not in eff.model_fields_set and f"{n}_range" not in eff.model_fields_set)


def point(eff: Efficiency, name: str) -> float:
    """The `name` efficiency the model uses: the stated figure, else the assumed point (`assumed_point`)."""
    value = float(getattr(eff, name))
    return assumed_point(name, value) if name in unstated(eff) else value


def effective_range(eff: Efficiency, name: str) -> Range | None:
    """The range of `name` an estimate spans: the stated one, the measured one where unstated, else None."""
    stated = getattr(eff, f"{name}_range")
    if stated is not None:
        return (float(stated[0]), float(stated[1]))
    return MEASURED_RANGE[name] if name in unstated(eff) else None


def unstated_defaults(accelerator: Accelerator, nvls: bool, scale_up_size: int) -> tuple[str, ...]:
    """The figures besides those of `NAMES` that `accelerator` leaves to the model's defaults, as estimates name them.

    'vector' and 'gemm_half_size' where its `efficiency` states neither. In a domain of more than one: 'nvls' where
    NVLS runs (`nvls`, with a CUDA compute capability: NCCL enables it on nothing else) and
    `efficiency.in_network_reduction` is unstated, so NCCL's figure for the generation applies; 'latency' where its
    `scale_up` states no `latency`, so NCCL's 1.9 us NVLink LL128 step applies whatever the link; 'scale_up_latency'
    where it states one but marks it unconfirmed (the AMD parts' xGMI carries NVLink's step;
    `defaults_note.latency_note`).
    """
    eff, su = accelerator.efficiency, accelerator.scale_up
    names = [n for n in ("vector", "gemm_half_size") if n not in eff.model_fields_set]
    if scale_up_size > 1 and nvls and accelerator.compute_capability and eff.in_network_reduction is None:
        names.append("nvls")
    if scale_up_size > 1 and su is not None and "latency" not in su.model_fields_set:
        names.append("latency")
    elif scale_up_size > 1 and accelerator.is_unconfirmed("scale_up.latency"):
        names.append("scale_up_latency")
    return tuple(names)
