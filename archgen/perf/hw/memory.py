"""Memory per accelerator for training: weights, gradients, optimizer state, activations.

A serving rank's KV cache per token is `kv_cache_dtype`'s (kvtidy38 moved it there, this module at its 400 lines).

Activations follow Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models" (arXiv
2205.05198), Table 2, written out per saved tensor so that each term can follow the recipe. Per token and layer,
16-bit: the two layer-norm inputs (2h each), the QKV and FC1 inputs (2h each), Q, K and V (2(q + 2·kv)), the
attention output that the projection reads (2q), the FC1 output (2·(mats - 1)·f) and the FC2 input (2f), and one
1-byte dropout mask after attention and one after the MLP. For a GPT layer (f = 4h, MHA, dropout) that is 34h,
plus 5·a·s per token for materialised scores (softmax output, dropout mask and output), 2·a·s without dropout. TP
splits the head- and f-sized terms, SP the h-sized ones; flash attention and selective recomputation keep no
scores; full recomputation keeps each layer's input (2h). FP8 and FP4 recipes save the quantised copy of each
linear layer's input for the backward GEMM (Transformer Engine keeps the low-precision input in its saved tensors),
so the QKV, FC1 and FC2 inputs cost 1 byte per element; the projection input is the attention output, kept in
16 bits by the attention kernel. Dropout with probability 0 (the Llama and Qwen recipes) stores no mask. MLA's
attention block keeps its own tensors (`attention_memory`).

Per pipeline rank (`pipeline_split.Split`), the micro-batches in flight follow Megatron's schedules
(pipeline_parallel/schedules.py `get_pp_rank_microbatches`): p - r on rank r of 1F1B; 2(p - r - 1) + (v - 1)·G + 1
model chunks of l_r / v layers when interleaved (at most m·v), with G the micro-batch group
(`microbatch_group_size_per_vp_stage`, `group_size`), which for G = p and r = 0 is Korthikanti's
l·(1 + (p - 1)/(p·v)).

State per parameter: the 16-bit weights (1 byte under FP8 with `fp8_param_gather`, which keeps the compute
weights in FP8), the gradient buffer in the reduction dtype (4 bytes fp32, 2 bytes bf16/fp16), and the optimizer:
fp32 master weights and Adam's two moments (12 bytes), plus a 4-byte fp32 main-gradient shard when the buffer is
16-bit (Megatron-LM docs, distributed optimizer: 6 + 12/d bytes for bf16 parameters with fp32 gradients, 4 + 16/d
for 16-bit gradients). ZeRO-1 (the distributed optimizer) divides the optimizer by dp, ZeRO-2 the gradients too,
ZeRO-3 / FSDP the weights as well, and then holds a gather window of two layers' full weights (the layer computing
and the one being prefetched). Sharded gradients (ZeRO-2 and 3) are not sharded while they are made: Megatron-FSDP
(megatron/core/distributed/fsdp/src/docs/mfsdp_design.md at Megatron-LM d98e8a6, "During backward: autograd sets
param.grad: a full-size plain Tensor"; "Post-backward: reduce-scatter param.grad ... release param.grad") keeps a
layer's full gradient until its reduce-scatter ends, so a rank also holds a gradient window of two layers' full
gradients in the reduction dtype (the layer computing its gradients and the one whose reduce-scatter overlaps it;
Calculon counts one such block, `llm.py` 1914-1923 at caa4b11, though its comment there states two).

Offload to host memory (`offload`, a bit code: 1 activations, 2 optimizer state), as Megatron-core implements it:
activation offload (`--fine-grained-activation-offloading`, which works with PP, interleaving and recomputation)
copies each layer's saved tensors to pinned host memory during the forward pass and back before its backward, so
the accelerator keeps `OFFLOAD_WINDOW_LAYERS` layers of one micro-batch (the one computing and the one in flight);
optimizer offload (`--optimizer-cpu-offload`, offload fraction 1, `HybridDeviceOptimizer`) keeps the fp32 master
weights, Adam's moments and an fp32 copy of the gradient shard on the host (16 bytes per parameter of the shard)
and none of the optimizer state on the accelerator. What is offloaded is `TrainingMemory.host`, judged against the
host memory per accelerator.

Weight offload (bit 4) is Calculon's mechanism, which no stack archgen profiles runs (`offload` says why): the rank's
layer weights (its ZeRO-3 shard under stage 3) live in host memory and each layer is fetched before it computes, so
the accelerator keeps `GATHER_WINDOW_LAYERS` layers' weights (the one computing and the one prefetched: Calculon's
`get_weight_space_min`, two blocks, `calculon/llm/llm.py` 2172-2173 at caa4b11; ZeRO-Infinity's prefetch, arXiv
2104.07857 section 6.2) and the embedding and output layer's share; gradients and optimizer state stay where they
were (Calculon's `_get_mem_cap_reqs`, llm.py 2241-2271).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from archgen.perf.hw.arch import Arch
from archgen.perf.hw.attention_memory import attention_saved_bytes
from archgen.perf.hw.kernels import DTYPE_BYTES
from archgen.perf.hw.numeric import NUMBER, as_float, minimum, where
from archgen.perf.hw.record import quick_init
from archgen.perf.hw.reserve import fit_memory

#: Bytes per parameter of the optimizer state: fp32 master weights, Adam first and second moments.
OPTIMIZER_BYTES = 12.0
#: Bytes per parameter of the working weights: BF16, a parameter's type (the activations' is `kernels.ACT_BYTES`, the
#: same 2 bytes by another reading); FP8/FP4 recipes keep BF16 copies for the GEMMs.
WEIGHT_BYTES = float(DTYPE_BYTES["bf16"])
#: Layers whose full weights a ZeRO-3 / FSDP rank holds at once: the one computing and the one prefetched.
GATHER_WINDOW_LAYERS = 2.0
#: Layers whose full gradients a ZeRO-2 / ZeRO-3 rank holds at once: the one computing and the one reduce-scattered.
GRAD_WINDOW_LAYERS = 2.0
#: Layers of one micro-batch whose activations stay on the accelerator under activation offload: the one computing
#: and the one being copied (Calculon's minimum tier-1 activation space is one block's working and stored set).
OFFLOAD_WINDOW_LAYERS = 2.0
#: Host bytes per parameter of the optimizer shard under optimizer offload: fp32 master weights and Adam's two
#: moments (12) and the pinned fp32 gradient copy the CPU step reads (4) (Megatron-core HybridDeviceOptimizer).
HOST_OPTIMIZER_BYTES = 16.0
OFFLOAD_CODES = {"none": 0, "activations": 1, "optimizer": 2, "both": 3, "weights": 4, "weights+activations": 5,
                 "weights+optimizer": 6, "weights+both": 7}
#: The bit of `OFFLOAD_CODES` that offloads weights (a model-only option: no stack archgen profiles runs it).
WEIGHT_OFFLOAD = 4


@quick_init
@dataclass(frozen=True)
class TrainingMemory:
    """Bytes per accelerator (arrays when evaluated for many layouts)."""

    weights: np.ndarray | float
    gradients: np.ndarray | float
    optimizer: np.ndarray | float
    activations: np.ndarray | float
    host: np.ndarray | float = 0.0
    reserve: np.ndarray | float = 0.0  # the runtime's own (`reserve.runtime_reserve`), once per rank

    @property
    def total(self):
        """Sum of the parts held on the accelerator (`host` is offloaded to host memory), the runtime's included."""
        return self.weights + self.gradients + self.optimizer + self.activations + self.reserve

    def fits(self, capacity, host_capacity, waste: float = 0.0):
        """Whether it fits `capacity` (B) and its host share `host_capacity`, at `waste` (`reserve.fit_memory`)."""
        return (fit_memory(self.total, self.reserve, waste) <= capacity) & (self.host <= host_capacity)


