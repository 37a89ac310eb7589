"""Per-call cost of the MoE token dispatcher above its all-to-all (`moe_dispatcher`: alltoall, deepep, hybridep).

The all-to-all itself is `ep_exposure.expert_comm`. Around it each backend's Python API does host work and
synchronisation that the all-to-all model does not see; this module gives that per call, from the backends' own
published numbers, the same formula for every case.

**HybridEP** (deepseek-ai/DeepEP at 94a9f8f, docs/README_Hybrid-EP.md, "H100 Platform" and "GB200 Platform"
tables, added in 7febc6e): 4096 tokens per rank, hidden 7168, top-8, random uniform routing, 8 local experts, the
time of a BF16 dispatch and of a combine through the Python API ("Torch API") and of the kernel alone ("Kernel
Only"), as algorithm bandwidths. The benchmark that fills the table (tests/test_hybrid_ep.py at 7febc6e,
`test_hybrid_ep_benchmark`) times `buffer.dispatch(..., handle=handle)`: with a handle the metadata preprocessing
(the routing-map all-gather and its scan) is skipped, but the call still synchronises the stream for the received
count (deep_ep/hybrid_ep_buffer.py `dispatch`: `torch.cuda.current_stream().synchronize()` when
`num_dispatched_tokens` is not given) and copies the input into, and the output out of, the registered buffers
(csrc/hybrid_ep/executor/executor.cu at 94a9f8f, `dispatch_preprocess` and `dispatch_postprocess`: D2D
`cudaMemcpyAsync` of the tokens; `combine_preprocess` likewise). So API time minus kernel time is the copies plus
the host and synchronisation time. The copies move bytes (4096 tokens x hidden in, the received tokens x hidden
out, each read and written) and scale with the hidden size; in Megatron-core's path the output copy is the
permute (`dispatch_with_permute`), which the model already charges. What is left, `gap - copies`, is the fixed
per-call cost; the copies are taken at the accelerator's datasheet HBM rate (H100 SXM 3.35 TB/s, GB200's B200
8 TB/s: the catalog's entries), the fastest they can run, so the fixed cost is the upper end of what the table
allows (a copy at 90 % of that rate leaves the combine's near 0). Rows at HybridEP's default SM count
(csrc/hybrid_ep/config.cuh at 94a9f8f: 8 SMs across nodes; 24 inside a node, between the table's 16 and 32, read
at 16). Across nodes the rates count the RDMA bytes of every node a token reaches, its own included (the
benchmark's `count_rdma_send_from_routing_map`; tests/perf/test_small_expert_moe.py); inside one NVLink domain
the received bytes (`dispatched_hidden.numel() * 2`).

Megatron-core calls HybridEP's dispatch without a handle (megatron/core/transformer/moe/fused_a2a.py at 3097d81,
the Megatron-LM commit Megatron-Bridge 26.04-alpha.rc2 pins: `HybridEPDispatch.forward`), and dropless without a
capacity (token_dispatcher.py `_HybridEPManager`: `num_permuted_tokens` None, so `non_blocking` False): each
forward dispatch synchronises the stream and, first, all-gathers the routing map (executor.cu
`allgather_routing_map`: NCCL `all_gather_into_tensor` across nodes, one byte per token and expert) and scans it
(`metadata_preprocess_core`, no published time: 0 here). The forward combine and both backward calls reuse the
handle and are given the permuted count (`HybridEPCombine`, `HybridEPDispatch.backward`), so they take the
combine's fixed cost. A forward dispatch thus costs `fixed(dispatch)` + the all-gather, every other call
`fixed(combine)`; under whole-iteration CUDA graphs only the all-gather is left (`train.dispatch_calls`).

**DeepEP** (deepseek-ai/DeepEP README at 94a9f8f): the normal dispatch "may not know how many tokens to receive
... an implicit CPU wait for GPU received count signal will be involved"; no table splits API from kernel time,
so no figure: 0, noted. **alltoall** (Megatron-core `MoEAlltoAllTokenDispatcher`): a device-to-host copy of the
per-expert counts and a stream synchronisation before the all-to-all (`cuda_sync_point`), no published figure: 0.

The host and synchronisation time is on the critical path on one stream: the host waits for the GPU to drain, and
the GPU then waits for the host to issue the next kernels. Under the EP overlap the forward dispatch's part passes
on the communication stream beside a compute window (archgen.perf.train.dispatch_calls); the rest is added outside
the overlap windows of `ep_exposure.expert_comm`.
"""

