"""RCCL's own tuning model on AMD parts (ROCm/rccl@0cbce2a src/graph/tuning.cc), hand-derived from its tables.

Inside a node the newer revision the model runs (ROCm/rocm-systems@03a89144) gives the same times
(tests/perf/test_rccl_update.py), so these hold at both.

Table 5 (tuning.cc 224-252; rome_models.cc 559/815/828 give it to the 8-GPU xGMI mesh): base latency 12 us (LL)
and 17 us (Simple) (tuning.cc 58), ring step over xGMI 0.8 us (LL) and 2.1 us (Simple), LL at 0.08 of the bus
(bwRatio, <= 2 nodes), LL128 off. Time = latency + bytes / algbw (tuning.cc 669), algbw = busbw x n / steps.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from archgen.perf.comm import rccl
from archgen.perf.comm.algorithms import fastest, labelled
from archgen.perf.comm.collectives import collective_time
from archgen.perf.comm.group import Topo
from archgen.perf.hw.from_spec import hardware_for
from archgen.scoring.catalog import load_accelerators
from archgen.scoring.curves import choice


@pytest.fixture(scope="module")
def mi300x():
    return hardware_for(load_accelerators()["mi300x"], scale_up_size=8)


def _up(hw):
    return hw.scale_up_bandwidth * hw.scale_up_efficiency


def test_small_all_reduce_is_ring_ll_with_rccl_latencies(mi300x):
    # 8 ranks: 2 x 7 = 14 steps of 0.8 us on 12 us; LL carries 0.08 of the bus; busbw factor 2 x 7 / 8
    expected = (12.0 + 14 * 0.8) * 1e-6 + 1.75 * 1024 / (0.08 * _up(mi300x))
    assert float(collective_time(mi300x, "all_reduce", 1024.0, 8.0)) == pytest.approx(expected, rel=1e-12)
    assert choice(mi300x, "all_reduce", 1024.0, 8) == "Ring/LL"


def test_large_all_reduce_is_ring_simple(mi300x):
    size = 4.0 * 2**30
    expected = (17.0 + 14 * 2.1) * 1e-6 + 1.75 * size / _up(mi300x)
    assert float(collective_time(mi300x, "all_reduce", size, 8.0)) == pytest.approx(expected, rel=1e-12)
    assert choice(mi300x, "all_reduce", size, 8) == "Ring/Simple"


def test_small_all_gather(mi300x):
    # 7 steps of 0.8 us on 12 us; busbw factor 7 / 8
    expected = (12.0 + 7 * 0.8) * 1e-6 + 0.875 * 1024 / (0.08 * _up(mi300x))
    assert float(collective_time(mi300x, "all_gather", 1024.0, 8.0)) == pytest.approx(expected, rel=1e-12)


def test_no_ll128_no_pat_on_amd(mi300x):
    for op in ("all_reduce", "all_gather"):
        names = [n for n, _ in labelled(mi300x, Topo(mi300x, 8.0, 8.0), op)]
        assert not any("LL128" in n or "PAT" in n for n in names), names


def test_tp4_group_in_the_mesh(mi300x):
    # 4 of the node's 8: 3 of 7 xGMI links (mesh share), still table 5: 6 steps of 0.8 us on 12 us
    mi300x = dataclasses.replace(mi300x, scale_up_mesh=True)
    expected = (12.0 + 6 * 0.8) * 1e-6 + 1.5 * 1024 / (0.08 * _up(mi300x) * 3 / 7)
    assert float(collective_time(mi300x, "all_reduce", 1024.0, 4.0, 4.0)) == pytest.approx(expected, rel=1e-12)


def test_across_nodes_unchanged_from_the_nccl_path(mi300x):
    # RCCL's NET figures are not used (rccl.split): a group across domains is timed as before
    hw = dataclasses.replace(mi300x, scale_out_bandwidth=50e9)
    plain = dataclasses.replace(hw, vendor="")
    for size in (1024.0, 2.0**24, 2.0**32):
        for op in ("all_reduce", "all_gather"):
            assert float(collective_time(hw, op, size, 64.0)) == float(collective_time(plain, op, size, 64.0))


def test_not_amd_is_not_rccl(mi300x):
    assert rccl.uses_rccl("AMD", 0.0)
    assert not rccl.uses_rccl("NVIDIA", 9.0)
    assert Topo(dataclasses.replace(mi300x, vendor="Intel"), 8.0, 8.0).rccl is None


def test_tables_and_size_index():
    assert rccl.table_for(8, rccl.ROCM6) is rccl.MODEL_5 and rccl.table_for(4, rccl.ROCM6) is rccl.MODEL_0
    # tuning.cc 648: log2i(bytes >> 6), the last entry for anything larger
    assert [rccl.size_index(s) for s in (1.0, 64.0, 127.0, 128.0, 2.0**32, 2.0**40)] == [0, 0, 0, 1, 26, 26]
    assert rccl.MODEL_5.ring_corr[rccl.SIMPLE][23] == 0.8 and rccl.MODEL_5.net["ring"][rccl.SIMPLE] == 320.0


def test_corrections_steer_the_choice_only(mi300x):
    # Tree/LL at 64 B: the tree correction (table 5, LL, index 0) 0.1 enters the choice, not the time
    t = Topo(mi300x, 8.0, 8.0)
    tree_ll = dict(labelled(mi300x, t, "all_reduce"))["Tree/LL"]
    steered = float(fastest([tree_ll], 64.0, choosing=True))
    plain = float(fastest([tree_ll], 64.0))
    assert plain == pytest.approx((12.0 + 2 * 7 * 0.9) * 1e-6 + 2 * 64.0 / (0.06 * _up(mi300x)), rel=1e-12)
    assert steered == pytest.approx((12.0 + 2 * 7 * 0.9) * 1e-6 + 2 * 64.0 / (0.06 * 0.1 * _up(mi300x)), rel=1e-12)


def test_groups_as_arrays_match_one_by_one(mi300x):
    # groups inside a node (RCCL) and across nodes (NCCL's path) in one call: each as when timed alone
    hw = dataclasses.replace(mi300x, scale_out_bandwidth=50e9)
    ns = np.array([2.0, 4.0, 8.0, 16.0, 64.0] * 3)
    sizes = np.repeat([1024.0, 2.0**20, 2.0**30], 5)
    for op in ("all_reduce", "all_gather", "reduce_scatter"):
        for algorithm in ("auto", "ring", "pat"):
            many = collective_time(hw, op, sizes, ns, algorithm=algorithm)
            one = [float(collective_time(hw, op, float(s), float(n), algorithm=algorithm)) for s, n in zip(sizes, ns, strict=True)]
            assert np.array_equal(many, np.array(one)), (op, algorithm)
