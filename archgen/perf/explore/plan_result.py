"""The plan search's result (`plan.search_plan`) and how it is written: as plain data (JSON) and in words.

Split from `plan` for its size.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from archgen.model.switch_table import as_written
from archgen.perf.train.job import Job
from archgen.perf.train.offload import WEIGHT_OFFLOAD_STACKS
from archgen.perf.train.training import TrainingEstimate


@dataclass(frozen=True)
class PlanResult:
    """Outcome of a plan search: the best plan, what was searched and how much the pruning left to evaluate."""

    searched: dict[str, tuple]          # every knob searched, with the values tried
    kept: dict[str, object]             # what the workload states, held as stated: layout fields and switches
    layouts: int                        # layouts enumerated (tp, pp, dp, cp, ep, mb, v, recompute, zero, offload)
    fitting: int                        # layouts that fit under some plan
    evaluated: int                      # (layout, switch combination) pairs evaluated
    space: int                          # layouts x switch combinations: what an exhaustive search evaluates
    best: dict[str, int | str] | None   # the layout (as `layouts.SearchResult.best`)
    switches: dict[str, object]         # the best plan's switches (sequence_parallel and every JOB_SWITCHES)
    turned_on: tuple[str, ...]          # switches and layout options the best plan turns on
    estimate: TrainingEstimate | None
    job: Job | None
    model_only: tuple[str, ...] = ()    # options the best plan takes that no stack runs (weight offload)
    searched_model_only: bool = False   # whether model-only options were searched
    layout_searched: dict[str, tuple] = field(default_factory=dict)  # the layout fields the workload leaves open,
    #                                     each with the values its valid layouts take (tp, pp, dp, mb, v, recompute)
    profile: dict[str, tuple[object, str]] = field(default_factory=dict)  # neither searched nor stated: the stack
    #                                     profile's value, and why the best plan does not use it ("" where it does)
    turned_off: tuple[str, ...] = ()    # searched switches the stack profile turns on and the best plan turns off,
    #                                     where they act (`plan_for_workload`)
    stack: str = ""                     # the profile those are judged against
    memory_limit: str = ""              # the workload's own memory targets the search kept within, or missed
    #                                     (`memory_limit.searched_within`); "" where it states none
    defaults: dict[str, tuple[object, str]] = field(default_factory=dict)  # held at Megatron's default: `etp_held`



def plan_dict(res: PlanResult) -> dict[str, object]:
    """The plan search as plain data (JSON: `plan`)."""
    est = res.estimate
    return {"layout_searched": {k: list(v) for k, v in res.layout_searched.items()},
            "searched": {k: list(v) for k, v in res.searched.items()}, "kept": dict(res.kept),
            "model_only": {"searched": res.searched_model_only, "options": ["weight offload"],
                           "taken": list(res.model_only), "stacks": WEIGHT_OFFLOAD_STACKS},
            "layouts": res.layouts, "fitting": res.fitting,
            "evaluated": res.evaluated, "space": res.space, "layout": res.best, "switches": res.switches,
            "turned_on": list(res.turned_on), "turned_off": list(res.turned_off),
            "not_searched": {k: {"value": v, "used": not why, "why": why or "the stack profile's value, not searched"}
                             for k, (v, why) in res.profile.items()}
            | {k: {"value": v, "used": True, "why": words} for k, (v, words) in res.defaults.items()},
            "memory_limit": res.memory_limit or None,
            "step_time_s": float(est.step_time) if est is not None else None,
            "memory_per_gpu_bytes": float(est.memory.total) if est is not None else None,
            "mfu": float(est.mfu) if est is not None else None}


def plan_text(res: PlanResult, step_time: float | None) -> str:
    """The plan search in words, against the estimate's own step time `step_time` (s)."""
    lines = ["", "Plan search (--search-plan: every switch the stack allows; the estimate above is unchanged)"]
    if res.layout_searched:
        lines.append("  layout searched: " + _values(res.layout_searched))
    lines.append("  searched: " + _values({k: v for k, v in res.searched.items() if len(v) > 1}))
    held = {k: v for k, v in res.searched.items() if len(v) == 1}
    if held:
        lines.append("  held at one value: " + _values(held))
    if res.kept:
        lines.append("  kept as stated: " + ", ".join(f"{k}={as_written(v)}" for k, v in res.kept.items()))
    used = [f"{k}={as_written(v)}" for k, (v, why) in res.profile.items() if not why]
    if used:
        lines.append("  not searched (the stack profile's value): " + ", ".join(used))
    if unused := [k for k, (_, why) in res.profile.items() if why]:
        lines.append("  not searched, unused by the best plan: " + ", ".join(unused))
    lines += [f"  held at its default: {k} = {v}, {words}" for k, (v, words) in res.defaults.items()]
    lines.append("  model-only (no stack runs it): weight offload, " + (
        "searched" if res.searched_model_only else "not searched (--model-only to search it)"))
    if res.memory_limit:
        lines.append(f"  memory: {res.memory_limit}")
    lines.append(f"  {res.layouts:,} layouts, {res.fitting:,} fit under some plan; {res.evaluated:,} of "
                 f"{res.space:,} (layout, switches) pairs evaluated (pruned by memory fit and a compute bound)")
    if res.best is None or res.estimate is None:
        return "\n".join([*lines, "  no plan fits in accelerator memory", ""])
    s = float(res.estimate.step_time)
    vs = f" ({(s / step_time - 1) * 100:+.1f} % vs the estimate's {step_time:.4g} s)" if step_time else ""
    lines.append("  best: " + " ".join(f"{k}={v}" for k, v in res.best.items()) + f": step {s:.4g} s{vs}, MFU "
                 f"{float(res.estimate.mfu) * 100:.1f} %")
    lines.append("  turned on: " + (", ".join(res.turned_on) or "nothing"))
    if res.stack:
        lines.append(f"  turned off (on in the {res.stack} profile): " + (", ".join(res.turned_off) or "nothing"))
    if res.model_only:
        lines.append(f"  MODEL-ONLY PLAN (Calculon's mechanism): it takes {', '.join(res.model_only)}, which "
                     f"{WEIGHT_OFFLOAD_STACKS}")
    return "\n".join([*lines, ""])


def _values(knobs: dict[str, tuple]) -> str:
    """Knobs with their values, as the plan search lists them ("tp 1/2/4; zero 0/1")."""
    return "; ".join(f"{k} {'/'.join(str(x) for x in v)}" for k, v in knobs.items()) or "nothing"
