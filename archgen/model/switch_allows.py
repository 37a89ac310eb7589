"""What each training stack can run: the values a plan search may try, and what a job states beyond its stack.

Split from `archgen.model.switches` (the table of switches and their profile values), whose `ByStack` rows these are.
"""

from archgen.model.stack_features import code_has, lacks, without
from archgen.model.stack_profiles import DEFAULT_STACK, STACKS, ByStack, Setting
from archgen.model.switch_table import as_written
from archgen.model.switches import _ARGS, _BRIDGE, _LM21, _PEX, _PRIMUS, SWITCHES, StackSwitches

#: What the code NeMo 24.x ran (Megatron-core core_r0.9.0, `megatron-core-2024`) can run, by Megatron-LM's flags.
_CORE = "Megatron-LM README"


def _code_or_recipe(name: str, *recipes: Setting | None) -> ByStack:
    """An `ALLOWS` row: under a stack given None, the values of switch `name` its code has; the others, its recipe's.

    The code's are `stack_features.code_has` (where each feature's first release is declared); a recipe's are what the
    stack's recipe runs and where that is read.
    """
    return ByStack(*(code_has(stack, name, SWITCHES[name].values) if recipe is None else recipe
                     for stack, recipe in zip(STACKS, recipes, strict=True)))


#: What a plan search (`archgen estimate --search-plan`, `perf.explore.plan`) may try under each stack: the values of
#: each switch and layout field the stack can run, with where that is read. "divisors" is every divisor (of the sequence
#: for cp, where it cuts the sequence into 2·cp equal chunks, `refused.cp_split_problem`; of the experts for ep).
#: Switches not listed keep the stack's value: the dtypes, dropout and the FP8 recipe change the numerics, and
#: ep_dedup and moe_dispatcher are the dispatcher the stack ships, not a plan's choice. A value a stack's code lacks
#: is declared once, in `stack_features.FEATURES` (its first release and commit): a row here that it limits is derived
#: from that table (`_code_or_recipe`), and a recipe row never names a value its stack's code lacks (a test holds it).
#: A switch whose every stack's recipe runs all its code has (moe_force_balance: core_v0.13.0, 022bcb5) has no row.
ALLOWS: dict[str, ByStack] = {
    "sequence_parallel": ByStack(((False,), f"{_LM21}: sequence parallelism arrived in 2022"),
                                 ((False, True), f"{_CORE}: --sequence-parallel"),
                                 ((False, True), f"{_BRIDGE}: sequence_parallel"),
                                 ((False, True), f"{_PRIMUS} models/megatron/language_model.yaml:166: "
                                                 "sequence_parallel")),
    "attention": ByStack((("materialized",), f"{_LM21}: fused softmax only (FlashAttention is 2022)"),
                         (("flash", "materialized"), f"{_ARGS}: --transformer-impl transformer_engine or local"),
                         (("flash", "materialized"), f"{_BRIDGE}: Transformer Engine or unfused attention"),
                         (("flash", "materialized"), f"{_PRIMUS} modules/megatron/trainer_base.yaml:32: "
                                    "use_flash_attn")),
    "overlap_tp_comm": ByStack(((False,), f"{_LM21}: no TP communication overlap"),
                               ((False, True), f"{_ARGS}: --tp-comm-overlap (with --sequence-parallel)"),
                               ((False, True), f"{_BRIDGE} training/comm_overlap.py: tp_comm_overlap"),
                               ((False, True), f"{_PRIMUS} models/megatron/language_model.yaml:180-196: "
                                               "tp_comm_overlap and its userbuffers options (no MI300X or MI355X "
                                               "config sets it)")),
    "overlap_p2p_comm": ByStack(((False, True), f"{_LM21}: --overlap-p2p-communication (opt-in)"),
                                ((False, True), f"{_ARGS}: --no-overlap-p2p-communication turns it off"),
                                ((False, True), f"{_BRIDGE} training/comm_overlap.py: overlap_p2p_comm"),
                                ((False, True), f"{_PRIMUS} modules/megatron/trainer_base.yaml:161: overlap_p2p_comm")),
    "overlap_grad_reduce": ByStack(((False,), f"{_LM21}: the local DDP all-reduces after the backward pass"),
                                   ((False, True), f"{_CORE}: --overlap-grad-reduce"),
                                   ((False, True), f"{_BRIDGE} training/comm_overlap.py: overlap_grad_reduce"),
                                   ((False, True), f"{_PRIMUS} modules/megatron/trainer_base.yaml:171: "
                                                   "overlap_grad_reduce")),
    "overlap_param_gather": ByStack(((False,), f"{_LM21}: no distributed optimizer"),
                                    ((False, True), f"{_CORE}: --overlap-param-gather"),
                                    ((False, True), f"{_BRIDGE} training/comm_overlap.py: overlap_param_gather"),
                                    ((False, True), f"{_PRIMUS} modules/megatron/trainer_base.yaml:172: "
                                                    "overlap_param_gather")),
    "overlap_ep_comm": _code_or_recipe("overlap_ep_comm", None, None,
                                       ((False, True), f"{_BRIDGE}: overlap_moe_expert_parallel_comm"),
                                       ((False, True), f"{_PRIMUS} modules/megatron/trainer_base.yaml:235: "
                                                       "overlap_moe_expert_parallel_comm")),
    "zero": ByStack(((0,), f"{_LM21}: no distributed optimizer (2022)"),
                    ((0, 1), f"{_CORE}: --use-distributed-optimizer (optimizer state sharded, ZeRO-1); "
                             + without("megatron-core-2024", "zero")),
                    ((0, 1, 2, 3), "Megatron-core Megatron-FSDP: --data-parallel-sharding-strategy no_shard, optim, "
                                   "optim_grads, optim_grads_params"),
                    ((0, 1, 2, 3), f"{_PRIMUS} modules/megatron/trainer_base.yaml:183-195: "
                                   "use_distributed_optimizer, data_parallel_sharding_strategy (Megatron-FSDP), "
                                   "use_torch_fsdp2 (the dense MI355X configs)")),
    "cp": ByStack(((1,), f"{_LM21}: no context parallelism"),
                  (("divisors",), f"{_ARGS}: --context-parallel-size"),
                  (("divisors",), f"{_BRIDGE}: context_parallel_size"),
                  (("divisors",), f"{_PRIMUS}: context_parallel_size (Megatron-LM's)")),
    "ep": ByStack(((1,), f"{_LM21}: no mixture-of-experts layers"),
                  (("divisors",), f"{_ARGS}: --expert-model-parallel-size"),
                  (("divisors",), f"{_BRIDGE}: expert_model_parallel_size"),
                  (("divisors",), f"{_PRIMUS}: expert_model_parallel_size (Megatron-LM's)")),
    "offload": ByStack((("none",), f"{_LM21}: no host offload"),
                       (("none",), f"{_CORE}: no host offload in the 2024 recipe; "
                                   + without("megatron-core-2024", "offload")),
                       (("none", "activations", "optimizer", "both"),
                        "Megatron-core --fine-grained-activation-offloading, --optimizer-cpu-offload"),
                       (("none", "activations", "optimizer", "both"),
                        f"{_PRIMUS} modules/megatron/trainer_base.yaml:113: optimizer_cpu_offload; activations: its "
                        "Megatron-LM pin (third_party/Megatron-LM at d3528a2) has fine_grained_activation_offloading, "
                        "which Primus's Kimi K3 attention checks (backends/megatron/core/transformer/kimi_k3/"
                        "kimi_k3_mla_attention.py:451-457), and its zero-bubble schedule offloads activations "
                        "(modules/megatron/zero_bubble.yaml:47 cpu_offload)")),
}


