"""A request's first output token comes out of its prefill; its decode steps make tokens 2 to output_len (decode36).

newuser93 (issue 20): the offline closed form charged output_len decode steps a request where the engines run
output_len - 1 (SGLang appends the token sampled at a prompt's last chunk; trtllm-bench counts output tokens - 1
generated tokens a request; vLLM's benchmark divides latency - TTFT by output_len - 1: `lengths.FIRST_TOKEN`). The
simulated scheduler already ran output_len - 1; the closed form now counts the same steps, so at one request in flight
and one prompt a pass the two give the same tokens/s.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve.inference import ServeJob, estimate_inference
from archgen.perf.serve.scheduler import estimate_serving
from archgen.units import Q_

#: Llama 3.1 70B (arXiv 2407.21783, Table 3).
LLAMA70 = Arch(layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=128256, gated=True, rope=True, qk_norm=False)


@pytest.fixture(scope="module")
def h100(accelerators):
    return hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_up_bandwidth=Q_(450, "GB/s"))


def test_one_output_token_is_the_prefill_alone(h100) -> None:
    """output_len 1: no decode step runs, so a request costs its share of the prefill passes and nothing more."""
    e = estimate_inference(h100, ServeJob(LLAMA70, 2048, 1, "fp8"), 2, 64)
    assert float(e.tokens_per_second_replica) == pytest.approx(1.0 / float(e.prefill_per_request), rel=1e-12)


@pytest.mark.parametrize("out", [2, 8, 128])
def test_the_offline_form_charges_output_len_minus_one_steps(h100, out) -> None:
    """b out / (b t_pre + (out - 1) t_dec): at 2 tokens one decode step a request, where the form charged two."""
    e = estimate_inference(h100, ServeJob(LLAMA70, 2048, out, "fp8"), 2, 64)
    pre, step, b = float(e.prefill_per_request), float(e.decode_step), 64.0
    assert float(e.tokens_per_second_replica) == pytest.approx(b * out / (b * pre + (out - 1) * step), rel=1e-12)


def test_the_closed_form_and_the_simulated_run_count_the_same_steps(h100) -> None:
    """One request in flight and a token budget of one prompt: the closed form's prefill pass is the run's TTFT and
    its step the run's TPOT (a decode step is affine in the context, and both read input + output/2 on average), so
    both give 500 tokens over TTFT + 499 TPOT; the old count, 500 steps, read 0.19 % low here."""
    job = ServeJob(LLAMA70, 5000, 500, "fp8", max_num_tokens=5000)
    off = estimate_inference(h100, job, 2, 1)
    sim, run = estimate_serving(h100, replace(job, scenario="concurrency"), 2, 1)
    assert run is not None
    assert float(off.prefill_per_request) == pytest.approx(float(sim.ttft), rel=1e-9)
    assert float(off.tpot) == pytest.approx(float(sim.tpot), rel=1e-9)
    assert float(off.tokens_per_second_replica) == pytest.approx(float(sim.tokens_per_second_replica), rel=1e-9)
    old = 500.0 / (float(off.prefill_per_request) + 500.0 * float(off.tpot))
    assert old < float(sim.tokens_per_second_replica) * (1.0 - 1e-3)
