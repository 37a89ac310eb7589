"""What each training stack's code has: the first Megatron-LM release of every feature a job may state.

A stack profile (`archgen.model.switches`) names a code base as well as its defaults: `megatron-core-2024` (NeMo
24.x) runs Megatron-LM core_v0.9.0 (NeMo v2.0.0's Dockerfile.ci:55, core_r0.9.0), which has no multi-head latent
attention, group-limited routing, multi-token prediction or DeepEP. A switch value or model field that needs code the
stated stack lacks is not a run that stack can make, so it is refused where the spec states it (`missing`), not
estimated with the feature silently on. Each feature's first release was read in NVIDIA/Megatron-LM's history (`git
log -S` on the config field, then the first release tag whose tree has it).

Where the stack is not stated (the vendor's newest profile, a house default) the same finding is a PERF004 warning:
the profile stands in for a run the spec does not describe (`checks.perf.within_stack`).

This is the one declaration of what a stack's code has. What its recipe runs among those values is
`switch_allows.ALLOWS`, whose row for a stack whose code lacks a value is derived from here (`code_has`), as is a
profile's value where the code has no other (`without`): neither restates a release.
"""

from collections.abc import Callable
from dataclasses import dataclass

from archgen.model.stack_profiles import STACKS, ByStack, Setting

#: A Megatron-LM release as a comparable key: core_v0.11.0 is (0, 11, 0); Megatron-LM v2.6 predates them all.
Release = tuple[int, int, int]

#: The Megatron-LM code each profile runs: (its release key, the code in words). A pinned commit is placed at the
#: newest release whose features (`FEATURES`) its tree has, read with `git grep` at the pin: Megatron-Bridge
#: 26.04-alpha.rc2's 3097d81 (2026-05-06) has every one, 8c5cf05's HybridEP permute fusion included; Primus fd1eeab's
#: third_party/Megatron-LM at d3528a2 (2026-03-06) has core_v0.16.0's (HybridEP, the MoE CUDA-graph scopes) but not
#: 8c5cf05.
CODE = ByStack(((0, 0, 0), "Megatron-LM v2.6 (2021-08-27)"),
               ((0, 9, 0), "Megatron-LM core_v0.9.0 (2024-10-24)"),
               ((0, 18, 0), "Megatron-LM 3097d81 (2026-05-06, Megatron-Bridge 26.04-alpha.rc2's pin)"),
               ((0, 16, 0), "Megatron-LM d3528a2 (2026-03-06, Primus fd1eeab's third_party pin)"))


def release_of(stack: str) -> Release:
    """The release key of `stack`'s code (`CODE`)."""
    code = CODE.setting(stack)[0]
    assert isinstance(code, tuple), "stack_features.CODE holds a release key per stack"
    return code


def _stated(value: object) -> bool:
    """Stated at all (a count above 0, true, or any value but None)."""
    return value is not None and value is not False and value != 0


@dataclass(frozen=True)
class Feature:
    """A feature a job uses by stating a field, with the Megatron-LM release and commit that brought it."""

    words: str      # the feature in words
    path: tuple[str, ...]   # the field that states it: under the training job, or ("model", ...) on the model
    uses: Callable[[object], bool]   # whether a stated value uses it
    first: Release
    commit: str     # the commit that added it, its date and title, as Megatron-LM's history gives them
    shown: str = "{name} {value}"   # the stated field and value, as a message's 'got' says them

    @property
    def release(self) -> str:
        """Its first release's tag: core_v0.11.0."""
        return "core_v{}.{}.{}".format(*self.first)


def _is(*values: object) -> Callable[[object], bool]:
    return lambda value: value in values


