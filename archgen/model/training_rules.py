"""The rules a stated training job's switches must keep with each other, as the stack enforces them.

Each returns why a stated combination contradicts itself (a message for `FieldError`), or None; `Training` and the
validation cases (`model.cases`) raise them at the offending key, and the layout search keeps to the same rules.
"""


def offload_problem(distributed_optimizer: bool | None, zero: int | None, offload: str | None) -> str | None:
    """Why a stated optimizer offload contradicts a stated stage 0 or `distributed_optimizer` false; else None.

    Megatron-LM's `--optimizer-cpu-offload` needs `--use-precision-aware-optimizer` (megatron/training/arguments.py
    at d98e8a6, line 1885), which needs the distributed optimizer (megatron/core/optimizer/__init__.py, line 1057);
    the layout search keeps to the same rule (`perf.train.refused.optimizer_offload_refused`).
    """
    if offload not in ("optimizer", "both") or not (zero == 0 or distributed_optimizer is False):
        return None
    why = "zero 0" if zero == 0 else "distributed_optimizer false"
    return (f"offload {offload} needs the distributed optimizer, and {why} is stated (Megatron-LM: "
            "--optimizer-cpu-offload needs --use-precision-aware-optimizer, 'only supported with distributed "
            "optimizer'); expected zero 1, 2 or 3 and distributed_optimizer true or left out, or offload none or "
            "activations")


def zero_problem(distributed_optimizer: bool | None, zero: int | None) -> str | None:
    """Why a stated ZeRO stage contradicts a stated `distributed_optimizer`; else None.

    Stage 1 is the distributed optimizer, and stages 2-3 (Megatron-FSDP) run on it; stage 0 is without it. Stated
    both ways, one of them would be silently ignored (the layout's stage wins in the memory and the DP collectives).
    """
    if distributed_optimizer is None or zero is None or (zero >= 1) == distributed_optimizer:
        return None
    want = "1, 2 or 3" if distributed_optimizer else "0"
    return (f"zero {zero} contradicts distributed_optimizer {str(distributed_optimizer).lower()}; expected zero {want} "
            "(stage 1 is the distributed optimizer, 2 and 3 run on it) or leave one of them out")


def fp8_recipe_problem(precision: str, fp8_recipe: str | None) -> str | None:
    """Why a training job's `fp8_recipe` cannot apply to its precision; else None.

    The recipe would otherwise be silently ignored: `perf.hw.quant.recipe` reads it for FP8 training only (a 16-bit job
    has no FP8 tensors, and FP4 training follows Transformer Engine's NVFP4 recipe).
    """
    if fp8_recipe is None or precision == "fp8":
        return None
    why = " (fp4 training follows Transformer Engine's NVFP4 recipe)" if precision == "fp4" else ""
    return f"fp8_recipe '{fp8_recipe}' applies to fp8 training; this job is {precision}{why}"



#: Why Transformer Engine runs no userbuffers TP overlap under NVFP4, with the lines that say so.
NVFP4_NO_TP_OVERLAP = ("Transformer Engine's userbuffers take no NVFP4 tensor: fill_userbuffers_buffer_for_all_gather "
                       "raises 'Unsupported quantizer for Userbuffers' (NVIDIA/TransformerEngine at d0067d0, "
                       "transformer_engine/pytorch/module/base.py line 754), and Megatron-Bridge's NVFP4 recipes turn "
                       "the overlap off (NVIDIA-NeMo/Megatron-Bridge at 0fbfe7d3e, scripts/performance/configs/llama/"
                       "llama3_llm_pretrain.py line 80: 'tp_comm_overlap = False if precision == \"nvfp4\"')")


#: Why Transformer Engine runs no userbuffers TP overlap under FP8 block scaling (`fp8_recipe: blockwise`).
BLOCKWISE_NO_TP_OVERLAP = ("Transformer Engine's userbuffers take no FP8 block-scaled tensor: "
                           "fill_userbuffers_buffer_for_all_gather handles per-tensor FP8 and MXFP8 only and raises "
                           "'Unsupported quantizer for Userbuffers' for Float8BlockQuantizer (NVIDIA/TransformerEngine "
                           "at f031cf87, transformer_engine/pytorch/module/base.py lines 538-635)")


#: The Transformer Engine recipes (`te_recipe`'s names) whose tensors TE's userbuffers refuse, with why: the one list.
#: The estimate runs no userbuffers overlap under them (`perf.train.tp_comm`) and the layout search offers none
#: (`perf.explore.plan`); a stated `overlap_tp_comm: true` is refused (`tp_overlap_problem`).
NO_USERBUFFERS: dict[str, str] = {"nvfp4": f"fp4 (NVFP4) training: {NVFP4_NO_TP_OVERLAP}",
                                  "blockwise": f"fp8_recipe blockwise: {BLOCKWISE_NO_TP_OVERLAP}"}


def te_recipe(precision: str, fp8_recipe: str | None) -> str | None:
    """The TE recipe of a training precision: `fp8_recipe` for FP8, NVFP4 for FP4, None for 16-bit training."""
    return fp8_recipe if precision == "fp8" else ("nvfp4" if precision == "fp4" else None)


