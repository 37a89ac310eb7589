"""Context parallelism's four communication types (`cp_comm_type`): what each sends, when, and what it hides behind.

Megatron-core hands `cp_comm_type` to Transformer Engine's CP attention (megatron/core/extensions/transformer_engine.py
at d98e8a6, lines 2141-2153; `--cp-comm-type`, megatron/training/arguments.py line 3221, default p2p), which runs
(transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py at d0067d0, `attn_forward_func_with_cp`
lines 5096-5139):

* `p2p`: `AttnFuncWithCPAndKVP2P`, K and V passed round a ring beside the attention (`exposure.cp_ring`,
  `exposure.cp_exposed`): only the excess over the attention is exposed.
* `allgather`: `AttnFuncWithCPAndKVAllGather` (Llama 3's, arXiv 2407.21783 section 3.3.2), "KV all-gather between CP
  ranks is exposed" (its docstring, line 3016): the forward all-gathers K and V (lines 3215-3216), the backward
  gathers them again (lines 3788-3789) and reduce-scatters dK and dV (lines 4122-4123), none beside the attention.
* `a2a`: `AttnFuncWithCPAndQKVOA2A` (DeepSpeed-Ulysses, arXiv 2309.14509): an all-to-all of Q, K and V gathers the
  sequence and scatters the heads before the attention (line 4339) and one of the output scatters them back after it
  (line 4485); the backward all-to-alls dO before (line 4677) and dQ, dK, dV after (line 4837). The all-to-alls only
  overlap one another's reordering (`flash_attn_a2a_communicate`, lines 387-536), not the attention: all exposed.
  It needs the Q and KV heads of a TP rank divisible by cp (line 4246).
* `a2a+p2p`: hierarchical (`AttnFuncWithCPAndKVP2P` with `cp_group` [a2a group, p2p group], lines 1407-1419 and 5020-
  5032): the all-to-alls of `a2a` over the first group (lines 1492, 2034, 2411, 2889), then the p2p ring over the
  second with each rank's heads divided by the first's size. Megatron-LM asks for `--hierarchical-context-parallel-
  sizes` with it and their product to be cp (arguments.py at d98e8a6, lines 580-585); its first group holds
  consecutive CP ranks (parallel_state.py `create_hierarchical_groups`, lines 378-414).

Each time is one layer's per micro-batch on one rank, forward and backward (the forward again where recomputation
re-runs the attention, `exposure.CP_RECOMPUTED`), in 16-bit values as the ring's (`cp_kv_bytes`). The attention
compute is the load-balanced split's for all four: the same FLOPs on every rank (the a2a types compute all the
sequence for cp-th of the heads, the all-gather type two chunks of queries against their K/V prefixes); a kernel's
efficiency at the other shapes is not modelled apart.
"""

from __future__ import annotations

from archgen.model.training_rules import hierarchy_problem
from archgen.perf.comm.collectives import members_per_domain
from archgen.perf.comm.racks import group_times
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.kernels import ACT_BYTES
from archgen.perf.hw.numeric import maximum, where
from archgen.perf.train import exposure as X
from archgen.perf.train.job import Job

#: Where each of the four types (`model.switches.CpCommType`, as Megatron-LM's `--cp-comm-type` spells them) has its
#: traffic read (the notes cite it).
SOURCES = {
    "p2p": "Transformer Engine AttnFuncWithCPAndKVP2P, context_parallel.py at d0067d0, lines 1418-1419 and 1698-2495",
    "allgather": "Transformer Engine AttnFuncWithCPAndKVAllGather, context_parallel.py at d0067d0, lines 3215-3216, "
                 "3788-3789 and 4122-4123: 'KV all-gather between CP ranks is exposed'",
    "a2a": "Transformer Engine AttnFuncWithCPAndQKVOA2A, context_parallel.py at d0067d0, lines 4339, 4485, 4677 and "
           "4837",
    "a2a+p2p": "Transformer Engine AttnFuncWithCPAndKVP2P with cp_group [a2a, p2p], context_parallel.py at d0067d0, "
               "lines 1407-1419, 1492, 2034, 2411 and 2889",
}
#: Transformer Engine's a2a assertion on the heads (context_parallel.py at d0067d0, line 4246).
HEADS_SOURCE = ("Transformer Engine asserts \"cp_comm_type='a2a' requires num_heads % cp_size == 0 for Q, K, V\", "
                "context_parallel.py at d0067d0, line 4246")


