"""PERF: workloads run, fit in memory, meet their targets, keep to their stack, and name the stack they take."""

from __future__ import annotations

from collections.abc import Iterator

from archgen.checks.registry import Context, Violation, check
from archgen.checks.requirements import not_met
from archgen.load import shown
from archgen.model.field_words import said as field_said
from archgen.model.stack_features import missing
from archgen.model.switch_allows import beyond_stack
from archgen.model.switch_table import as_written
from archgen.model.workload import Model, layout_said
from archgen.perf.train.stacks import on_vendor


@check("PERF001", "perf.target")
def target_met(ctx: Context) -> Iterator[Violation]:
    """A workload's performance target (step time, MFU, tokens/s, TTFT, TPOT, memory headroom) is met.

    Fix: change the hardware (`archgen estimate` lists the elasticities to each hardware parameter), the
    parallel layout, or revise the target with its owner.
    """
    for j in ctx.requirements:   # a workload's own, as the pipeline judged them on its estimate (`judge_all`)
        if j.workload and j.outcome.met is False:
            yield not_met(j)


@check("PERF002", "perf.fits")
def fits_memory(ctx: Context) -> Iterator[Violation]:
    """A workload's weights, gradients, optimizer state, activations (or KV cache) fit in accelerator memory.

    Fix: raise TP/PP (or let archgen search the layout), recompute activations, shard the optimizer, or use an
    accelerator with more memory.
    """
    for path, r in ctx.workloads.items():
        e = r.estimate
        if e is not None and not e.fits:
            need, headroom = e.memory.get("total"), e.metrics.get("memory_headroom")
            have = need + headroom if need is not None and headroom is not None else None
            detail = f": {e.misfit}" if e.misfit else ""
            text = f"{r.workload.id} does not fit in accelerator memory{detail}"
            yield Violation(path, r.workload.id, ("training",) if e.kind == "training" else ("inference",),
                            text, need, have, public=layout_said(text))   # the nearest layout's fields in words


@check("PERF003", "perf.runs")
def runs(ctx: Context) -> Iterator[Violation]:
    """A workload's parallel layout can run on its cluster (divides the accelerators, layers and heads).

    On a torus, the job's accelerators form a slice of it (a size along each dimension that divides it).

    Fix: choose TP/PP/DP that multiply to the accelerators used and divide the model's layers and heads, or
    leave them out to have archgen search them; on a torus, ask for a count that forms a slice.
    """
    for path, r in ctx.workloads.items():
        if r.error and not r.refused_by:   # not its cluster's infeasible fabric: NET001/NET003/NET018 say that
            at = r.error_at or (("training",) if r.workload.training else ("inference",))
            there = ctx.design.specs.locate(*r.error_elsewhere) if r.error_elsewhere else None
            where = f" ({r.error_elsewhere[0]} at {shown(there)})" if there and there.line else ""
            yield Violation(path, r.workload.id, at, f"{r.workload.id} cannot be estimated{where}: {r.error}",
                            public=f"{r.workload.id} cannot be estimated: {r.error_public or r.error}"
                            if r.error_public or where else "")   # no spec location for a customer


@check("PERF004", "perf.stack", severity="warning")
def within_stack(ctx: Context) -> Iterator[Violation]:
    """A training workload states only switches, layout fields and pipeline placements its stack can run.

    A stated value wins over the stack's profile and the estimate takes it as stated, but a stack that cannot
    run it (sequence parallelism or flash attention on Megatron-LM of 2021, ZeRO-3 on the 2024 recipe) is not the
    stack that will run the job. What each stack allows is `archgen.model.switch_allows.ALLOWS`, with its source;
    the pipeline placements it runs (`pipeline_layout`, first/last-stage counts, the embedding and loss slots) are
    `UNEVEN_SPLITS` (`placements_beyond`: a layout string under megatron-core-2024, any of them under
    megatron-lm-2021).

    A workload that states no stack is judged against the one its estimate ran: its accelerator vendor's newest
    profile (`stacks.on_vendor`: `primus-2025` on AMD). A feature whose code that house default lacks
    (`stack_features.missing`: HybridEP's fused permute under Primus's Megatron-LM pin) is said here too; under a
    stated stack it is an error where the spec is read.

    Fix: state the stack that runs the job (`training.stack`), or leave the switch out to take the stack's value (a
    placement: a pp that divides the layers, or one the stack runs).
    """
    for path, r in ctx.workloads.items():
        t = r.workload.training
        if t is None:
            continue
        t = on_vendor(t, r.vendor)
        for name, value, allowed, source in beyond_stack(t):
            layout = name in type(t.parallelism).model_fields
            where = ("training", "parallelism", name) if layout else ("training", name)
            shown = "/".join(as_written(v) for v in allowed)
            rest = (f" {as_written(value)}, which stack {t.stack} does not run (it allows {shown}: {source}); "
                    "estimated as stated")
            yield Violation(path, r.workload.id, where, f"{r.workload.id} states {name}{rest}",
                            public=f"{r.workload.id} states {field_said(name)}{rest}")
        if "stack" in t.model_fields_set:   # a stated stack's are refused where the spec is read (`StackSwitches`)
            continue
        model = ctx.design.specs.get(r.workload.model or "")
        groups = model.moe.router_num_groups if isinstance(model, Model) and model.moe else None
        latent = model.mla.kv_lora_rank if isinstance(model, Model) and model.mla else 0
        for m in missing(t.stack, t, groups, latent):
            rest = f"; the stack is not stated, so {t.stack} is a house default: estimated as stated"
            at = ("training", *m.path) if m.path[0] != "model" else ("training",)
            yield Violation(path, r.workload.id, at, f"{r.workload.id}: {m.message}{rest}",
                            public=f"{r.workload.id}: {m.said(field_said(m.path[-1]))}{rest}")


