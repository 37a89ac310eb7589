"""Ranges over what a validation case leaves unstated (archgen/scoring/unstated.py): collectives' network latency and
NVLS, serving's KV-cache precision, beside the stack profiles of training cases. None of them is scored."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from archgen.model.cases import CaseTraining
from archgen.perf.comm.collectives import bus_bandwidth, collective_time
from archgen.scoring.cases import case_hardware, predict, predicted, read_cases
from archgen.scoring.unstated import (
    DECLARED_NET_LATENCIES,
    collective_range,
    describe,
    open_knobs,
    serving_range,
    unstated_range,
)

from .conftest import CASES

MODERN = Path(__file__).resolve().parent.parent / "data" / "validation-modern.yaml"


@pytest.fixture(scope="module")
def modern():
    cases, _ = read_cases(MODERN)
    return {c.id: c for c in cases}


@pytest.fixture(scope="module")
def first():
    cases, _ = read_cases(CASES)
    return {c.id: c for c in cases}


def _busbw(case, accelerators, latency, nvls, link=None):
    hw = dataclasses.replace(case_hardware(case, accelerators, nvls=nvls), scale_out_latency=latency)
    if link is not None:
        hw = dataclasses.replace(hw, scale_up_efficiency=link)
    c = case.collective
    size, n = float(c.size.to("B").magnitude), case.system.count
    return bus_bandwidth(c.op, size, collective_time(hw, c.op, size, n, algorithm=c.algorithm), n)


def test_declared_latencies_are_the_transports():
    """NCCL's IB/RoCE and socket transports declare 0 (net_ib/init.cc, net_socket.cc); aws-ofi-nccl 35 us on
    P5en/P6-B200/P6-B300 and 75 us on P4d/P5/P5e and unknown platforms (src/platform-aws.cpp)."""
    assert DECLARED_NET_LATENCIES == (0.0, 35e-6, 75e-6)


def test_four_node_efa_range_spans_nvls_at_the_stated_latency(modern, accelerators):
    """The 4-node P6-B200 256 MiB case now states its transport's latency (35 us, as aws-ofi-nccl declares on P6) but
    not NVLS: its range is the least and greatest busbw over NVLS off/on at 35 us and over B200's stated scale-up
    link efficiency (no NVLink 5 measurement: 0.61 to 0.824), the scored value NVLS off at the catalog's point."""
    case = modern["mlengbook-allreduce-4xp6b200-efa-256mib"]
    assert open_knobs(case, accelerators) == ("NVLS", "scale-up efficiency")
    got = [_busbw(case, accelerators, 35e-6, nvls, link) for nvls in (False, True) for link in (0.61, 0.824)]
    lo, hi = collective_range(case, accelerators)["busbw"]
    assert (lo, hi) == pytest.approx((min(got), max(got)))
    assert predict(case, accelerators)["busbw"] == pytest.approx(_busbw(case, accelerators, 35e-6, False))
    measured = 229.09e9
    for nvls in (False, True):                                  # within 25 % with NVLS off and on
        assert _busbw(case, accelerators, 35e-6, nvls) == pytest.approx(measured, rel=0.25)
    assert DECLARED_NET_LATENCIES[1] == 35e-6                    # the latency it states is one a transport declares


STATED = """
schema: archgen-validation/1
cases:
- id: stated
  source: test
  status: confirmed
  system:
    accelerator: b200-sxm-180gb
    count: 32
    scale_up: {domain: 8, bandwidth: 900 GB/s}
    scale_out: {bandwidth: 400 Gb/s, latency: 35 us}
  collective: {op: all_reduce, size: 256 MiB, algorithm: auto}
  measured: [{metric: busbw, value: 229.09, unit: GB/s}]
"""