def a2a_size(cp_comm_type: str, cp, hierarchy: tuple[int, int] | None):
    """Ranks of the all-to-all group: cp for a2a, the first hierarchical size for a2a+p2p, 1 otherwise."""
    if cp_comm_type == "a2a":
        return cp
    if cp_comm_type == "a2a+p2p" and hierarchy is not None:
        return hierarchy[0]
    return 1


def cp_comm_problem(arch: Arch, job: Job, tp: int, cp: int) -> str | None:
    """Why the job's `cp_comm_type` cannot run at tp and cp (None when it can, and always at cp 1).

    a2a+p2p needs `hierarchical_context_parallel_sizes` [a2a, p2p] whose product is cp, the rule a Workload's stated
    layout is held to (`model.training_rules.hierarchy_problem`, here at each cp a search tries); a2a and a2a+p2p
    need a TP rank's Q heads and KV heads (at least one: tp above the KV heads sub-shards them) divisible by the
    all-to-all group (`HEADS_SOURCE`).
    """
    kind = job.cp_comm_type
    if cp <= 1 or kind in ("p2p", "allgather"):
        return None
    h = job.cp_hierarchy
    if kind == "a2a+p2p" and (problem := hierarchy_problem(kind, cp, h)):
        return f"{problem} (a Workload states them; a validation case cannot, so it runs a2a+p2p nowhere)"
    n = int(a2a_size(kind, cp, h))
    q, kv = arch.heads // tp, max(arch.kv_heads // tp, 1)
    if q % n or kv % n:
        fit = max(d for d in range(1, cp + 1) if cp % d == 0 and q % d == 0 and kv % d == 0)
        hint = (f"cp_comm_type a2a+p2p with hierarchical_context_parallel_sizes [{fit}, {cp // fit}], "
                if fit > 1 else "")
        return (f"cp_comm_type {kind} splits each TP rank's heads over its {n} all-to-all ranks, and at tp {tp} a rank "
                f"holds {q} query and {kv} KV heads ({HEADS_SOURCE}); expected an all-to-all group dividing both: "
                f"{hint}or cp_comm_type p2p or allgather")
    return None


def a2a_times(hw: Hardware, q_bytes, kv_bytes, n, stride):
    """(forward, backward) seconds of Ulysses' all-to-alls over n ranks `stride` apart.

    Forward: Q, K and V before the attention, O (Q's size) after; backward: dO before, dQ, dK and dV after. Each
    all-to-all sends the rank's whole tensor (nccl-tests' size: its n slices), `q_bytes` for Q and O, `kv_bytes` for K
    and for V.
    """
    t_q, t_kv = group_times(hw, (("all_to_all", q_bytes), ("all_to_all", kv_bytes)), n,
                            members_per_domain(hw, n, stride), stride)
    one = 2.0 * t_q + 2.0 * t_kv
    return one, one


def allgather_times(hw: Hardware, kv_size, cp, tp):
    """(forward, backward) seconds of the all-gather type: K and V gathered forward; again, and dK, dV scattered back.

    `kv_size` is K and V of the whole sequence on a TP rank (each gathered buffer is half of it).
    """
    ag, rs = group_times(hw, (("all_gather", kv_size / 2.0), ("reduce_scatter", kv_size / 2.0)), cp,
                         members_per_domain(hw, cp, tp), tp)
    return 2.0 * ag, 2.0 * ag + 2.0 * rs


