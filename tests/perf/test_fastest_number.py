"""`algorithms.fastest_number` (one layout's collectives, issue 25) gives `fastest`'s float for every candidate list.

Every shipped accelerator in a 400 Gb/s-per-GPU fabric, NVLS on and off, each operation `collectives._numbers` times
by its candidates, groups inside a domain and across domains, and sizes from 1 B (below the tree's table) to 64 GiB
(past it), each a power of two and one off it: the same float as `fastest`, to the bit.
"""

from __future__ import annotations

import pytest

from archgen.perf.comm.algorithms import candidates, fastest, fastest_number
from archgen.perf.comm.group import Topo
from archgen.perf.hw.from_spec import hardware_for
from archgen.units import Q_

SIZES = [float(2 ** e + d) for e in range(0, 37, 3) for d in (0, 3)]
GROUPS = ((2.0, 2.0), (8.0, 8.0), (16.0, 8.0), (64.0, 4.0), (512.0, 8.0), (4096.0, 1.0))


@pytest.mark.parametrize("nvls", [False, True])
def test_fastest_number_is_fastest_to_the_bit(accelerators, nvls):
    compared = 0
    for acc in accelerators.values():
        hw = hardware_for(acc, scale_up_size=8, scale_out_bandwidth=Q_(400, "Gbit/s"), in_network_reduction=nvls)
        if hw.torus:  # a torus takes its own rings (`collectives._torus_times`), never `_numbers`
            continue
        for op in ("all_reduce", "reduce_scatter", "all_gather"):
            for n, k in GROUPS:
                cands = candidates(hw, Topo(hw, n, k), op, "auto")
                for size in SIZES:
                    want, got = fastest(cands, size), fastest_number(cands, size)
                    assert float(got) == float(want), (acc.id, op, n, k, size)
                    compared += 1
    assert compared > 5_000