#: The placements beyond an even split that each stack runs, with where that is read: "counts" (explicit
#: first/last-stage layer counts on a non-interleaved pipeline), "interleaved_counts" (the same with virtual stages),
#: "slots" (the embedding and loss counted as layer slots) and "layout" (a `pipeline_layout` string, which also places
#: DeepSpeed's uniform partition, `pipeline_split.uniform_layout`). A layout that states no placement and needs one the
#: stack lacks is refused (`perf.train.refused.bare_split_problem`, through `layout_rules.layout_problems`), the layout
#: search does not try it (`layouts.enumerate_layouts`) and a stack range leaves that stack out; a placement a job
#: states is estimated as stated, with PERF004 where the stack runs it not (`placements_beyond`), as a stated switch.
#: A bare uneven pp under megatron-core-2024 is not asserted by core_v0.9.0 but built wrong: each rank builds
#: num_layers // pp layers (megatron/core/transformer/transformer_block.py at core_v0.9.0, lines 83-84), l mod pp
#: layers fewer than the model; the assertion came with 9157970 (2024-11-30, core_v0.10.0).
UNEVEN_SPLITS = ByStack(
    ((), "Megatron-LM v2.6 megatron/model/transformer.py:545 asserts 'num_layers must be divisible by "
         "pipeline_model_parallel_size'; it has no first/last-stage counts, slots or layout string"),
    (("counts",), "Megatron-LM core_v0.9.0: --decoder-first/last-pipeline-num-layers (fa8bb592, 2024-09-05; "
                  "megatron/training/arguments.py:1518-1525), non-interleaved only (megatron/core/transformer/"
                  "transformer_block.py:56-59 asserts 'Uneven number of layer not compatible with interleaved "
                  "pipeline schedule'); interleaved counts and the embedding and loss slots came with ef490839 "
                  "(2025-02-03), pipeline_model_parallel_layout with 77732c36 (2025-06-13)"),
    (("counts", "interleaved_counts", "slots", "layout"),
     f"{_BRIDGE}: pipeline_model_parallel_layout, account_for_embedding/loss_in_pipeline_split, "
     "num_layers_in_first/last_pipeline_stage"),
    (("counts", "interleaved_counts", "slots", "layout"),
     f"{_PRIMUS}: pipeline_model_parallel_layout (Megatron-LM's; AMD-AGI/Primus examples/megatron/configs/"
     "MI355X/deepseek_v3-BF16-pretrain.yaml at 05b350b3 places DeepSeek-V3's 61 layers on pp 16 with it)"))