def _q_kv_bytes(a: Arch, seq_len, mb, tp, cp):
    """Q (and O) bytes, and K (and V) bytes, of a rank's sequence part on one TP rank before the all-to-all.

    Each pair at the mean of its two head dimensions (MLA's 192 and 128: `Arch.core_head_dim`), so their sum holds.
    """
    tokens = mb * seq_len / maximum(cp, 1.0)
    return (tokens * a.heads / tp * a.core_head_dim * ACT_BYTES,
            tokens * maximum(a.kv_heads / tp, 1.0) * a.core_head_dim * ACT_BYTES)


def exposed_times(hw: Hardware, job: Job, cp, tp, mb):
    """(forward, backward) seconds of the communication the type leaves on the critical path whatever the attention.

    All of allgather's and a2a's, and a2a+p2p's all-to-alls; 0 for p2p, whose ring `exposure.cp_exposed` times.
    """
    kind = job.cp_comm_type
    if kind == "allgather":
        return allgather_times(hw, kv_size(job, mb, tp), cp, tp)
    if kind in ("a2a", "a2a+p2p"):
        n = a2a_size(kind, cp, job.cp_hierarchy)
        q, kv = _q_kv_bytes(job.arch, job.seq_len, mb, tp, cp)
        return a2a_times(hw, q, kv, n, tp)
    return 0.0, 0.0


def cp_kv_bytes(a: Arch, seq_len, mb, tp):
    """K and V of a micro-batch's whole sequence on one TP rank: what the CP ring passes around (`exposure.cp_exposed`).

    16-bit values, at least one KV head a rank (tp above the KV heads sub-shards the QKV activations); under MLA
    K at qk_nope_head_dim + qk_rope_head_dim and V at v_head_dim per head (`Arch.core_head_dim`, their mean).
    """
    return 2.0 * mb * seq_len * maximum(a.kv_heads / tp, 1.0) * a.core_head_dim * ACT_BYTES


def kv_size(job: Job, mb, tp):
    """`cp_kv_bytes` of the job's model and sequence."""
    return cp_kv_bytes(job.arch, job.seq_len, mb, tp)


def ring(job: Job, cp, tp, mb):
    """(K/V bytes, ranks, stride) of the p2p ring the type runs: the whole cp for p2p, the second group for a2a+p2p.

    Under a2a+p2p each rank holds 1/a2a of the heads after the all-to-all, so the ring passes 1/a2a of the K and V.
    None for the types without a ring.
    """
    if job.cp_comm_type == "p2p":
        return kv_size(job, mb, tp), cp, tp
    if job.cp_comm_type == "a2a+p2p":
        n = a2a_size("a2a+p2p", cp, job.cp_hierarchy)
        return kv_size(job, mb, tp) / n, cp / n, tp * n
    return None


def cp_exposed(hw: Hardware, job: Job, cp, tp, mb, attention, hbm, rc=0):
    """Exposed CP communication of one layer per micro-batch: the ring's excess over the attention, the rest whole."""
    if job.cp_comm_type == "p2p":  # the ring alone, as before the other types
        return X.cp_exposed(hw, kv_size(job, mb, tp), cp, tp, attention, hbm, rc)
    fwd, bwd = exposed_times(hw, job, cp, tp, mb)
    own = (1.0 + X.recomputed(rc)) * fwd + bwd
    hop = ring(job, cp, tp, mb)
    rung = X.cp_exposed(hw, hop[0], hop[1], hop[2], attention, hbm, rc) if hop else 0.0
    return where(cp > 1, own, 0.0) + rung


def cp_exchange(hw: Hardware, job: Job, cp, tp, mb, rc=0):
    """(ring, rest): the ring's exchange before any overlap (`exposure.cp_exchange`) and what is never overlapped."""
    fwd, bwd = exposed_times(hw, job, cp, tp, mb)
    hop = ring(job, cp, tp, mb)
    rung = X.cp_exchange(hw, hop[0], hop[1], hop[2], rc) if hop else 0.0
    return rung, (1.0 + X.recomputed(rc)) * fwd + bwd