def _layer_params(arch: Arch, tp, ep, etp=None):
    """Parameters of one average layer on one rank (dense and MoE layers in proportion).

    The dense part is split tp ways, the routed experts etp x ep ways (etp defaults to tp).
    """
    dense, expert = layer_parts(arch, tp, ep, etp)
    return dense + expert


def layer_parts(arch: Arch, tp, ep, etp=None):
    """(dense part, routed experts) of one average layer's parameters on one rank (see `_layer_params`)."""
    etp = tp if etp is None else etp
    dense = arch.layers - arch.moe_layers
    expert_part = (arch.experts * arch.expert_params) if arch.experts else 0
    moe_rest = arch.layer_params(True) - expert_part
    per = (dense * arch.layer_params(False) + arch.moe_layers * moe_rest) / tp
    return per / arch.layers, arch.moe_layers * expert_part / (etp * ep) / arch.layers


def layer_params(arch: Arch, tp, ep, etp=None):
    """Parameters of one average layer on one rank (`_layer_params`): what weight offload fetches per layer."""
    return _layer_params(arch, tp, ep, etp)


def params_per_gpu(arch: Arch, tp, pp, ep, layers=None, embedding=1.0, loss=0.0, etp=None):
    """Parameters held by one pipeline rank: its layers (default layers / pp), the embedding and the output layer.

    Shards are by tp (the routed experts by etp x ep, etp defaulting to tp). `layers`, `embedding` and `loss` may be
    rank-class arrays (`pipeline_split.Split`); by default the rank holds an even share of the layers and the embedding.
    """
    dense, expert = expert_split(arch, tp, pp, ep, layers, embedding, loss, etp)
    return dense + expert


