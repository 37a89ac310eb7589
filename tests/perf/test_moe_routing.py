"""A serving pass's MoE time is its busiest EP rank's, not the mean rank's (issue 20, moeserve).

`perf.serve.routing` takes the busiest rank's routed load under uniform random routing: mean N·top_k/ep plus
√(ep/(ep - 1))·e(ep) standard deviations of the rank's count (the hypergeometric variance summed over N tokens; the
counts sum to N·top_k), e(n) the expected maximum of n standard normals. The tests check e(n) against its closed
forms, the load against the formula written out and against the exact normal answer at ep 2, that it is the
simulated expected maximum of uniform routing (below it at small N·top_k, where the counts are skewed), that a stated imbalance multiplies the mean
as TensorRT-LLM's ratio (max - mean)/mean defines it, that dense models and ep 1 do not move, and that an estimate
says the band from balanced routing to TensorRT-LLM's measured DeepSeek-R1 imbalance (blog4, Table 1: 1.564), in
its notes and, beside each throughput metric's error band, in JSON `bands` and the band's words (hops2).
"""

from __future__ import annotations

import json
import math
from dataclasses import replace

import numpy as np
import pytest

from archgen.perf.serve import inference as I
from archgen.perf.serve import routing as R
from archgen.scoring.cases import case_hardware, read_case_file, serve_job
from tests.conftest import SPECS
from tests.perf.test_capacity_band import HELD


def test_the_expected_maximum_of_normals_matches_its_closed_forms():
    assert R.expected_max_normal(1) == 0.0
    assert R.expected_max_normal(2) == pytest.approx(1.0 / math.sqrt(math.pi), abs=1e-9)
    assert R.expected_max_normal(3) == pytest.approx(1.5 / math.sqrt(math.pi), abs=1e-9)
    # tabulated: 1.42360 for 8 (Harter, "Expected values of normal order statistics", Biometrika 48, 1961)
    assert R.expected_max_normal(8) == pytest.approx(1.42360, abs=1e-5)


def test_the_busiest_rank_load_is_the_formula():
    n, k, e, ep = 256, 8, 256, 8      # DeepSeek-R1's routing, 256 tokens over EP 8
    mean = n * k / ep
    sd = math.sqrt(n * k * (1 / ep) * (1 - 1 / ep) * (e - k) / (e - 1))
    excess = R.expected_max_normal(ep) * sd * math.sqrt(ep / (ep - 1))
    assert float(R.busiest_rank_load(n, k, e, ep)) == pytest.approx(mean + excess, rel=1e-12)
    assert float(R.busiest_rank_load(n, k, e, ep)) == pytest.approx(278.46, abs=0.01)
    assert float(R.busiest_rank_load(n, k, e, 1)) == n * k        # one rank holds every expert
    # a stated ratio (max - mean)/mean: TensorRT-LLM's 1.564 gives 2.564 x the mean
    assert float(R.busiest_rank_load(n, k, e, ep, R.TRTLLM_R1_IMBALANCE)) == pytest.approx(mean * 2.564)
    # never more than every token's copies that can land on one rank: 8 of 8 experts a rank at EP 32
    assert float(R.busiest_rank_load(1, k, e, 32, 40.0)) == k
    assert float(R.busiest_rank_load(1, 2, 8, 8, 40.0)) == 1.0


def test_at_two_ranks_the_excess_is_the_mean_absolute_deviation_of_one_rank():
    """At ep 2 the busiest rank's excess over the mean is |X - mean| for one rank's count X (the other holds the rest):
    σ·√(2/π) for a normal X, √2 times what taking the two ranks as independent normals (σ·e(2) = σ/√π) gives."""
    n, k, e = 1024, 8, 256
    sd = math.sqrt(n * k * 0.25 * (e - k) / (e - 1))
    assert float(R.busiest_rank_load(n, k, e, 2)) == pytest.approx(n * k / 2 + sd * math.sqrt(2 / math.pi), rel=1e-9)


@pytest.mark.parametrize(("n", "k", "e", "ep", "low", "high"), [
    (1, 8, 256, 8, 0.88, 0.96), (16, 8, 256, 8, 0.98, 1.005), (256, 8, 256, 8, 0.99, 1.005),
    (16, 8, 256, 2, 0.99, 1.01), (128, 8, 256, 32, 0.97, 1.005), (8, 2, 8, 8, 0.93, 1.0), (64, 2, 8, 4, 0.98, 1.01)])
def test_it_is_the_simulated_busiest_rank_of_uniform_routing(n, k, e, ep, low, high):
    """Seeded uniform top-k routing (400 trials): the formula over the simulated mean busiest rank lies in [low, high]:
    within 1.5 % from 16 tokens on, below it at one token or 8 copies (skewed counts). Taking the ranks as
    independent (moeserve's first form) gave 0.978 at 16 tokens on EP 8 and 0.981 at 16 on EP 2, outside these."""
    rng = np.random.default_rng(20)
    trials = 400
    picks = np.argsort(rng.random((trials, n, e)), axis=2)[:, :, :k] // (e // ep)
    busiest = np.mean([np.bincount(t.ravel(), minlength=ep).max() for t in picks])
    load = float(R.busiest_rank_load(n, k, e, ep))
    assert n * k / ep < load and low <= load / busiest <= high


