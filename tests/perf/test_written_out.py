"""What one layout's estimate writes out to save calls (issue 25) gives the floats of the functions it stands for.

`algorithms.fastest_number` (one layout's collectives) gives `fastest`'s float for every candidate list: every shipped
accelerator in a 400 Gb/s-per-GPU fabric, NVLS on and off, each operation `collectives._numbers` times
by its candidates, groups inside a domain and across domains, and sizes from 1 B (below the tree's table) to 64 GiB
(past it), each a power of two and one off it: the same float as `fastest` (the candidates in `number_form`), to the
bit. `kernels.gemm_time` (its bytes written out) and `gemm_floor.gemm_kernel_pass` (a GEMM kernel's two passes and
its bytes in one call, `kernels.gemm_pass`) likewise.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from archgen.perf.comm.algorithms import candidates, fastest, fastest_number, number_form
from archgen.perf.comm.group import Topo
from archgen.perf.hw import gemm_floor as F
from archgen.perf.hw import kernels as K
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
                form = number_form(cands)
                for size in SIZES:
                    want, got = fastest(cands, size), fastest_number(form, size)
                    assert float(got) == float(want), (acc.id, op, n, k, size)
                    compared += 1
    assert compared > 5_000


def test_gemm_time_moves_gemm_bytes(accelerators):
    """`kernels.gemm_time` writes `gemm_bytes` out (issue 25): a memory-bound GEMM's time is its bytes over the stream,
    to the bit, for every shipped part (its HBM made slow enough that every such GEMM is memory-bound), each data type
    it states a peak for, in arrays and plain numbers alike."""
    compared = 0
    for acc in accelerators.values():
        hw = hardware_for(acc, scale_up_size=8, scale_out_bandwidth=Q_(400, "Gbit/s"))
        hw = dataclasses.replace(hw, hbm_bandwidth=1e3)
        for dtype in K.DTYPE_BYTES:
            try:
                stream = hw.gemm_figures(dtype)[1]
            except Exception:  # noqa: BLE001 (a type the part states no rate for)
                continue
            for n, k, batch in ((8192.0, 8192.0, 1.0), (28672.0, 8192.0, 2.0), (7168.0, 2048.0, 32.0)):
                want = K.gemm_bytes(dtype, 1.0, n, k, batch, hw.fp4) / stream
                assert K.gemm_time(hw, dtype, 1.0, n, k, batch) == want, (acc.id, dtype)
                many = K.gemm_time(hw, dtype, np.ones(3), n, k, batch)
                assert (many == K.gemm_bytes(dtype, np.ones(3), n, k, batch, hw.fp4) / stream).all()
                compared += 1
    assert compared > 100


def test_gemm_kernel_pass_is_the_three_calls(accelerators):
    """`gemm_floor.gemm_kernel_pass` (one call for a GEMM kernel's forward, backward and bytes, issue 25, through
    `kernels.gemm_pass`) gives the floats of `gemm_kernel_time`, `gemm_kernel_backward_time` and `kernels.gemm_bytes`,
    and its backward's two GEMMs unfloored those of `kernels.gemm_time`, to the bit: every shipped part (those with a measured floor, Hopper's, and those without), each data type it
    states a peak for, GEMMs below and above the floor, as numbers and as arrays."""
    floored = compared = 0
    for acc in accelerators.values():
        hw = hardware_for(acc, scale_up_size=8, scale_out_bandwidth=Q_(400, "Gbit/s"))
        floored += bool(hw.gemm_floor)
        for dtype in K.DTYPE_BYTES:
            if dtype not in hw.peak:
                continue
            for m, n, k in ((64.0, 128.0, 256.0), (768.0, 2048.0, 256.0), (12288.0, 3072.0, 12288.0)):
                want = (F.gemm_kernel_time(hw, dtype, m, n, k), F.gemm_kernel_backward_time(hw, dtype, m, n, k),
                        K.gemm_bytes(dtype, m, n, k, fp4=hw.fp4), (K.gemm_time(hw, dtype, m, k, n),
                                                                   K.gemm_time(hw, dtype, k, n, m)))
                assert F.gemm_kernel_pass(hw, dtype, m, n, k) == want, (acc.id, dtype, m, n, k)
                rows = np.array([m, 2.0 * m])
                got, wanted = F.gemm_kernel_pass(hw, dtype, rows, n, k), (
                    F.gemm_kernel_time(hw, dtype, rows, n, k), F.gemm_kernel_backward_time(hw, dtype, rows, n, k),
                    K.gemm_bytes(dtype, rows, n, k, fp4=hw.fp4), K.gemm_time(hw, dtype, rows, k, n),
                    K.gemm_time(hw, dtype, k, n, rows))
                got = (*got[:3], *got[3])
                assert all((g == w).all() for g, w in zip(got, wanted, strict=True)), (acc.id, dtype)
                compared += 1
    assert floored and compared > 100