from __future__ import annotations

from math import comb

import numpy as np

from archgen.perf.comm.group_routing import domains_hit

#: The README's setup (both tables).
TOKENS, HIDDEN, TOP_K, LOCAL_EXPERTS = 4096, 7168, 8, 8
#: Datasheet HBM rates of the two tables' accelerators (B/s): H100 SXM 3.35 TB/s, B200 (GB200) 8 TB/s; the same
#: figures as the catalog's entries (archgen/catalog/accelerators).
HBM = {"h100": 3.35e12, "gb200": 8.0e12}
#: (ranks, BF16 dispatch GB/s Torch API, combine GB/s Torch API, BF16 dispatch GB/s kernel, combine GB/s kernel).
#: Across nodes: H100, 8 ranks per node, InfiniBand, 8 SMs (README_Hybrid-EP.md at 94a9f8f, "H100 Platform").
SCALE_OUT = ((16, 57.74, 56.96, 76.80, 68.00), (32, 46.54, 50.68, 54.50, 56.40), (64, 41.46, 47.68, 50.55, 51.03))
#: Inside one NVLink domain: GB200 NVL72, 16 SMs (README_Hybrid-EP.md at 94a9f8f, "GB200 Platform").
SCALE_UP = ((8, 550.10, 538.44, 750.15, 684.27), (16, 472.84, 474.48, 661.93, 600.75),
            (24, 441.89, 444.40, 637.80, 565.53), (32, 485.50, 423.19, 629.79, 547.25),
            (36, 469.96, 418.27, 612.85, 543.27))


def _miss(experts: int, held: int) -> float:
    """Probability that a token's top-k experts (uniform, without repeats) all miss `held` of `experts`."""
    return comb(experts - held, TOP_K) / comb(experts, TOP_K)