def no_tp_overlap_reason(precision: str, fp8_recipe: str | None) -> str | None:
    """Why Transformer Engine's userbuffers cannot run the TP overlap of this precision and recipe; else None."""
    rec = te_recipe(precision, fp8_recipe)
    return None if rec is None else NO_USERBUFFERS.get(rec)


def tp_overlap_problem(precision: str, overlap_tp_comm: bool | None, fp8_recipe: str | None = None) -> str | None:
    """Why a stated `overlap_tp_comm: true` cannot run at this precision and FP8 recipe; else None.

    FP4 training is NVFP4 (`perf.hw.quant.recipe`), whose tensors Transformer Engine's userbuffers refuse
    (`NVFP4_NO_TP_OVERLAP`), as they refuse FP8 block scaling's (`BLOCKWISE_NO_TP_OVERLAP`): the stack would fail at
    the first all-gather, so the estimate would time a job no one can run. The profile's own default is turned off
    instead (`perf.train.stacks.precision_rules`).
    """
    why = no_tp_overlap_reason(precision, fp8_recipe)
    if not overlap_tp_comm or why is None:
        return None
    return f"overlap_tp_comm true cannot run with {why}; expected overlap_tp_comm false or left out"


#: Megatron-core refuses MoE training with tensor parallelism and no sequence parallelism (NVIDIA/Megatron-LM at
#: d98e8a6, megatron/core/transformer/moe/moe_layer.py line 636, `MoELayer.forward`, on the attention's TP group).
MOE_TP_NEEDS_SP = ("Megatron-core's MoELayer raises 'During training, performance may degrade if MoE and tensor "
                   "parallelism are enabled without also enabling sequence parallelism' (NVIDIA/Megatron-LM at "
                   "d98e8a6, megatron/core/transformer/moe/moe_layer.py line 636)")


def moe_tp_problem(experts: int, tp: int | None, sp: bool, how: str = "is off") -> str | None:
    """Why an MoE model cannot train at `tp` without sequence parallelism (`sp` as resolved); else None.

    `how` says where sp's value came from ("is stated false", "is off under stack X"). The layout searches keep to
    the same rule (`perf.train.refused.moe_tp_refused`).
    """
    if not experts or tp is None or tp <= 1 or sp:
        return None
    return (f"an MoE model ({experts} experts) at tp {tp} needs sequence parallelism in training, which {how}: "
            f"{MOE_TP_NEEDS_SP}; expected sequence_parallel true, or tp 1")


#: Megatron-LM turns sequence parallelism off at tp 1 and then asserts the TP overlap's need of it (NVIDIA/Megatron-LM
#: at d98e8a6, megatron/training/arguments.py lines 1433-1442), so a TP overlap asked for at tp 1 is refused whatever
#: sequence_parallel says; Megatron-Bridge turns it off there instead (NVIDIA-NeMo/Megatron-Bridge at aae8200,
#: src/megatron/bridge/training/comm_overlap.py lines 440-443: "Disabling tensor parallel communication overlap due
#: to TP size < 2").
TP_OVERLAP_NEEDS_SP = ("Megatron-LM asserts 'Tensor parallel communication/GEMM overlap can happen only when sequence "
                       "parallelism is enabled' after turning sequence parallelism off at tp 1 (NVIDIA/Megatron-LM at "
                       "d98e8a6, megatron/training/arguments.py lines 1433-1442)")


def tp_overlap_sp_problem(overlap_tp_comm: bool | None, sp: bool, how: str, tp: int | None = None) -> str | None:
    """Why a stated `overlap_tp_comm: true` cannot run without sequence parallelism (`sp` as resolved); else None.

    `how` says where sp's value came from; `tp` (None where the layout leaves it to the search): at tp 1 sequence
    parallelism is off whatever is stated (`TP_OVERLAP_NEEDS_SP`). One rule for a Workload's `Training` and a
    validation case (`scoring.case_checks.training_problems`).
    """
    if not overlap_tp_comm or (sp and tp != 1):
        return None
    if tp == 1:
        return (f"overlap_tp_comm true cannot run at tp 1, where there is no TP communication to overlap and "
                f"sequence parallelism is off: {TP_OVERLAP_NEEDS_SP}; expected overlap_tp_comm false or left out "
                "(Megatron-Bridge turns it off at tp 1), or tp > 1 with sequence parallelism")
    return (f"overlap_tp_comm true needs sequence parallelism, which {how}: {TP_OVERLAP_NEEDS_SP}; expected "
            "sequence_parallel true, or overlap_tp_comm false or left out")


def sp_source(stated: bool | None, stack: str) -> str:
    """How a job's sequence parallelism came to be off, for the messages above: stated, or the stack's default."""
    return "is stated false" if stated is not None else f"is off under stack {stack}"