def expert_split(arch: Arch, tp, pp, ep, layers=None, embedding=1.0, loss=0.0, etp=None, parts=None):
    """`params_per_gpu` as (everything but the routed experts, the routed experts).

    The two have their gradients reduced and their optimizer state sharded over different data-parallel groups
    (`expert_data_parallel`). `parts` is `layer_parts(arch, tp, ep, etp)` where the caller has it.
    """
    return _split_parts(arch, tp, pp, layer_parts(arch, tp, ep, etp) if parts is None else parts, layers, embedding,
                        loss)


def _split_parts(arch: Arch, tp, pp, parts, layers, embedding, loss):
    """`expert_split` from one average layer's `layer_parts` (the loss rank with the MTP layers, `mtp_split`)."""
    n = arch.layers / pp if layers is None else layers
    dense, expert = parts
    pd, pe = n * dense + (embedding + loss) * arch.vocab * arch.hidden / tp, n * expert
    if arch.mtp_layers:
        md, me = mtp_split(arch, tp, parts)
        pd, pe = pd + loss * md, pe + loss * me
    return pd, pe


def mtp_split(arch: Arch, tp, parts):
    """(everything but the routed experts, the routed experts) of the job's MTP layers on the rank that holds them.

    Megatron-core builds them all on the last pipeline stage, beside the loss, without a layout string
    (multi_token_prediction.py at d98e8a6, `get_mtp_num_layers_to_build`). Split as a layer's `layer_parts` (an MoE
    block's routed experts as the average layer's over its share of MoE layers), the projection and norms tp ways.
    """
    moe = arch.mtp_moe
    routed = arch.experts * arch.expert_params if moe else 0
    dense = arch.mtp_layers * (arch.layer_params(moe) - routed + arch.mtp_extra_params) / tp
    return dense, (arch.mtp_layers * parts[1] * arch.layers / arch.moe_layers if moe else 0.0)


def expert_data_parallel(dp, tp, ep, etp=None):
    """Ranks of the expert data-parallel group (EDP) for `dp` data-parallel ranks (context-parallel ranks included).

    Megatron-core folds the MoE layers' parallelism over the attention's (MoE parallel folding): a pipeline stage's
    tp·cp·dp ranks are etp·ep·edp for the experts (parallel_state.py `initialize_model_parallel` at d98e8a6:
    expert_data_parallel_size = world_size // (etp·ep·pp)), so edp = tp·dp / (etp·ep) with etp defaulting to tp;
    without folding (etp = tp) that is dp / ep. The experts' gradients are reduced, and their optimizer state sharded,
    over these ranks (the distributed optimizer's expert buffers).
    """
    etp = tp if etp is None else etp
    return tp * dp / (etp * ep)