def uneven_splits(stack: str | None) -> tuple[str, ...]:
    """The placements beyond an even split that `stack` runs (`UNEVEN_SPLITS`); None: the newest's, every one."""
    placements = UNEVEN_SPLITS.setting(stack or DEFAULT_STACK)[0]
    assert isinstance(placements, tuple), "switch_allows.UNEVEN_SPLITS holds a tuple of placements per stack"
    return placements


def allowed(stack: str, name: str) -> tuple:
    """The values `stack` can run for the switch or layout field `name` (`ALLOWS`; ("divisors",) for any divisor)."""
    values = ALLOWS[name].setting(stack)[0]
    assert isinstance(values, tuple), f"switch_allows.ALLOWS[{name!r}] holds a tuple of values per stack"
    return values


def beyond_stack(training: StackSwitches) -> list[tuple[str, object, tuple, str]]:
    """The switches, layout fields and pipeline placements a training job states that its stack cannot run.

    The switches and layout fields are `ALLOWS`', the placements `UNEVEN_SPLITS`' (`placements_beyond`).

    Each as (name, stated value, the values the stack allows, where that is read). `training` is a Workload's
    `training` (its layout fields under `parallelism`) or a case's. A stated value always wins over the profile (a
    case may model a stack with a later feature added, as Korthikanti's rows run sequence parallelism on the
    Megatron-LM of 2021); this names where such a statement leaves the stack that `ALLOWS` describes. A value the
    stack's code lacks (`stack_features.lacks`) is not named here: it is `stack_features.missing`'s, refused where a
    stated stack is read and PERF004 under a house default, said once.
    """
    stack = training.stack
    par = getattr(training, "parallelism", training)
    out = []
    for name, by in ALLOWS.items():
        value = getattr(par, name, None) if name in type(par).model_fields else getattr(training, name, None)
        if value is None:
            continue
        values = allowed(stack, name)
        if values != ("divisors",) and value not in values and lacks(stack, name, value) is None:
            out.append((name, value, values, by.setting(stack)[1]))
    return out + placements_beyond(stack, par)


#: The layout fields that state each placement of `UNEVEN_SPLITS` (counts: at interleave 1), as a spec writes them.
PLACED_BY = {"counts": "first_stage_layers and last_stage_layers at interleave 1",
             "interleaved_counts": "first_stage_layers and last_stage_layers with interleave",
             "slots": "embedding_slot and loss_slot", "layout": "pipeline_layout"}


