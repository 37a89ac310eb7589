"""A serving replica lies inside one scale-up domain: its TP/EP collectives never depend on the job's spare accelerators.

newuser28's finding 1: `inference._forward` placed a replica's ranks as a training job's rank order tiles them
(`members_per_domain`, gcd of the job's share of a domain and tp), and a job smaller than one domain takes its
accelerator count as the domain. Llama 3.3 70B FP8 at tp 8 on gb200-nvl72-su read TPOT 16.23 ms on 72 accelerators
and 47.27 ms on 70 (gcd(70, 8) = 2 of the replica's 8 ranks "in one domain", the rest over InfiniBand), although
all 70 lie in one NVL72 rack (docs/perf-model.md, Inference: "A replica is `tp` accelerators inside one scale-up
domain").
"""

from __future__ import annotations

import pytest

from archgen.perf.comm.placement import replica_members, replicas_inside
from archgen.pipeline import run
from tests.conftest import SPECS

JOB = ("kind: Workload\nid: w\nname: w\nmodel: {model}\ncluster: gb200-nvl72-su\naccelerators: {n}\n{placement}"
       "inference: {{precision: fp8, input_len: 2048, output_len: 128, {extra}}}\n")
LLAMA = "tp: 8, batch: 512, replicas: 1"


def _result(spec_tree, n: int, extra: str = LLAMA, model: str = "llama3-70b", placement: str = ""):
    root = spec_tree({"w.yaml": JOB.format(model=model, n=n, extra=extra, placement=placement)})
    return run([root, SPECS / "clusters", SPECS / "racks"]).workloads["workload/w"]


def test_the_same_replica_gives_the_same_latencies_on_64_70_and_72_accelerators(spec_tree):
    got = {n: _result(spec_tree, n).estimate.metrics for n in (64, 70, 72)}
    for n in (64, 70):
        assert got[n]["tpot"].m == pytest.approx(got[72]["tpot"].m, rel=1e-12)
        assert got[n]["ttft"].m == pytest.approx(got[72]["ttft"].m, rel=1e-12)


def test_an_attention_dp_replica_of_64_does_not_leave_its_rack_on_72(spec_tree):
    """DeepSeek-V3 FP4, tp = ep = 64 with attention DP: 535 ms a step on 72 accelerators in the trial, 116 on 64."""
    ds = "tp: 64, ep: 64, attention_dp: true, batch: 8192, replicas: 1"
    tpot = {n: _result(spec_tree, n, ds, "deepseek-v3").estimate.metrics["tpot"].m for n in (64, 72)}
    assert tpot[72] == pytest.approx(tpot[64], rel=1e-12)


class _Domain:
    def __init__(self, size: int, job_domain: int = 0):
        self.scale_up_size, self.job_domain = size, job_domain


def test_a_replica_has_all_its_ranks_in_one_domain():
    assert replica_members(_Domain(72, 70), 8) == 8  # gcd(70, 8) = 2 before
    assert replica_members(_Domain(72), 64) == 64  # gcd(72, 64) = 8 before
    assert replica_members(_Domain(72, 64), 64) == 64


def test_replicas_inside_domains_never_straddle_two():
    """Each domain of 72 holds 72 // 16 = 4 replicas of 16; 144 accelerators hold 8, not 144 // 16 = 9."""
    assert replicas_inside(_Domain(72), 144, 16) == 8
    assert replicas_inside(_Domain(72, 64), 128, 16) == 8
    assert replicas_inside(_Domain(72, 70), 70, 8) == 8


def test_a_stated_replica_count_that_straddles_domains_is_refused(spec_tree):
    result = _result(spec_tree, 144, "tp: 16, replicas: 9")
    assert result.estimate is None
    assert "9 replicas of tp 16 do not fit inside the scale-up domains" in result.error


def test_a_tp_above_the_jobs_share_of_a_domain_is_refused(spec_tree):
    result = _result(spec_tree, 64, "tp: 64, replicas: 1", placement="placement: {per_domain: 32}\n")
    assert result.estimate is None
    assert "tp (64) exceeds the 32 accelerators the job holds in each scale-up domain of 72" in result.error
