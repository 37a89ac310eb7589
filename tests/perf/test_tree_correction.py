"""NCCL's tree all-reduce correction applies to 64 B x 2^i for i < 23 only (`nccl.TREE_SIZES`).

tuning.cc 637-640 at NVIDIA/nccl 5067397c2676: `if (... logSize >= 0 && logSize < 23) bw *= treeCorrectionFactor
[protocol][logSize]`, with logSize = log2(bytes >> 6), over a table of 24 entries a protocol: the last entry is never
read. Simple's is 0.9, so a 512 MiB all-reduce (logSize 23) runs at the tree's bandwidth uncorrected, not at 0.9 of
it. The number path (`tree_correction_at` of an int) and the array path (of `tree_index`'s clipped index and mask)
agree at every size.
"""

from __future__ import annotations

import numpy as np

from archgen.perf.comm import nccl


def test_the_correction_stops_where_nccl_stops_it():
    sizes = [32.0] + [64.0 * 2**i for i in range(26)]
    for proto, row in enumerate(nccl.TREE_CORRECTION):
        assert len(row) == 24 and nccl.TREE_SIZES == 23
        want = [1.0] + [row[i] if i < 23 else 1.0 for i in range(26)]
        got = [nccl.tree_correction_at(proto, nccl.tree_index(s)) for s in sizes]
        assert got == want, proto
        assert nccl.tree_correction_at(proto, nccl.tree_index(np.asarray(sizes))).tolist() == want, proto
    assert nccl.TREE_CORRECTION[nccl.SIMPLE][23] == 0.9   # the entry no size reads: 512 MiB gets 1.0
    assert nccl.tree_correction_at(nccl.SIMPLE, nccl.tree_index(512.0 * 2**20)) == 1.0
