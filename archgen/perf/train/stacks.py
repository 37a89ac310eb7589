"""Training-stack profiles: the defaults of every knob a Workload or a validation case leaves out.

The knobs (training switches), their values under each profile and the source of each value are declared once, in
`archgen.model.switches` (one field per switch, `ByStack` its row of the table); this module derives from that
table the resolved knobs (`Knobs`) and the profiles (`PROFILES`), and resolves a job's knobs. A profile is what a
framework does when its user does not say otherwise, read from the framework's own code and recipes; nothing in it
is fitted to a measurement. A stated knob always wins over the profile.

* `megatron-lm-2021`: Megatron-LM as the SC21 paper and the 2021-22 runs used it (NVIDIA/Megatron-LM v2.x):
  the local DDP all-reduces fp32 main gradients after the backward pass (`--DDP-impl local`, no
  `--use-distributed-optimizer`, which arrived in 2022), Megatron's fused softmax (no flash attention), no
  sequence parallelism (2022), blocking pipeline sends (`--overlap-p2p-communication` was opt-in), no TP overlap.
* `megatron-core-2024`: NeMo 24.x (NeMo v2.0.0, 24.09, on Megatron-core core_r0.9.0), what the scored MLPerf
  Training v4.1 GPT-3 runs used: the distributed optimizer with overlapped gradient reduce-scatter and parameter
  gather, sequence parallelism, Transformer Engine's fused/flash attention; bf16 training accumulates and reduces
  gradients in fp32 (`bf16_mixed`); the FP8 recipe gathers parameters in FP8 (`fp8_params`); Megatron-core's fused
  cross entropy (`cross_entropy_loss_fusion`, 'native'); no dropout (the model configs' 0.0); the interleaved
  schedule overlaps its p2p; TP overlap only where a performance recipe asks; the MoE all-to-all dispatcher (NeMo
  24.09's Mixtral config; core_v0.9.0's own default, allgather, is not modelled) sends every routed copy in BF16 and
  does not overlap. A plain Megatron-LM run of the time differs in dropout (0.1), the loss (unfused) and the FP8
  parameter gather (BF16): such a case states them.
* `nemo-2025`: NeMo 2 / Megatron-Bridge recipes (src/megatron/bridge/training/mixed_precision.py, comm_overlap.py,
  recipes/) and NeMo's performance configurations (scripts/performance/): gradients reduce in BF16, as every LLM
  performance config and NeMo's MLPerf Training runs set it (`grad_reduce_in_fp32 = False`; the library's
  `bf16_mixed` alone keeps fp32); the FP8 recipes gather
  parameters in FP8 (`fp8_param_gather=True`); with dp > 1 `overlap_grad_reduce` and `overlap_param_gather` are on;
  `overlap_p2p_comm` with virtual pipelining; the performance recipes turn TP overlap on with TP > 1 and SP
  (scripts/performance/utils/overrides.py; recipes/llama/h100/llama3.py); MoE recipes use the flex dispatcher
  (HybridEP in the 26.04 performance configs, the H100 ones included; `archgen.model.switches`, moe_dispatcher),
  which sends a token once per destination node and forwards it over NVLink; EP overlap
  (`overlap_moe_expert_parallel_comm`) stays off unless asked. The Llama and Qwen model bridges set dropout to 0
  (`hidden_dropout=0.0`), as NeMo 24.x's model configs did; Megatron-core's own default is 0.1
  (transformer_config.py), which `megatron-lm-2021` keeps.

The FP8 recipe (`fp8_recipe`, Transformer Engine's scaling of FP8 tensors; see `quant`) is Megatron-LM's default,
`delayed` (megatron/training/arguments.py, `--fp8-recipe` default 'delayed'), in `megatron-lm-2021`, and NeMo 24.x's
(`bf16_with_fp8_mixed`: fp8 'hybrid', amax history 1024) in `megatron-core-2024`, and
current (tensor-wise) scaling under `nemo-2025`: NeMo's published FP8 performance rows run FP8-CS
(Megatron-Bridge docs/performance-summary.md, NeMo 25.11). FP4 training is NVFP4 whatever the profile.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, make_dataclass
from typing import TYPE_CHECKING, TypeVar

from archgen.errors import InternalError
from archgen.model.stack_profiles import DEFAULT_STACK, STACKS, VENDOR_STACKS, runs_on, vendor_stack
from archgen.model.switch_allows import UNSETTLED, unsettled_words
from archgen.model.switch_table import as_written
from archgen.model.switches import (
    SWITCHES,
    AttentionKernel,
    BucketDefault,
    CpCommType,
    CrossEntropy,
    CudaGraphs,
    Fp8Recipe,
    GatherDtype,
    GradDtype,
    MoeDispatcher,
    StackSwitches,
)
from archgen.model.training_rules import moe_tp_problem, no_tp_overlap_reason, tp_overlap_sp_problem
from archgen.model.workload import Training
from archgen.perf.train.moot import moot

#: Knobs a profile sets, with what each means (the names a Workload's `training` or a case may state).
KNOBS: dict[str, str] = {name: s.description for name, s in SWITCHES.items()}

if TYPE_CHECKING:
    @dataclass(frozen=True)
    class Knobs:
        """The resolved switches of a training job, as the type checker sees the class derived below.

        Each switch's type without its None (a resolved switch is always set); tests/test_types.py holds these
        fields to the table: name, order and type.
        """

        sequence_parallel: bool
        attention: AttentionKernel
        distributed_optimizer: bool
        grad_reduce_dtype: GradDtype
        param_gather_dtype: GatherDtype
        overlap_grad_reduce: bool
        overlap_param_gather: bool
        overlap_tp_comm: bool
        overlap_p2p_comm: bool
        ep_dedup: bool
        moe_dispatcher: MoeDispatcher
        overlap_ep_comm: bool
        moe_shared_expert_overlap: bool
        moe_force_balance: bool
        dropout: bool
        fp8_recipe: Fp8Recipe
        permute_in_dispatch: bool
        grad_accum_fusion: bool
        cuda_graphs: CudaGraphs
        ddp_bucket_size: int | BucketDefault
        cross_entropy: CrossEntropy
        cp_comm_type: CpCommType
        rope_fusion: bool
else:
    #: The resolved switches of a training job: one field per row of the table.
    Knobs = make_dataclass("Knobs", [(name, object) for name in SWITCHES], frozen=True)
    Knobs.__doc__ = "The resolved switches of a training job (one field per `archgen.model.switches.SWITCHES` row)."

if TYPE_CHECKING:  # a workload's estimate does not import the validation cases' models (issue 25, start-up)
    from archgen.model.cases import CaseTraining

    #: A training job as a Workload's `training` or a validation case's states it.
    StatedTraining = Training | CaseTraining

#: A Workload's `training` or a case's, kept as the type it is (`on_vendor`).
StatedT = TypeVar("StatedT", bound=StackSwitches)


def _knobs(values: Mapping[str, object]) -> Knobs:
    """Resolved knobs from switch values, each one its switch allows (the table holds its values as `object`)."""
    for name, value in values.items():
        if not SWITCHES[name].allows(value):
            raise InternalError(f"switch {name} = {value!r}: expected one of {SWITCHES[name].values}")
    build: Callable[..., Knobs] = Knobs  # the values are checked above, each against its switch's type
    return build(**values)


PROFILES = {stack: _knobs({name: s.default(stack) for name, s in SWITCHES.items()}) for stack in STACKS}
#: Each profile's values by switch (what `dataclasses.asdict` gives: the values are strings, booleans and counts, so
#: no copy is needed), made once: `resolve` starts from them for every training estimate.
_PROFILE_VALUES = {stack: {f.name: getattr(knobs, f.name) for f in fields(knobs)} for stack, knobs in PROFILES.items()}


def resolve(stack: str, stated: dict[str, object], precision: str) -> Knobs:
    """The knobs of `stack`, with every stated (non-None) knob taking precedence.

    Precision-dependent defaults: fp16 training keeps fp16 gradients (Megatron's fp16 path, Megatron-Bridge's
    `fp16_mixed`); the FP8 parameter gather of `nemo-2025` applies to FP8 recipes only; FP4 (NVFP4) training runs
    no userbuffers TP overlap (`precision_rules`).
    """
    base = _PROFILE_VALUES[stack] | {name: rule[1] for name, rule in profile_rules(stack, stated, precision).items()}
    given = {k: v for k, v in stated.items() if v is not None and k in KNOBS}
    return _knobs(base | given)


def profile_rules(stack: str, stated: dict[str, object], precision: str) -> dict[str, tuple[str, object]]:
    """Every profile value a job's precision or stated switches change: switch -> (why, value).

    The one set of rules `resolve` applies and `explain` reports.
    """
    return (precision_rules(stack, precision, stated.get("fp8_recipe")) | dispatcher_rules(stack, stated)
            | overlap_rules(stack, stated) | optimizer_rules(stack, stated))


def zero_stages(zeros: tuple[int, ...], distributed_optimizer: object) -> tuple[int, ...]:
    """The ZeRO stages a layout search may take: `zeros` (the stack's), kept to a stated `distributed_optimizer`.

    Stated false, the optimizer state is not sharded: stage 0 (Megatron's DDP). Stated true, it is: stage 1, or 2-3
    (Megatron-FSDP, which runs on the distributed optimizer: Megatron-LM megatron/training/arguments.py at d98e8a6,
    "Megatron-FSDP v1 is only compatible with --use-distributed-optimizer"). Left out (None): the stack's stages.
    A stack that runs none of the stated kind keeps the stated one alone (estimated as stated, PERF004).
    """
    if distributed_optimizer is None:
        return zeros
    kept = tuple(z for z in zeros if (z >= 1) == bool(distributed_optimizer))
    return kept or ((1,) if distributed_optimizer else (0,))


def precision_rules(stack: str, precision: str, fp8_recipe: object = None) -> dict[str, tuple[str, object]]:
    """The profile values of `stack` that `precision` (and a stated `fp8_recipe`) change: switch -> (why, value)."""
    out: dict[str, tuple[str, object]] = {}
    if precision == "fp16":
        out["grad_reduce_dtype"] = ("fp16 training keeps fp16 gradients (Megatron's fp16 path, Megatron-Bridge "
                                    "fp16_mixed)", "fp16")
    if PROFILES[stack].param_gather_dtype == "fp8" and precision != "fp8":
        out["param_gather_dtype"] = ("the FP8 parameter gather applies to FP8 training only", "bf16")
    recipe = fp8_recipe if isinstance(fp8_recipe, str) else PROFILES[stack].fp8_recipe
    if PROFILES[stack].overlap_tp_comm and (why := no_tp_overlap_reason(precision, recipe)):
        out["overlap_tp_comm"] = (f"off under {why}", False)  # a stated true is refused (`tp_overlap_problem`)
    return out


def overlap_rules(stack: str, stated: dict[str, object]) -> dict[str, tuple[str, object]]:
    """The profile's TP overlap, off where sequence parallelism is stated off and the overlap is left out.

    The overlap runs on sequence parallelism's all-gathers and reduce-scatters: Megatron-LM refuses it without them
    (megatron/training/arguments.py at d98e8a6) and Megatron-Bridge turns it off (src/megatron/bridge/training/
    comm_overlap.py at its mirrored head, line 447: "Disabling tensor parallel communication overlap due to
    sequence_parallel=False"). A stated overlap with sequence parallelism off is refused (`Training`).
    """
    if stated.get("sequence_parallel") is False and stated.get("overlap_tp_comm") is None \
            and PROFILES[stack].overlap_tp_comm:
        return {"overlap_tp_comm": ("Megatron-Bridge training/comm_overlap.py: the TP overlap is off with "
                                    "sequence_parallel false", False)}
    return {}


def optimizer_rules(stack: str, stated: dict[str, object]) -> dict[str, tuple[str, object]]:
    """The profile's DDP bucket where the job runs without the distributed optimizer: switch -> (why, value).

    Megatron-Bridge applies its DP overlap settings, the 128 Mi bucket among them, only with the distributed
    optimizer (src/megatron/bridge/training/comm_overlap.py at aae8200, `setup`, lines 634-642); without it the DDP
    config keeps its own `bucket_size`, None: Megatron-core's default.
    """
    dist = stated.get("distributed_optimizer")
    dist = PROFILES[stack].distributed_optimizer if dist is None else dist
    if not dist and PROFILES[stack].ddp_bucket_size != "default":
        return {"ddp_bucket_size": ("the profile's bucket comes with the distributed optimizer (Megatron-Bridge "
                                    "comm_overlap.py at aae8200, `setup`, lines 634-642): Megatron-core's default",
                                    "default")}
    return {}


def dispatcher_rules(stack: str, stated: dict[str, object]) -> dict[str, tuple[str, object]]:
    """The profile value of `ep_dedup` or `moe_dispatcher` that the other (or `permute_in_dispatch`), stated, changes.

    Returned as switch -> (why, value). DeepEP and HybridEP deduplicate per node and Megatron-core's alltoall
    does not; a stated ep_dedup true under a profile whose dispatcher is alltoall reads as the flex dispatcher's
    default backend, DeepEP (megatron/core/transformer/transformer_config.py at 3097d81:
    moe_flex_dispatcher_backend = "deepep").
    """
    d, e = stated.get("moe_dispatcher"), stated.get("ep_dedup")
    if stated.get("permute_in_dispatch") and d is None and e is None and PROFILES[stack].moe_dispatcher != "hybridep":
        # `StackSwitches` checked it against the stack the job was read with; on another vendor's profile
        # (`on_vendor`: Primus's DeepEP) the stated HybridEP-only switch keeps its dispatcher
        return {"moe_dispatcher": ("follows the stated permute_in_dispatch (HybridEP's kernels only)", "hybridep"),
                "ep_dedup": ("follows the stated permute_in_dispatch (HybridEP's kernels only)", True)}
    if d is not None and e is None:
        return {"ep_dedup": (f"follows the stated moe_dispatcher {d}", d != "alltoall")}
    if e is not None and d is None and bool(e) != (PROFILES[stack].moe_dispatcher != "alltoall"):
        return {"moe_dispatcher": ("follows the stated ep_dedup (Megatron-core's flex default backend)" if e else
                                   "follows the stated ep_dedup (no deduplication: alltoall)",
                                   "deepep" if e else "alltoall")}
    return {}


#: The values an internal `job.Job` (and `Layout`) takes for a switch its caller leaves out: the `megatron-core-2024`
#: profile resolved for bf16 training, `Job`'s own default precision (so no FP8 parameter gather); the model's unit
#: tests build jobs directly and were written against it. A Workload or a case that states no stack takes
#: `archgen.model.stack_profiles.DEFAULT_STACK` instead.
JOB_DEFAULTS = resolve("megatron-core-2024", {}, "bf16")


@dataclass(frozen=True)
class Used:
    """A switch an estimate used: its value, where the value came from and why.

    `origin` is 'stated' (the job gives it), 'profile' (the job's stated stack sets it) or 'default' (the job names
    no stack: the newest profile, `archgen.model.stack_profiles.DEFAULT_STACK`, sets it); `profile` is that profile.
    """

    name: str
    value: object
    origin: str
    profile: str | None
    source: str
    used: bool = True  # False where the job makes the switch moot (`moot`): its value changes no number

    @property
    def where(self) -> str:
        """Where the value came from, in words: 'stated', 'profile nemo-2025', 'default (profile nemo-2025)'."""
        if self.origin == "stated":
            return "stated"
        return f"profile {self.profile}" if self.origin == "profile" else f"default (profile {self.profile})"


def by_origin(used: list[Used]) -> dict[str, list[str]]:
    """`explain`'s switches as `name=value`, grouped by where each value came from (`Used.where`), in table order.

    The switches the job's layout, model or precision make moot come last, as 'not used'.
    """
    groups: dict[str, list[str]] = {}
    for u in sorted(used, key=lambda u: not u.used):  # stable: the used in table order, then the moot
        groups.setdefault(u.where if u.used else "not used", []).append(f"{u.name}={as_written(u.value)}")
    return groups


def on_vendor(training: StatedT, vendor: str) -> StatedT:
    """The training job as it runs on an accelerator of `vendor`: the vendor's newest profile where it states no stack.

    `stack_profiles.vendor_stack` (`primus-2025` on AMD, `nemo-2025` on others); a stated stack is kept. The stack stays
    unstated (not in `model_fields_set`), so what reads it (`explain`, the stack range) still calls it a default.
    """
    stack = vendor_stack(vendor)
    if "stack" in training.model_fields_set or training.stack == stack:
        return training
    out = training.model_copy(update={"stack": stack})
    out.__pydantic_fields_set__.discard("stack")
    return out


def newest(stack: str) -> str:
    """What `stack` is to a job that states none: the newest profile, or the newest of its accelerator's vendor."""
    if stack == DEFAULT_STACK:
        return "the newest profile"
    vendors = " and ".join(v for v, own in VENDOR_STACKS.items() if own == stack)
    return f"the newest profile for this vendor ({vendors} accelerators; stack_profiles.VENDOR_STACKS)"


def explain(training: StatedTraining, layout: Mapping[str, object] | None = None,
            moe: bool | None = None, vendor: str = "", rope: bool | None = None) -> list[Used]:
    """The stack and every switch a training job's estimate uses (`training_knobs`), each with where it came from.

    `training` is a Workload's `training` or a validation case's, on an accelerator of `vendor` (its stack, left out,
    is that vendor's newest profile: `on_vendor`). Given the layout the estimate ran (`layout`: tp, pp, interleave,
    dp, cp, ep, etp, zero), whether the model has MoE layers (`moe`) and a rotary embedding (`rope`, as
    `Arch.rope` charges one: stated), a switch they or the precision make moot
    (`moot`) keeps its value and says why it is not used (`Used.used` false).
    """
    training = on_vendor(training, vendor)
    stack = training.stack
    named = "stack" in training.model_fields_set
    origin = "profile" if named else "default"
    stated = stated_knobs(training)
    knobs = resolve(stack, stated, training.precision)
    rules = profile_rules(stack, stated, training.precision)
    out = [Used("stack", stack, "stated" if named else "default", None if named else stack,
                "" if named else f"no stack stated: {newest(stack)}")]
    for name, switch in SWITCHES.items():
        value = getattr(knobs, name)
        unused = moot(name, layout or {}, moe, training.precision, rope)
        if stated.get(name) is not None:
            out.append(Used(name, value, "stated", None, unused or "", unused is None))
        else:
            why = rules[name][0] if name in rules else switch.source(stack)
            if unused is None and (open_ := UNSETTLED.get(stack, {}).get(name)) is not None:
                why += (f"; {stack} leaves it unsettled, {unsettled_words(stack, {name: open_[0]})}: the range "
                        "over unstated knobs shows each value (an estimate's note, a case's range; "
                        "switch_allows.UNSETTLED)")
            out.append(Used(name, value, origin, stack, unused or why, unused is None))
    return out


def open_knobs(stack_stated: bool, stated: dict[str, object]) -> list[str]:
    """Knobs neither stated nor pinned by a stated stack: the inputs a prediction leaves open."""
    if stack_stated:
        return []
    return [f.name for f in fields(Knobs) if stated.get(f.name) is None]


def variants(stated: dict[str, object], precision: str, stack_stated: bool, stack: str,
             vendor: str = "", experts: int = 0, tp: int = 1) -> list[tuple[str, Knobs]]:
    """Each stack profile's reading of a job whose stack is not stated (only its own when it is).

    The profiles that run on an accelerator of `vendor` (`stack_profiles.runs_on`: Primus on AMD's only), less those
    that refuse an MoE model of `experts` at `tp` for want of sequence parallelism (`training_rules.moe_tp_problem`)
    or a stated TP overlap for the same want (`training_rules.tp_overlap_sp_problem`, the rule a case file keeps).
    """
    names = [stack] if stack_stated else sorted(s for s in PROFILES if runs_on(s, vendor))
    out = [(name, resolve(name, stated, precision)) for name in names]
    return [(n, k) for n, k in out if stack_stated or not (
        moe_tp_problem(experts, tp, k.sequence_parallel)
        or tp_overlap_sp_problem(bool(stated.get("overlap_tp_comm")), k.sequence_parallel, "", tp))]


def stated_knobs(training: StatedTraining) -> dict[str, object]:
    """The knobs a Workload's `training` (or a case's) states; None for each left out."""
    out = {k: getattr(training, k, None) for k in KNOBS}
    par = getattr(training, "parallelism", None)
    if par is not None:
        out["sequence_parallel"] = par.sequence_parallel
    return out


def training_knobs(training: StatedTraining) -> Knobs:
    """The resolved knobs of a Workload's `training`: its stack's profile under what it states."""
    return resolve(training.stack, stated_knobs(training), training.precision)
