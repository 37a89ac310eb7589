"""What an estimate with context parallelism takes CP to be, in its notes (newuser53).

A job at cp > 1 was timed with CP's K/V exchange hidden behind the attention and the causal attention split evenly
over the cp ranks, and the estimate said neither: which `cp_comm_type` that is (Megatron-core runs four, each timed
as `cp_comm` reads it), that the even split is the load-balanced one Megatron-core and Transformer Engine run, and how
much of the exchange the overlap hides were the reader's to guess. `cp_note` says all three.
"""

from __future__ import annotations

from archgen.perf.comm.placement import members_per_domain
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.numeric import maximum
from archgen.perf.train import cp_comm as CPC
from archgen.perf.train import exposure as X
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.layer import layer_times

#: Where the modelled exchange is Megatron's default: megatron/training/arguments.py at d98e8a6, line 3221,
#: `--cp-comm-type` default ["p2p"] (choices p2p, a2a, allgather, a2a+p2p).
P2P_DEFAULT = "Megatron-LM's default --cp-comm-type p2p (megatron/training/arguments.py at d98e8a6, line 3221)"
#: Where the even split of the causal attention is read: Transformer Engine's CP attention cuts the sequence into 2·cp
#: chunks and gives rank r chunks r and 2cp−1−r "for load balancing" (transformer_engine/pytorch/attention/
#: dot_product_attention/context_parallel.py at d0067d0, line 238), as Megatron-core's data loader splits it
#: (megatron/core/utils.py at d98e8a6, `get_batch_on_this_cp_rank`, line 2660, "per-sequence zigzag").
BALANCED = ("rank r holds chunks r and 2cp-1-r of the sequence cut in 2cp, Transformer Engine's load-balanced split "
            "(context_parallel.py at d0067d0, line 238; Megatron-core get_batch_on_this_cp_rank, utils.py at d98e8a6, "
            "line 2660)")

#: Where the ring's steps are read (`exposure.cp_ring`).
RING = "Transformer Engine AttnFuncWithCPAndKVP2P, context_parallel.py at d0067d0, lines 1418-1419 and 1698-2495"

#: Where the recomputed forward's ring is read (`exposure.CP_RECOMPUTED`).
RECOMPUTED = ("Megatron-core re-runs the checkpointed attention, Transformer Engine's with its ring: attention.py at "
              "d98e8a6, lines 392-395 and 495, recompute_modules ['core_attn'] by default, transformer_config.py line "
              "1941; full recomputation re-runs the layer")


def cp_note(hw: Hardware, job: Job, lay: Layout) -> list[str]:
    """The note of a layout at cp > 1: the exchange modelled, its time beside the attention's, the balanced split.

    Per layer and micro-batch, by the job's `cp_comm_type` (`cp_comm`): the ring's K/V exchange before overlap
    (`exposure.cp_exchange`: Transformer Engine's p2p ring, each step as long as its slowest hop, `exposure.cp_ring`),
    the attention time it runs beside (`exposure.CP_WINDOW` times the core's forward), the all-gathers or all-to-alls
    that run beside nothing, and what stays exposed (`LayerTimes.cp`). Empty at cp 1.
    """
    cp = int(lay.cp)
    if cp <= 1:
        return []
    lt = layer_times(hw, job, tp=lay.tp, mb=lay.micro_batch, cp=lay.cp, ep=lay.ep, rc=lay.recompute,
                     sp=lay.sequence_parallel, etp=lay.etp)
    rc = int(lay.recompute)
    kind = job.cp_comm_type
    ring, rest = (float(x) for x in CPC.cp_exchange(hw, job, cp, lay.tp, lay.micro_batch, rc))
    window = float(X.cp_window(maximum(lt.attention, 0.0), rc))

    def rerun(what: str) -> str:
        """The clause saying `what` runs again where recomputation re-runs the attention; else ""."""
        return (f", and the {what} again in the recomputed {('attention', 'forward')[rc - 1]} ({RECOMPUTED})"
                if X.CP_RECOMPUTED[rc] else "")

    again = rerun("forward")

    def ms(x: float) -> str:
        return f"{x * 1e3:.3g} ms"

    split = f"the causal attention is split evenly over the ranks ({BALANCED})"
    exposed = f"{ms(float(lt.cp))} exposed"
    if kind == "allgather":
        return [f"context parallelism cp {cp}: timed as cp_comm_type allgather (Llama 3's, arXiv 2407.21783 section "
                f"3.3.2): K and V all-gathered before the attention, again in the backward, and dK, dV "
                f"reduce-scattered after it{again}, none beside the attention ({CPC.SOURCES[kind]}): per layer and "
                f"micro-batch {ms(rest)}, {exposed}; {split}"]
    if kind in ("a2a", "a2a+p2p"):
        n = int(CPC.a2a_size(kind, cp, job.cp_hierarchy))
        a2a = (f"all-to-alls of Q, K, V before the attention and of its output after it over {n} ranks, and of "
               f"their gradients in the backward{again}, heads split {n} ways and none beside the attention")
        if kind == "a2a":
            return [f"context parallelism cp {cp}: timed as cp_comm_type a2a (DeepSpeed-Ulysses, arXiv 2309.14509): "
                    f"{a2a} ({CPC.SOURCES[kind]}): per layer and micro-batch {ms(rest)}, {exposed}"]
        return [f"context parallelism cp {cp}: timed as cp_comm_type a2a+p2p, hierarchical_context_parallel_sizes "
                f"[{n}, {cp // n}]: {a2a}, {ms(rest)}; then the p2p ring of {cp // n} ranks passing their K and V "
                f"beside the attention, {ms(ring)} beside {ms(window)} of attention ({CPC.SOURCES[kind]}); per layer "
                f"and micro-batch {exposed}; {split}"]
    hop = ("over the scale-up link, the ring inside one domain" if members_per_domain(hw, cp, lay.tp) >= cp else
           "over one accelerator's own scale-out link, the ring leaving its domain")
    return [f"context parallelism cp {cp}: timed as cp_comm_type p2p, {P2P_DEFAULT}, K and V passed around the ring "
            f"beside the attention: per layer and micro-batch the exchange takes {ms(ring)} (each rank sends its K/V "
            f"chunk to the next, {cp - 1} steps forward, and K/V with their gradients over {cp} steps "
            f"backward{rerun('forward ring')}, each step as long as its "
            f"slowest hop: {hop}; {RING}) beside {ms(window)} of attention, {exposed}; {split}. Not modelled: a split "
            "without that balance (a rank holding one contiguous chunk); cp_comm_type allgather (Llama 3's), a2a "
            "(Ulysses) and a2a+p2p are timed where stated"]
