"""PERF: workloads run, fit in accelerator memory, and meet their performance targets."""

from __future__ import annotations

from collections.abc import Iterator

from archgen.checks.registry import Context, Violation, check


@check("PERF001", "perf.target")
def target_met(ctx: Context) -> Iterator[Violation]:
    """A workload's performance target (step time, MFU, tokens/s, TTFT, TPOT, memory headroom) is met.

    Fix: change the hardware (`archgen estimate` lists the elasticities to each hardware parameter), the
    parallel layout, or revise the target with its owner.
    """
    for path, r in ctx.workloads.items():
        if r.estimate is None:
            continue
        for i, o in enumerate(r.estimate.requirements):
            if o.met is False:
                req = o.requirement
                shown = o.value.to(req.target.limit.units) if not req.target.limit.dimensionless else o.value
                yield Violation(path, r.workload.id, ("requirements", i, "target"),
                                f"{req.id} ({req.statement}): {req.metric} = {shown:.4g~P}, target {req.target}",
                                o.value, req.target.limit, req.id, "error" if req.level == "shall" else "warning")


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
            yield Violation(path, r.workload.id, ("training",) if e.kind == "training" else ("inference",),
                            f"{r.workload.id} does not fit in accelerator memory{detail}", need, have)


@check("PERF003", "perf.runs")
def runs(ctx: Context) -> Iterator[Violation]:
    """A workload's parallel layout can run on its cluster (divides the accelerators, layers and heads).

    Fix: choose TP/PP/DP that multiply to the accelerators used and divide the model's layers and heads, or
    leave them out to have archgen search them.
    """
    for path, r in ctx.workloads.items():
        if r.error:
            yield Violation(path, r.workload.id, ("training",) if r.workload.training else ("inference",),
                            f"{r.workload.id} cannot be estimated: {r.error}")