def counted_bytes(ranks: int, per_node: int | None) -> float:
    """Bytes the README's rate counts per call.

    Across nodes (`per_node` ranks per node) the RDMA bytes of every node a token reaches; inside one domain
    (`per_node` None) the bytes a rank receives.
    """
    experts = LOCAL_EXPERTS * ranks
    if per_node is None:
        return TOKENS * ranks * (1.0 - _miss(experts, LOCAL_EXPERTS)) * HIDDEN * 2.0
    nodes = ranks // per_node
    return TOKENS * nodes * (1.0 - _miss(experts, experts // nodes)) * HIDDEN * 2.0


def copy_time(ranks: int, hbm: float) -> float:
    """The API's staging copies at the README's setup (s).

    The input tokens and the received ones, each read and written once, at the datasheet HBM rate.
    """
    received = TOKENS * ranks * (1.0 - _miss(LOCAL_EXPERTS * ranks, LOCAL_EXPERTS))
    return 2.0 * (TOKENS + received) * HIDDEN * 2.0 / hbm


def _fixed(rows, per_node, hbm) -> tuple[tuple[float, ...], tuple[float, ...], tuple[float, ...]]:
    """(ranks, fixed dispatch s, fixed combine s) of a table: API time - kernel time - copies, floored at 0."""
    ranks, disp, comb_ = [], [], []
    for n, api_d, api_c, ker_d, ker_c in rows:
        b, c = counted_bytes(n, per_node), copy_time(n, hbm)
        ranks.append(float(n))
        disp.append(max(b / 1e9 * (1.0 / api_d - 1.0 / ker_d) - c, 0.0))
        comb_.append(max(b / 1e9 * (1.0 / api_c - 1.0 / ker_c) - c, 0.0))
    return tuple(ranks), tuple(disp), tuple(comb_)


#: HybridEP's fixed cost per call (s) by EP group size: across nodes and inside one domain.
HYBRIDEP_SCALE_OUT = _fixed(SCALE_OUT, 8, HBM["h100"])
HYBRIDEP_SCALE_UP = _fixed(SCALE_UP, None, HBM["gb200"])


def fixed_costs(ep, domains):
    """HybridEP's fixed (dispatch, combine) cost per call (s) of EP groups of `ep` ranks over `domains` domains.

    The table of its kind (across nodes when `domains` > 1), linear in the ranks between its rows and held at its
    first and last row outside them (the README measures 16-64 ranks across nodes, 8-36 inside one domain).
    """
    ep = np.asarray(ep, dtype=float)
    out = []
    for k in (1, 2):
        across = np.interp(ep, HYBRIDEP_SCALE_OUT[0], HYBRIDEP_SCALE_OUT[k])
        inside = np.interp(ep, HYBRIDEP_SCALE_UP[0], HYBRIDEP_SCALE_UP[k])
        out.append(np.where(np.asarray(domains) > 1.0, across, inside))
    return out[0], out[1]


#: The README's across-node platform, where its kernel rates are used (`kernel_platform`): Hopper SMs (compute
#: capability 9.0), 8 GPUs a node ("8 ranks per node") on NVLink 4 at H100 SXM's 450 GB/s a direction (18 links; the
#: catalog's h100-sxm5-80gb entry).
KERNEL_CC, KERNEL_DOMAIN, KERNEL_NVLINK = 9.0, 8, 450e9


def kernel_platform(hw):
    """Whether `hw` is the platform of the README's across-node table (a bool, or an array of them).

    The kernel is compiled for and runs on the SMs of compute capability 9.0 (H100, H200, H800, H20), and forwards
    every token that reaches a node over NVLink to its experts' GPUs there: the README's rows count 8 GPUs a node on
    NVLink 4 at 450 GB/s a direction. A part of the same generation and node (H200: the same NVLink 4 and NVSwitch)
    takes the kernel's rates; H800's 8 NVLink 4 links (200 GB/s a direction) do not: at the README's 16-rank rate
    (76.8 GB/s of counted token-nodes) each token-node is forwarded to about 2.9 other GPUs of its node (4 of the
    top-8 experts on 8 GPUs of 8 experts each: 8·(1 - (7/8)^4) = 3.3 GPUs hit, 7/8 of them not the receiving
    GPU), about 222 GB/s of NVLink egress (an estimate from uniform routing, not a measurement), which H800's links
    cannot carry, so its kernel would be slower than measured: it takes the general all-to-all (`collectives`), as
    does any other part. The NIC is not checked: the README names InfiniBand, not its rate (every scored row that
    reaches here states 400 Gb/s a GPU, as a DGX H100 has).
    """
    cc = np.asarray(hw.compute_capability, dtype=float)
    on = (cc == KERNEL_CC) & (np.asarray(hw.scale_up_size) == KERNEL_DOMAIN) \
        & (np.asarray(hw.scale_up_bandwidth, dtype=float) >= KERNEL_NVLINK)
    return bool(on) if on.ndim == 0 else on


#: SMs the across-node rows run (HybridEP's default across nodes, config.cuh at 94a9f8f). Megatron-Bridge's
#: performance recipes set 32 (scripts/performance/utils/overrides.py:89 at 067f987), which the README does not
#: measure; at 16 ranks its 16-SM row is slower than the 8-SM one (tests/perf/data/hybridep-h100.yaml).
KERNEL_SMS = 8


#: FP8 dispatch, kernel only, GB/s across nodes (README_Hybrid-EP.md at 94a9f8f, "H100 Platform", 8 SMs), and the
#: FP8 bytes it counts per BF16 byte: 1 B a value plus a 4-byte scale per 128 (tests/test_hybrid_ep.py at 7febc6e,
#: `fp8_factor = (1 + 4 / 128) / 2`), so 7,392 B a token where BF16 sends 14,336 B.
SCALE_OUT_FP8 = ((16, 62.00), (32, 51.30), (64, 46.63))
FP8_FACTOR = (1.0 + 4.0 / 128.0) / 2.0


def _token_node_times() -> tuple[list[float], tuple[list[float], list[float]], tuple[list[float], list[float]]]:
    """(ranks, (fixed s, s per byte) of a dispatch, the same of a combine) per counted token-node of each row.

    A call's kernel time is read as a fixed time per token and node it reaches plus its bytes at a rate:
    t = n·(a + b·bytes per token). The README times the dispatch at two token sizes, BF16 (14,336 B) and FP8
    (7,392 B), at the same 4,096 tokens and routing, which gives a and b. The combine is published in BF16 only:
    its time stays its bytes at its BF16 rate (a = 0). Both post one RDMA write per token and remote node
    (csrc/hybrid_ep/backend/hybrid_ep_backend.cuh at 34152ae, `WQE_NUM_RATIO`: dispatch line 941, combine line
    2637), so the combine's a is unpublished, not absent: 0 is its lower end, the dispatch's a its upper end. FP8's
    extra write a token (its scales) counts in the FP8 time, so the dispatch's a is, if anything, too large.
    """
    ranks: list[float] = []
    disp: tuple[list[float], list[float]] = ([], [])
    comb_: tuple[list[float], list[float]] = ([], [])
    wide, narrow = HIDDEN * 2.0, HIDDEN * 2.0 * FP8_FACTOR
    for (n, _, _, ker_d, ker_c), (_, fp8) in zip(SCALE_OUT, SCALE_OUT_FP8, strict=True):
        b = counted_bytes(n, 8)
        nodes = b / wide  # counted token-nodes
        t_wide, t_narrow = b / (ker_d * 1e9), b * FP8_FACTOR / (fp8 * 1e9)
        per_byte = (t_wide - t_narrow) / (nodes * (wide - narrow))
        fixed = t_wide / nodes - wide * per_byte
        ranks.append(float(n))
        disp[0].append(fixed)
        disp[1].append(per_byte)
        comb_[0].append(0.0)
        comb_[1].append(b / (ker_c * 1e9) / nodes / wide)
    return ranks, disp, comb_


#: (ranks, dispatch (fixed, per byte), combine (fixed, per byte)) per counted token-node, the README's H100 rows.
TOKEN_NODE = _token_node_times()


def kernel_times(tokens, hidden, experts, top_k, ep, per_domain, groups: tuple[int, int] = (0, 0)):
    """HybridEP's kernel-only (dispatch, combine) time of one call (s) across nodes on the README's H100 platform.

    The README's kernel times (`SCALE_OUT`, `SCALE_OUT_FP8`, `KERNEL_SMS`) read per counted token-node
    (`TOKEN_NODE`): `tokens` per rank, each sent once to every node that holds one of its `top_k` experts (its own
    included, as the README counts; uniform routing over `experts` in `ep` / `per_domain` nodes), each taking the
    row's fixed time (the dispatch's; none for the combine) plus `hidden` BF16 values at the row's rate. Linear in
    the ranks between rows and held at the first and last outside them (16-64 ranks measured). Measured at hidden
    7,168 (BF16) and 3,696 (FP8's bytes, as BF16 values); a smaller hidden size is extrapolated along the same line.
    Under the model's group-limited routing (`groups`: (router_num_groups, router_group_topk)) the nodes a token
    reaches are `group_routing.domains_hit`'s.
    """
    ep = np.asarray(ep, dtype=float)
    nodes = np.maximum(ep / per_domain, 1.0)
    held = experts / nodes
    miss = np.ones_like(nodes)
    for i in range(int(top_k)):
        miss = miss * np.maximum(experts - held - i, 0.0) / (experts - i)
    counted = tokens * nodes * (1.0 - miss)
    if groups[0] and groups[1] < groups[0]:
        counted = tokens * domains_hit(top_k, nodes, *groups)
    ranks, *calls = TOKEN_NODE
    return tuple(counted * np.interp(ep, ranks, [f + hidden * 2.0 * b for f, b in zip(*c, strict=True)])
                 for c in calls)
