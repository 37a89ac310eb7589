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

GPU-driven all-to-alls yield instead (`GPU_DRIVEN_PACE`). DeepEP's and HybridEP's kernels move every byte from
their own SMs (NVLink copies; RDMA writes posted by the kernel, one per token and remote node: DeepEP hybrid-ep
csrc/hybrid_ep/backend/hybrid_ep_backend.cuh at 34152ae, lines 941 and 2637), where NCCL's across nodes are
posted by its CPU proxy. Megatron-core runs them on a stream of default priority beside the compute
(megatron/core/pipeline_parallel/utils.py at d98e8a6 `set_streams`: `high_priority_a2a_comm_stream` False by
default), and the card's A/B profile shows who pays: with the overlap on the compute kernels' union did not grow
(14.58 to 14.35 s a step) while the communication kernels ran 2.58 s longer, all of it while beside compute.

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
    if type(t) is float and type(seconds) is float:  # numbers: `where` and `maximum` below as branches (issue 25)
        return t / (seconds if seconds > 1e-30 else 1e-30) if seconds > 0 else 0.0
    return where(seconds > 0, t / maximum(seconds, 1e-30), 0.0)


def comm_share(hw: Hardware, received, seconds):
    """Share of the HBM rate a collective that receives `received` bytes in `seconds` takes."""
    return hbm_share(hw, COMM_HBM_PER_BYTE * received, seconds)


def comm_excess(hw: Hardware, compute, received, seconds):
    """`excess` of the compute's HBM share `compute` and `comm_share` of a collective receiving `received` bytes.

    For numbers the same operations in one call, not five (issue 25: seven an estimate): `kernels.memory_time` of
    the bytes, written out (no working set: the HBM rate), `hbm_share` and `excess`.
    """
    t = COMM_HBM_PER_BYTE * received / (hw.hbm_bandwidth * hw.hbm_efficiency)
    if type(t) is float and type(seconds) is float and type(compute) is float:  # `hbm_share`'s and `excess`' branches
        over = compute + (t / (seconds if seconds > 1e-30 else 1e-30) if seconds > 0 else 0.0) - 1.0
        return over if over > 0.0 else 0.0
    return excess(compute, comm_share(hw, received, seconds))


def excess(compute, comm):
    """Both members' extra slow-down while they overlap: the HBM shares' sum less 1, and exactly 0 where it is <= 1."""
    over = compute + comm - 1.0
    if type(over) is float:  # a number: `maximum`'s branch (issue 25)
        return over if over > 0.0 else 0.0
    return maximum(over, 0.0)


#: Megatron-Bridge's EP-overlap A/B profile (NVIDIA-NeMo/Megatron-Bridge skills/nemo-mbridge-perf-moe-comm-overlap/
#: card.yaml at 067f987, `profile_result`; Qwen3-30B-A3B, 16 H100, HybridEP, rank 0, one step): communication
#: concurrent with compute (ms) and the share of communication time it is (%), overlap off and on.
PROFILE_OVERLAP = {"off": (9.079, 0.11), "on": (3958.997, 36.55)}


def _pace(off_percent: float) -> float:
    """Share of its own pace a communication kernel keeps beside compute, from the card's profile.

    The communication kernels took overlap / share: 8.25 s a step with the overlap off, 10.83 s with it on. The
    2.58 s they grew is taken as all spent beside compute (a kernel alone runs as with the overlap off; stated,
    the profile does not split it), so of the 3.96 s they ran beside compute they did 3.96 - 2.58 = 1.38 s of work.
    """
    (off_ms, _), (on_ms, on_pct) = PROFILE_OVERLAP["off"], PROFILE_OVERLAP["on"]
    stretch = on_ms / on_pct - off_ms / off_percent  # seconds x 1e3 / 100: the ratio is what is used
    return (on_ms - stretch * 100.0) / on_ms


#: The pace of a GPU-driven all-to-all (DeepEP, HybridEP) beside compute, 0.348 of its pace alone, while the
#: compute keeps its own (`_pace`). The off run's 0.11 % is rounded: 0.105-0.115 % gives 0.26-0.45
#: (`GPU_DRIVEN_PACE_RANGE`). Measured with HybridEP across two H100 nodes; applied to DeepEP and HybridEP alike, on
#: every platform (the same kernels' structure; no other profile). NCCL's all-to-all keeps the SM and HBM shares (its
#: two-node A/B is the check; inside one node NCCL also copies with its SMs, kept so for want of a profile).
GPU_DRIVEN_PACE = _pace(PROFILE_OVERLAP["off"][1])
GPU_DRIVEN_PACE_RANGE = (_pace(PROFILE_OVERLAP["off"][1] + 0.005), _pace(PROFILE_OVERLAP["off"][1] - 0.005))
