"""What a `peak` what-if scales: the job's data type's tensor peak alone, with the part's other peaks held.

`Hardware.scaled('peak', f, dtype)` multiplies the peak of the job's data type (`hardware.PARAMETERS`), as the
elasticities and a sweep's `peak` axis take it. An FP8 or FP4 job runs part of its work at another peak all the same:
a training job's attention core and output layer in BF16, a serving job's logits (docs/adding-a-part.md, "peak.bf16
is needed by FP8 and FP4 jobs too"). So "peak x2" on such a job is a part whose FP8 rate doubled and whose BF16 did
not, where a chip's matrix units run every data type (every shipped NVIDIA and AMD part states FP8 at twice BF16,
their catalog entries), and an architect asking for "twice the FLOP/s" reads the answer of another question. Before
(newuser58) nothing said which: Llama 3.1 405B FP8 on 576 of a hypothetical 11.25 PFLOP/s part read 3.39 s ->
2.092 s (-38.3 %) under `--what-if peak=2`, where every tensor peak x2 gives 1.901 s (-43.9 %). `peak_scope` gives
the what-if the held peaks and the same job with every peak scaled, where that moves its headline figure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from archgen.perf.hw.hardware import Hardware
from archgen.perf.workload.estimate_result import Estimate
from archgen.units import Q_

#: The figure a what-if's scope compares, by the estimate's kind.
HEADLINE = {"training": "step_time", "inference": "tokens_per_second"}


def held_peaks(hw: Hardware, dtype: str) -> dict[str, Any]:
    """The part's tensor peaks other than `dtype`'s, TFLOP/s by data type: what a `peak` factor on `dtype` holds.

    The what-if's (`peak_scope`) and a sweep's `peak` axis's (`perf.explore.hardware_scope.peak_axis_scope`).
    """
    return {k: Q_(v, "FLOPS").to("TFLOPS") for k, v in sorted(hw.peak.items()) if k != dtype}


def peak_scope(estimate: Callable[[Hardware], Estimate], hw: Hardware, factors: Mapping[str, float], dtype: str,
               scaled: Estimate) -> dict[str, Any] | None:
    """The held peaks of a `peak` what-if and the job with every tensor peak scaled, or None where nothing differs.

    `estimate` estimates the job on given hardware (`JobOnCluster.estimate`), `hw` is the baseline hardware,
    `factors` the what-if's, `dtype` the job's data type and `scaled` the what-if's estimate. None where the what-if
    does not scale `peak`, the part states no other peak, or scaling every peak gives the same headline figure
    (`HEADLINE`: the job runs nothing at another peak).
    """
    factor, metric = factors.get("peak"), HEADLINE.get(scaled.kind)
    held = held_peaks(hw, dtype)
    if factor is None or factor == 1 or not held or metric is None or metric not in scaled.metrics:
        return None
    every = hw.every_peak_scaled(factor)
    for name, f in factors.items():
        if name != "peak":
            every = every.scaled(name, f, dtype)
    other = estimate(every)
    value = other.metrics.get(metric)
    if value is None or abs(value.m - scaled.metrics[metric].m) <= 1e-9 * abs(scaled.metrics[metric].m):
        return None
    return {"factor": factor, "scaled": dtype, "metric": metric, "every_peak": value, "layout": other.layout,
            "held": held}
