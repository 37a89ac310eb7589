"""NCCL all-to-all over EFA, and the AWS dispatcher study that runs its EP dispatch over it (issue 20 part 2).

* tests/perf/data/nccl-alltoall-p5-efa.yaml: nccl-tests `alltoall_perf` on 2 to 32 p5.48xlarge nodes (its header
  gives the source). The model's all-to-all (`perf.comm.algorithms.all_to_all`) adds (n - 1) / 8 of NCCL's network
  step and of the latency the transport declares per call; aws-ofi-nccl declares 75 us on p5
  (src/platform-aws.cpp at 2daf7d303aa1, "p5/p5e").
* tests/perf/data/aws-dispatcher-efa.yaml: the same transport under Megatron-core's EP dispatch (EP16 over 2
  nodes, EP32 over 4), with the latency aws-ofi-nccl declares for each instance stated.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from archgen.perf.comm.collectives import bus_bandwidth, collective_time
from archgen.scoring.cases import case_hardware, read_case_file
from archgen.scoring.scores import score_file

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="module")
def alltoall():
    """The nccl-tests all-to-all rows on p5, scored (busbw), by id."""
    return {r.id: r for r in score_file(DATA / "nccl-alltoall-p5-efa.yaml")}


def test_alltoall_over_the_ep_spans_of_the_dispatcher_study(alltoall):
    """On 2 and 4 p5 nodes (16 and 32 ranks, the EP groups of aws-dispatcher-efa.yaml) the model's busbw at the
    declared 75 us is within -3 % to +33 % of nccl-tests' at 32 MiB to 2 GiB per rank (+32.7 % at 2 nodes and
    32 MiB, the smallest size measured; within 13 % from 64 MiB up): tolerance 35 % at 32 MiB, 15 % above."""
    for nodes in (2, 4):
        for mib in (32, 64, 128, 256, 512, 1024, 2048):
            r = alltoall[f"nccl-alltoall-{nodes}xp5-efa-{mib}mib"]
            assert abs(r.error) <= (0.35 if mib == 32 else 0.15), (r.id, r.error)


def test_the_declared_latency_is_what_brings_small_alltoalls_in(accelerators):
    """Without the 75 us (NCCL's own IB transport declares 0) the 2-node 32 MiB all-to-all comes out 81 % above the
    measured 44.79 GB/s: at the sizes the dispatcher study's micro-batch 1 sends (16 MiB per rank and all-to-all on
    the 30B rows) the latency aws-ofi-nccl declares is most of an all-to-all's time."""
    (case,) = [c for c in read_case_file(DATA / "nccl-alltoall-p5-efa.yaml").cases
               if c.id == "nccl-alltoall-2xp5-efa-32mib"]
    hw = case_hardware(case, accelerators)
    assert hw.scale_out_latency == pytest.approx(75e-6)
    size, n = float(case.collective.size.to("B").magnitude), case.system.count
    busbw = lambda h: float(bus_bandwidth("all_to_all", size, collective_time(h, "all_to_all", size, n), n))  # noqa: E731
    assert busbw(dataclasses.replace(hw, scale_out_latency=0.0)) / 44.79e9 - 1.0 > 0.75
    assert abs(busbw(hw) / 44.79e9 - 1.0) < 0.35


def test_dispatcher_study_states_the_latency_aws_ofi_nccl_declares(accelerators):
    """p5.48xlarge: 75 us ("p5/p5e"); p6-b300.48xlarge: 35 us ("p6-b300"), aws-ofi-nccl 2daf7d303aa1."""
    for case in read_case_file(DATA / "aws-dispatcher-efa.yaml").cases:
        want = 75e-6 if case.system.accelerator == "h100-sxm5-80gb" else 35e-6
        assert case_hardware(case, accelerators).scale_out_latency == pytest.approx(want), case.id


#: (case prefix, dispatcher, published mb 1 / mb 4 step time at the same work per step, the model's when written).
MICRO_BATCH = [("b300-qwen3-235b-ep32", "alltoall", 33.36 / 15.76, 1.271),
               ("b300-qwen3-235b-ep32", "deepep", 44.81 / 21.12, 1.370),
               ("h100-qwen3-30b-ep16", "alltoall", 27.89 / 8.60, 1.339),
               ("h100-qwen3-30b-ep16", "deepep", 28.69 / 9.16, 1.502),
               ("h100-qwen3-30b-ep32", "alltoall", 27.14 / 9.24, 1.447),
               ("h100-qwen3-30b-ep32", "deepep", 34.66 / 17.21, 1.617)]


@pytest.fixture(scope="module")
def dispatch_study():
    """The AWS dispatcher study's rows, scored, by id."""
    return {r.id: r for r in score_file(DATA / "aws-dispatcher-efa.yaml")}


@pytest.mark.xfail(strict=True, raises=AssertionError,
                   reason="mb 1 measured 2.0-3.2x mb 4 at the same work; the model 1.27-1.62x (a cost per MoE layer "
                          "and micro-batch of about 8 ms a forward is not modelled, docs/perf-model.md)")
@pytest.mark.parametrize("row, dispatcher, published, _model", MICRO_BATCH,
                         ids=[f"{r[0]}-{r[1]}" for r in MICRO_BATCH])
def test_micro_batch_1_against_4_at_the_same_work(dispatch_study, row, dispatcher, published, _model):
    """Global batch 256 either way: micro-batch 1 runs 4x the micro-batches of 4, each with a quarter of the tokens.
    Published: 2.12 and 2.12 (B300 EP32, all-to-all and DeepEP), 3.24 and 3.13 (H100 EP16), 2.94 and 2.01 (H100
    EP32). The model, with the declared EFA latency: 1.27-1.62. Read per layer and micro-batch (the pipeline's
    (m + p - 1) slots of its stage's layers), the pairs give a cost that does not scale with the tokens of about
    7.8 ms on B300 (selective recompute: one forward) and 15.5-17 ms on H100 (full recompute: two forwards), with
    either dispatcher: about 8 ms a forward of a MoE layer, where the model charges 0.4-0.8 ms of host time a
    forward and 0.5-1.7 ms of all-to-all latency a layer and micro-batch. Tolerance 10 %: one run per cell, re-measured within 1-4 %."""
    mb1, mb4 = (dispatch_study[f"aws-{row}-mb{m}-{dispatcher}"] for m in (1, 4))
    assert mb1.measured / mb4.measured == pytest.approx(published, rel=1e-9)
    model = mb1.predicted / mb4.predicted
    assert model == pytest.approx(published, rel=0.10), (model, published)
