"""Many collective groups at once as numpy arrays: their distinct groups, and sizes with a short trailing axis.

A batched sweep or a layout search times collectives on arrays of groups (n ranks, k per domain) that repeat a few
distinct (n, k): their candidates are worked out once per distinct group (`distinct_groups`) and looked up at each
(`gather_candidates`). Sizes with a short trailing axis the group figures lack (a pipeline's rank classes) are
broadcast with that axis first (`trailing_axis`). Arithmetic only, no figure of its own; split from
`perf.comm.collectives` for its size.
"""

from __future__ import annotations

import numpy as np

from archgen.perf.comm.algorithms import PER_GROUP


def trailing_axis(size, n, cands: list) -> bool:
    """Whether sizes have a short trailing axis (the pipeline's rank classes) that every group figure lacks.

    numpy broadcasts such a pair slowly (an inner loop of a few elements), so `collectives._Groups.time` then puts
    that axis first; the arithmetic is the same.
    """
    if not isinstance(size, np.ndarray) or size.ndim < 2 or not 1 < size.shape[-1] <= 16:
        return False
    figures = [n] + [x for c in cands for x in (c[0], c[1], c[2], c[5], *(c[4] if c[3] in PER_GROUP else ()))]
    return all(x.ndim == size.ndim and x.shape[-1] == 1 for x in figures if isinstance(x, np.ndarray))


def distinct_groups(n, k) -> tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Where each group's (n, k) sits among the distinct ones, and those (two arrays).

    Group sizes are whole numbers in practice, which a table indexed by n·K + k sorts without a sort; anything else
    takes `np.unique`.
    """
    nb, kb = np.broadcast_arrays(n, k)
    nf, kf = nb.reshape(-1), kb.reshape(-1)
    ni, ki = nf.astype(np.int64), kf.astype(np.int64)
    if len(nf) and ni.min() >= 0 and ki.min() >= 0 and np.array_equal(ni, nf) and np.array_equal(ki, kf):
        width = int(ki.max()) + 1
        top = int(ni.max()) * width + width
        if top <= 1 << 22:
            key = ni * width + ki
            present = np.zeros(top, dtype=bool)
            present[key] = True
            keys = np.flatnonzero(present)
            slot = np.zeros(top, dtype=np.int64)
            slot[keys] = np.arange(len(keys))
            return slot[key].reshape(nb.shape), ((keys // width).astype(float), (keys % width).astype(float))
    pairs, index = np.unique((nf + 1j * kf), return_inverse=True)
    return index.reshape(nb.shape), (np.ascontiguousarray(pairs.real), np.ascontiguousarray(pairs.imag))


def gather_candidates(cands: list, index: np.ndarray) -> list:
    """Candidates computed once per distinct group, at each group (`index`)."""
    taken: dict[int, object] = {}

    def at(x):
        if not isinstance(x, np.ndarray):
            return x
        got = taken.get(id(x))
        if got is None:
            got = taken[id(x)] = x[index]
        return got

    out = []
    for lat, f, bus, kind, extra, mask in cands:
        if kind in PER_GROUP:
            extra = tuple(at(e) for e in extra)
        out.append((at(lat), at(f), at(bus), kind, extra, at(mask)))
    return out
