"""The range an estimate spans where an accelerator's GEMM, HBM, flash or scale-up efficiency is a stated range.

A catalog part without a measured GEMM rate in some data type carries `efficiency.gemm_range` (the lowest and
highest figure its sources support, derived from a sibling part's measurement) beside the point in
`efficiency.gemm`; so does a part whose published measurements of one data type disagree (the MI300X's BF16:
ml-engineering's MAMF and AMD's own max-achievable FLOPs), the range running between them. Likewise a part without
a measured HBM copy rate carries `efficiency.hbm_range` (the catalog's measured copy fractions) beside its point in
`efficiency.hbm`, one without a flash-attention measurement `efficiency.flash_range` beside `efficiency.flash`, and
one without a scale-up (NVLink, xGMI, ICI) bus-bandwidth measurement `efficiency.scale_up_range` beside
`efficiency.scale_up`. A part whose GEMM measurements imply different K-loop fixed costs (Hopper: DeepGEMM's
shapes, `kernels.k_loop_efficiency`) carries `efficiency.gemm_k_fixed_steps_range` beside its point. A job of an
RCCL part (AMD) across scale-up domains takes the scale-out efficiency over AMD's RCCL expectations
(`perf.comm.rccl_net.NET_EFFICIENCY_RANGE`), no RCCL measurement backing the point.
An estimate is re-timed at the ends of each range that applies, and the span is shown next to the estimate (a
workload's notes, a validation case's "over what it leaves unstated" line); the point alone is scored. Nothing here
is fitted: the ends come from the catalog, and the point is the catalog's.

A part that states an efficiency neither as a figure nor as a range (a user part without `efficiency`) gets an
assumed point and the catalog's measured range for it (`perf.hw.assumed_gemm`, `perf.hw.assumed_efficiency`); the
note then says the figure is not measured.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from itertools import product
from typing import Any

from archgen.display import significant
from archgen.model.accelerator import is_hbm
from archgen.model.pcie import PCIE_COPY_RANGE
from archgen.perf.hw.assumed_efficiency import MEASURED_ENDS, MEASURED_RANGE
from archgen.perf.hw.assumed_gemm import assumed_point, measured_ends, measured_range
from archgen.perf.hw.hardware import Hardware


def gemm_range(hw: Hardware, dtype: str) -> tuple[float, float] | None:
    """The stated range of `dtype`'s GEMM efficiency on `hw`, or None where the catalog measures it."""
    return hw.gemm_efficiency_range.get(dtype)


def _pair(rng: tuple[float, ...]) -> tuple[float, float] | None:
    return (rng[0], rng[1]) if len(rng) == 2 else None


def hbm_range(hw: Hardware) -> tuple[float, float] | None:
    """The stated range of `hw`'s HBM efficiency, or None where the catalog measures it."""
    return _pair(hw.hbm_efficiency_range)


def flash_range(hw: Hardware) -> tuple[float, float] | None:
    """The stated range of `hw`'s flash-attention efficiency, or None where the catalog measures it."""
    return _pair(hw.flash_efficiency_range)


def scale_up_range(hw: Hardware) -> tuple[float, float] | None:
    """The stated range of `hw`'s scale-up link efficiency, or None where the catalog measures it."""
    return _pair(hw.scale_up_efficiency_range)


def scale_out_range(hw: Hardware) -> tuple[float, float] | None:
    """The stated range of `hw`'s scale-out efficiency (RCCL across domains, `perf.comm.rccl_net`), or None."""
    return _pair(hw.scale_out_efficiency_range)


def at_efficiency(hw: Hardware, dtype: str, efficiency: float) -> Hardware:
    """`hw` with `dtype`'s GEMM efficiency set to `efficiency`."""
    return dataclasses.replace(hw, gemm_efficiency={**hw.gemm_efficiency, dtype: efficiency})