def layer_activation_bytes(arch: Arch, *, seq_len, micro_batch, tp, cp, recompute, sp, flash: bool,
                           precision: str = "bf16", dropout: bool = True, etp=None):
    """Activation bytes one layer keeps for one micro-batch on one rank (see the module docstring).

    An MoE layer's experts see the rank's T/tp tokens' top_k copies gathered over the etp ranks that split the same
    experts (Megatron-core's all-to-all dispatcher: all-to-all over EP, then all-gather over the expert-TP group), so
    the expert FC1 input keeps top_k·h·etp/tp per token, the expert intermediates top_k·f/tp (f split etp ways).
    """
    etp = tp if etp is None else etp
    s = seq_len / cp
    tokens = s * micro_batch
    h, low = arch.hidden, precision in ("fp8", "fp4")
    lin = 1.0 if low else 2.0  # bytes of a saved linear-layer input
    if type(sp) is bool and isinstance(tp, NUMBER):   # one layout of plain numbers: no array (issue 25)
        hs = tp if sp else 1
    else:
        hs = where(sp, tp, 1)   # sequence parallelism splits the h-sized terms tp ways
    masks = 2.0 if dropout else 0.0
    if arch.experts:
        k, ef = arch.top_k, arch.expert_ffn
        ffn = (lin * k * h * etp + 2.0 * k * (arch.ffn_mats - 1) * ef + lin * k * ef) / tp
        if arch.shared_experts:
            f = arch.shared_experts * ef
            ffn = ffn + (2.0 * (arch.ffn_mats - 1) * f + lin * f) / tp
    else:
        f = arch.ffn
        ffn = (2.0 * (arch.ffn_mats - 1) * f + lin * f) / tp
    ffn_h = lin * h  # the FC1 input (an MoE layer's, before its tokens are permuted)
    h_terms = 2.0 + lin + 2.0 + ffn_h / h + masks  # LN1 in, QKV in, LN2 in, FC1 in, dropout masks (units of h)
    head_terms, more_h = attention_saved_bytes(arch, tp, hs, lin, low)  # Q, K, V, O (and MLA's latents)
    scores = 0.0 if flash else (5.0 if dropout else 2.0) * arch.heads * s / tp
    per_token = (h_terms + more_h) * h / hs + head_terms + ffn + where(recompute == 1, 0.0, scores)
    return tokens * where(recompute == 2, 2.0 * h / hs, per_token)


def _smallest_group(pp: int, m: float) -> int:
    """`group_size` of one pipeline: pp when m is a multiple of pp (or no valid layout), else the first valid G."""
    if m != int(m) or m <= pp or int(m) % pp == 0:
        return pp
    mi = int(m)
    return next(g for g in range(pp + 1, mi + 1) if mi % g == 0 or mi % g >= pp)  # g = m always qualifies


def group_size(pp, microbatches):
    """Megatron-core's smallest valid `microbatch_group_size_per_vp_stage` G for m micro-batches on pp stages.

    schedules.py at d98e8a6 (`forward_backward_pipelining_with_interleaving`, lines 1160-1180) raises unless
    pp <= G <= m and the last group, m mod G, is empty or holds at least pp micro-batches; the default G is pp
    (model_parallel_config.py `__post_init__`, lines 567-568). So G = pp when pp divides m, else the smallest G in
    (pp, m] meeting the rule (m = 12, pp = 8: 9, 10 and 11 leave 3, 2 and 1, so G = 12).
    """
    one = isinstance(pp, NUMBER) and isinstance(microbatches, NUMBER)  # before np.ndim: slow on numbers (issue 25)
    if one or (np.ndim(pp) == 0 and np.ndim(microbatches) == 0):
        return float(_smallest_group(int(pp), float(microbatches)))
    p, m = np.broadcast_arrays(np.asarray(pp, dtype=float), np.asarray(microbatches, dtype=float))
    groups = p.astype(float, copy=True)
    odd = (m > p) & (m == np.floor(m)) & (np.mod(m, p) != 0)  # the only pipelines whose G is not pp
    if odd.any():
        po, mo = p[odd], m[odd]
        _, first, inverse = np.unique(mo * (po.max() + 1) + po, return_index=True, return_inverse=True)
        found = np.array([_smallest_group(int(po[i]), float(mo[i])) for i in first], dtype=float)
        groups[odd] = found[inverse.ravel()]
    return groups


def in_flight_chunks(pp, interleave, position, microbatches, group=None):
    """Model chunks whose activations a pipeline rank holds at its peak (Megatron's warmup counts).

    Interleaved, the warmup holds the micro-batch group G of `group_size` (schedules.py `get_pp_rank_microbatches`
    at d98e8a6, lines 964-965), plus the one forward of the first 1F1B step. `group` is that G where the caller has
    it (it does not depend on the rank).
    """
    plain = minimum(microbatches, pp - position)
    g = group_size(pp, microbatches) if group is None else group
    inter = minimum(microbatches * interleave, 2.0 * (pp - position - 1) + (interleave - 1) * g + 1)
    return where(interleave > 1, inter, plain)


