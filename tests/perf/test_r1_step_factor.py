"""The DeepSeek-R1 FP4 decode step on B200 at two batches: the gap is one factor on the whole step (r1serve32).

MLPerf Inference v5.1 ran the same engine (TensorRT-LLM, TP 8 / EP 8, attention DP, NVFP4 experts, FP8 KV cache), the
same dataset and the same 8 x B200 system in two scenarios (tests/perf/data/mlperf-inference-v5-deepseek.yaml,
mlcommons/inference_results_v5.1@965182b0 closed/NVIDIA/results/B200-SXM-180GBx8_TRT/deepseek-r1/{Offline,Server}/
performance/run_1/mlperf_log_summary.txt). Their logs give the step at two batches a rank:

* Server: Little's law on the log, 5.02 queries/s x (mean TTFT 726.2 ms + mean TPOT 66.46 ms x 3,747 tokens),
  puts 1,254 requests in flight, 157 a rank, and the step is the mean TPOT, 66.46 ms.
* Offline: 512 a rank (`max_batch_size`, below the 584 the KV cache holds at the length-weighted context, by
  TensorRT-LLM's rule, 0.9 of what the profiling peak leaves (590 of what the weights leave before kvpeak37; 557 by
  vLLM's before kvrule37), and
  tokens/s = B L / (B t_pre + L t_dec) with the model's prompt share gives t_dec = 118.2 ms from 33,379 tokens/s.

Both runs read the same dataset, whose outputs' spread (CV 1.25) puts the context a step reads at the
length-weighted 804 + 3,736 x (1 + 1.25^2) / 2 = 5,591 tokens ("Outputs of different lengths", docs/perf-model.md),
whether the slots are refilled at once (Offline) or as queries arrive (Server). At that context the model's step
is 56.18 ms at 512 a rank and 31.64 ms at 157: the measured step is 2.10 times the model's at both. A term that
grows per sequence alone (the MLA kernel's rate, host time per request) or a cost per pass alone cannot give one
factor at both batches; these tests size what each would need (docs/perf-model.md, Limitations, "The DeepSeek-R1
runs' decode step is one factor slower than the model's").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.perf.hw import kernels as K
from archgen.perf.serve import inference as I
from archgen.perf.serve.lengths import decode_context
from archgen.scoring.cases import case_hardware, read_case_file, serve_job

DATA = Path(__file__).parent / "data"
ROWS = read_case_file(DATA / "mlperf-inference-v5-deepseek.yaml").cases
#: The reference outputs' coefficient of variation (tests/perf/data/mlperf-deepseek-r1-lengths.yaml).
CV = 1.25
TP = 8.0


def _row(part: str):
    return next(c for c in ROWS if part in c.id)


def _measured(row, metric: str) -> float:
    return next(m.value for m in row.measured if m.metric == metric)


@pytest.fixture(scope="module")
def b200(accelerators):
    """The Offline and Server rows' hardware and jobs."""
    off, srv = _row("offline-8xb200"), _row("server-8xb200")
    hw = case_hardware(off, accelerators)
    return hw, serve_job(off, hw), serve_job(srv, hw)


def _context(job) -> float:
    """The length-weighted context a step of `job` reads (its own input and output, the dataset's CV)."""
    return decode_context(job.input_len, job.output_len, CV)


def _step(hw, job, batch: float, context: float) -> float:
    """The model's decode step (seconds) of `batch` sequences a replica at `context`, its fixed costs included."""
    return float(I._forward(hw, job, batch, TP, context=context, batch=batch, prefill=False)) \
        + float(I.fixed_per_pass(job.arch, TP, True, job.precision, job.ffn_activation, job.quantised_attention))


def _in_flight() -> float:
    """Little's law on the B200 Server log: queries/s x (TTFT + TPOT x (tokens - 1))."""
    srv = _row("server-8xb200")
    rate = float(srv.inference.arrival_rate.to("1/s").magnitude)
    latency = (_measured(srv, "ttft") + _measured(srv, "tpot") * (srv.inference.output_len - 1)) / 1e3
    return rate * latency


def _offline_step(hw, job) -> tuple[float, float]:
    """The Offline row's decode step as its tokens/s implies it (model's prompt share), and the model's."""
    est = I.estimate_inference(hw, job, TP)
    b, length = float(est.batch), float(job.output_len)
    measured = _row("offline-8xb200").measured[0].value
    return (b * length / measured - b * float(est.prefill_per_request)) / length, float(est.decode_step)


def test_the_logs_give_the_step_at_157_and_512_sequences_a_rank(b200):
    hw, off, srv = b200
    assert _in_flight() == pytest.approx(1254, abs=1) and _in_flight() / TP == pytest.approx(157, abs=0.5)
    est = I.estimate_inference(hw, off, TP)
    # 584 a rank with the profiling peak held (kvpeak37; 590 without it)
    assert float(est.batch) == 4096 and float(est.kv_batch) / TP == 584
    assert _context(off) == pytest.approx(5591, abs=1) and _context(srv) == pytest.approx(5606, abs=1)
    implied, model = _offline_step(hw, off)
    assert implied * 1e3 == pytest.approx(118.2, abs=0.05) and model * 1e3 == pytest.approx(56.18, abs=0.005)


def test_the_measured_step_is_210_percent_of_the_models_at_both_batches(b200):
    """One factor, 2.10, at 157 and 512 sequences a rank: the model's split between what a pass costs and what a
    sequence costs matches the runs'; what is missing scales the whole step."""
    hw, off, srv = b200
    server = _step(hw, srv, _in_flight(), _context(srv))
    implied, model = _offline_step(hw, off)
    assert server * 1e3 == pytest.approx(31.64, abs=0.01)
    assert _measured(_row("server-8xb200"), "tpot") / 1e3 / server == pytest.approx(2.10, abs=0.01)
    assert implied / model == pytest.approx(2.10, abs=0.01)


def test_no_single_term_closes_both_rows(b200):
    """What each candidate alone would need, at the Server and the Offline batch: they disagree.

    * The MLA decode kernel's rate (the whole gap in the attention core): 363 TFLOP/s at 157 a rank, 590 at 512.
    * A cost per sequence a rank and step (host time per request, anything linear in the batch): 222 us, 121 us.
    * A cost per pass (launches, host time per iteration): 34.8 ms, 62.0 ms.
    """
    hw, off, srv = b200
    a = off.arch
    n_srv, n_off = _in_flight(), 4096.0
    step_srv = _measured(_row("server-8xb200"), "tpot") / 1e3
    implied, _ = _offline_step(hw, off)
    need = {}
    for name, job, n, measured in (("server", srv, n_srv, step_srv), ("offline", off, n_off, implied)):
        context = _context(job)
        step = _step(hw, job, n, context)
        core = a.layers * float(I.attention_core(hw, job, TP, tokens=n / TP, context=context, batch=n / TP,
                                                 prefill=False))
        flop, _ = K.latent_decode_flop_bytes(batch=n / TP, context=context, rank=a.kv_lora_rank, rope=a.kv_rope_dim,
                                             kv_bytes=1.0, heads=a.heads)
        need[name] = (a.layers * flop / (measured - step + core) / 1e12, (measured - step) / (n / TP) * 1e6,
                      (measured - step) * 1e3)
    assert need["server"] == pytest.approx((363, 222, 34.8), abs=1)
    assert need["offline"] == pytest.approx((590, 121, 62.0), abs=1)
