"""Weight offload (a model-only option, after Calculon's): memory, copy time, write-back and the plan search.

Calculon's mechanism (calculon-ai/calculon caa4b11, `calculon/llm/llm.py`): two blocks' weights stay on the device
(`get_weight_space_min`, 2172-2173), each block's weights come in per micro-batch, overlapped with the block's
forward as the larger of them and the outgoing activations and with its backward as their sum (2021-2045,
1571-1605). No stack archgen profiles runs it (`offload.WEIGHT_OFFLOAD_STACKS`), so the plan search tries it only
when asked and labels a plan that takes it.
"""

from __future__ import annotations

import dataclasses
import warnings

import pytest

from archgen.perf.explore.plan import search_plan
from archgen.perf.explore.plan_result import plan_dict, plan_text
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.from_spec import hardware_for
from archgen.perf.hw.host_share import HostShare
from archgen.perf.hw.memory import GATHER_WINDOW_LAYERS, OFFLOAD_CODES, WEIGHT_OFFLOAD, layer_params, params_per_gpu
from archgen.perf.train import offload as off
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.layouts import search_training
from archgen.perf.train.pipeline_split import PipelineOptions
from archgen.perf.train.stacks import resolve
from archgen.perf.train.training import estimate_training
from archgen.units import Q_
from tests.perf.test_fast import as_arrays, differences

GPT3 = Arch(layers=96, hidden=12288, heads=96, kv_heads=96, head_dim=128, ffn=49152, vocab=51200)


def test_the_codes_add_a_weight_bit_to_the_stacks_offloads():
    assert WEIGHT_OFFLOAD == 4
    assert {k: v for k, v in OFFLOAD_CODES.items() if v < 4} == {"none": 0, "activations": 1, "optimizer": 2,
                                                                   "both": 3}
    assert OFFLOAD_CODES["weights+activations"] == 5 and OFFLOAD_CODES["weights+both"] == 7


def test_weight_offload_keeps_two_layers_and_the_embedding_on_the_device(h100_host):
    job = Job(GPT3, 2048, 1536, "bf16", "flash")
    lay = Layout(8, 8, 16, 1, recompute=0, zero=1)
    plain = estimate_training(h100_host, job, lay)
    moved = estimate_training(h100_host, job, dataclasses.replace(lay, offload=WEIGHT_OFFLOAD))
    one = float(layer_params(GPT3, 8, 1))
    rank = float(params_per_gpu(GPT3, 8, 8, 1, layers=12))  # 12 layers and the embedding (the first rank)
    assert float(plain.memory.weights) == pytest.approx(2.0 * rank)
    assert float(moved.memory.weights) == pytest.approx(2.0 * (GATHER_WINDOW_LAYERS * one + rank - 12 * one))
    assert float(moved.memory.host) == pytest.approx(2.0 * 12 * one)  # the 16-bit weights of the rank's layers
    assert float(moved.memory.gradients) == float(plain.memory.gradients)  # gradients and optimizer stay
    assert float(moved.memory.optimizer) == float(plain.memory.optimizer)


def test_under_zero3_the_host_holds_the_shard_and_a_layer_fetch_is_the_shard():
    # ZeRO-Infinity's bandwidth-centric partitioning: each rank moves its 1/dp over its own link
    from archgen.perf.hw.memory import training_memory
    common = dict(precision="bf16", seq_len=2048, micro_batch=1, tp=8, pp=8, dp=16, cp=1, ep=1, interleave=1,
                  recompute=2, sp=True, flash=True, microbatches=12)
    z3 = training_memory(GPT3, zero=3, **common)
    moved = training_memory(GPT3, zero=3, offload=WEIGHT_OFFLOAD, **common)
    one = float(layer_params(GPT3, 8, 1))
    assert float(moved.host) == pytest.approx(2.0 * 12 * one / 16, rel=1e-9)
    assert float(moved.weights) == pytest.approx(float(z3.weights) - 2.0 * 12 * one / 16, rel=1e-9)


def test_weights_in_share_the_forward_window_with_activations_out_and_add_to_them_backward():
    h = dataclasses.make_dataclass("H", [("host_link_bandwidth", float), ("host_link_efficiency", float)])
    link = h(10e9, 1.0)  # 10 GB/s each way
    # forward: activations 1 GB out, weights 0.5 GB in, opposite directions: 0.1 s; backward both in: 0.15 s
    assert float(off.layer_exposed(link, 1e9, 0.5e9, 0.04, 0.07)) == pytest.approx(0.06 + 0.08)
    assert float(off.layer_exposed(link, 1e9, 0.5e9, 0.2, 0.2)) == 0.0
    assert float(off.layer_exposed(link, 1e9, 0.0, 0.04, 0.07)) == float(off.activation_exposed(link, 1e9, 0.04, 0.07))
    assert float(off.weight_writeback(link, 2e9)) == pytest.approx(0.2)