def activation_bytes(arch: Arch, *, seq_len, micro_batch, tp, pp, cp, interleave, recompute, sp, flash: bool,
                     microbatches, precision: str = "bf16", dropout: bool = True, layers=None, position=0.0,
                     etp=None, per_layer=None):
    """Activation bytes on a pipeline rank (default: the first, holding l / pp layers and the most in flight).

    `per_layer` is `layer_activation_bytes` of the same arguments where the caller has it.
    """
    if per_layer is None:
        per_layer = layer_activation_bytes(arch, seq_len=seq_len, micro_batch=micro_batch, tp=tp, cp=cp,
                                           recompute=recompute, sp=sp, flash=flash, precision=precision,
                                           dropout=dropout, etp=etp)
    n = arch.layers / pp if layers is None else layers
    return per_layer * n / interleave * in_flight_chunks(pp, interleave, position, microbatches)


def training_memory(arch: Arch, *, precision: str, seq_len, micro_batch, tp, pp, dp, cp, ep, interleave, recompute,
                    sp, flash: bool, distributed_optimizer=None, microbatches, zero=None, grad_bytes=None,
                    weight_bytes=WEIGHT_BYTES, dropout: bool = True, layers=None, embedding=1.0, loss=0.0,
                    position=0.0, offload=0, etp=None, per_layer=None) -> TrainingMemory:
    """Weights, gradients, optimizer state and activations of one pipeline rank (by default the first).

    `zero` is the sharding stage (0 none, 1 optimizer, 2 + gradients, 3 + weights); `distributed_optimizer`
    alone means stage 1. `grad_bytes` defaults to 2 for fp16 and 4 (fp32 main gradients) otherwise. `offload` is
    the bit code of what lives in host memory (see the module docstring). `dp` counts the context-parallel ranks;
    the routed experts are split etp x ep ways (etp defaults to tp) and sharded over the expert data-parallel ranks
    (`expert_data_parallel`), the rest over dp. `per_layer` is `layer_activation_bytes` of the same layout where
    the caller has it (it does not depend on the rank class).
    """
    shared = layout_memory(arch, precision=precision, seq_len=seq_len, micro_batch=micro_batch, tp=tp, pp=pp, dp=dp,
                           cp=cp, ep=ep, interleave=interleave, recompute=recompute, sp=sp, flash=flash,
                           distributed_optimizer=distributed_optimizer, microbatches=microbatches, zero=zero,
                           grad_bytes=grad_bytes, weight_bytes=weight_bytes, dropout=dropout, offload=offload,
                           etp=etp, per_layer=per_layer)
    return rank_memory(shared, layers, embedding, loss, position)


def layout_memory(arch: Arch, *, precision: str, seq_len, micro_batch, tp, pp, dp, cp, ep, interleave, recompute,
                  sp, flash: bool, distributed_optimizer=None, microbatches, zero=None, grad_bytes=None,
                  weight_bytes=WEIGHT_BYTES, dropout: bool = True, offload=0, etp=None, per_layer=None) -> tuple:
    """What `training_memory` computes once for every pipeline rank class of a layout (`rank_memory` takes it)."""
    stage = as_float(zero if zero is not None else (1 if distributed_optimizer else 0))
    gb = grad_bytes if grad_bytes is not None else (2.0 if precision == "fp16" else 4.0)
    parts = layer_parts(arch, tp, ep, etp)
    edp = expert_data_parallel(dp, tp, ep, etp)
    layer = parts[0] + parts[1]  # `_layer_params`
    per_layer = layer_activation_bytes(arch, seq_len=seq_len, micro_batch=micro_batch, tp=tp, cp=cp,
                                       recompute=recompute, sp=sp, flash=flash, precision=precision, dropout=dropout,
                                       etp=etp) if per_layer is None else per_layer
    code = offload if isinstance(offload, int) else np.asarray(offload)
    return (arch, tp, pp, dp, cp, interleave, micro_batch, microbatches, seq_len, weight_bytes, stage, gb, parts, edp,
            layer, per_layer, code, group_size(pp, microbatches))