def test_no_range_where_nothing_is_open(first, modern, accelerators, tmp_path):
    """Named algorithms inside one domain leave nothing open; a stated latency closes that knob (the NVLS range is
    then the prediction with NVLS off and on at that latency); a training case that states its stack has no range,
    one that states none has the range over the stack profiles."""
    assert collective_range(first["nccl-8xh200-allreduce-ring"], accelerators) == {}
    gb200 = modern["gtc25-nccl-allreduce-32xgb200-nvl72-nvls"]  # named NVLS in one domain: only the link is open
    assert open_knobs(gb200, accelerators) == ("scale-up efficiency",)
    assert collective_range(gb200, accelerators)["busbw"] == pytest.approx(
        tuple(_busbw(gb200, accelerators, 0.0, True, link) for link in (0.61, 0.824)))
    assert open_knobs(first["vidur-dgx-h100-allreduce-64mib"], accelerators) == ("NVLS",)   # one node: no network
    path = tmp_path / "stated.yaml"
    path.write_text(STATED, encoding="utf-8")
    (stated,), _ = read_cases(path)
    assert open_knobs(stated, accelerators) == ("NVLS", "scale-up efficiency")
    every = [_busbw(stated, accelerators, 35e-6, nvls, link) for nvls in (False, True) for link in (0.61, 0.824)]
    assert collective_range(stated, accelerators)["busbw"] == pytest.approx((min(every), max(every)))
    gpt3 = modern["mlperf-t41-gpt3-256xh100"]  # states its stack, and here GPT-3's learned positions: nothing open
    training = gpt3.model_copy(update={"model": gpt3.model.model_copy(update={"position_embedding": "learned",
                                                                               "qk_norm": False})})
    h100 = accelerators["h100-sxm5-80gb"]   # its K loop's fixed steps are a stated range (kfixed42): open
    assert open_knobs(training, accelerators) == ("K-loop fixed steps",) and unstated_range(training, accelerators)
    one = {**accelerators, h100.id: h100.model_copy(update={"efficiency": h100.efficiency.model_copy(
        update={"gemm_k_fixed_steps_range": None})})}   # one figure stated: nothing open
    assert unstated_range(training, one) == {} == collective_range(training, one)
    t = training.training
    unstated = training.model_copy(update={"training": CaseTraining.model_validate(
        t.model_dump(exclude_unset=True, exclude={"stack"}))})
    assert unstated.training.stack == "nemo-2025" and unstated_range(unstated, accelerators)
    assert describe(("network latency", "NVLS")) == "network latency 0/35/75 us, NVLS off/on"


def test_estimate_cases_text_gives_the_ranges(cli):
    text = cli("estimate", "--cases", str(MODERN)).out
    assert "Over what the case leaves unstated (not scored):\n" in text
    assert "  mlengbook-allreduce-4xp6b200-efa-256mib busbw: " in text
    assert "over NVLS off/on, the catalog's stated scale-up link efficiency range\n" in text
    fraction = describe(("TensorRT-LLM KV cache fraction",))
    assert (f"over KV cache fp8/bf16, {fraction}, the catalog's stated HBM efficiency range, the catalog's stated "
            "flash-attention efficiency range, the catalog's stated scale-up link efficiency range\n"
            in text)  # B200: no copy, attention or NVLink 5 measurement
    assert text.rstrip().endswith("over the catalog's stated range of a GEMM tile's fixed cost in K-loop steps; RoPE "
                                  "positions, no QK norm, as Llama 3.1 405B's published config states (its shape; the "
                                  "case's model leaves it out)")  # a training row's model (ropespan40), on Hopper
    assert f"over KV cache fp8/bf16, {fraction}\n" in text  # an H100 case: its HBM efficiency is measured


def _with_kv(case, kv, fraction=None):
    """`case` with its KV-cache precision, and its TensorRT-LLM KV cache fraction where given, stated."""
    stated = {"kv_precision": kv} | ({"free_gpu_memory_fraction": fraction} if fraction is not None else {})
    return case.model_copy(update={"inference": case.inference.model_copy(update=stated)})


def test_serving_range_spans_the_kv_cache_precision(modern, accelerators):
    """The FP8 H100 case states no KV-cache precision: its range runs from the prediction with a BF16 cache (half the
    sequences fit, each step reads twice the bytes) to the scored one with FP8 (kv_cache_dtype.serving_kv_dtype). (The H100's
    HBM efficiency is measured; the B200 NVFP4 case also spans its stated HBM range, test_efficiency_range.) It states
    no KV cache fraction either (frac39): the range is over both, each precision at 0.90 and 0.95."""
    case = modern["trtllm-h100-llama31-8b-fp8-tp1-20000-2000"]
    assert open_knobs(case, accelerators) == ("KV cache", "TensorRT-LLM KV cache fraction")
    bf16 = predict(_with_kv(case, "bf16"), accelerators)["tokens_per_second"]
    fp8 = predict(case, accelerators)["tokens_per_second"]
    assert fp8 == predict(_with_kv(case, "fp8"), accelerators)["tokens_per_second"]
    assert bf16 < fp8
    every = [predict(_with_kv(case, kv, f), accelerators)["tokens_per_second"] for kv in ("fp8", "bf16")
             for f in (0.90, 0.95)]
    assert serving_range(case, accelerators) == {"tokens_per_second": (min(every), max(every))}
    assert min(every) == bf16   # the scored fraction, 0.9, is the low end
    assert unstated_range(case, accelerators) == serving_range(case, accelerators)
    assert describe(("KV cache",)) == "KV cache fp8/bf16"


def test_no_serving_range_where_the_kv_cache_is_stated(modern, accelerators):
    case = modern["trtllm-h100-llama31-8b-fp8-tp1-20000-2000"]
    assert open_knobs(_with_kv(case, "fp8", 0.9), accelerators) == ()
    assert serving_range(_with_kv(case, "fp8", 0.9), accelerators) == {}
    bf16_weights = case.model_copy(update={"inference": case.inference.model_copy(
        update={"precision": "bf16", "free_gpu_memory_fraction": 0.95})})
    assert serving_range(bf16_weights, accelerators) == {}


