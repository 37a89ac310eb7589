"""RCCL's tuning model at its newest readable revision (issue 20, rcclupdate), against the October 2024 one.

ROCm/rocm-systems@03a89144 projects/rccl/src/graph/tuning.cc (ROCm 7.x; `rccl.ROCM7`) against ROCm/rccl@0cbce2a
src/graph/tuning.cc (ROCm 6.x; `rccl.ROCM6`). Entries below are read off the file: tuning_model_5 (331-375) and
tuning_model_6 (377-425); a ring all-reduce crosses the network 2 x (nodes - 1) times at 03a89144 (888), 2 x nodes at
0cbce2a (354-355). AMD's 2-node MI350X all-reduce (ROCm/rocm-systems#9406) is in tests/perf/data/rccl-net-amd.yaml.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from archgen.perf.comm import algorithms, group, rccl
from archgen.perf.hw.from_spec import hardware_for
from archgen.scoring.catalog import load_accelerators

LL, LL128, SIMPLE = rccl.LL, rccl.LL128, rccl.SIMPLE


def test_the_model_runs_the_newest_revision():
    assert rccl.REVISION == rccl.ROCM7
    assert rccl.table_for(8) is rccl.MODEL_5_ROCM7 and rccl.table_for(4) is rccl.MODEL_0_ROCM7
    assert rccl.table_for(8, rccl.ROCM6) is rccl.MODEL_5 and rccl.table_for(4, rccl.ROCM6) is rccl.MODEL_0
    assert "03a89144" in rccl.SOURCES[rccl.REVISION]


def test_tables_5_and_6_as_read():
    m5, m6 = rccl.MODEL_5_ROCM7, rccl.MODEL_6_ROCM7
    # latencies and ratios: 0cbce2a's for LL and Simple; LL128 now LL's (333-345, 379-391)
    for algorithm in ("ring", "tree"):
        for proto in (LL, SIMPLE):
            assert m5.intra[algorithm][proto] == rccl.MODEL_5.intra[algorithm][proto]
            assert m5.net[algorithm][proto] == rccl.MODEL_5.net[algorithm][proto]
        assert m5.intra[algorithm][LL128] == m5.intra[algorithm][LL] and m5.net[algorithm][LL128] == m5.net[algorithm][LL]
        assert m5.bw_ratio[0][algorithm][LL128] == m5.bw_ratio[0][algorithm][LL]
    assert m6.intra is m5.intra and m6.net is m5.net and m6.bw_ratio is m5.bw_ratio
    # size corrections that moved: table 5 Simple ring from index 22 (0.7, 0.2, 1, 1, 1), tree from 21 (0.7 ...)
    assert list(m5.ring_corr[SIMPLE][21:]) == [0.1, 0.7, 0.2, 1.0, 1.0, 1.0]
    assert list(rccl.MODEL_5.ring_corr[SIMPLE][21:]) == [0.1, 0.1, 0.8, 1.0, 1.0, 1.0]
    assert list(m5.tree_corr[SIMPLE][21:]) == [0.7, 0.7, 0.5, 0.6, 0.6, 0.6]
    # table 6's own: LL128 ring 5.5 at index 22, tree 2.0 at 19-20; Simple tree 0.15 at 23
    assert m6.ring_corr[LL128][22] == 5.5 and list(m6.tree_corr[LL128][19:21]) == [2.0, 2.0]
    assert m6.tree_corr[SIMPLE][23] == 0.15 and m6.ring_corr[SIMPLE][20] == 0.9
    # table 0 unchanged
    for a, b in zip(rccl.MODEL_0_ROCM7.ring_corr + rccl.MODEL_0_ROCM7.tree_corr,
                    rccl.MODEL_0.ring_corr + rccl.MODEL_0.tree_corr, strict=True):
        assert np.array_equal(a, b)


def test_ring_crosses_the_network_2_x_nodes_less_one():
    # 16 ranks on 2 nodes, all-reduce, Simple: 2 x 15 = 30 steps; intra step max(2.1, 1 us x 3) = 3 us
    new = rccl.ring_latency(rccl.MODEL_5_ROCM7, SIMPLE, "all_reduce", 16.0, 2.0, 1.0, 0.0)
    old = rccl.ring_latency(rccl.MODEL_5, SIMPLE, "all_reduce", 16.0, 2.0, 1.0, 0.0)
    assert float(new) == pytest.approx((17.0 + 28 * 3.0 + 2 * 320.0) * 1e-6, rel=1e-12)   # 741 us
    assert float(old) == pytest.approx((17.0 + 26 * 3.0 + 4 * 320.0) * 1e-6, rel=1e-12)   # 1,375 us
    # all-gather: nodes - 1 at both
    assert float(rccl.ring_latency(rccl.MODEL_5_ROCM7, LL, "all_gather", 16.0, 2.0, 1.0, 0.0)) == pytest.approx(
        float(rccl.ring_latency(rccl.MODEL_5, LL, "all_gather", 16.0, 2.0, 1.0, 0.0)), rel=1e-12)


def _times(hw, n: int, op: str, table, sizes, ll128: bool, monkeypatch) -> np.ndarray:
    monkeypatch.setattr(rccl, "LL128_ENABLED", ll128)
    t = group.Topo(hw, float(n), float(n))
    t.rccl = table
    cands = [c for _, c in algorithms.labelled(hw, t, op) if c is not None]
    return np.array([float(rccl.fastest(cands, s)) for s in sizes])


@pytest.mark.parametrize("accelerator", ["mi300x", "mi355x"])
def test_inside_a_node_every_revision_table_and_ll128_give_the_same_time(accelerator, monkeypatch):
    # why the model need not tell gfx942 from gfx950, nor ROCm 6.x from 7.x, nor know `ll128Enabled`, inside a node
    hw = hardware_for(load_accelerators()[accelerator], scale_up_size=8)
    sizes = 2.0 ** np.arange(0, 36)
    for n in (2, 4, 8):
        for op in ("all_reduce", "all_gather", "reduce_scatter"):
            ref = _times(hw, n, op, rccl.MODEL_5, sizes, False, monkeypatch)
            for table in (rccl.MODEL_5_ROCM7, rccl.MODEL_6_ROCM7):
                for ll128 in (False, True):
                    got = _times(hw, n, op, table, sizes, ll128, monkeypatch)
                    assert np.array_equal(got, ref), (accelerator, n, op, table.index, ll128)


DATA = yaml.safe_load((Path(__file__).parent / "data" / "rccl-node-amd.yaml").read_text(encoding="utf-8"))


def test_published_in_node_figures_at_both_revisions():
    # stas00's 8 x MI300X 4 GiB all-reduce: Ring/Simple at both, 17 + 14 x 2.1 us + 1.75 x size / bus: 335.3 GB/s
    # (+7.2 % on 312.9, as before the update); issue 3272's 1 KiB: the model's 8-rank Ring/LL 12 + 14 x 0.8 us plus
    # 1.75 KiB at 0.08 of the bus = 23.3 us, 0.43 of the quoted 53.9 us (whose rank count is not provided)
    case, quoted = DATA["stas00"], DATA["issue3272"]
    hw = hardware_for(load_accelerators()[case["accelerator"]], scale_up_size=8)
    t = group.Topo(hw, 8.0, 8.0)
    for revision in (rccl.ROCM6, rccl.ROCM7):
        t.rccl = rccl.table_for(8, revision)
        cands = [c for _, c in algorithms.labelled(hw, t, "all_reduce") if c is not None]
        big = float(rccl.fastest(cands, float(case["size"])))
        assert case["size"] / big * 1.75 / 1e9 == pytest.approx(335.3, rel=1e-3)
        assert case["size"] / big * 1.75 / 1e9 / case["busbw"] - 1 == pytest.approx(0.072, abs=5e-4)
        small = float(rccl.fastest(cands, float(quoted["size"])))
        assert small * 1e6 == pytest.approx(23.3, abs=0.05) and small * 1e6 < 0.45 * quoted["time_us"]
