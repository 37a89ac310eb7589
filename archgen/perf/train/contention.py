"""What an overlapped collective and the compute beside it cost each other through the GPU's memory (issue 20).

Overlap shares two things. SMs: a communication kernel holds its SMs and the compute beside it runs on the rest
(`exposure.sm_kept`). And HBM bandwidth: a collective stores what it receives and reads it back (NCCL's
maintainer, NVIDIA/nccl#1428, 2024-09-06: an NVLink rate "needs to be multiplied by at least 2x for memory
bandwidth, as we need to store to memory, then read back from it. If you add reading from or writing to user
data, it can be 3x"; and of compute kernels slowed beside an all-gather: "Very likely, they're competing for
memory bandwidth"). The compute beside it moves its own bytes, which the model knows with its time.

The rule, with no fitted factor: over the stretch they overlap, the compute needs `hbm_share` of the HBM rate
(its bytes over its time, at the model's sustained rate) and the collective `comm_share` (`COMM_HBM_PER_BYTE`
times the bytes it receives, over its own time). Where the two need more than the HBM gives, both progress at
1 / (sum) of their own speed until the shorter ends (fluid, proportional sharing), so a pair whose shorter
member takes `hidden` alone ends `excess` (the sum less 1) x hidden later than the longer one alone; 0 where
the HBM has room: a collective beside compute-bound GEMMs, or one paced by a 50 GB/s NIC, costs nothing here.

Measured interference is larger (tests/perf/data/overlap-interference.yaml: an A100 GEMM 1.76x and attention
1.83x slower beside an NVLink all-gather, where SMs and HBM explain well under half of it); what the rest is
(caches, clocks, block scheduling) has no figure per kernel, so the model charges only the two shares.
"""

from __future__ import annotations

from archgen.perf.hw import kernels as K
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.numeric import maximum, where

#: HBM bytes a collective moves per byte it receives over its links: stored, then read back (NCCL's maintainer,
#: NVIDIA/nccl#1428: "at least 2x", up to 3x with the user buffers' reads and writes; the lower end is taken).
COMM_HBM_PER_BYTE = 2.0


def hbm_share(hw: Hardware, nbytes, seconds):
    """Share of the HBM's sustained rate that moving `nbytes` in `seconds` takes (0 where `seconds` is 0)."""
    t = K.memory_time(hw, nbytes)
    return where(seconds > 0, t / maximum(seconds, 1e-30), 0.0)


def comm_share(hw: Hardware, received, seconds):
    """Share of the HBM rate a collective that receives `received` bytes in `seconds` takes."""
    return hbm_share(hw, COMM_HBM_PER_BYTE * received, seconds)


def excess(compute, comm):
    """Both members' extra slow-down while they overlap: the HBM shares' sum less 1, and exactly 0 where it is <= 1."""
    return maximum(compute + comm - 1.0, 0.0)
