"""A parallel layout's rules: why a TP, PP, DP, CP, EP, micro-batch and interleave layout is invalid, in words.

The one rule set of stated and searched layouts (`layout_problems`; the search in `layouts` enumerates only what
it allows): Megatron-core's pipeline split, micro-batch groups, MoE parallel folding and EP-overlap refusals, the
stack's KV-head sub-sharding, and offload's need of host memory. Split from `layouts` (the search) for its size.
"""

from __future__ import annotations

from archgen.model.workload import layout_said
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.memory import OFFLOAD_CODES
from archgen.perf.train.cp_comm import cp_comm_problem
from archgen.perf.train.job import Job
from archgen.perf.train.pipeline_split import (
    DEFAULT,
    PipelineOptions,
    expanded_layout,
    layout_interleave,
    slot_count,
    split_problems,
    spread_layout,
)
from archgen.perf.train.refused import (
    CP_NEEDS_TE_ATTENTION,
    OPTIMIZER_OFFLOAD_NEEDS_DO,
    bare_split_problem,
    cp_split_problem,
    kv_heads_problem,
    optimizer_offload_refused,
)


def divisors(n: int) -> list[int]:
    """Positive divisors of n, ascending."""
    small = [d for d in range(1, int(n ** 0.5) + 1) if n % d == 0]
    return sorted(set(small + [n // d for d in small]))


class LayoutProblem(str):
    """Why a layout is invalid: the message (a `str`, as it is shown) and the layout field at fault (`field`)."""

    field: str

    def __new__(cls, field: str, message: str) -> LayoutProblem:
        """The problem `message` about layout field `field`."""
        problem = super().__new__(cls, message)
        problem.field = field
        return problem

    @property
    def public(self) -> str:
        """The message in a customer's words: the layout fields it names by key in words (`workload.layout_said`)."""
        return layout_said(str(self))

    def __reduce__(self) -> tuple:
        """Pickled with its field (`str`'s own keeps the message only)."""
        return (LayoutProblem, (self.field, str(self)))


def interleaves(layers: int, pp: int, pipeline: PipelineOptions = DEFAULT) -> list[int]:
    """Virtual stages to try: 1, and with pp > 1 each v that can split the layers (`pipeline_split.split_problems`).

    Not every count up to one layer per stage, but only the divisors that an interleaved split needs: v divides each
    rank's share of the layers and slots (l, l + 1 or l + 2 over pp; the embedding and loss slots), the stated
    first- or last-stage count, or is the one a layout string implies. So the list holds at most a few dozen values
    whatever the model (a 10,000-layer model on pp 2 tried 5,001 interleaves before, issue 23 item 5).
    """
    if pp < 2:
        return [1]
    if pipeline.layout is not None:
        v = layout_interleave(pipeline.layout, pp)
        return [v] if v else [1]
    if pipeline.first_stage_layers is not None or pipeline.last_stage_layers is not None:
        given = [n for n in (pipeline.first_stage_layers, pipeline.last_stage_layers) if n is not None and n > 0]
        return divisors(given[0]) if given else [1]
    shares = {(layers + k) // pp for k in (0, 1, 2) if (layers + k) % pp == 0 and layers + k >= pp}
    return sorted({1}.union(*(divisors(n) for n in shares)))


def layout_problems(arch: Arch, job: Job, gpus: int, *, tp: int, pp: int, dp: int, cp: int = 1, ep: int = 1,
                    micro_batch: int = 1, interleave: int = 1, scale_up_size: int | None = None,
                    pipeline: PipelineOptions = DEFAULT, check_batch: bool = True, offload: int = 0,
                    host_memory: bool | None = None, etp: int | None = None, recompute: int = 0,
                    zero: int | None = None) -> list[LayoutProblem]:
    """Why a layout is invalid, in words (empty when it is valid): the one rule set of stated and searched layouts.

    The pipeline rules are Megatron-core's (`pipeline_split.split_problems`), and a split that states no placement
    must be one the job's stack places (`refused.bare_split_problem`: megatron-lm-2021 and -core-2024); an
    interleaved schedule also needs at least pp micro-batches per pipeline (`check_batch`: only when the micro-batch
    is known), and a multiple of pp where `pipeline.whole_groups` asks for Megatron-core's default micro-batch groups
    (schedules.py at d98e8a6 raises when the last group of `microbatch_group_size_per_vp_stage`, pp by default, is
    shorter than pp).
    Offload needs host memory (`host_memory`: whether the system states it; None when not known), and optimizer
    offload the distributed optimizer (`optimizer_offload_refused`; `zero` None: not judged). Context parallelism
    needs Transformer Engine's attention (`CP_NEEDS_TE_ATTENTION`) and what its `cp_comm_type` needs
    (`cp_comm.cp_comm_problem`: a2a, heads divisible by cp; a2a+p2p, the hierarchical sizes), tp above the KV heads
    the stack's sub-sharding (`kv_heads_problem`), and tp divides a dense layer's FFN (`ffn_problem`). The experts'
    rules are Megatron-core's MoE parallel folding (`experts`): ep divides the experts and etp x ep (etp defaulting to
    tp) the tp x cp x dp ranks of a pipeline stage, ep need not divide dp; and etp divides the expert FFN.
    """
    out: list[LayoutProblem] = []
    for name, v in (("tp", tp), ("pp", pp), ("dp", dp), ("cp", cp), ("ep", ep), ("micro_batch", micro_batch),
                    ("interleave", interleave)):
        if v <= 0:
            out.append(LayoutProblem(name, f"{name} must be a positive integer, got {v}"))
    if out:
        return out
    if tp * pp * dp * cp != gpus:
        out.append(LayoutProblem("dp", f"tp x pp x dp x cp = {tp} x {pp} x {dp} x {cp} = {tp * pp * dp * cp} does not "
                                       f"equal the {gpus} accelerators"))
    if arch.heads % tp:
        out.append(LayoutProblem("tp", f"tp ({tp}) does not divide the {arch.heads} attention heads"))
    if problem := ffn_problem(arch, tp):
        out.append(LayoutProblem("tp", problem))
    out += [LayoutProblem("tp", kv)] if (kv := kv_heads_problem(arch.kv_heads, tp, job.qkv_subsharding)) else []
    if pipeline.layout is None and arch.layers + slot_count(arch.layers, pp, interleave, pipeline) < pp * interleave:
        out.append(LayoutProblem("pp", f"{arch.layers} layers cannot fill pp x interleave = {pp * interleave} stages"))
    else:
        split = split_problems(arch.layers, pp, interleave, pipeline)
        out += [LayoutProblem("pp", m) for m in split]
        if not split and pipeline.layout is not None:  # its m, as many as the job's MTP layers, before the loss
            out += [LayoutProblem("pp", m) for m in mtp_problems(pipeline.layout, arch.mtp_layers)]
        ranks = gpus // (tp * cp) if gpus % (tp * cp) == 0 else None
        if not split and (bare := bare_split_problem(job.split_stack, arch.layers, pp, interleave, pipeline, ranks,
                                                     arch.mtp_layers)):
            out.append(LayoutProblem("pp", bare))  # a split the job's stack places no way (`UNEVEN_SPLITS`)
    if job.global_batch % (dp * micro_batch):
        out.append(LayoutProblem("micro_batch", f"global batch {job.global_batch} is not divisible by dp x micro_batch "
                                                f"= {dp} x {micro_batch}"))
    elif check_batch and interleave > 1 and job.global_batch // (dp * micro_batch) < pp:
        out.append(LayoutProblem("interleave", f"an interleaved schedule needs at least pp = {pp} micro-batches per "
                                               f"pipeline, got {job.global_batch // (dp * micro_batch)}"))
    elif check_batch and interleave > 1 and pipeline.whole_groups and (job.global_batch // (dp * micro_batch)) % pp:
        m = job.global_batch // (dp * micro_batch)
        out.append(LayoutProblem("interleave", f"an interleaved schedule in groups of pp = {pp} micro-batches needs a "
                                               f"multiple of pp per pipeline, got {m}"))
    if problem := cp_split_problem(job.seq_len, cp):
        out.append(LayoutProblem("cp", problem))
    if problem := cp_comm_problem(arch, job, tp, cp):
        out.append(LayoutProblem("cp", problem))
    out += [LayoutProblem(f, m) for f, m in expert_problems(arch, tp, dp, cp, ep, etp)]
    out += [LayoutProblem(f, m) for f, m in ep_overlap_problems(job, ep, pp, interleave, recompute)]
    if scale_up_size is not None and tp > scale_up_size:
        out.append(LayoutProblem("tp", f"tp ({tp}) exceeds the scale-up domain of {scale_up_size} accelerators"))
    if offload and zero is not None and optimizer_offload_refused(offload, zero):
        out.append(LayoutProblem("offload", OPTIMIZER_OFFLOAD_NEEDS_DO))
    if job.attention == "materialized" and cp > 1:
        out.append(LayoutProblem("cp", CP_NEEDS_TE_ATTENTION))
    if offload and host_memory is False:
        name = {v: k for k, v in OFFLOAD_CODES.items()}[offload]
        out.append(LayoutProblem("offload", f"offload ({name}) needs host memory, and the system states none "
                                            "(System.host_memory)"))
    return out


def mtp_problems(text: str, mtp: int) -> list[str]:
    """Why a layout string does not place the job's `mtp` MTP layers as the model times them (empty when it does).

    Megatron-core asks for one `m` per MTP layer, after every decoder layer (pipeline_parallel_layer_layout.py at
    d98e8a6, lines 112-119); it also runs them on a stage of their own, but the model times them beside the loss
    (`perf.train.layer.mtp_time`), as Megatron-Bridge's DeepSeek-V3 layouts place them ("...tmL").
    """
    s = expanded_layout(text)
    if s.count("m") != mtp:
        return [f"pipeline_layout '{text}' places {s.count('m')} MTP layers (m) and the job trains {mtp}: "
                "Megatron-core asserts 'Number of mtp layers in layout must match mtp_num_layers' (pipeline_parallel_"
                f"layer_layout.py at d98e8a6, line 112); expected {'m' * mtp or 'no m'} before the final L"]
    if mtp and not s.endswith("m" * mtp + "L"):
        return [f"pipeline_layout '{text}' does not end with its MTP layers and the loss ({'m' * mtp}L): the model "
                "times them beside the loss on the last stage (a stage of their own, which Megatron-core also runs, is "
                "not modelled)"]
    return []


def ep_overlap_problems(job: Job, ep: int, pp: int, interleave: int, recompute: int) -> list[tuple[str, str]]:
    """(field, why) of a layout Megatron-core refuses under the EP all-to-all overlap (`overlap_ep_comm`)."""
    if not job.overlap_ep_comm:
        return []
    vpp, full = ep_overlap_refused(ep, pp, interleave, recompute)
    return ([("interleave", EP_OVERLAP_NEEDS_VPP + interleave_hint(job.arch.layers, pp))] if vpp else []) + (
        [("recompute", EP_OVERLAP_NO_FULL_RECOMPUTE)] if full else [])


def interleave_hint(layers: int, pp: int) -> str:
    """What to state instead of an uninterleaved pipeline that the EP overlap refuses (`EP_OVERLAP_NEEDS_VPP`).

    interleave 2 where the layers split evenly over pp x 2 virtual stages; else that and a `pipeline_layout` placing
    them (`pipeline_split.spread_layout`), which Megatron-core's layout string allows for any count. DeepSeek-V3 ran
    this overlap under DualPipe, its own bidirectional schedule (arXiv 2412.19437, section 3.2.1), which archgen does
    not model (docs/perf-model.md, Limitations): the interleaved schedule is the one stated here instead.
    """
    if not split_problems(layers, pp, 2):
        return f"; state interleave 2 (or more) with pp {pp}"
    spread = spread_layout(layers, pp, 2)
    if spread is None:
        return f"; {layers} layers are fewer than pp x 2 = {2 * pp} virtual stages: lower pp"
    return (f"; state pipeline_layout '{spread}' ({layers} layers on pp {pp} x interleave 2, Megatron-core's layout "
            "string); DualPipe, DeepSeek-V3's schedule, is not modelled")


def ep_overlap_refused(ep, pp, interleave, recompute):
    """Where Megatron-core refuses a layout under the EP overlap: (pp > 1 uninterleaved, full recomputation).

    Numbers or arrays of layouts alike. Selective recomputation (the attention core, `recompute_modules`' default)
    is allowed: of the modules only "moe" is refused, which the model's selective recomputation does not recompute.
    """
    on = ep > 1  # the overlap acts only with expert parallelism
    return on & (pp > 1) & (interleave == 1), on & (recompute == 2)


#: Megatron-core's rule (megatron/core/transformer/transformer_config.py at d98e8a6, `__post_init__`: "disable full
#: recomputation", "recompute_num_layers must be None" and "disable moe in recompute_modules" when enabling
#: overlap_moe_expert_parallel_comm, and with pp > 1 "virtual_pipeline_model_parallel_size must be specified").
EP_OVERLAP_NEEDS_VPP = ("the EP all-to-all overlap (overlap_ep_comm) with pp > 1 needs an interleaved schedule "
                        "(Megatron-core: virtual_pipeline_model_parallel_size must be specified)")
EP_OVERLAP_NO_FULL_RECOMPUTE = ("the EP all-to-all overlap (overlap_ep_comm) refuses full recomputation "
                                "(Megatron-core: 'disable full recomputation when enabling "
                                "overlap_moe_expert_parallel_comm')")


def expert_problems(arch: Arch, tp: int, dp: int, cp: int, ep: int, etp: int | None) -> list[tuple[str, str]]:
    """(field, why) of an expert layout Megatron-core refuses (`experts`).

    ep must divide the experts (training/arguments.py), etp x ep the tp x cp x dp ranks of a pipeline stage
    (parallel_state.py `initialize_model_parallel`: world_size % (etp·ep·pp) is a RuntimeError), and etp (tp where
    left out) the expert FFN, stated or not (`EXPERT_FFN_SOURCE`; before leftover39 only a searched etp was held to
    it, `layouts.expert_tp_sizes`).
    """
    out = []
    if etp is not None and etp <= 0:
        return [("etp", f"etp must be a positive integer, got {etp}")]
    if (ep > 1 or etp is not None) and not arch.experts:
        return [("ep" if ep > 1 else "etp", f"{'ep' if ep > 1 else 'etp'} ({ep if ep > 1 else etp}) needs a "
                                            "mixture-of-experts model")]
    if arch.experts and arch.experts % ep:
        out.append(("ep", f"ep ({ep}) must divide the {arch.experts} experts"))
    e = tp if etp is None else etp
    if arch.experts and (tp * cp * dp) % (e * ep):
        out.append(("ep", f"etp x ep = {e} x {ep} must divide the tp x cp x dp = {tp} x {cp} x {dp} ranks of a "
                          "pipeline stage (Megatron-core's MoE parallel folding)"))
    if arch.experts and arch.expert_ffn % e:
        said = f"etp ({e})" if etp is not None else f"tp ({e}), at which the experts run where etp is left out,"
        out.append(("etp" if etp is not None else "tp",
                    f"{said} does not divide the expert FFN of {arch.expert_ffn}, which the grouped expert linears "
                    f"split that many ways ({EXPERT_FFN_SOURCE}); expected "
                    f"{sizes_said(arch.expert_ffn)}" + ("" if etp is not None else ", or state such an etp")))
    return out


#: Where Megatron-core asserts that etp divides the expert FFN (`expert_problems`).
EXPERT_FFN_SOURCE = "Megatron-core's TEGroupedLinear asserts it: transformer_engine.py at d98e8a6, lines 2469-2472"
#: Where the stack asserts that tp divides the dense FFN (`ffn_problem`); Megatron-core's own RowParallelLinear
#: alike (megatron/core/tensor_parallel/layers.py at d98e8a6, line 1408).
DENSE_FFN_SOURCE = ("Transformer Engine's Linear asserts it: transformer_engine/pytorch/module/linear.py at d0067d0, "
                    "line 1625")


def ffn_problem(arch: Arch, tp: int) -> str | None:
    """Why `tp` cannot split the model's dense FFN (`ffn`, in its dense layers); else None.

    The down-projection (`linear_fc2`, a row-parallel linear as wide as the FFN) splits its input tp ways, which the
    stack asserts divides (`DENSE_FFN_SOURCE`). A model whose every layer is an MoE layer has no dense FFN; its
    experts' rule is `expert_problems`'.
    """
    if arch.layers > arch.moe_layers and arch.ffn % tp:
        return (f"tp ({tp}) does not divide the FFN of {arch.ffn}, which the dense layers' linears split that many "
                f"ways ({DENSE_FFN_SOURCE}); expected {sizes_said(arch.ffn)}")
    return None


def sizes_said(n: int, shown: int = 12) -> str:
    """The sizes that divide `n`, in words: the first `shown` of its divisors ("a size that divides 768: 1, 2, ...")."""
    sizes = divisors(n)
    return f"a size that divides {n}: " + ", ".join(map(str, sizes[:shown])) + (", ..." if len(sizes) > shown else "")