def at_stream(hw: Hardware, dtype: str, efficiency: float) -> Hardware:
    """`hw` with `dtype`'s decode-GEMM streaming efficiency (`gemm_stream`) set to `efficiency`."""
    return dataclasses.replace(hw, gemm_stream_efficiency={**hw.gemm_stream_efficiency, dtype: efficiency})


def at_hbm(hw: Hardware, efficiency: float) -> Hardware:
    """`hw` with its HBM efficiency set to `efficiency`."""
    return dataclasses.replace(hw, hbm_efficiency=efficiency)


def at_flash(hw: Hardware, efficiency: float) -> Hardware:
    """`hw` with its flash-attention efficiency set to `efficiency`."""
    return dataclasses.replace(hw, flash_efficiency=efficiency)


def at_k_fixed_steps(hw: Hardware, steps: float) -> Hardware:
    """`hw` with a GEMM tile's K-loop fixed steps (`kernels.k_loop_efficiency`) set to `steps`."""
    return dataclasses.replace(hw, gemm_k_fixed_steps=steps)


def at_scale_up(hw: Hardware, efficiency: float) -> Hardware:
    """`hw` with its scale-up link efficiency set to `efficiency`."""
    return dataclasses.replace(hw, scale_up_efficiency=efficiency)


def at_scale_out(hw: Hardware, efficiency: float) -> Hardware:
    """`hw` with its scale-out efficiency set to `efficiency`."""
    return dataclasses.replace(hw, scale_out_efficiency=efficiency)


#: The name an estimate gives each efficiency `Hardware.assumed_efficiencies` may hold ('HBM' stands for the part's
#: memory: `memory_name`).
_NAMES = {"HBM efficiency": "hbm", "flash-attention efficiency": "flash", "scale-up link efficiency": "scale_up"}


def memory_name(hw: Hardware) -> str:
    """The name of `hw`'s memory copy efficiency: 'HBM efficiency', or 'GDDR6 memory efficiency' on a GDDR6 part."""
    return "HBM efficiency" if is_hbm(hw.memory_type) else f"{hw.memory_type} memory efficiency"


def _key(hw: Hardware, name: str) -> str | None:
    """The `assumed_efficiencies` key of a range's name (`_NAMES`, the memory's by `memory_name`)."""
    return "hbm" if name == memory_name(hw) else _NAMES.get(name)


#: The scale-out range's name: its ends are AMD's RCCL expectations, its point the model's (`perf.comm.rccl_net`).
SCALE_OUT = "scale-out efficiency"

#: A stated range: its name, the catalog's point, the range, and `hw` with the efficiency set to a value.
Range = tuple[str, float, tuple[float, float], Callable[[Hardware, float], Hardware]]


def _ranges(hw: Hardware, dtype: str | None) -> list[Range]:
    """The stated ranges of `hw` an estimate in `dtype` depends on (GEMM in `dtype`, HBM, flash, scale-up, -out)."""
    out: list[Range] = []
    if dtype and (g := gemm_range(hw, dtype)):
        point = hw.gemm_efficiency.get(dtype)
        out.append((f"{dtype} GEMM efficiency", assumed_point(dtype, hw.gemm_efficiency) if point is None else point,
                    g, lambda h, e: at_efficiency(h, dtype, e)))
    if dtype and (s := hw.gemm_stream_range.get(dtype)):
        out.append((f"{dtype} decode-GEMM streaming efficiency", hw.gemm_stream_efficiency[dtype], s,
                    lambda h, e: at_stream(h, dtype, e)))
    if dtype and (k := _pair(hw.gemm_k_fixed_steps_range)):
        out.append(("GEMM tile fixed cost in K-loop steps", hw.gemm_k_fixed_steps, k, at_k_fixed_steps))
    if (m := hbm_range(hw)) is not None:
        out.append((memory_name(hw), hw.hbm_efficiency, m, at_hbm))
    if (f := flash_range(hw)) is not None:
        out.append(("flash-attention efficiency", hw.flash_efficiency, f, at_flash))
    if (u := scale_up_range(hw)) is not None:
        out.append(("scale-up link efficiency", hw.scale_up_efficiency, u, at_scale_up))
    if (o := scale_out_range(hw)) is not None:
        out.append((SCALE_OUT, hw.scale_out_efficiency, o, at_scale_out))
    return out


