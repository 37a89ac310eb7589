"""A group's members in one scale-up domain, as Megatron-core's rank order places them (perf/comm/placement.py).

newuser17's finding 1: DeepSeek-V3 at tp 1, pp 9, ep 64 on the GB200 SuperPOD (576 GPUs, NVL72 domains) timed every
EP group inside one NVLink domain (min(72, 64) = 64 members). Megatron-core puts stage s on ranks 64s..64s+63, so 8
of 9 stages' EP groups straddle two racks, the smallest piece gcd(64, 72) = 8 ranks, and 56/64 of a rank's
all-to-all leaves its rack over InfiniBand.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from archgen.model.cases import CaseScaleUp
from archgen.perf.comm.placement import members_per_domain
from archgen.scoring.cases import case_hardware, read_cases
from archgen.scoring.catalog import load_accelerators
from tests.conftest import SPECS

DATA = Path(__file__).parent / "data"

WORKLOAD = """\
kind: Workload
id: moe-ep-gb200
model: deepseek-v3
cluster: gb200-nvl72-su
accelerators: 576
training:
  seq_len: 4096
  global_batch: 1152
  precision: bf16
  parallelism: {tp: 1, pp: 9, ep: 64}
"""


class _Domain:
    """The two fields `members_per_domain` reads."""

    def __init__(self, size: int, job_domain: int = 0):
        self.scale_up_size, self.job_domain = size, job_domain


def _enumerated(domain: int, n: int, stride: int) -> int:
    """The smallest piece of any group in any domain, ranks laid out in order over lcm(domain, span) ranks."""
    span = n * stride
    ranks = math.lcm(domain, span)
    smallest = n
    for block in range(0, ranks, span):
        for first in range(stride):
            members = [block + first + i * stride for i in range(n)]
            pieces: dict[int, int] = {}
            for r in members:
                pieces[r // domain] = pieces.get(r // domain, 0) + 1
            smallest = min(smallest, *pieces.values())
    return smallest


@pytest.mark.parametrize(("domain", "n", "stride", "want"), [
    (72, 64, 1, 8),    # the finding: EP 64 on NVL72, stage blocks of 64 cut at 8, 16, ..., 56
    (72, 2, 8, 1),     # CP 2 over TP 8: blocks of 16 ranks, the one at 64..79 split 1 | 1
    (72, 8, 1, 8),     # TP 8 divides the domain: whole
    (72, 36, 2, 36),   # span 72 = the domain
    (72, 16, 8, 1),    # DP 16 over TP 8: span 128, gcd 8; the block at 384..511 is cut at 504: one member after
    (8, 64, 1, 8),     # HGX: the group spans whole domains, 8 in each (the aligned rule)
    (72, 6, 16, 1),    # stride 16 does not divide 72: a block of 96 cut at 72 leaves one member of some group
    (4, 3, 8, 1),      # stride above the domain: one each
])
def test_members_per_domain_by_hand(domain, n, stride, want):
    assert _enumerated(domain, n, stride) == want          # the hand count, by enumeration
    hw = _Domain(domain)
    assert members_per_domain(hw, n, stride) == want
    batched = members_per_domain(hw, np.array([float(n), 1.0]), np.array([float(stride), 1.0]))
    assert batched.tolist() == [float(want), 1.0]            # the batched search path agrees


def test_every_small_layout_matches_the_enumeration():
    for domain in (4, 8, 16, 72):
        for n in range(1, 17):
            for stride in (1, 2, 3, 4, 8, 16):
                assert members_per_domain(_Domain(domain), n, stride) == _enumerated(domain, n, stride), \
                    (domain, n, stride)


def test_gb200_ep64_straddles_racks(cli, tmp_path):
    """The finding's input: EP traffic crosses InfiniBand (was 0.383 s, all on NVLink)."""
    (tmp_path / "w.yaml").write_text(WORKLOAD, encoding="utf-8")
    r = cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "moe-ep-gb200", "--format", "json")
    assert r.code == 0, r.err
    out = json.loads(r.out)
    assert (out["layout"]["pp"], out["layout"]["ep"]) == (9, 64)
    # 56 of 64 slices of each rank's all-to-all leave the rack on a 400G NIC, not 900 GB/s NVLink: 0.383 s before
    assert out["breakdown"]["ep_comm"]["value"] > 2.0, out["breakdown"]["ep_comm"]


def test_a_job_that_holds_part_of_each_domain():
    """`job_domain`: the job's share of a domain (a smaller job, or a Slurm segment) is the domain its ranks fill."""
    assert members_per_domain(_Domain(72), 32, 1) == 8          # 256 GPUs over whole NVL72s: EP 32 cut at 8
    assert members_per_domain(_Domain(72, 64), 32, 1) == 32     # segments of 16 trays: 64 of each 72, aligned
    assert members_per_domain(_Domain(72, 32), 32, 1) == 32     # a 32-GPU job inside one NVL72


def test_a_case_states_its_segment():
    """A case's `scale_up.job_domain` reaches the hardware; a job smaller than a domain fills its own share of it."""
    cases = {c.id: c for c in read_cases(DATA / "nemo-25.11-moe.yaml")[0]}
    accelerators = load_accelerators()
    assert case_hardware(cases["nemo-gb200-qwen3-235b-bf16"], accelerators).job_domain == 64   # stated: segment 16
    assert case_hardware(cases["nemo-gb200-qwen3-30b-fp8"], accelerators).job_domain == 8      # 8 GPUs of an NVL72
    assert case_hardware(cases["nemo-b200-qwen3-235b-fp8"], accelerators).job_domain == 0      # whole HGX nodes


def test_job_domain_above_the_domain_is_refused():
    with pytest.raises(Exception, match="job_domain 80 exceeds the domain of 72"):
        CaseScaleUp.model_validate({"domain": 72, "job_domain": 80, "bandwidth": "900 GB/s"})