#: Every feature whose code a profile may lack, oldest first. Megatron-LM history (NVIDIA/Megatron-LM, the commit that
#: added the config field, then the first `core_v` tag whose tree has it: a commit on main after a release branch was
#: cut reaches the next release, as 1fa9464, 2024-09-11, reached core_v0.10.0 and not core_v0.9.0 of 2024-10-24).
FEATURES = (
    Feature("the fused rotary embedding", ("rope_fusion",), _is(True), (0, 5, 0),
            "a01b42c, 2023-11-19, 'add knob for rope fusion and fix bug in mlp', apply_rope_fusion"),
    Feature("Megatron-core's fused cross entropy", ("cross_entropy",), _is("native"), (0, 8, 0),
            "7b4a6d7, 2024-06-14, 'Added cross entropy fusion', cross_entropy_loss_fusion"),
    Feature("the shared-expert overlap", ("moe_shared_expert_overlap",), _is(True), (0, 10, 0),
            "1fa9464, 2024-09-11, !1699 'MoE Shared Expert support', moe_shared_expert_overlap"),
    Feature("a context-parallel communication type other than p2p", ("cp_comm_type",),
            _is("a2a", "allgather", "a2a+p2p"), (0, 10, 0),
            "91a8a4c, 2024-10-21, !2215 'Configure per-layer communication type for context parallelism', "
            "cp_comm_type"),
    Feature("multi-head latent attention", ("model", "mla"), _stated, (0, 10, 0),
            "32eac88, 2024-09-24, !1581 'Add MLA support into MCore', multi_latent_attention",
            "{name} with a key-value latent of rank {value}"),
    Feature("ZeRO-3 weight sharding", ("parallelism", "zero"), _is(3), (0, 10, 0),
            "e1993fa, 2024-11-13, !2150 'Add support for PyTorch FSDP-2', use_torch_fsdp2"),
    Feature("MoE parallel folding", ("parallelism", "etp"), _stated, (0, 10, 0),
            "7f22e21, 2024-11-23, !1940 'MoE parallel folding', expert_tensor_parallel_size"),
    Feature("group-limited routing", ("model", "moe", "router_num_groups"), _stated, (0, 11, 0),
            "b1022a3, 2025-02-09, !2521 'Support Node-Limited Routing for DeepSeek-V3', moe_router_num_groups"),
    Feature("the deduplicated dispatch (the flex dispatcher, DeepEP)", ("ep_dedup",), _is(True), (0, 12, 0),
            "0d389f5, 2025-02-25, !2737 'Integration of Deepseek DeepEP kernel', moe_enable_deepep"),
    Feature("the DeepEP dispatcher", ("moe_dispatcher",), _is("deepep"), (0, 12, 0),
            "0d389f5, 2025-02-25, !2737 'Integration of Deepseek DeepEP kernel', moe_enable_deepep"),
    Feature("ZeRO-2 gradient sharding", ("parallelism", "zero"), _is(2),
            (0, 12, 0), "d165a85, 2025-02-26, !2071 'MCore Customized FSDP (Distopt-based FSDP)', "
            "data_parallel_sharding_strategy"),
    Feature("the optimizer's CPU offload", ("parallelism", "offload"), _is("optimizer", "both"), (0, 12, 0),
            "60007c9, 2025-02-14, !2526 'Optimizer CPU offload support', optimizer_cpu_offload"),
    Feature("Transformer Engine's fused cross entropy", ("cross_entropy",), _is("te"), (0, 12, 0),
            "0f60adb, 2025-03-08, !2707 'Added option for parallel cross entropy', cross_entropy_fusion_impl"),
    Feature("an FP8 recipe other than delayed scaling", ("fp8_recipe",), _is("tensorwise", "mxfp8"), (0, 12, 0),
            "3db7411, 2025-03-22, !2766 'Add FP8 recipe selection to arguments', --fp8-recipe"),
    Feature("the attention CUDA-graph scope", ("cuda_graphs",), _is("attn"), (0, 12, 0),
            "a606486, 2025-03-18, !2204 'Add conditional cudagraph support for MoE models', cuda_graph_scope"),
    Feature("multi-token prediction", ("mtp_layers",), _stated, (0, 12, 0),
            "09ebca7, 2025-03-22, !2628 'Multi-Token Prediction Support', mtp_num_layers"),
    Feature("blockwise FP8 scaling", ("fp8_recipe",), _is("blockwise"), (0, 13, 0),
            "be8715d, 2025-04-12, !3025 'Add option to toggle on NV subchannel recipe', --fp8-recipe blockwise"),
    Feature("the router's forced load balance", ("moe_force_balance",), _is(True), (0, 13, 0),
            "022bcb5, 2025-05-24, !3274 'add force-load-balancing for MoE router', moe_router_force_load_balancing"),
    Feature("the full-iteration CUDA graph", ("cuda_graphs",), _is("full_iteration"), (0, 14, 0),
            "e7c55de, 2025-08-01, !3473 'Changes to enable full iteration CUDA graph'"),
    Feature("the EP communication overlap", ("overlap_ep_comm",), _is(True), (0, 14, 0),
            "ae1c882, 2025-08-01, !3470 'Support Expert Parallel A2A Overlapping', overlap_moe_expert_parallel_comm"),
    Feature("the MoE router CUDA-graph scopes", ("cuda_graphs",),
            _is("moe_router", "moe_router+moe_preprocess", "attn+moe_router", "attn+moe_router+moe_preprocess"),
            (0, 16, 0), "2b343d7, 2025-12-30, #1920 'Refactor cuda_graph_scope', moe_router and moe_preprocess"),
    Feature("the HybridEP dispatcher", ("moe_dispatcher",), _is("hybridep"), (0, 16, 0),
            "3df2009, 2025-11-18, #2176 'Add the Hybrid-EP backend to the Flex Dispatcher', "
            "moe_flex_dispatcher_backend"),
    Feature("HybridEP's fused permute", ("permute_in_dispatch",), _is(True), (0, 18, 0),
            "8c5cf05, 2026-04-28, #4089 'add permute fusion into hybrid ep', moe_permute_fusion_into_hybridep"),
)


