"""The searches' shortcuts (issue 25: the plan search under 1 s, 10^5 sweep points under 15 s) give what they replace.

Each replaces a sort or a repeated evaluation by cheaper arithmetic on the same numbers; these compare them with the
plain definition on data with ties, repeats and awkward values.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from archgen.perf.comm.collectives import HW_FIELDS, _hw_key
from archgen.perf.explore.vectorised import _least_floor
from archgen.perf.train.layout_times import _rank, groups


def test_hw_fields_name_what_a_collective_reads(accelerators):
    """A sweep times a plan's collectives once per distinct network figures (`collectives.HW_FIELDS`): they must be
    the figures the collective cache keys on, and every one a field of the hardware."""
    from archgen.perf.hw.from_spec import hardware_for
    hw = hardware_for(accelerators["h100-sxm5-80gb"], scale_up_size=8)
    names = {f.name for f in dataclasses.fields(hw)}
    assert set(HW_FIELDS) <= names
    assert _hw_key(hw) == tuple(getattr(hw, f) for f in HW_FIELDS)


def _unique_rank(col):
    values, rank = np.unique(col, return_inverse=True)
    return rank.ravel(), len(values)


def test_rank_by_counting_equals_np_unique():
    rng = np.random.default_rng(25)
    cols = [rng.integers(0, 9, 500).astype(float), rng.integers(0, 4097, 300).astype(float),
            np.array([3.0, 3.0, 3.0]), rng.integers(0, 1 << 40, 50).astype(np.int64),  # too sparse: np.unique
            np.array([0.5, 2.0, 0.5]), np.array([-1.0, 2.0, -1.0]), np.zeros(0)]
    for col in cols:
        got, want = _rank(col), _unique_rank(col)
        assert np.array_equal(got[0], want[0]) and got[1] == want[1], col
    table = [rng.integers(0, k, 2000).astype(float) for k in (2, 8, 16, 3)]
    key = np.zeros(2000, dtype=np.int64)
    for col in table:  # the old mixed-radix key of np.unique ranks, compressed by np.unique
        r, n = _unique_rank(col)
        key = key * n + r
    assert np.array_equal(groups(table), _unique_rank(key)[0])


def _by_sort(fp, ff):
    by = np.lexsort((ff, fp))
    return by[np.r_[True, fp[by][1:] != fp[by][:-1]]] if len(by) else by


def test_least_floor_equals_the_stable_sort():
    """Each point's pair of least floor, the first on ties: ties, -inf (a floor that was not a number) and one pair."""
    rng = np.random.default_rng(7)
    fp = np.sort(rng.integers(0, 40, 400))
    ff = rng.integers(0, 5, 400).astype(float)
    ff[::17] = -np.inf
    for p, f in ((fp, ff), (fp[:1], ff[:1]), (fp[:0], ff[:0]), (fp[::-1].copy(), ff)):  # the last unsorted
        assert np.array_equal(_least_floor(p, f), _by_sort(p, f))