#: Megatron-core's rules for overlapping the shared experts with the token dispatcher (NVIDIA/Megatron-LM at d98e8a6,
#: megatron/core/transformer/transformer_config.py): "moe_shared_expert_overlap only works with alltoall or flex
#: token dispatcher" (lines 1820-1826; every `moe_dispatcher` value is one of them: deepep and hybridep are the flex
#: dispatcher's backends), "shared_experts recompute cannot work with --moe-shared-expert-overlap" (lines 1994-1998;
#: the model's recompute options, none, selective and full, never name the shared experts), and "disable
#: moe_shared_expert_overlap when enabling overlap_moe_expert_parallel_comm" (lines 3040-3041), which Megatron-Bridge
#: asserts as well (src/megatron/bridge/training/comm_overlap.py at fd5c473, 26.04-alpha.rc2, lines 500-501).
SHARED_OVERLAP_EXCLUSIVE = ("Megatron-core asserts 'disable moe_shared_expert_overlap when enabling "
                            "overlap_moe_expert_parallel_comm' (NVIDIA/Megatron-LM at d98e8a6, megatron/core/"
                            "transformer/transformer_config.py lines 3040-3041)")


def shared_overlap_problem(overlap_ep_comm: bool | None, moe_shared_expert_overlap: bool | None) -> str | None:
    """Why `moe_shared_expert_overlap` true cannot run beside `overlap_ep_comm` true (both as resolved); else None.

    The only rule of `SHARED_OVERLAP_EXCLUSIVE`'s three a job can break here. A Workload's and a case's switches
    (`StackSwitches`), a flipped case (`scoring.case_checks.training_problems`) and the plan search keep to it.
    """
    if not (overlap_ep_comm and moe_shared_expert_overlap):
        return None
    return (f"moe_shared_expert_overlap true cannot run with overlap_ep_comm true: {SHARED_OVERLAP_EXCLUSIVE}; "
            "expected one of them false or left out")


#: Megatron-core's rule (megatron/core/transformer/transformer_config.py at d98e8a6, `__post_init__`, lines
#: 3042-3046, under overlap_moe_expert_parallel_comm): "MTP supports at most one layer when enabling
#: overlap_moe_expert_parallel_comm."
MTP_OVERLAP_MESSAGE = "MTP supports at most one layer when enabling overlap_moe_expert_parallel_comm."


def mtp_overlap_problem(overlap_ep_comm: bool | None, mtp_layers: int) -> str | None:
    """Why more than one multi-token-prediction layer cannot run beside `overlap_ep_comm` true (resolved); else None.

    A Workload's `Training`, a case's training (`scoring.case_checks.training_problems`) and the plan search (which
    then keeps the EP overlap off) keep to it.
    """
    if not (overlap_ep_comm and mtp_layers > 1):
        return None
    return (f"mtp_layers {mtp_layers} cannot run with overlap_ep_comm true: Megatron-core asserts '"
            f"{MTP_OVERLAP_MESSAGE}' (NVIDIA/Megatron-LM at d98e8a6, megatron/core/transformer/transformer_config.py "
            "lines 3042-3046); expected mtp_layers 1 (or 0), or overlap_ep_comm false or left out")


def example_hierarchy(cp: int) -> tuple[int, int]:
    """Sizes [a2a, p2p] whose product is cp, for an error's example: [2, cp / 2] at an even cp, else [1, cp].

    review30: the example was [2, cp] at an odd cp, whose product is 2 cp, the very mismatch the next rule refuses.
    """
    return (2, cp // 2) if cp % 2 == 0 else (1, cp)


def hierarchy_problem(cp_comm_type: str | None, cp: int, sizes: tuple[int, int] | None) -> str | None:
    """Why stated `hierarchical_context_parallel_sizes` and `cp_comm_type` do not fit cp; else None.

    Megatron-LM asks for the sizes with a2a+p2p and for their product to be cp (megatron/training/arguments.py at
    d98e8a6, lines 580-585); Transformer Engine takes two groups, [a2a, p2p] (transformer_engine/pytorch/attention/
    dot_product_attention/context_parallel.py at d0067d0, line 5022). Sizes stated for another type move no number
    (only a2a+p2p runs the hierarchical groups): refused, not ignored.
    """
    if sizes is not None and cp_comm_type != "a2a+p2p":
        return (f"hierarchical_context_parallel_sizes {list(sizes)} is used only by cp_comm_type a2a+p2p, and "
                f"cp_comm_type is {cp_comm_type or 'left out (p2p under every profile)'}; expected cp_comm_type "
                "a2a+p2p or the sizes left out")
    if cp_comm_type == "a2a+p2p" and cp > 1 and sizes is None:
        return (f"cp_comm_type a2a+p2p at cp {cp} needs hierarchical_context_parallel_sizes [a2a, p2p] (Megatron-LM "
                "arguments.py at d98e8a6, lines 583-585: '--hierarchical-context-parallel-sizes must be set when "
                "a2a+p2p is used in cp comm'); expected e.g. " + str(list(example_hierarchy(cp))))
    if sizes is not None and sizes[0] * sizes[1] != cp:
        return (f"hierarchical_context_parallel_sizes {list(sizes)} multiply to {sizes[0] * sizes[1]}, and cp is "
                f"{cp} (Megatron-LM arguments.py at d98e8a6, line 582: context_parallel_size == "
                "prod(hierarchical_context_parallel_sizes)); expected sizes whose product is cp")
    return None