@pytest.fixture(scope="module")
def held_job(accelerators):
    case = read_case_file(HELD).cases[0]   # DeepSeek-R1-0528 FP4 on 8 B200, tp 8 / ep 8, attention DP
    return case_hardware(case, accelerators), serve_job(case)


def test_the_decode_step_is_slower_than_balanced_and_faster_than_the_measured_skew(held_job):
    hw, job = held_job
    step = {r: float(I.estimate_inference(hw, replace(job, imbalance=r), 8, 7168).decode_step)
            for r in (0.0, None, R.TRTLLM_R1_IMBALANCE)}
    assert step[0.0] < step[None] < step[R.TRTLLM_R1_IMBALANCE]


def test_dense_models_and_ep_1_do_not_move(held_job, accelerators):
    hw, job = held_job
    one = replace(job, ep=1, attention_dp=False)
    assert float(I.estimate_inference(hw, one, 8, 64).decode_step) == float(
        I.estimate_inference(hw, replace(one, imbalance=0.0), 8, 64).decode_step)
    dense = replace(one, arch=replace(job.arch, experts=0, top_k=0, shared_experts=0, expert_ffn=0))
    assert float(I.estimate_inference(hw, dense, 8, 64).decode_step) == float(
        I.estimate_inference(hw, replace(dense, imbalance=R.TRTLLM_R1_IMBALANCE), 8, 64).decode_step)


def test_the_estimate_states_the_band_from_balanced_to_the_measured_imbalance(cli, tmp_path):
    (tmp_path / "w.yaml").write_text(
        "kind: Workload\nid: w\nname: w\nmodel: deepseek-v3\ncluster: dgx-b200-superpod\naccelerators: 8\n"
        "inference: {precision: fp4, kv_precision: fp8, quantised_attention: none, tp: 8, ep: 8, attention_dp: true,"
        " max_num_tokens: 2048, input_len: 804, output_len: 2048}\n", encoding="utf-8")
    # (a prompt of the MoE runs' 804 tokens: at 1,024 it is past their margin and has no band to stand beside,
    # margin43)
    r = cli("estimate", str(SPECS), str(tmp_path), "--workload", "w", "--format", "json")
    assert r.code == 0, r.err
    out = json.loads(r.out)
    note = next(n for n in out["notes"] if n.startswith("MoE routing: "))
    assert "busiest of the 8 EP ranks under uniform random routing" in note
    assert "Perfectly balanced routing gives" in note
    assert "2.564 times the mean on DeepSeek-R1 with EP 32" in note and "Table 1" in note
    # the catalog model states DeepSeek-V3's node-limited routing (n_group 8, topk_group 4), which serving does not
    # model: the note says so rather than read the key and drop it (review52)
    assert "group-limited routing (4 of 8 expert groups a token) is not in that point" in note
    # the same range in JSON `bands` (hops2): each throughput metric's at the note's two ends, in its own units
    balanced = float(note.split("Perfectly balanced routing gives ")[1].split(" tokens/s")[0].replace(",", ""))
    skewed = float(note.split("at that imbalance, ")[1].split(" tokens/s")[0].replace(",", ""))
    per_gpu = out["metrics"]["tokens_per_second_per_gpu"]["value"]
    for name in ("tokens_per_second", "tokens_per_second_per_gpu"):
        value, routing = out["metrics"][name]["value"], out["bands"][name]["routing"]
        assert routing["high"]["value"] == pytest.approx(value * balanced / per_gpu, abs=0.5 * value / per_gpu)
        assert routing["low"]["value"] == pytest.approx(value * skewed / per_gpu, abs=0.5 * value / per_gpu)
        assert routing["low"]["value"] < value < routing["high"]["value"]
        assert out["bands"][name]["low"] is not None   # the band's own ends are unchanged beside it
    assert out["bands"]["tpot"]["routing"] is None   # a time of another quantity takes none


def test_a_band_carries_the_routing_range_beside_its_ends():
    """The routing span (tokens/s per accelerator at the measured skew, the point, balanced) goes to each metric
    stating its quantity as factors of the estimate, not into the band's ends; with no published skew for the model's
    routing (0: not bounded) only the balanced end."""
    from archgen.perf.workload.bands import band

    span = ("tokens_per_second_per_gpu", 10_000.0, 6_500.0, 10_100.0)
    plain = band("moe-offline-serving", "tokens_per_second", accelerator="b200-sxm-180gb")
    routed = band("moe-offline-serving", "tokens_per_second", accelerator="b200-sxm-180gb", routing=span)
    assert plain is not None and routed is not None
    assert routed.values(80_000.0) == plain.values(80_000.0)
    assert routed.routing_values(80_000.0) == pytest.approx((52_000.0, 80_800.0))
    # the span in tokens/s, each figure with its thousands separated (newuser93: '6500 1/s to 10,100 1/s')
    assert "; routing: the tokens/s per accelerator (6,500 tokens/s to 10,100 tokens/s around 10,000 tokens/s), from " \
           "the published routing skew to perfectly balanced routing" in routed.describe()
    open_end = band("moe-offline-serving", "tokens_per_second", routing=(span[0], 10_000.0, 0.0, 10_100.0))
    assert open_end is not None and open_end.routing_values(80_000.0) == pytest.approx((None, 80_800.0))
    assert "(not bounded below, 10,100 tokens/s balanced, around 10,000 tokens/s), up to perfectly balanced" in \
        open_end.describe()
