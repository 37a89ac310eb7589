"""Issue 20, part 4: an offline decode step reads the context of the requests in flight (`inference.output_len_cv`).

A slot holds a request for its L - 1 decode steps (the prefill makes the first token), so the mean context a step
reads is about E[L (I + L/2)] / E[L] = I + E[L] (1 + CV^2) / 2 (perf/serve/lengths.py), not I + E[L]/2. The CVs are the MLPerf
datasets' reference outputs (openshift-psap/performance-dashboard@71007029 mlperf-data/summaries/*.csv; the case
files' comments give the moments): DeepSeek-R1 1.25, Mixtral 0.78, Llama 2 70B 0.79, Llama 3.1 8B 0.45 (its row
states 0: NVIDIA's SUT runs every output to a 128-token cap, server8b40), 405B 0.38.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.errors import ValidateError
from archgen.model.cases import CaseInference
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.serve.inference import ServeJob, estimate_inference
from archgen.perf.serve.lengths import decode_context, lengths_convention, reserved_context
from archgen.perf.workload.roofline import inference_kernels
from archgen.pipeline import run
from archgen.scoring.cases import predict, read_case_file
from archgen.units import Q_
from tests.conftest import SPECS

DATA = Path(__file__).resolve().parent / "data"
LLAMA70 = Arch(layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28672, vocab=128256, gated=True, rope=True, qk_norm=False)
#: The B200 DeepSeek-R1 Offline row and its log's tokens/s (mlcommons/inference_results_v5.1@965182b0
#: closed/NVIDIA/results/B200-SXM-180GBx8_TRT/deepseek-r1/Offline/performance/run_1/mlperf_log_summary.txt).
B200_ROW, B200_TOKENS = "mlperf51-deepseek-r1-offline-8xb200-tp8-ep8-adp-fp4", 33379.0


def _slots(inp: int, outputs: list[int]) -> float:
    """The mean context over every decode step of every request, counted step by step: a request of L tokens runs
    L - 1 steps (the prefill makes token 1), the one making token t + 1 reading inp + t (1 <= t < L)."""
    steps = [inp + t for length in outputs for t in range(1, length)]
    return sum(steps) / len(steps)


@pytest.mark.parametrize("outputs", [[100, 300], [1, 2, 3, 10], [50, 50, 50]])
def test_the_closed_form_is_the_mean_over_the_steps(outputs):
    """Hand-derived: for {100, 300}, E[L] 200, E[L^2] 50,000, CV^2 0.25, so 804 + 200 x 1.25 / 2 = 929; the 398
    steps counted one by one read 929.126, E[L] CV^2 / (2 (E[L] - 1)) = 200 x 0.25 / (2 x 199) = 0.126 of a token
    more, what lengths.py states it leaves out ({50, 50, 50}, CV 0, gives 804 + 25 both ways: the one-length form)."""
    n = len(outputs)
    mean = sum(outputs) / n
    cv = (sum(x * x for x in outputs) / n / mean ** 2 - 1.0) ** 0.5
    left_out = mean * cv * cv / (2.0 * (mean - 1.0))
    assert decode_context(804, mean, cv) + left_out == pytest.approx(_slots(804, outputs), rel=1e-12)
    assert decode_context(804, 200, 0.5) == 929.0
    assert decode_context(804, 200, None) == decode_context(804, 200, 0.0) == 904.0


def test_deepseek_context_from_its_dataset():
    """804 + 3,736 x (1 + 1.25^2) / 2 = 5,590.75 tokens (2,672 with one length); a 'mean' reservation holds the same,
    a 'full' one the request's 804 + 3,736 whatever the spread."""
    assert decode_context(804, 3736, 1.25) == pytest.approx(5590.75)
    assert reserved_context("mean", 804, 3736, 1.25) == pytest.approx(5590.75)
    assert reserved_context("full", 804, 3736, 1.25) == 804 + 3736


def test_the_step_reads_the_weighted_context(accelerators):
    """The offline step at CV 1 is the one-length step whose output is twice as long (both read I + O); at a stated
    batch and a 'full' reservation nothing else differs."""
    hw = hardware_for(accelerators["b200-sxm-180gb"], scale_up_size=8, scale_up_bandwidth=Q_(900, "GB/s"))
    spread = estimate_inference(hw, ServeJob(LLAMA70, 1000, 1000, "fp8", output_len_cv=1.0), 1, 64)
    long = estimate_inference(hw, ServeJob(LLAMA70, 1000, 2000, "fp8"), 1, 64)
    one = estimate_inference(hw, ServeJob(LLAMA70, 1000, 1000, "fp8"), 1, 64)
    assert float(spread.decode_step) == pytest.approx(float(long.decode_step), rel=1e-12)
    assert float(spread.decode_step) > float(one.decode_step)
    assert float(spread.kv_per_sequence_per_gpu) == float(one.kv_per_sequence_per_gpu)  # 'full': I + O either way
    mean = estimate_inference(hw, ServeJob(LLAMA70, 1000, 1000, "fp8", "fp8", "mean", output_len_cv=1.0), 1, 64)
    mean_one = estimate_inference(hw, ServeJob(LLAMA70, 1000, 1000, "fp8", "fp8", "mean"), 1, 64)
    assert float(mean.kv_per_sequence_per_gpu) / float(mean_one.kv_per_sequence_per_gpu) == pytest.approx(2000 / 1500)