@check("PERF005", "perf.assumed_stack", severity="info")
def stack_of_another_vendor(ctx: Context) -> Iterator[Violation]:
    """An estimate on a part whose vendor has no stack or engine profile says that it runs an NVIDIA one's.

    The stack profiles (`model.switches`) describe NVIDIA's Megatron-LM, Megatron-Core and NeMo on NVIDIA GPUs and
    AMD's Primus on AMD's, and the serving model runs the kernels a CUDA engine launches, at costs measured on Hopper.
    A Trainium, Gaudi or TPU job runs its vendor's own stack (Neuron, Habana's PyTorch bridge, XLA; vLLM over its
    backend to serve), which none of them gives, so its estimate is an NVIDIA stack's or engine's on that part's
    hardware: an assumption, which the estimate states (`assumed:`, JSON `assumed`), and a requirement met on it is
    met on that assumed input (REQ005). Information: it changes no exit code.

    Fix: accept the NVIDIA stack or engine as the estimate's stand-in knowingly (waive this finding with the
    reason); no profile of another vendor's stack or serving backend is modelled.
    """
    for path, r in ctx.workloads.items():
        e, t, inf = r.estimate, r.workload.training, r.workload.inference
        if e is None or (t is None and inf is None):
            continue
        job, key = ("training", "stack") if t is not None else ("inference", "engine")
        at = (job, key) if key in (t or inf).model_fields_set else (job,)
        for assumed in e.assumed:
            yield Violation(path, r.workload.id, at, f"{r.workload.id} is estimated with an assumed {assumed}")


#: PERF006's customer words where the newest profile is another vendor's stand-in.
STAND_IN = ", which stands in for this part's own stack (PERF005: no profile of it is modelled)"


@check("PERF006", "perf.unstated_stack", severity="info")
def unstated_stack(ctx: Context) -> Iterator[Violation]:
    """A training workload that states no stack says which profile filled its switches, and that it may move.

    A job that names no `training.stack` takes its accelerator vendor's newest profile (`stacks.on_vendor`:
    `nemo-2025`, `primus-2025` on AMD), so what it means is archgen's choice, not the spec's: the default has moved
    twice in 0.1.0 (`megatron-core-2024` until ad7ab32d, 2026-12-02, then `nemo-2025`; an AMD job's `primus-2025`
    since 4aaec912, 2026-12-05), each time moving the figures of an unchanged spec with no word from `check`
    (`llama3-70b-pretrain-b200` of `specs/`, measured at b9c76103: MFU 55.09 % with megatron-core-2024 stated,
    61.81 % under nemo-2025; 55.39 % stated once stack36 made that profile NeMo 24.x's).
    `archgen estimate` names the profile and the step time over every profile; this says it where CI reads.
    Information: it changes no exit code. On a part whose vendor has no profile (PERF005: Trainium, Gaudi, TPU) the
    newest profile is another vendor's stand-in, and the message says that stating it pins the stand-in's figures,
    not the stack the job runs.

    Fix: state the stack the job runs (`training.stack`), which keeps its figures across archgen upgrades.
    """
    for path, r in ctx.workloads.items():
        t = r.workload.training
        if t is None or "stack" in t.model_fields_set:
            continue
        stack = on_vendor(t, r.vendor).stack
        stand_in = r.estimate is not None and bool(r.estimate.assumed)
        # the customer edition states the assumption in place of this instruction (`public`)
        keep = (f"stating `stack: {stack}` under `training:` keeps them, as the stand-in's (PERF005: no profile of "
                "this part's own stack), not as the stack the job runs" if stand_in else
                f"state `stack: {stack}` under `training:` to keep them")
        yield Violation(path, r.workload.id, ("training",),
                        f"{r.workload.id} states no training stack: every switch it leaves out takes the newest "
                        f"profile, {stack}, which a later archgen may replace, moving this job's figures with no "
                        f"change to this spec (the default has changed before); {keep}, and see `archgen estimate "
                        f"--workload {r.workload.id}` for the step time under every profile",
                        public=f"{r.workload.id} states no training stack: every setting it leaves out takes the "
                               f"newest profile, {stack}{STAND_IN if stand_in else ''}; its figures rest on that "
                               "profile, an assumption, not on a stack the design states")