def stated_ranges(hw: Hardware, dtype: str | None) -> list[tuple[str, float, tuple[float, float]]]:
    """(name, catalog point, range) of each stated range of `hw` an estimate in `dtype` depends on."""
    return [(name, point, rng) for name, point, rng, _ in _ranges(hw, dtype)]


def range_ends(hw: Hardware, dtype: str | None) -> list[Hardware]:
    """`hw` at every combination of the ends of its stated ranges (GEMM, K loop, HBM, flash, links); or none."""
    ranges = _ranges(hw, dtype)
    out = []
    for ends in product(*(rng for _, _, rng, _ in ranges)) if ranges else ():
        h = hw
        for (_, _, _, at), end in zip(ranges, ends, strict=True):
            h = at(h, end)
        out.append(h)
    return out


def over_range(hw: Hardware, dtype: str, predict: Callable[[Hardware], float]) -> tuple[float, float] | None:
    """The lowest and highest of `predict` at the ends of the stated ranges (`range_ends`; None without any)."""
    ends = [predict(h) for h in range_ends(hw, dtype)]
    return (min(ends), max(ends)) if ends else None


def latency_span(hw: Hardware, dtype: str, point: Any, serve_at: Callable[[Hardware], Any]
                 ) -> tuple[tuple[str, float, float, float], ...]:
    """An offline serving job's TPOT and TTFT at the ends of the stated ranges, as (metric, point, low, high).

    `point` is the estimate's closed form and `serve_at` the same closed form on other hardware, each with `tpot`,
    `ttft` and `fits`; an end at which the job does not fit gives an infinite latency. Empty without a range.
    """
    at = [serve_at(h) for h in range_ends(hw, dtype)]
    if not at:
        return ()
    out = []
    for name in ("tpot", "ttft"):
        ends = [float(getattr(x, name)) if bool(x.fits) else math.inf for x in at]
        out.append((name, float(getattr(point, name)), min(ends), max(ends)))
    return tuple(out)


def _link_only(hw: Hardware) -> Hardware:
    """`hw` with only its link ranges (scale-up, scale-out): a collective's time depends on no GEMM, HBM or flash."""
    return dataclasses.replace(hw, gemm_efficiency_range={}, gemm_stream_range={}, gemm_k_fixed_steps_range=(),
                               hbm_efficiency_range=(), flash_efficiency_range=())


def link_span(hw: Hardware, busbw_at: Callable[[Hardware], float]) -> tuple[float, float] | None:
    """A collective's busbw (`busbw_at`, B/s) at the ends of the link efficiency ranges (None where none is stated)."""
    return over_range(_link_only(hw), "", busbw_at)


def link_note(hw: Hardware, busbw_at: Callable[[Hardware], float],
              span: tuple[float, float] | None = None) -> list[str]:
    """A collective's note: its busbw (`busbw_at`, B/s) at the ends of the scale-up link efficiency range, if stated.

    Only the link's range applies (`link_span`, or the `span` already taken with it, in B/s).
    """
    ends = span if span is not None else link_span(hw, busbw_at)
    return span_note(_link_only(hw), "", None if ends is None else (ends[0] / 1e9, ends[1] / 1e9), "the busbw",
                     "GB/s")


def efficiency_note(hw: Hardware, dtype: str, step_at: Callable[[Hardware], float], what: str = "the step time",
                    unit: str = "s") -> list[str]:
    """A workload note with `what` (the step time) at the ends of the stated efficiency ranges (none without one)."""
    return span_note(hw, dtype, over_range(hw, dtype, step_at), what, unit)


