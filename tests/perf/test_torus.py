"""Collectives on a torus (`archgen.perf.comm.torus`) against their closed forms.

Formulas: the ring all-reduce moves 2(n − 1)/n of the buffer through every rank in 2(n − 1) steps; the bucket
algorithm runs a reduce-scatter and an all-gather along each dimension in turn (E. Chan et al., "Collective
communication: theory, practice, and experience", Concurrency and Computation 19, 2007), with one rotated copy
per dimension so that all of a chip's links work at once; its bandwidth term is then bounded below by the chip's
injection, 2(n − 1)/n·S over all 2D links.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from archgen.perf.comm.collectives import collective_time
from archgen.perf.comm.torus import cube_grid, slice_counts, sub_torus
from archgen.perf.hw.hardware import Hardware

B = 50e9          # one link per direction (TPU v4 ICI, 400 Gb/s)
ALPHA = 1e-6
EFF = 0.8


def _hw(dims: tuple[int, ...], wrap: bool = True) -> Hardware:
    return Hardware("t", {"bf16": 275e12}, {}, 32 * 2**30, 1.2e12, int(np.prod(dims)), 6 * B,
                    scale_up_efficiency=EFF, scale_up_latency=ALPHA, torus=dims, torus_link_bandwidth=B,
                    torus_wraparound=wrap)


def test_ring_on_one_closed_dimension() -> None:
    """16 chips on one wrapped dimension: a bidirectional ring, 2·15/16·S/(2·B·eff) + 30·α."""
    hw, size = _hw((16, 4, 4)), 2**30
    t = collective_time(hw, "all_reduce", size, 16, algorithm="ring")
    assert t == pytest.approx(2 * 15 / 16 * size / (2 * B * EFF) + 30 * ALPHA, rel=1e-12)


def test_open_line_folds_the_ring() -> None:
    """4 of 16 chips along a dimension do not close it: the ring runs at B, not 2B."""
    hw, size = _hw((16, 16)), 2**28
    t = collective_time(hw, "all_reduce", size, 4, algorithm="ring")
    assert t == pytest.approx(2 * 3 / 4 * size / (B * EFF) + 6 * ALPHA, rel=1e-12)


def test_a_pair_shares_one_link() -> None:
    """2 chips, of a dimension of 16 or a whole dimension of 2, are joined by one link (N/2 links along a dimension
    of 2, `torus_figures`): each sends S/2 to the other at B per direction, 2·(1/2)·S/(B·eff) + 2α, not at 2B."""
    size = 2**28
    want = 2 * 1 / 2 * size / (B * EFF) + 2 * ALPHA
    for dims in ((16, 16), (2, 4, 4)):
        for algorithm in ("ring", "tree", "auto"):
            t = collective_time(_hw(dims), "all_reduce", size, 2, algorithm=algorithm)
            assert t == pytest.approx(want, rel=1e-12), (dims, algorithm)


def test_bucket_on_a_cube_reaches_the_injection_bound() -> None:
    """16x16x16, 4,096 ranks, 1 GiB: the bucket algorithm's bandwidth term is within 0.5 % of 2(n − 1)/n·S over the
    chip's 6 links (each dimension carries a third of the data in every order)."""
    hw, size, n = _hw((16, 16, 16)), 2**30, 4096
    t = collective_time(hw, "all_reduce", size, n, algorithm="tree")     # tree -> the bucket algorithm
    bound = 2 * (n - 1) / n * size / (6 * B * EFF)
    latency = 2 * 3 * 15 * ALPHA
    assert bound <= t - latency <= bound * 1.005
    assert collective_time(hw, "all_reduce", size, n) == pytest.approx(t)   # auto picks it over the ring


