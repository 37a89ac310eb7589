"""An offline run's TPOT is a request's mean gap between its tokens, the prompts prefilled between them included
(newuser95 found it, offtpot37 made it the figure).

trtllm-bench times each request's (end - first token) / (output tokens - 1) and averages them (its TPOT; vLLM's
benchmark_serving.py the same), so an offline run's TPOT is not one decode step at the batch, t_dec(B): the closed
form's tokens/s runs the batch's prompts between those steps (B·out / (B·t_pre + (out - 1)·t_dec)). By Little's law a
request lives B·out / tokens/s; less its own prompt's share of a pass, the rest is its out - 1 gaps. On the shipped
llama3-70b-serve-b200 (FP8, tp 8, 2,048 in flight, 2,048 + 256 tokens) the step is 49.4 ms and the gap 295.6 ms;
the step stays reported as decode_step_time.
"""

from __future__ import annotations

import pytest

from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve.inference import ServeJob, estimate_inference
from archgen.perf.workload.serving_estimate import interleaved
from archgen.units import Q_

#: Llama 3.1 70B (arXiv 2407.21783, Table 3).
LLAMA70 = Arch(layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=128256, gated=True, rope=True, qk_norm=False)


@pytest.fixture(scope="module")
def h100(accelerators):
    return hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_up_bandwidth=Q_(450, "GB/s"))


@pytest.mark.parametrize(("b", "out"), [(1, 128), (64, 128), (256, 16)])
def test_the_tpot_is_littles_law_over_the_closed_form(h100, b, out) -> None:
    """(B·out / tokens/s - t_pre) / (out - 1): from the run's own tokens/s, not from the step; one request in flight
    waits for no other's prompt, so its TPOT is the step."""
    e = estimate_inference(h100, ServeJob(LLAMA70, 2048, out, "fp8"), 2, b)
    life = b * out / float(e.tokens_per_second_replica)
    assert float(e.tpot) == pytest.approx((life - float(e.prefill_per_request)) / (out - 1), rel=1e-9)
    if b == 1:
        assert float(e.tpot) == pytest.approx(float(e.decode_step), rel=1e-9)
    else:   # at 2,048-token prompts the prompts dominate what a request waits
        assert float(e.tpot) > 2 * float(e.decode_step)


def test_one_output_token_has_no_gap_to_explain(h100) -> None:
    e = estimate_inference(h100, ServeJob(LLAMA70, 2048, 1, "fp8"), 2, 64)
    assert float(e.tpot) == float(e.decode_step)
    assert "Little's law" not in interleaved(e, 1)


def test_the_shipped_offline_job(shipped) -> None:
    """Its TPOT, tokens/s per user and the decode step, each under its own name; the convention cites the tools."""
    est = shipped.workloads["workload/llama3-70b-serve-b200"].estimate
    tpot, step = est.metrics["tpot"].m_as("ms"), est.metrics["decode_step_time"].m_as("ms")
    assert tpot == pytest.approx(295.6, abs=0.05) and step == pytest.approx(49.37, abs=0.005)
    assert est.metrics["tokens_per_second_per_user"].m_as("1/s") == pytest.approx(1e3 / tpot, rel=1e-9)
    text = est.conventions["tpot"]
    assert "intertoken_latency" in text and "295.6 ms" not in text and "49.37 ms" in text
    # the replica's time per request adds up to out / tokens/s with the step, not the gap
    per_request = est.breakdown["prefill_per_request"] + est.breakdown["decode_per_request"]
    assert per_request.m_as("s") == pytest.approx(256 / (est.metrics["tokens_per_second"].m_as("1/s") / 8), rel=1e-6)