def test_estimate_cases_says_which_stated_layouts_do_not_fit(cli, accelerators):
    """A case is predicted as stated, but a serving batch above what the KV cache holds runs whole only in the
    closed form (offline; the simulated scenarios admit at most the KV capacity, as engines do). The legacy file's
    MLPerf v4.1 H100 Offline row states the harness's gpu_batch_size 896 on TP2 replicas that held 882 sequences by
    the model (FP8 weights and KV cache, input 294 + output 290 tokens reserved): it was predicted without a word.
    Under TensorRT-LLM's KV rule (0.9 of what the weights leave, kvrule37) they held 955; with the profiling peak held
    too (kvpeak37: the largest activation of a max_num_tokens pass, the CUDA context, NCCL) 925, and the row still
    fits, as the run did; a batch of 926 is the one that does not."""
    from archgen.scoring.case_memory import unfit_reason as reason
    from archgen.scoring.cases import footprint

    def unfit_reason(case, accs):   # the reason from the case's footprint alone, no prediction
        return reason(case, footprint(case, case_hardware(case, accs)))

    cases, _ = read_cases(CASES)
    row = next(c for c in cases if c.id == "mlperf-inf-v4.1-llama2-70b-offline-8xh100")
    assert unfit_reason(row, accelerators) is None
    over = row.model_copy(update={"inference": row.inference.model_copy(update={"batch": 926})})
    assert unfit_reason(over, accelerators) == (
        "batch 926 is above the 925 sequences the KV cache holds per replica by the model")
    text = cli("estimate", "--cases", str(CASES)).out
    assert "Stated layouts that do not fit" not in text
    assert all(unfit_reason(c, accelerators) is None for c in cases if c.collective is None)   # none in the file
    # a training layout: MT-NLG 530B at micro-batch 8 (the accuracy page's micro-batch table: does not fit)
    mtnlg = next(c for c in cases if c.id == "mt-nlg-530b-2240")
    eight = mtnlg.model_copy(update={"training": mtnlg.training.model_copy(update={"micro_batch": 8})})
    assert unfit_reason(eight, accelerators) == (
        "the stated layout needs 99.2 GB per accelerator, above the 85.9 GB the model counts on the accelerator")


MLPERF = Path(__file__).resolve().parent / "data" / "mlperf-inference-v5.yaml"


@pytest.mark.parametrize("cid", ["mlperf51-llama2-70b-offline-8xb200-tp1-fp4", "mlperf51-llama31-8b-server-8xb200-tp1-fp4"])
def test_a_one_accelerator_replica_reads_no_scale_up_efficiency(cid, accelerators):
    """`serving_range` takes a tp-1 replica's scale-up efficiency at its point only (casespeed38), not at both ends of
    the B200's stated range (0.61 to 0.824): one accelerator sends nothing over its scale-up links. Held here: the
    prediction at either end is the one at the point, offline (closed form) and server (simulated); were the model
    to read the link for such a replica, this fails and the range must take both ends again."""
    case = {c.id: c for c in read_cases(MLPERF)[0]}[cid]
    acc = accelerators[case.system.accelerator]
    assert case.inference.tp == 1 and "scale-up efficiency" in open_knobs(case, accelerators)
    lo, hi = acc.efficiency.scale_up_range

    def at(u):
        part = acc.model_copy(update={"efficiency": acc.efficiency.model_copy(update={"scale_up": u})})
        return predicted(case, {**accelerators, acc.id: part}).values

    assert at(lo) == at(hi) == predicted(case, accelerators).values


def test_a_range_reuses_the_scored_prediction_at_the_cases_own_end(modern, accelerators):
    """The FP8 H100 case's range has the case itself at its FP8 end: given the case's scored prediction, the range
    reads it there instead of predicting the case again (a prediction on other hardware is not reused), and equals
    the range made without it. Shown with a scored prediction whose values are marked (doubled)."""
    case = modern["trtllm-h100-llama31-8b-fp8-tp1-20000-2000"]
    scored = predicted(case, accelerators)
    assert serving_range(case, accelerators, scored) == serving_range(case, accelerators)
    marked = dataclasses.replace(scored, values={k: 2 * v for k, v in scored.values.items()})
    bf16, _ = serving_range(case, accelerators)["tokens_per_second"]
    assert serving_range(case, accelerators, marked) == {"tokens_per_second": (bf16, marked.values["tokens_per_second"])}
    other = dataclasses.replace(marked, footprint=dataclasses.replace(
        marked.footprint, hw=dataclasses.replace(marked.footprint.hw, hbm_efficiency=0.5)))
    assert serving_range(case, accelerators, other) == serving_range(case, accelerators)