def test_weight_offload_costs_its_copies_and_one_write_back_unless_the_cpu_steps(h100_host):
    job = Job(GPT3, 2048, 1536, "bf16", "flash")
    lay = Layout(8, 8, 16, 1, recompute=0, zero=1)
    t = {c: estimate_training(h100_host, job, dataclasses.replace(lay, offload=c)) for c in (0, 2, 4, 6)}
    one = float(layer_params(GPT3, 8, 1))
    link = 63e9 * 0.8
    # the write-back of the busiest rank's 12 layers of 16-bit weights after the step
    assert float(t[4].optimizer) == pytest.approx(float(t[0].optimizer) + 2.0 * 12 * one / link, rel=1e-6)
    assert float(t[6].optimizer) == pytest.approx(float(t[2].optimizer))  # the CPU step writes the host copy
    # a layer's 0.45 GB of weights (tp 8) take 9 ms at 50 GB/s, longer than its 1.3 ms forward at micro-batch 1
    assert float(t[4].compute) > float(t[0].compute)
    c2c = dataclasses.replace(h100_host, host_link_bandwidth=1e13)  # an unbounded link: nothing but the write-back
    fast = estimate_training(c2c, job, dataclasses.replace(lay, offload=WEIGHT_OFFLOAD))
    assert float(fast.compute) == pytest.approx(float(estimate_training(c2c, job, lay).compute))


def _job(batch: int = 512) -> Job:
    return Job.from_knobs(GPT3, 2048, batch, "bf16", resolve("nemo-2025", {}, "bf16"))


@pytest.fixture(scope="module")
def hw(accelerators):
    host = HostShare(Q_(512, "GiB"), Q_(64, "GB/s"), Q_(51.2, "GB/s"), 0.95)
    return hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8, scale_out_bandwidth=Q_(400, "Gbit/s"),
                        host=host)


def test_the_plan_search_tries_weight_offload_only_when_asked(hw):
    plain = search_plan(hw, _job(), 256, "nemo-2025", {})
    wide = search_plan(hw, _job(), 256, "nemo-2025", {}, model_only=True)
    assert not any(o.startswith("weights") for o in plain.searched["offload"])
    assert wide.searched["offload"] == ("none", "activations", "optimizer", "both", "weights", "weights+activations",
                                        "weights+optimizer", "weights+both")
    assert "weight offload, not searched (--model-only" in plan_text(plain, None)
    assert "weight offload, searched" in plan_text(wide, None)
    assert plan_dict(wide)["model_only"]["searched"] is True
    # pruned like the other offloads: tried only for layouts that fit without none, so never slower, often equal
    assert float(wide.estimate.step_time) <= float(plain.estimate.step_time)


def test_a_plan_that_takes_weight_offload_is_labelled_model_only(hw):
    # GPT-3 175B on 36 H100 under megatron-core-2024 (ZeRO 0-1, no offload of its own): the weights do not fit
    # beside the optimizer state, and the model-only search keeps them on the host
    job = Job.from_knobs(GPT3, 2048, 72, "bf16", resolve("megatron-core-2024", {}, "bf16"))
    assert search_plan(hw, job, 36, "megatron-core-2024", {}).model_only == ()
    plan = search_plan(hw, job, 36, "megatron-core-2024", {}, model_only=True)
    assert plan.best is not None and plan.best["offload"] == "weights"
    assert plan.model_only == ("weight offload",) and "offload weights" in plan.turned_on
    text = plan_text(plan, None)
    assert "MODEL-ONLY PLAN" in text and "no-op" in text
    assert plan_dict(plan)["model_only"]["taken"] == ["weight offload"]
    stated = search_plan(hw, _job(), 256, "nemo-2025", {}, {"offload": "weights"})  # stated, it is labelled too
    assert stated.best is not None and stated.model_only == ("weight offload",)


def test_a_stated_offload_is_searched_not_dropped(hw):
    # before, a plan search with the offload stated evaluated nothing: no row without offload gave its group a bound
    plan = search_plan(hw, _job(), 256, "nemo-2025", {}, {"offload": "activations"})
    assert plan.best is not None and plan.best["offload"] == "activations" and plan.evaluated > 0


#: Llama 3 8B's shape on two stages of 16 stated layers each: `pipeline_split.split` then lists a middle class with
#: no ranks (first, middle, last), which holds no parameters.
TWO_STAGES = PipelineOptions(first_stage_layers=16, last_stage_layers=16)
LLAMA8B = Arch(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256, gated=True, rope=True, qk_norm=False)


@pytest.mark.parametrize("zero", [1, 3])
def test_a_class_of_no_ranks_holds_no_weights_to_offload(h100_host, zero):
    """One layout of plain numbers divided the middle class's ZeRO-3 shard by its parameters, 0 (ZeroDivisionError);
    the layout as arrays of one reads the same bits (`fast.rank_parts` against `memory.rank_parts`)."""
    job = Job(LLAMA8B, 4096, 256, "bf16", "flash")
    lay = Layout(8, 2, 4, 1, recompute=0, zero=zero, pipeline=TWO_STAGES, offload=WEIGHT_OFFLOAD)
    plain = estimate_training(h100_host, job, lay)
    batch = estimate_training(h100_host, job, as_arrays(lay))
    assert differences(plain, batch) == []
    assert float(plain.memory.host) > 0  # the real ranks' layers are on the host


def test_a_search_over_a_split_with_no_middle_ranks_warns_nothing(h100_host):
    """The batched memory works the weight-offload share out for every class, the middle class of no ranks too: it
    divided 0 by 0 there and numpy printed 'invalid value encountered in divide' beside a plain search."""
    job = Job(LLAMA8B, 4096, 256, "bf16", "flash")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = search_training(h100_host, job, 64, {"pp": 2}, True, TWO_STAGES)
    assert res.best is not None and res.best["pp"] == 2
