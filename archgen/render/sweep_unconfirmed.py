"""The sweep report's note on requirements met on estimates that rest on a part's unconfirmed figures or stack.

`check` and the documents' compliance matrix say "met (on assumed inputs: gb200 vector_peak (unconfirmed))" of a
requirement judged on such an estimate (`analyse.assumed`, REQ005). A sweep judges its requirements at every point;
it says the same once, under its requirements table, not in each cell: which requirements some point meets on a
metric the performance model computes, and which figures of which accelerator those estimates read
(`perf.workload.unconfirmed_note.unconfirmed_read`, at the sweep's data types), and, for a training sweep on a part
whose vendor has no stack profile, the NVIDIA stack its estimates assume, and for a serving sweep there the NVIDIA
engine (`assumed_stacks`, PERF005).
"""

from __future__ import annotations

from archgen.model.engine import engine_problem
from archgen.perf.explore.points import Result, requirements
from archgen.perf.explore.problem import SweepProblem
from archgen.perf.explore.tally import tally
from archgen.perf.train.stacks import on_vendor
from archgen.perf.workload.defaults_note import assumed_engine, assumed_stack
from archgen.perf.workload.derived import MEMORY_METRICS
from archgen.perf.workload.estimate import precision
from archgen.perf.workload.estimate_assumed import PERF_METRICS, RATE_FIGURES
from archgen.perf.workload.unconfirmed_note import unconfirmed_read

#: A sweep point's own figures built on the estimate's rate: energy per token is power / tokens per second, and the
#: ends of goodput's and cost's ranges are those figures' (`perf.explore.points`); its power and accelerators are not.
POINT_RATE_FIGURES = ("energy_per_token", "goodput_tokens_per_second_low", "goodput_tokens_per_second_high",
                      "cost_per_token_low", "cost_per_token_high")


def read_by_accelerator(problem: SweepProblem) -> dict[str, tuple[str, ...]]:
    """Per accelerator of the sweep, its unconfirmed figures some point's estimate reads, at any data type swept."""
    dtypes = list(problem.axes.get("precision") or [precision(problem.workload)])
    out: dict[str, tuple[str, ...]] = {}
    for m in problem.bases.values():
        read = (*out.get(m.hardware.accelerator, ()), *(f for d in dtypes for f in unconfirmed_read(m.unconfirmed, d)))
        if read:
            out[m.hardware.accelerator] = tuple(dict.fromkeys(read))
    return dict(sorted(out.items()))


def assumed_stacks(problem: SweepProblem) -> tuple[str, ...]:
    """What a sweep's estimates assume of its accelerators' training stacks or serving engines, or ().

    `defaults_note.assumed_stack` of a training sweep, `defaults_note.assumed_engine` of a serving one (PERF005).
    """
    t, inf = problem.workload.training, problem.workload.inference
    if t is not None:
        said = (assumed_stack(m.hardware, on_vendor(t, m.hardware.vendor).stack) for m in problem.bases.values())
    elif inf is not None:
        said = (assumed_engine(m.hardware, inf)
                for m in problem.bases.values() if not engine_problem(inf.engine, inf.max_batch_size,
                                                                      m.hardware.vendor))
    else:
        return ()
    return tuple(dict.fromkeys(a for a in said if a))


def unconfirmed_note(result: Result) -> tuple[str, ...]:
    """The sentence naming the requirements some point meets on estimates that rest on assumed inputs, or none.

    Those inputs: the part's unconfirmed figures the estimates read, and another vendor's training stack
    (`assumed_stacks`).
    """
    problem, met = result.problem, {q: n for q, (n, _) in tally(result).met.items()}
    parts, stacks = read_by_accelerator(problem), assumed_stacks(problem)
    rests = {*PERF_METRICS, *RATE_FIGURES, *POINT_RATE_FIGURES}
    named = [q.id for q in requirements(problem) if met.get(q.id) and q.metric in rests
             and (stacks or any(q.metric not in MEMORY_METRICS or "memory" in read for read in parts.values()))]
    if not named:
        return ()
    figures = ", ".join(f"{acc} {f} (unconfirmed)" for acc, read in parts.items() for f in read)
    said = (f"The estimates rest on figures the part lists as unconfirmed (`unconfirmed:`, not confirmed from a "
            f"datasheet), as the compliance matrix says of a requirement met on such an estimate (REQ005): "
            f"{figures}." if figures else "")
    if stacks:   # every figure of the estimate rests on its stack or engine, its memory too (PERF005)
        said += (" They also assume " if figures else "The estimates assume, as REQ005 says of a requirement met on "
                 "one, ") + "; ".join(stacks) + "."
    return (f"Met on assumed inputs, where a point meets {'it' if len(named) == 1 else 'them'}: {', '.join(named)}. "
            + said,)