def span_note(hw: Hardware, dtype: str, span: tuple[float, float] | None, what: str = "the step time",
              unit: str = "s") -> list[str]:
    """`efficiency_note` of a span already taken (`over_range`); none where it is None (no stated range applies)."""
    if span is None:
        return []
    parts = _described(hw, dtype)
    stated = ("are stated ranges, not measurements: over those ranges" if len(parts) > 1 else
              "is a stated range, not one measurement: over that range")
    return [f"{' and '.join(parts)} of {hw.accelerator} {stated} {what} spans {significant(span[0])} {unit} to "
            f"{significant(span[1])} {unit}"]


def _described(hw: Hardware, dtype: str | None) -> list[str]:
    """Each stated range of `hw` an estimate in `dtype` depends on, in words: assumed (the part states none) or not."""
    assumed = {f"{dtype} GEMM efficiency"} if dtype and dtype not in hw.gemm_efficiency else set()
    assumed |= {name for name, _, _ in stated_ranges(hw, dtype) if _key(hw, name) in hw.assumed_efficiencies}
    return [f"{name} (model point {point:g}, range {lo:g} to {hi:g}: AMD's RCCL all-reduce to send/recv expectations, "
            "`perf.comm.rccl_net`)" if name == SCALE_OUT else
            f"{name} (not measured: the part states none; assumed point {point:g}, range "
            f"{_whose(_key(hw, name), dtype, lo, hi)}, the catalog's measured fractions{_borrowed(hw, name)})"
            if name in assumed else
            f"{name} (catalog point {point:g}, range {lo:g} to {hi:g}{_borrowed(hw, name)})"
            for name, point, (lo, hi) in stated_ranges(hw, dtype)]


def memory_note(hw: Hardware) -> str:
    """Where `hw`'s memory is not HBM, what the estimate's `hbm_*` rows and parameters hold ('' on an HBM part)."""
    if is_hbm(hw.memory_type):
        return ""
    return (f"memory: {hw.accelerator}'s memory is {hw.memory_type}, not HBM (its `memory_type`): the hbm_capacity "
            f"and hbm_bandwidth rows, elasticities and what-if parameters keep HBM's names for it")


def _borrowed(hw: Hardware, name: str) -> str:
    """Where a part's memory is not HBM, that its copy range is HBM parts' (the catalog measures no other memory)."""
    if _key(hw, name) != "hbm" or is_hbm(hw.memory_type):
        return ""
    return f", of HBM parts' copies: no {hw.memory_type} copy is measured in the catalog"


def _whose(key: str | None, dtype: str | None, lo: float, hi: float) -> str:
    """An assumed efficiency's range in words, each end with the part measured there: '0.382 (b300-sxm-288gb) to ...'.

    The parts are named where the range is the catalog's measured one (`perf.hw.assumed_gemm`,
    `perf.hw.assumed_efficiency`); the bare figures otherwise.
    """
    if key == "scale_up" and (lo, hi) == PCIE_COPY_RANGE:   # a PCIe peer-to-peer domain (`perf.hw.from_spec`)
        return f"{lo:g} (H100, PCIe Gen5 x16) to {hi:g} (A100, PCIe Gen4 x16), nvbandwidth's host-device copies"
    if key or dtype:
        measured, ends = ((MEASURED_RANGE[key], MEASURED_ENDS[key]) if key else
                          (measured_range(dtype or ""), measured_ends(dtype or "")))
        if measured == (lo, hi):
            return f"{lo:g} ({ends[0]}) to {hi:g} ({ends[1]})"
    return f"{lo:g} to {hi:g}"


def unmeasured(hw: Hardware, dtypes: Sequence[str | None]) -> str:
    """The efficiencies of `hw` that estimates in any of `dtypes` take at a point, not one measurement ('' if none).

    Where an estimate re-times itself at the ranges' ends (`efficiency_note`), a sweep's points do not; its report
    says instead which figures every point rests on, so a part nobody has measured does not read like one that was.
    """
    seen: dict[str, None] = {}
    for dtype in dtypes:
        seen.update(dict.fromkeys(_described(hw, dtype)))
    return f"{hw.accelerator}: {', '.join(seen)}" if seen else ""
