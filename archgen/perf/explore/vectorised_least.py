"""Orderings a batched sweep's layout search takes (`perf.explore.vectorised._searched`), in arrays.

Each gives what a stable sort would put first, at the cost of a reduction or a partition: the search's rule takes
the first layout on ties, so the order must be the stable one.
"""

from __future__ import annotations

import numpy as np


def least_floor(fp: np.ndarray, ff: np.ndarray) -> np.ndarray:
    """Each point's pair of least floor, the first on ties (what a stable sort by point, then floor, puts first).

    The pairs come grouped by point in ascending order (rows of the round's cut): a reduction per group, no sort.
    """
    if not len(fp) or np.any(fp[1:] < fp[:-1]):
        by = np.lexsort((ff, fp))
        return by[np.r_[True, fp[by][1:] != fp[by][:-1]]] if len(by) else by
    starts = np.flatnonzero(np.r_[True, fp[1:] != fp[:-1]])
    least = np.minimum.reduceat(ff, starts)
    at = np.where(ff == np.repeat(least, np.diff(np.r_[starts, len(ff)])), np.arange(len(ff)), len(ff))
    return np.minimum.reduceat(at, starts)


def least(bound: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each row's `k` least plans in order (the least bound first, the first plan on ties), and their bounds.

    What a stable `np.argsort` puts first, at the cost of a partition for the many plans no round reaches.
    """
    if k >= bound.shape[1]:
        order = np.argsort(bound, axis=1, kind="stable")
        return order, np.take_along_axis(bound, order, axis=1)
    # a row's k-th least bound is at most that of any k of its plans: those of least bound at the batch's first
    # point give each row a ceiling, and a plan above every row's ceiling is no row's; the rest are partitioned
    few = np.argpartition(bound[0], 2 * k - 1)[:2 * k] if bound.shape[1] > 2 * k else np.arange(bound.shape[1])
    ceiling = np.partition(bound[:, few], k - 1, axis=1)[:, k - 1]
    cols = np.flatnonzero(np.any(bound <= ceiling[:, None], axis=0))
    if k <= len(cols) < bound.shape[1] // 2 and not np.isnan(ceiling).any():
        part = cols[np.argpartition(bound[:, cols], k - 1, axis=1)[:, :k]]
        vals = np.take_along_axis(bound, part, axis=1)
        by = np.lexsort((part, vals))
        return np.take_along_axis(part, by, axis=1), np.take_along_axis(vals, by, axis=1)
    part = np.argpartition(bound, k - 1, axis=1)[:, :k]
    vals = np.take_along_axis(bound, part, axis=1)
    by = np.lexsort((part, vals))
    return np.take_along_axis(part, by, axis=1), np.take_along_axis(vals, by, axis=1)
