"""Context parallelism's four communication types, `cp_comm_type` (archgen/perf/train/cp_comm.py; issue 20).

What each sends is read from Transformer Engine's CP attention (transformer_engine/pytorch/attention/
dot_product_attention/context_parallel.py at d0067d0): p2p passes K and V round a ring beside the attention
(`AttnFuncWithCPAndKVP2P`); allgather gathers K and V forward and again backward and reduce-scatters dK, dV, "KV
all-gather between CP ranks is exposed" (`AttnFuncWithCPAndKVAllGather`, lines 3016, 3215-3216, 3788-3789, 4122-4123);
a2a all-to-alls Q, K, V before the attention and O after, dO before the backward and dQ, dK, dV after
(`AttnFuncWithCPAndQKVOA2A`, lines 4339, 4485, 4677, 4837), and asserts the heads divisible by cp (line 4246); a2a+p2p
all-to-alls inside the first of Megatron-LM's `hierarchical_context_parallel_sizes` and runs the ring over the second
(lines 1407-1419; Megatron-LM arguments.py at d98e8a6, lines 580-585). Before, `cp_comm_type` was an unknown key.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from archgen.model.training_rules import example_hierarchy, hierarchy_problem
from archgen.perf.comm.collectives import collective_time, members_per_domain
from archgen.perf.hw.arch import Arch
from archgen.perf.train import cp_comm as CPC
from archgen.perf.train import exposure as X
from archgen.perf.train.cp_comm import cp_kv_bytes
from archgen.perf.train.job import Job
from archgen.perf.train.layer import layer_times
from archgen.perf.train.layout_rules import layout_problems
from tests.conftest import SPECS
from tests.data.workloads import training_workload

LLAMA3_8B = Arch(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14336, vocab=128256, gated=True, rope=True, qk_norm=False)
SEQ = 32768


def job(kind: str, hierarchy: tuple[int, int] | None = None) -> Job:
    return Job(LLAMA3_8B, SEQ, 16, "bf16", "flash", cp_comm_type=kind, cp_hierarchy=hierarchy)


def test_a2a_bytes_and_times_are_the_four_all_to_alls_each_way(h100):
    """cp 8 at tp 1 (one 8-GPU node): a rank holds 32,768 / 8 = 4,096 tokens; Q (and O) 4,096 x 32 heads x 128 x 2 B
    = 33.55 MB, K (and V) 4,096 x 8 x 128 x 2 B = 8.39 MB, each all-to-all sending the whole tensor."""
    q, kv = CPC._q_kv_bytes(LLAMA3_8B, SEQ, 1, 1, 8)
    assert (q, kv) == (4096 * 32 * 128 * 2, 4096 * 8 * 128 * 2) == (33_554_432, 8_388_608)
    k = members_per_domain(h100, 8, 1)
    one = 2 * collective_time(h100, "all_to_all", q, 8, k) + 2 * collective_time(h100, "all_to_all", kv, 8, k)
    assert CPC.exposed_times(h100, job("a2a"), 8, 1, 1) == pytest.approx((one, one), rel=1e-12)


def test_allgather_gathers_k_and_v_twice_and_scatters_their_gradients(h100):
    """K and V of the whole sequence: 2 x 32,768 x 8 x 128 x 2 B = 134 MB, gathered as two 67 MB buffers."""
    kv = cp_kv_bytes(LLAMA3_8B, SEQ, 1, 1)
    assert kv == 2 * SEQ * 8 * 128 * 2 == 134_217_728
    ag = collective_time(h100, "all_gather", kv / 2, 8, 8)
    rs = collective_time(h100, "reduce_scatter", kv / 2, 8, 8)
    assert CPC.exposed_times(h100, job("allgather"), 8, 1, 1) == pytest.approx((2 * ag, 2 * ag + 2 * rs), rel=1e-12)


@pytest.mark.parametrize(("kind", "rc"), [("allgather", 0), ("a2a", 0), ("allgather", 1), ("a2a", 2)])
def test_the_types_without_a_ring_are_exposed_whole(h100, kind, rc):
    """Neither overlaps the attention (Megatron-core transformer_config.py at d98e8a6, line 1037: "The all-gather is
    not async, and cannot be overlapped"): the layer's CP time is all of it, the forward again where recomputed."""
    fwd, bwd = CPC.exposed_times(h100, job(kind), 8, 1, 1)
    lt = layer_times(h100, job(kind), tp=1, mb=1, cp=8, ep=1, rc=rc, sp=False)
    assert lt.cp == pytest.approx((1 + X.CP_RECOMPUTED[rc]) * fwd + bwd, rel=1e-12)


def test_p2p_is_the_ring_as_before(h100):
    """The default type keeps the ring's numbers exactly (`exposure.cp_exposed`, nu53fix)."""
    lt = layer_times(h100, job("p2p"), tp=1, mb=1, cp=16, ep=1, rc=0, sp=False)
    assert lt.cp == X.cp_exposed(h100, cp_kv_bytes(LLAMA3_8B, SEQ, 1, 1), 16, 1, lt.attention, lt.hbm, 0)
    assert CPC.exposed_times(h100, job("p2p"), 16, 1, 1) == (0.0, 0.0)


def test_a2a_plus_p2p_rings_a_share_of_the_heads_over_the_second_group(h100):
    """cp 16 = [2, 8] on 8-GPU nodes: all-to-alls inside pairs of neighbours (NVLink), then a ring of 8 ranks two
    apart, 4 of them a node (`members_per_domain`), its hops on one NIC, passing half the heads' K and V."""
    j = job("a2a+p2p", (2, 8))
    q, kv = CPC._q_kv_bytes(LLAMA3_8B, SEQ, 1, 1, 16)
    one = 2 * collective_time(h100, "all_to_all", q, 2, 2) + 2 * collective_time(h100, "all_to_all", kv, 2, 2)
    assert CPC.exposed_times(h100, j, 16, 1, 1) == pytest.approx((one, one), rel=1e-12)
    assert CPC.ring(j, 16, 1, 1) == (cp_kv_bytes(LLAMA3_8B, SEQ, 1, 1) / 2, 8, 2)
    assert members_per_domain(h100, 8, 2) == 4
    ring, rest = CPC.cp_exchange(h100, j, 16, 1, 1)
    assert ring == X.cp_exchange(h100, cp_kv_bytes(LLAMA3_8B, SEQ, 1, 1) / 2, 8, 2)
    assert rest == pytest.approx(2 * one, rel=1e-12)


@pytest.mark.parametrize(("kind", "tp", "cp", "hier", "needle"), [
    ("a2a", 1, 16, None, "its 16 all-to-all ranks, and at tp 1 a rank holds 32 query and 8 KV heads"),
    ("a2a", 1, 16, None, "cp_comm_type a2a+p2p with hierarchical_context_parallel_sizes [8, 2], or"),
    ("a2a", 2, 8, None, "at tp 2 a rank holds 16 query and 4 KV heads"),
    ("a2a+p2p", 1, 16, None, "cp_comm_type a2a+p2p at cp 16 needs hierarchical_context_parallel_sizes [a2a, p2p]"),
    ("a2a+p2p", 1, 16, (2, 2), "hierarchical_context_parallel_sizes [2, 2] multiply to 4, and cp is 16"),
    ("a2a+p2p", 1, 16, (16, 1), "its 16 all-to-all ranks"),
    ("a2a", 1, 8, None, None), ("a2a+p2p", 1, 16, (8, 2), None), ("allgather", 8, 16, None, None),
])
def test_the_heads_and_the_hierarchy_a_type_needs(kind, tp, cp, hier, needle):
    """Transformer Engine asserts the Q and KV heads of a rank divisible by the all-to-all group (line 4246): Llama 3
    8B's 8 KV heads take a2a up to cp 8 at tp 1 (Megatron-Bridge docs/training/hierarchical-context-parallel.md:
    "If the model has 8 KV heads, pure a2a supports at most CP=8"), and a2a+p2p with an a2a group of 8."""
    j = Job(LLAMA3_8B, SEQ, 16 * tp * cp, "bf16", "flash", cp_comm_type=kind, cp_hierarchy=hier)
    problems = [str(p) for p in layout_problems(LLAMA3_8B, j, tp * cp, tp=tp, pp=1, dp=1, cp=cp)]
    assert (needle is None and not problems) or any(needle in p for p in problems), problems


def estimate(cli, tmp_path, parallelism: str, **training: object):
    (tmp_path / "w.yaml").write_text(training_workload(
        "w", "llama3-8b", 64, parallelism, seq_len=131072, global_batch=16, precision="bf16", **training),
        encoding="utf-8")
    return cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--format", "json")


@pytest.mark.parametrize(("training", "parallelism", "needle"), [
    ({"cp_comm_type": "a2a+p2p"}, "{tp: 1, pp: 1, dp: 8, cp: 8, micro_batch: 1}",
     "cp_comm_type a2a+p2p at cp 8 needs hierarchical_context_parallel_sizes [a2a, p2p]"),
    ({"cp_comm_type": "a2a+p2p"}, "{tp: 1, pp: 1, dp: 8, cp: 8, micro_batch: 1, "
                                  "hierarchical_context_parallel_sizes: [2, 2]}", "multiply to 4, and cp is 8"),
    ({}, "{tp: 1, pp: 1, dp: 8, cp: 8, micro_batch: 1, hierarchical_context_parallel_sizes: [2, 4]}",
     "is used only by cp_comm_type a2a+p2p"),
])
def test_a_stated_hierarchy_that_does_not_fit_is_an_error_at_its_key(cli, tmp_path, training, parallelism, needle):
    r = estimate(cli, tmp_path, parallelism, **training)
    assert r.code == 1
    assert "w.yaml:" in r.out + r.err and needle in r.out + r.err


def test_a_workload_states_each_type_and_the_note_names_it(cli, tmp_path):
    """The same layout under each type: each estimates, and its note names what it timed."""
    lay = "{tp: 1, pp: 1, dp: 8, cp: 8, micro_batch: 1"
    for kind, extra, words in (("p2p", "", "K and V passed around the ring"),
                               ("allgather", "", "K and V all-gathered before the attention"),
                               ("a2a", "", "all-to-alls of Q, K, V"),
                               ("a2a+p2p", ", hierarchical_context_parallel_sizes: [2, 4]", "all-to-alls of Q, K, V")):
        r = estimate(cli, tmp_path, lay + extra + "}", cp_comm_type=kind)
        assert r.code == 0, r.out + r.err
        note = next(n for n in json.loads(r.out)["notes"] if n.startswith("context parallelism cp 8: "))
        assert f"timed as cp_comm_type {kind}" in note and words in note


@pytest.mark.parametrize(("kind", "hier"), [("p2p", None), ("allgather", None), ("a2a", None), ("a2a+p2p", (2, 4))])
def test_arrays_of_layouts_give_what_one_layout_does(h100, kind, hier):
    """The sweeps' and searches' path (`perf.explore.vectorised`) broadcasts cp, tp and recompute as arrays."""
    j = job(kind, hier)
    cps, tps, rcs = (np.array([8, 8, 1]), np.array([1, 1, 2]), np.array([0, 1, 0]))
    both = layer_times(h100, j, tp=tps, mb=1, cp=cps, ep=1, rc=rcs, sp=False)
    one = [layer_times(h100, j, tp=int(t), mb=1, cp=int(c), ep=1, rc=int(r), sp=False).cp
           for c, t, r in zip(cps, tps, rcs, strict=True)]
    assert both.cp == pytest.approx(one, rel=1e-12)


def test_transformer_engines_spelling_all_gather_is_the_allgather_type(cli, tmp_path):
    """Transformer Engine runs the type as "all_gather" (context_parallel.py at d0067d0, line 5110) and Megatron-core's
    TransformerConfig lists that name (transformer_config.py at d98e8a6, line 1034): a workload written with it
    estimates as allgather, the same step time, where before it was refused as not one of the four."""
    lay = "{tp: 1, pp: 1, dp: 8, cp: 8, micro_batch: 1}"
    both = [estimate(cli, tmp_path, lay, cp_comm_type=kind) for kind in ("allgather", "all_gather")]
    assert all(r.code == 0 for r in both), [r.out + r.err for r in both]
    steps = [json.loads(r.out)["metrics"]["step_time"] for r in both]
    assert steps[0] == steps[1]
    note = next(n for n in json.loads(both[1].out)["notes"] if n.startswith("context parallelism cp 8: "))
    assert "timed as cp_comm_type allgather" in note


@pytest.mark.parametrize("cp", [2, 3, 8, 9, 16])
def test_the_example_sizes_multiply_to_cp(cp):
    """The error's example [a2a, p2p] is one the product rule accepts (review30: at an odd cp it was [2, cp])."""
    problem = hierarchy_problem("a2a+p2p", cp, None)
    a2a, p2p = example_hierarchy(cp)
    assert a2a * p2p == cp and hierarchy_problem("a2a+p2p", cp, (a2a, p2p)) is None
    assert problem is not None and problem.endswith(f"expected e.g. [{a2a}, {p2p}]"), problem
