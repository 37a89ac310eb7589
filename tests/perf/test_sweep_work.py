"""A dense training sweep's batched search does the work it did before the MoE ep search (issue 25, sweepslow).

layout28 (81fff017) made the layout search vary an MoE model's ep (`layouts.expert_layouts`; etp39 its etp too), and lay28fix the
stack's pipeline placements judge every split (`refused.runs_split`). Neither may add work to a dense model's
sweep: the bench's 10^5-point Llama 3.1 70B sweep (bench/bench_sweep.py) enumerated 24,882 layouts over its 6 layout
sets and timed 203,729 (point, layout) pairs in full, at 866f3bc2 and after both (counted, not timed: wall-clock runs
on the shared machine moved its points per baseline op from 696.7 to 426.8 with no work added). These tests count
the work, so that a search that grows for a dense model fails here rather than in a noisy benchmark.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from archgen.perf.explore import vectorised, vectorised_sets
from archgen.perf.hw.arch import Arch
from archgen.perf.train.layouts import KEYS, expert_layouts
from tests.conftest import sweep_problem_written

#: The bench's training sweep (bench/bench_sweep.py `TRAIN`) at one level of each factor: its 6 layout sets.
SETS = """kind: Sweep
id: dense-sets
workload: llama3-70b-pretrain-b200
axes:
  accelerators: [128, 256, 512]
  precision: [bf16, fp8]
  hbm_bandwidth: [1]
objectives: [{metric: tokens_per_second}, {metric: energy_per_token}]
"""


def test_a_dense_sweep_enumerates_only_ep_1_and_no_more_layouts_than_ep_1_gives(tmp_path: Path, monkeypatch):
    problem = sweep_problem_written(tmp_path, SETS)
    assert problem.model is not None and not Arch.from_model(problem.model).experts  # Llama 3.1 70B is dense
    seen: list[tuple[tuple, dict, dict[str, np.ndarray]]] = []
    enumerate_all = vectorised_sets.enumerate_layouts

    def recorded(arch, job, gpus, hw, fixed=None, pipeline=None, zeros=None, search_etp=False):
        lay = enumerate_all(arch, job, gpus, hw, fixed, pipeline, zeros, search_etp)
        seen.append(((arch, job, gpus, hw, pipeline, zeros), dict(fixed or {}), lay))
        return lay

    monkeypatch.setattr(vectorised_sets, "enumerate_layouts", recorded)
    rows = vectorised.evaluate(problem, 0, problem.size)
    assert [r.status for r in rows] == ["ok"] * 6 and len(seen) == 6   # one enumeration per layout set
    for (arch, job, gpus, hw, pipeline, zeros), fixed, lay in seen:
        assert len(lay["tp"]) and set(lay["ep"].tolist()) == {1.0} and np.array_equal(lay["etp"], lay["tp"]), gpus
        held = enumerate_all(arch, job, gpus, hw, fixed | {"ep": 1}, pipeline, zeros)   # ep held, as before layout28
        assert all(np.array_equal(lay[k], held[k]) for k in (*KEYS, "etp")), gpus
    assert sum(len(lay["tp"]) for _, _, lay in seen) == 24_882   # the bench's 6 sets, at 866f3bc2 and now


@pytest.mark.parametrize(("experts", "expected"), [(0, [1]), (8, [1, 2, 4, 8])])
@pytest.mark.parametrize("search_etp", [False, True])
def test_expert_layouts_try_ep_and_etp_only_for_an_moe_model(experts: int, expected: list[int], search_etp: bool):
    arch = Arch(layers=8, hidden=1024, heads=8, kv_heads=8, head_dim=128, ffn=4096, vocab=32000, experts=experts,
                top_k=2 if experts else 0, expert_ffn=1024 if experts else 0, rope=True, qk_norm=False)
    got = expert_layouts(arch, {}, 1, 8, 1, None, search_etp, 8)
    assert [ep for ep, etp in got if etp == 1] == expected   # etp = tp (1) with each ep, first
    # searched: every etp with etp x ep dividing the 8 ranks (MoE parallel folding), the scale-up domain's 8 at most
    assert [(ep, etp) for ep, etp in got if etp != 1] == ([(1, 2), (1, 4), (1, 8), (2, 2), (2, 4), (4, 2)]
                                                          if experts and search_etp else [])
