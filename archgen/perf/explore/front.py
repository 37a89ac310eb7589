"""A sweep's Pareto front and its best point per objective, over the rows of its evaluated points.

A point dominates another when it is at least as good on every objective and better on one (all minimised, the
maximised ones negated); the front is the feasible points none dominates, found a block of `PARETO_BLOCK` points at
a time. The best point of a metric is the first feasible point with its best value (NaN is no one's best).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from archgen.perf.explore.problem import PointRow


def pareto(rows: Sequence[PointRow], objectives: Sequence[tuple[str, bool]]) -> list[int]:
    """Positions in `rows` of the feasible points no other feasible point dominates, in `rows` order.

    `objectives` are (metric, maximise). A point dominates another when it is at least as good on every objective
    and better on one. Points tied on every objective are all kept.
    """
    names = {m for m, _ in objectives}
    cand = [i for i, r in enumerate(rows) if r.feasible and names <= r.metrics.keys()]
    if not cand:
        return []
    # minimise everything: negate the maximised objectives (a column at a time: the same numbers, fewer calls)
    x = np.stack([np.array([rows[i].metrics[m] for i in cand], dtype=float) * (-1.0 if up else 1.0)
                  for m, up in objectives], axis=1)
    order = np.lexsort(x.T[::-1])  # by the first objective, ties by the next: a dominator always comes first
    front = np.empty(0, dtype=int)
    for start in range(0, len(order), PARETO_BLOCK):
        block = order[start:start + PARETO_BLOCK]
        # dominated by a point of the front so far, or by one of the block (only an earlier one can dominate, and a
        # point dominated by a dominated point is dominated by that one's dominator too: no order is needed)
        block = block[~_beaten(x[front], x[block])]
        block = block[~_beaten(x[block], x[block])]
        front = np.concatenate([front, block])
    return sorted(cand[j] for j in front.tolist())


def _beaten(by: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Which of `points` a point of `by` dominates (at most on every objective, less on one; all minimised)."""
    if not len(by) or not len(points):
        return np.zeros(len(points), dtype=bool)
    return np.any(np.all(by[:, None] <= points[None], axis=2) & np.any(by[:, None] < points[None], axis=2), axis=0)


#: Points compared at once in `pareto` (a block against the front so far, then against itself).
PARETO_BLOCK = 512


def best(rows: Sequence[PointRow], metric: str, maximise: bool) -> int | None:
    """Position in `rows` of the feasible point with the best value of `metric` (the first on ties), or None.

    A NaN value is no one's best: skipped, so that the best of the chunks' bests (`explore.tally.merge`) is the best
    of all rows whatever the chunking (`min` over NaN depends on the order).
    """
    have = [i for i, r in enumerate(rows)
            if r.feasible and metric in r.metrics and not math.isnan(r.metrics[metric])]
    if not have:
        return None
    sign = -1.0 if maximise else 1.0
    keys = [sign * rows[i].metrics[metric] for i in have]
    return have[keys.index(min(keys))]  # `min` keeps the first of equals; `index` finds that one