def test_the_kernel_view_reads_the_same_context(accelerators):
    """The roofline's decode attention core reads the offline step's context: at CV 1 that of an output twice as
    long (1000 + 2000/2 = 1000 + 1000 x 2/2)."""
    hw = hardware_for(accelerators["b200-sxm-180gb"], scale_up_size=8, scale_up_bandwidth=Q_(900, "GB/s"))

    def core(output_len, cv):
        r = inference_kernels(hw, LLAMA70, input_len=1000, output_len=output_len, dtype="fp8", kv_dtype=None, tp=1,
                              batch=64, output_len_cv=cv)
        return next(k for k in r.kernels if k.phase == "decode" and k.name == "attention core")
    assert core(1000, 1.0).time == core(2000, None).time > core(1000, None).time
    assert core(1000, 1.0).bytes_moved == pytest.approx(2000 / 1500 * core(1000, None).bytes_moved)


def test_the_deepseek_offline_row_moves(accelerators):
    """The B200 row with its dataset's spread against the same row with one length: +146.2 % -> +102.8 % (+145.6 %
    -> +102.4 % in docs/accuracy.md before and after this change, at B200's NVFP4 point before its re-derivation
    over B300's own 14,000 TFLOP/s, 0.476 -> 0.488); the step grows by the context alone (the 512-a-rank cap binds
    either way, so 4,096 sequences are in flight in both). With the experts timed on the busiest EP rank under
    uniform routing (moeserve) +145.3 % -> +102.3 % (+102.2 % since review31: the ranks' counts sum to the copies; +145.2 % flat and +102.2 % with the spread since mla35: MLA's prefill core at its
    own head dims, 192 and 128)."""
    case = next(c for c in read_case_file(DATA / "mlperf-inference-v5-deepseek.yaml").cases if c.id == B200_ROW)
    assert case.inference.output_len_cv == 1.25
    flat = case.model_copy(update={"inference": case.inference.model_copy(update={"output_len_cv": None})})
    after = predict(case, accelerators)["tokens_per_second"] / B200_TOKENS - 1.0
    before = predict(flat, accelerators)["tokens_per_second"] / B200_TOKENS - 1.0
    assert before == pytest.approx(1.452, abs=0.001)
    assert after == pytest.approx(1.022, abs=0.001)


@pytest.mark.parametrize(("scenario", "extra"), [("concurrency", "batch: 8"), ("server", "arrival_rate: 2 1/s")])
def test_a_simulated_run_refuses_the_spread_at_its_line(spec_tree, scenario, extra):
    """The simulator gives every request one length, so the field is refused where a run is simulated, located."""
    job = ("kind: Workload\nid: w\nname: w\nmodel: llama3-70b\ncluster: dgx-b200-superpod\naccelerators: 8\n"
           f"inference: {{tp: 8, input_len: 1024, output_len: 128, {extra}, scenario: {scenario}, "
           "output_len_cv: 0.5}\n")
    root = spec_tree({"w.yaml": job})
    with pytest.raises(ValidateError) as err:
        run([root, SPECS / "clusters", SPECS / "racks"])
    text = str(err.value)
    assert "w.yaml:7:" in text and "inference.output_len_cv:" in text
    assert "applies to the offline closed form" in text and "varying request lengths are not simulated" in text


def test_offline_and_server_without_arrivals_take_it():
    """A server job with no arrival rate is the offline closed form, so it may state the spread; a negative CV is
    refused by the schema."""
    for scenario in ("offline", "server"):
        CaseInference(precision="fp8", tp=1, batch="max", input_len=10, output_len=10, scenario=scenario,
                      output_len_cv=0.5)
    with pytest.raises(ValueError, match="greater than or equal to 0"):
        CaseInference(precision="fp8", tp=1, batch="max", input_len=10, output_len=10, output_len_cv=-0.1)


def test_the_estimate_states_the_assumption():
    """Unstated, the estimate says it takes every output of one length; stated, the weighted context; a simulated
    run, one length per request."""
    assert "all outputs of one length (output_len_cv not stated)" in lengths_convention(804, 3736, None, False)
    assert "input + output/2 = 2,672 tokens" in lengths_convention(804, 3736, None, False)
    assert "(1 + output_len_cv^2) / 2 = 5,591 tokens of context (output_len_cv 1.25)" in \
        lengths_convention(804, 3736, 1.25, False)
    assert "every simulated request has 804 + 3,736 tokens" in lengths_convention(804, 3736, None, True)