def placements_beyond(stack: str, par: object) -> list[tuple[str, object, tuple, str]]:
    """The pipeline placements `par` (a `Parallelism` or a case's training) states that `stack` runs not.

    As `beyond_stack`'s entries: (field, stated value, what the stack accepts in words, `UNEVEN_SPLITS`' source).
    A stated `pipeline_layout` under megatron-core-2024, first/last-stage counts with interleave under it, and any
    placement under megatron-lm-2021 (which asserts an even split) are estimated as stated with PERF004, as a
    stated switch beyond the stack is; a split that states no placement and needs one is refused
    (`perf.train.refused.bare_split_problem`).
    """
    has = uneven_splits(stack)
    counts = "counts" if (getattr(par, "interleave", None) or 1) == 1 else "interleaved_counts"
    stated = (("pipeline_layout", "layout"), ("first_stage_layers", counts), ("last_stage_layers", counts),
              ("embedding_slot", "slots"), ("loss_slot", "slots"))
    accepts = (" or ".join(["even splits", *(PLACED_BY[p] for p in has)]),)
    return [(name, value, accepts, UNEVEN_SPLITS.setting(stack)[1]) for name, placement in stated
            if (value := getattr(par, name, None)) not in (None, False) and placement not in has]


#: Switches whose value under a stack its own published configurations split on, so a job that leaves them out may
#: run either: each with the values they split between (the profile's first) and where that is read. An estimate
#: under the stack gives its step time over them beside the profile's (`perf.workload.training_estimate.unsettled`).
#: Or a switch the stack cannot settle because its code has nothing like it for a model that uses it: Megatron-LM
#: v2.6 has no rotary embedding, so a RoPE model under megatron-lm-2021 stands in for another stack's run, whose
#: fusion is unknown. A value there that the code lacks (`stack_features.lacks`) is an end of the range, not a value
#: the job states, so it is estimated, not refused (`stack_features.missing` refuses it stated); the profile's value,
#: first, is one the code has, and the estimate takes it (a test holds both; `unsettled_words` says which).
UNSETTLED: dict[str, dict[str, tuple[tuple[object, ...], str]]] = {
    "megatron-lm-2021": {
        "rope_fusion": ((False, True), f"{_LM21} has no rotary embedding at all (no 'rotary' in its tree; GPT uses "
                                       "learned positions, megatron/model/language_model.py:140): a RoPE model "
                                       "under it stands in for another stack's run, fused or not, so the estimate "
                                       "takes the profile's unfused value and shows the fused end beside it"),
    },
    "megatron-core-2024": {
        "rope_fusion": ((False, True), "NeMo v2.0.0 nemo/collections/llm/gpt/model: GPTConfig (base.py) and the "
                                       "Mixtral, Mistral, Qwen2, Gemma and Nemotron configs keep core_v0.9.0's "
                                       "apply_rope_fusion False, LlamaConfig and Llama3Config set it True "
                                       "(llama.py:56,102)"),
    },
    "primus-2025": {
        "grad_accum_fusion": ((False, True), f"{_PRIMUS} examples/megatron/configs/MI300X and MI355X "
                                             "*-pretrain.yaml: 134 of the 168 set gradient_accumulation_fusion false, "
                                             "34 true"),
        "cross_entropy": (("te", "unfused"), f"{_PRIMUS} examples/megatron/configs/MI300X and MI355X *-pretrain.yaml: "
                                             "100 of the 168 set cross_entropy_fusion_impl 'te' with the loss "
                                             "fusion, the others keep models/megatron/language_model.yaml:78-79 "
                                             "(cross_entropy_loss_fusion false)"),
        "moe_force_balance": ((True, False), f"{_PEX}: 89 of the 91 that set moe_router_force_load_balancing "
                                             "set it true; primus_megatron_model.yaml:3, which the others keep, sets "
                                             "it false"),
    },
}


def unsettled_words(stack: str, open_: dict[str, tuple[object, ...]]) -> str:
    """What `stack` leaves unsettled of `open_` (`UNSETTLED`'s switches a job leaves out, with their values), in words.

    'what its published configurations split on (grad_accum_fusion false/true)'; a switch with a value the stack's
    code lacks (`stack_features.lacks`) is said as what its code cannot settle for the model, with the code's gap
    (`stack_features.without`) and the end the estimate takes (the profile's, `UNSETTLED`'s first).
    """
    def said(name: str) -> str:
        return f"{name} {'/'.join(as_written(v) for v in open_[name])}"
    lacking = [n for n in open_ if any(lacks(stack, n, v) is not None for v in open_[n])]
    split = [n for n in open_ if n not in lacking]
    return " and ".join(([f"what its published configurations split on ({', '.join(said(n) for n in split)})"]
                         if split else [])
                        + [f"what its code cannot settle for this model ({said(n)}: {without(stack, n)}; the "
                           f"estimate takes the profile's {as_written(open_[n][0])})" for n in lacking])
