"""B300 and GB300 NVFP4 decode-GEMM streaming: a stated range from the measured Blackwell figure to the HBM point.

Issue 20 part 3 ("an accelerator without a measurement gets a stated range, and the range reaches the estimate"),
newuser33's finding 3: b300-sxm-288gb and gb300 had no `efficiency.gemm_stream.fp4`, so their FP4 decode GEMMs
streamed at hbm 0.85 of 8 TB/s where B200 and GB200 stream at the measured 0.405 (pytorch/helion PR 3046, B200 NVFP4
W4A4 decode GEMV, 3.24 TB/s). Scored rows (mlcommons/inference_results_v5.1, tests/perf/data/mlperf-inference-v5*.yaml),
before -> after: DeepSeek-R1 GB300 Server TPOT 14.6 -> 25.1 ms (measured 63.7); Llama 3.1 405B GB300 Server TPOT
-17.3 % -> +22.7 %, Offline tokens/s +10.0 % -> +3.0 %.
"""

from __future__ import annotations

import pytest

from archgen.errors import SpecError
from archgen.model.accelerator import Efficiency
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.workload.efficiency_range import range_ends, stated_ranges


@pytest.mark.parametrize("part", ["b300-sxm-288gb", "gb300"])
def test_blackwell_ultra_states_the_fp4_stream_range(accelerators, part):
    """The range runs from B200's measured 0.405 to the part's hbm point, and the point is the measured end."""
    acc, b200 = accelerators[part], accelerators["b200-sxm-180gb"]
    eff = acc.efficiency
    assert eff.gemm_stream_range["fp4"] == (b200.efficiency.gemm_stream["fp4"], eff.hbm)
    assert eff.gemm_stream["fp4"] == b200.efficiency.gemm_stream["fp4"]
    hw = hardware_for(acc, scale_up_size=8)
    names = [name for name, _, _ in stated_ranges(hw, "fp4")]
    assert "fp4 decode-GEMM streaming efficiency" in names
    assert "fp4 decode-GEMM streaming efficiency" not in [n for n, _, _ in stated_ranges(hw, "bf16")]
    # the ends an estimate is re-timed at include a copy-rate stream: the range reaches the estimate
    assert {h.gemm_stream_efficiency["fp4"] for h in range_ends(hw, "fp4")} == {0.405, eff.hbm}


def test_a_stream_range_must_hold_its_point():
    with pytest.raises((ValueError, SpecError)):
        Efficiency(gemm_stream={"fp4": 0.9}, gemm_stream_range={"fp4": (0.405, 0.85)})
    with pytest.raises((ValueError, SpecError)):
        Efficiency(gemm_stream_range={"fp4": (0.405, 0.85)})   # no point to hold
