"""A serving pass's MoE time is its busiest EP rank's, not the mean rank's (issue 20, moeserve).

`perf.serve.routing` takes the busiest rank's routed load under uniform random routing: mean N·top_k/ep plus
e(ep) standard deviations of the rank's count (the hypergeometric variance summed over N tokens), e(n) the expected
maximum of n standard normals. The tests check e(n) against its closed forms, the load against the formula written
out, that it is a floor under a seeded simulation of uniform routing, that a stated imbalance multiplies the mean
as TensorRT-LLM's ratio (max - mean)/mean defines it, that dense models and ep 1 do not move, and that an estimate
says the band from balanced routing to TensorRT-LLM's measured DeepSeek-R1 imbalance (blog4, Table 1: 1.564).
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
    assert float(R.busiest_rank_load(n, k, e, ep)) == pytest.approx(mean + R.expected_max_normal(ep) * sd, rel=1e-12)
    assert float(R.busiest_rank_load(n, k, e, ep)) == pytest.approx(277.01, abs=0.01)
    assert float(R.busiest_rank_load(n, k, e, 1)) == n * k        # one rank holds every expert
    # a stated ratio (max - mean)/mean: TensorRT-LLM's 1.564 gives 2.564 x the mean
    assert float(R.busiest_rank_load(n, k, e, ep, R.TRTLLM_R1_IMBALANCE)) == pytest.approx(mean * 2.564)
    # never more than every token's copies that can land on one rank: 8 of 8 experts a rank at EP 32
    assert float(R.busiest_rank_load(1, k, e, 32, 40.0)) == k
    assert float(R.busiest_rank_load(1, 2, 8, 8, 40.0)) == 1.0


@pytest.mark.parametrize(("n", "k", "e", "ep"), [(1, 8, 256, 8), (16, 8, 256, 8), (256, 8, 256, 8),
                                                 (128, 8, 256, 32), (8, 2, 8, 8), (64, 2, 8, 4)])
def test_it_is_a_floor_under_simulated_uniform_routing(n, k, e, ep):
    """Seeded uniform top-k routing: the formula lies below the simulated mean busiest rank, within 10 %."""
    rng = np.random.default_rng(20)
    trials = 400
    picks = np.argsort(rng.random((trials, n, e)), axis=2)[:, :, :k] // (e // ep)
    busiest = np.mean([np.bincount(t.ravel(), minlength=ep).max() for t in picks])
    floor = float(R.busiest_rank_load(n, k, e, ep))
    assert n * k / ep < floor <= busiest * 1.01 and floor >= 0.9 * busiest


@pytest.fixture(scope="module")
def held_job(accelerators):
    case = read_case_file(HELD).cases[0]   # DeepSeek-R1-0528 FP4 on 8 B200, tp 8 / ep 8, attention DP
    return case_hardware(case, accelerators), serve_job(case)


def test_the_decode_step_is_slower_than_balanced_and_faster_than_the_measured_skew(held_job):
    hw, job = held_job
    step = {r: float(I.estimate_inference(hw, replace(job, imbalance=r), 8, 7168).tpot)
            for r in (0.0, None, R.TRTLLM_R1_IMBALANCE)}
    assert step[0.0] < step[None] < step[R.TRTLLM_R1_IMBALANCE]


def test_dense_models_and_ep_1_do_not_move(held_job, accelerators):
    hw, job = held_job
    one = replace(job, ep=1, attention_dp=False)
    assert float(I.estimate_inference(hw, one, 8, 64).tpot) == float(
        I.estimate_inference(hw, replace(one, imbalance=0.0), 8, 64).tpot)
    dense = replace(one, arch=replace(job.arch, experts=0, top_k=0, shared_experts=0, expert_ffn=0))
    assert float(I.estimate_inference(hw, dense, 8, 64).tpot) == float(
        I.estimate_inference(hw, replace(dense, imbalance=R.TRTLLM_R1_IMBALANCE), 8, 64).tpot)


def test_the_estimate_states_the_band_from_balanced_to_the_measured_imbalance(cli, tmp_path):
    (tmp_path / "w.yaml").write_text(
        "kind: Workload\nid: w\nname: w\nmodel: deepseek-v3\ncluster: dgx-b200-superpod\naccelerators: 8\n"
        "inference: {precision: fp4, kv_precision: fp8, quantised_attention: none, tp: 8, ep: 8, attention_dp: true,"
        " max_num_tokens: 2048, input_len: 1024, output_len: 2048}\n", encoding="utf-8")
    r = cli("estimate", str(SPECS), str(tmp_path), "--workload", "w", "--format", "json")
    assert r.code == 0, r.err
    note = next(n for n in json.loads(r.out)["notes"] if n.startswith("MoE routing: "))
    assert "busiest of the 8 EP ranks under uniform random routing" in note
    assert "Perfectly balanced routing gives" in note
    assert "2.564 times the mean on DeepSeek-R1 with EP 32" in note and "Table 1" in note
