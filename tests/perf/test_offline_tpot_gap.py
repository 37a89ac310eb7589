"""An offline run's TPOT note says what a request waits between its tokens, the prompts prefilled between them
included (newuser95).

The offline closed form's TPOT is one decode step at the batch, t_dec(B), while its tokens/s runs the batch's prompts
between those steps (B·out / (B·t_pre + (out - 1)·t_dec)). On the shipped llama3-70b-serve-b200 (FP8, tp 8, 2,048 in
flight, 2,048 + 256 tokens) the step is 49.4 ms, yet by Little's law a request lives 75.4 s, its tokens about 296 ms
apart; the same model's closed loop at 2,048 in flight reads a mean TPOT of 121 ms. The note states the Little's law
gap beside the step; the judged figure is unchanged.
"""

from __future__ import annotations

import re

import pytest

from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve.inference import ServeJob, estimate_inference
from archgen.perf.workload.serving_estimate import interleaved
from archgen.units import Q_

#: Llama 3.1 70B (arXiv 2407.21783, Table 3).
LLAMA70 = Arch(layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=128256, gated=True)


@pytest.fixture(scope="module")
def h100(accelerators):
    return hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_up_bandwidth=Q_(450, "GB/s"))


@pytest.mark.parametrize(("b", "out"), [(1, 128), (64, 128), (256, 16)])
def test_the_gap_is_littles_law_over_the_closed_form(h100, b, out) -> None:
    """(B·out / tokens/s - t_pre) / (out - 1) = t_dec + (B - 1)·t_pre / (out - 1): the step plus the other
    requests' prompts shared over a request's gaps; one request in flight waits for no other's prompt."""
    e = estimate_inference(h100, ServeJob(LLAMA70, 2048, out, "fp8"), 2, b)
    pre, step = float(e.prefill_per_request), float(e.tpot)
    text = interleaved(e, out)
    gap = float(re.search(r"come about ([\d,.]+) ms apart", text).group(1).replace(",", "")) / 1e3
    assert gap == pytest.approx(step + (b - 1) * pre / (out - 1), rel=1e-3)
    assert gap >= step * (1 - 1e-3)
    if b > 1:
        assert gap > 2 * step   # at 2,048-token prompts the prompts dominate what a request waits


def test_no_gap_without_a_second_token(h100) -> None:
    e = estimate_inference(h100, ServeJob(LLAMA70, 2048, 1, "fp8"), 2, 64)
    assert interleaved(e, 1) == ""


def test_the_shipped_offline_job_states_it(shipped) -> None:
    """The estimate's tpot convention names the gap, beside the decode step it judges."""
    est = shipped.workloads["workload/llama3-70b-serve-b200"].estimate
    text = est.conventions["tpot"]
    assert "one decode step with `batch` sequences in flight" in text
    gap = float(re.search(r"come about ([\d,.]+) ms apart", text).group(1).replace(",", ""))
    assert gap > 4 * est.metrics["tpot"].m_as("ms")