def lacks(stack: str, name: str, value: object) -> Feature | None:
    """The feature training switch or layout field `name` at `value` uses that `stack`'s code lacks (`FEATURES`).

    None: its code has it.
    """
    code = release_of(stack)
    return next((f for f in FEATURES if f.path[0] != "model" and f.path[-1] == name and code < f.first
                 and f.uses(value)), None)


def without(stack: str, name: str) -> str:
    """Switch `name`'s features that `stack`'s code lacks, in words, as a `ByStack` source cites them.

    'Megatron-LM core_v0.9.0 (2024-10-24) lacks the EP communication overlap (core_v0.14.0, ae1c882)'.
    """
    code = release_of(stack)
    gaps = [f for f in FEATURES if f.path[0] != "model" and f.path[-1] == name and code < f.first]
    assert gaps, f"stack_features.without: the code of {stack} has every feature of {name}"
    return (f"{CODE.setting(stack)[1]} lacks " + ", ".join(f"{f.words} ({f.release}, {f.commit.split(', ')[0]})"
                                                          for f in gaps))


def code_has(stack: str, name: str, values: tuple) -> Setting:
    """(the `values` of switch `name` that `stack`'s code has, `without`'s words): a `ByStack` row the code sets."""
    return tuple(v for v in values if lacks(stack, name, v) is None), without(stack, name)


@dataclass(frozen=True)
class Missing:
    """A feature a job states that its stack's code lacks: where it is stated, and the releases that say so."""

    feature: Feature
    stack: str
    value: object

    @property
    def path(self) -> tuple[str, ...]:
        """The stated field (under the training job, or ("model", ...) on the model)."""
        return self.feature.path

    @property
    def short(self) -> str:
        """The feature and its first release: 'multi-token prediction (core_v0.12.0)'."""
        return f"{self.feature.words} ({self.feature.release})"

    @property
    def message(self) -> str:
        """What is missing, the stack's code and the first release that has it, as an error or warning says it."""
        f = self.feature
        return self.said(f.path[-1])

    def said(self, name: str) -> str:
        """`message` with the stated field named as `name`: in a customer's words, without the commit's title."""
        f = self.feature
        sha, when = f.commit.split(", ", 1)
        return self._text(name, f"{sha} ({when})" if name == f.path[-1] else sha)

    def _text(self, name: str, commit: str) -> str:
        f = self.feature
        has = ", ".join(s for s in STACKS if release_of(s) >= f.first)
        return (f"{f.words} is not in the code of stack {self.stack}, {CODE.setting(self.stack)[1]}: it arrived "
                f"in {f.release} with {commit}; got {f.shown.format(name=name, value=_written(self.value))}, "
                f"expected a stack whose code has it "
                f"({has}) or {name} left out")


def _written(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def missing(stack: str, training: object, groups: int | None = None, latent: int = 0) -> list[Missing]:
    """The features `training` (a Workload's `training` or a case's) and its model use that `stack`'s code lacks.

    The model's are `groups`, its `moe.router_num_groups`, and `latent`, its `mla.kv_lora_rank` (0: no multi-head
    latent attention). A Workload's layout fields are under `parallelism`, a case's inline. An expert TP equal to the
    TP is the run every release makes, so `etp` counts only where it differs.
    """
    code = release_of(stack)
    par = getattr(training, "parallelism", training)
    out = []
    for f in FEATURES:
        if code >= f.first:
            continue
        if f.path[0] == "model":
            value = groups if f.path[-1] == "router_num_groups" else (latent or None)
        elif f.path[0] == "parallelism":
            value = getattr(par, f.path[-1], None)
            value = None if f.path[-1] == "etp" and value == getattr(par, "tp", None) else value
        else:
            value = getattr(training, f.path[-1], None)
        if value is not None and f.uses(value):
            out.append(Missing(f, stack, value))
    return out