def rank_memory(shared: tuple, layers=None, embedding=1.0, loss=0.0, position=0.0) -> TrainingMemory:
    """`training_memory` of one pipeline rank class (its layers, embedding, loss and position) of `layout_memory`."""
    return TrainingMemory(*rank_parts(shared, layers, embedding, loss, position))


def rank_parts(shared: tuple, layers=None, embedding=1.0, loss=0.0, position=0.0) -> tuple:
    """`rank_memory`'s fields as a tuple, in `TrainingMemory`'s order (a search's classes are compared, not kept)."""
    arch, tp, pp, dp, cp, interleave, micro_batch, microbatches, seq_len, weight_bytes, stage, gb, parts, edp, layer, \
        per_layer, code, group = shared
    pd, pe = _split_parts(arch, tp, pp, parts, layers, embedding, loss)
    p = pd + pe
    shard = pd / dp + pe / edp
    # parameters of this rank's shard at sharding stage 1, 2, 3: the dense ones over dp, the experts over edp
    sharded1, sharded2, sharded3 = where(stage >= 1, shard, p), where(stage >= 2, shard, p), where(stage >= 3, shard, p)
    window = GATHER_WINDOW_LAYERS * layer * weight_bytes
    grads = gb * sharded2 + where(stage >= 2, GRAD_WINDOW_LAYERS * layer * gb, 0.0)
    weights = where(stage >= 3, weight_bytes * sharded3 + window, weight_bytes * p)
    opt = (OPTIMIZER_BYTES + (4.0 if gb < 4 else 0.0)) * sharded1
    n = arch.layers / pp if layers is None else layers
    d = arch.mtp_layers  # the loss rank's MTP layers: one more layer's activations and logits each (`mtp_split`)
    act = per_layer * (n + loss * d) / interleave * in_flight_chunks(pp, interleave, position, microbatches, group)
    logits = loss * (1 + d) * micro_batch * seq_len / cp * arch.vocab / tp * 4.0  # fp32, one micro-batch (last rank)
    resident = OFFLOAD_WINDOW_LAYERS * per_layer
    act_gpu = where(code & 1, minimum(act, resident), act)
    host = (act - act_gpu) + where(code & 2, HOST_OPTIMIZER_BYTES * sharded1, 0.0)
    # weight offload: the layers' weights (their ZeRO-3 shard) on the host, a window of two and the rest on the device
    if isinstance(code, int) and not code & WEIGHT_OFFLOAD:  # one layout without it: what the `where`s give
        host = host + 0.0
    else:
        share = where(stage >= 3, sharded3 / where(p > 0, p, 1.0), 1.0)  # a class of no ranks holds none (p 0)
        host = host + where(code & WEIGHT_OFFLOAD, weight_bytes * n * layer * share, 0.0)
        weights = where(code & WEIGHT_OFFLOAD, window + weight_bytes * (p - n * layer) * share, weights)
    return weights, grads, where(code & 2, 0.0, opt), act_gpu + logits, host


def none_fits_note(evaluated: int, gpus: int, accelerator: str,
                   least: tuple[str, float, float, float, float] | None = None) -> str:
    """Why a searched training job does not fit: no valid layout does.

    `least`: the layout that misses by the least (as text, `layouts.least_memory`), its HBM and host memory and the
    part's HBM and host share (B), where known: the figure a person can act on, and the way to see its estimate.
    """
    out = f"none of the {evaluated} valid layouts of {gpus} x {accelerator} fits in HBM"
    if least is None:
        return out
    text, total, host, capacity, host_capacity = least
    held = (f", and {host / 1e9:.1f} GB of host memory, {host_capacity / 1e9:.1f} GB its share of the node's"
            if host > 0 else "")
    return (f"{out}: the nearest to fitting, {text}, {misfit_text(total, capacity)}{held}; state that layout whole "
            "to see its estimate, marked as not fitting")


def misfit_text(total: float, capacity: float) -> str:
    """Why a training layout does not fit (`Estimate.misfit`): its busiest rank's memory against the HBM (B)."""
    return f"needs {total / 1e9:.1f} GB per accelerator, {capacity / 1e9:.1f} GB available"


def does_not_fit_note(total: float, capacity: float) -> str:
    """The note of a training layout that does not fit (`misfit_text`)."""
    return f"does not fit: {misfit_text(total, capacity)}"