def test_bucket_on_a_2d_torus_by_hand() -> None:
    """4x4 torus, one rotated copy per dimension: each dimension carries 2·(S/2)·(3/4 + 3/16) = 0.9375·S at 2·B."""
    hw, size = _hw((4, 4)), 1e9
    t = collective_time(hw, "all_reduce", size, 16, algorithm="tree")
    assert t == pytest.approx(0.9375 * size / (2 * B * EFF) + 2 * 6 * ALPHA, rel=1e-12)


def test_all_gather_is_one_phase() -> None:
    """All-gather moves half the bytes of an all-reduce in half the steps."""
    hw, size = _hw((8, 8)), 1e9
    ar = collective_time(hw, "all_reduce", size, 64, algorithm="ring")
    ag = collective_time(hw, "all_gather", size, 64, algorithm="ring")
    assert ag == pytest.approx(ar / 2)


def test_groups_fill_the_dimensions_in_order() -> None:
    """TP along the first axis, DP across the rest; a group that does not tile the torus gets a folded line."""
    assert sub_torus((16, 16, 16), 4) == [4, 1, 1]
    assert sub_torus((16, 16, 16), 64) == [16, 4, 1]
    assert sub_torus((4, 4, 4), 48) == [4, 4, 1, 3]
    assert sub_torus((4, 4), 5) == [1, 1, 5]


def test_vectorised_like_the_switched_model() -> None:
    """Arrays of group sizes give the same times as one call per size."""
    hw, n = _hw((8, 8, 8)), np.array([2.0, 8.0, 64.0, 512.0])
    t = collective_time(hw, "all_reduce", 1e8, n)
    assert t == pytest.approx([collective_time(hw, "all_reduce", 1e8, float(x)) for x in n])
    assert collective_time(hw, "all_reduce", 1e8, 1) == 0.0


def test_hardware_of_arrays_gives_each_point_its_own_links() -> None:
    """A batch of sweep points on a torus (a `scale_up_bandwidth` axis moves its links, `Hardware._replaced`): each
    point's time is that of its own hardware of numbers, to the bit, and `_replaced` keeps links given with it."""
    hw, up = _hw((4, 4, 4)), np.array([3 * B, 6 * B, 12 * B])
    many = dataclasses.replace(hw, scale_up_bandwidth=up, torus_link_bandwidth=B * up / (6 * B),
                               scale_up_latency=np.array([ALPHA, ALPHA, 2 * ALPHA]))
    assert many.with_axis().torus_link_bandwidth.shape == (3, 1)   # not re-derived from the widened bandwidth
    n = np.array([[4.0, 16.0], [64.0, 4.0], [16.0, 64.0]])
    got = collective_time(many.with_axis(), "all_reduce", 1e8, n)
    for i in range(3):
        one = hw.with_value("scale_up_bandwidth", float(up[i])).scaled("latency", 2.0 if i == 2 else 1.0)
        assert one.torus_link_bandwidth == many.torus_link_bandwidth[i]
        assert got[i].tolist() == [collective_time(one, "all_reduce", 1e8, float(m)) for m in n[i]]


def test_a_count_forms_a_slice_when_each_dimension_takes_a_divisor() -> None:
    """n chips form a sub-torus when n = t1·t2·t3 with t_i dividing d_i; whole cubes take the shape closest to a cube.

    Cloud TPU's default topology is the one most similar to a cube (https://cloud.google.com/tpu/docs/types-topologies);
    v5p's largest slice, 96 cubes of 4x4x4, is 16x16x24 (https://cloud.google.com/tpu/docs/v5p).
    """
    assert 1024 in slice_counts((16, 16, 16)) and 1000 not in slice_counts((16, 16, 16))
    assert sorted(slice_counts((4, 4))) == [1, 2, 4, 8, 16] and 48 not in slice_counts((4, 4, 4))
    assert 96 in slice_counts((16, 16, 24)) and sub_torus((16, 16, 24), 96) == [16, 2, 3]
    assert cube_grid(60, 3) == [3, 4, 5] and cube_grid(96, 3) == [4, 4, 6] and cube_grid(8, 3) == [2, 2, 2]
