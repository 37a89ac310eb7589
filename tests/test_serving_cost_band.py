"""A serving job's cost per token carries its throughput's band, turned (issue 22).

newuser12's finding: the shipped llama3-70b-serve-gb200 showed cost_per_token 0.496 µUSD with Band "—", though it
is the job's cost per hour over its tokens/s, whose band is 43,880-70,670 tokens/s (model error -7.3 % to +49.3 % on
53 offline serving measurements): the cost per token may then lie in 0.460-0.741 µUSD (0.498, 0.462-0.744 with the
power shelves' loss in its energy, buyer2). A training job's cost takes its step time's band at each end of its
spares' range (`analyse.goodput.run_bands`).
"""

from __future__ import annotations

import pytest


def test_serving_cost_per_token_has_the_throughputs_band_turned(shipped):
    est = shipped.workloads["workload/llama3-70b-serve-gb200"].estimate
    tput, cost = est.bands["tokens_per_second"], est.bands["cost_per_token"]
    assert (cost.family, cost.count, cost.accelerator) == (tput.family, tput.count, tput.accelerator) == (
        "offline-serving", cost.count, "gb200") and cost.count > 0
    value = est.metrics["cost_per_token"].m_as("USD")
    tokens = est.metrics["tokens_per_second"].m_as("1/s")
    # 0.498 before issue 20's FFN bytes, 0.506 before TensorRT-LLM's max_batch_size of 2,048 capped its 3,616
    # 0.5115 before the SU's 2.5 m leaf-spine runs took SR8 optics (nu62fix: 66 DACs out, 132 modules in)
    # 0.5133 before they took 3 m active copper at its shortest length sold (newuser80: 132 modules out, 66 LACC in)
    assert value == pytest.approx(0.5117e-6, abs=0.0005e-6)
    # the cost per hour is exact as far as the model goes: cost / (tokens / (1 + e)) spans the turned band
    assert value / (1 + cost.high) == pytest.approx(value * (1 + tput.low), rel=1e-3)   # 0.468 µUSD
    assert value / (1 + cost.low) == pytest.approx(value * (1 + tput.high), rel=1e-3)   # 0.731 µUSD
    # 0.468 before kvrule37 gave TensorRT-LLM jobs its own KV budget (the offline band's low end moved)
    assert value / (1 + cost.high) == pytest.approx(0.4705e-6, abs=0.001e-6)   # 0.470 with nu62fix's optics
    # 0.745 before outputcv: the offline rows' stated output spread moved the band's high end +45.6 % -> +42.1 %
    # 0.727 before decode36 counted output_len - 1 decode steps a request offline (band high +42.1 % -> +42.4 %)
    # 0.728 before kvpeak37 held the engines' profiling peak (band high +42.4 % -> +42.0 %: MI300X's vLLM row)
    # 0.726 before kvcfg38 stated that row's gpu_memory_utilization 0.99 (band high +42.0 % -> +43.0 %)
    assert value / (1 + cost.low) == pytest.approx(0.731e-6, abs=0.001e-6)
    assert tokens > 0 and "cost_per_million_tokens" in est.bands


def test_training_cost_has_the_step_times_band_at_each_end_of_its_range(shipped):
    """Training's cost per token is its cost per hour over its tokens/s too: the step time's band, taken at each end
    of the spares' range (nu41cost; before, it had the range alone and read met where job_cost read at risk)."""
    training = [w.estimate for w in shipped.workloads.values()
                if w.estimate is not None and w.estimate.kind == "training" and "cost_per_token" in w.estimate.metrics]
    assert training
    for e in training:
        step, cost = e.bands["step_time"], e.bands["cost_per_token"]
        assert (cost.low, cost.high, cost.count) == (step.low, step.high, step.count)
        assert e.bands["cost_per_million_tokens"].describe() == step.describe()
