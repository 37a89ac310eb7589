"""What every point of a sweep rests on, per accelerator: efficiencies not measured, the model's defaults taken.

Split from `perf.explore.points` for its size; `points` re-exports both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from archgen.model.serving_features import DECODING
from archgen.perf.comm import rccl_net
from archgen.perf.explore.batch_path import path_note
from archgen.perf.explore.hardware_scope import peak_note, power_note, price_note
from archgen.perf.serve.colocation import swept_colocation
from archgen.perf.workload.defaults_note import (
    defaults_note,
    fp4_format_note,
    fp8_copies_note,
    generation_note,
    kernel_cost_note,
    nvls_note,
)
from archgen.perf.workload.efficiency_range import unmeasured
from archgen.perf.workload.estimate import precision
from archgen.perf.workload.moe_serving_note import moe_serving_convention
from archgen.perf.workload.serving_estimate import IDLE_TTFT
from archgen.perf.workload.training_estimate import sweep_held_note

if TYPE_CHECKING:
    from archgen.perf.explore.problem import SweepProblem


def unmeasured_efficiencies(problem: SweepProblem) -> list[str]:
    """Per accelerator of the sweep, the efficiencies its points take at a point, not one measurement.

    The data types are the sweep's `precision` levels, else the workload's; one line per accelerator
    (`perf.workload.efficiency_range.unmeasured`), none for parts whose every figure the estimates use is measured.
    """
    dtypes = list(problem.axes.get("precision") or [precision(problem.workload)])
    counts = problem.axes.get("accelerators") or [problem.workload.accelerators or 0]
    # an RCCL part whose points cross its domains also rests on the scale-out range (`rccl_net.with_range`)
    machines = {m.hardware.accelerator: rccl_net.with_range(m.hardware, max(*counts, 0) or m.accelerators)
                for m in problem.bases.values()}
    return [line for _, hw in sorted(machines.items()) if (line := unmeasured(hw, dtypes))]


def model_defaults(problem: SweepProblem) -> list[str]:
    """Per accelerator of the sweep, the model's defaults its points take where the part states no figure.

    In `archgen estimate`'s words (`perf.workload.defaults_note`): "not stated by trainium2 or its system, so taken
    from the model's defaults: ...", and the FP4/FP8 format notes. None for parts that state every figure. Then
    what every point of a training sweep holds of its layout (cp 1, an MoE model's ep 1) where neither the workload
    nor an axis gives it (`training_estimate.sweep_held_note`).
    """
    machines = sorted((m.hardware for m in problem.bases.values()), key=lambda hw: hw.accelerator)
    dtypes = list(problem.axes.get("precision") or [precision(problem.workload)])
    train = problem.workload.training is not None
    held = sweep_held_note(bool(problem.model and problem.model.moe), problem.workload.training, problem.axes) \
        if problem.workload.training is not None else []  # cp (an MoE model's ep) neither stated nor swept
    notes = (line for hw in machines for line in [
        *defaults_note(hw), *(n for d in dtypes for n in (*fp4_format_note(hw, d), *fp8_copies_note(hw, d, train))),
        *generation_note(hw, train), *nvls_note(hw), *kernel_cost_note(hw, train)])
    return list(dict.fromkeys(notes)) + held  # one line per distinct note


def conventions(problem: SweepProblem) -> dict[str, str]:
    """A serving sweep's conventions by key, as its points' estimates state them; {} where it has none.

    One source for the document's Conventions (a bullet each, `render.sweep`) and `--format json`'s `conventions`.
    `prefill_decode` and `decoding` where the axes leave the colocation to the points (`swept_colocation`), and an MoE
    model's `moe_serving`. `ttft` for an offline job's points: they run the closed form, no simulated run (not
    `scenario: concurrency`, nor `server` with an arrival rate, stated or swept: `scheduler.estimate_serving`), so
    their TTFT column is one request's prefill on an idle replica (`IDLE_TTFT`; newuser107: 116.9 ms at every batch
    of tp 1, and the JSON said nothing of it).
    """
    inf, axes, model = problem.workload.inference, problem.axes, problem.model
    text = swept_colocation(model, inf, axes)
    moe = (moe_serving_convention() or "") if text and model is not None and model.moe is not None else ""
    offline = inf is not None and inf.scenario != "concurrency" and not (
        inf.scenario == "server" and bool(inf.arrival_rate or axes.get("arrival_rate")))
    said = {"prefill_decode": text, "decoding": DECODING if text else "", "moe_serving": moe,
            "ttft": IDLE_TTFT if offline else ""}
    return {key: words for key, words in said.items() if words}


def batch_note(bounds: dict[str, int]) -> str:
    """What bound the batch of a serving sweep's points that fit, with their counts (`Tally.batch_bounds`); else "".

    Where the job and the axes leave the batch to the replica's limits, it is the engine's (`max_batch_size`, its
    default by engine and memory: `perf.serve.engine_defaults`) or the KV cache's capacity, whichever is lower
    (`serving_limits.engine_cap`). A point bound by the engine's does not move with the KV cache: an `hbm_capacity`
    axis changes nothing there (newuser58: 192 and 384 GB of HBM both ran vLLM's 1,024 sequences of Llama 3.1 70B).
    """
    if not bounds:
        return ""
    return ("The batch (sequences in flight per replica), left to the replica's limits, was capped "
            + "; ".join(f"at {n:,} point(s) by {text}" for text, n in bounds.items())
            + ". Where the engine's limit binds, more HBM (an hbm_capacity axis) does not raise the batch.")


def scope_notes(problem: SweepProblem, batch_bounds: dict[str, int]) -> list[str]:
    """What a table of a sweep's points leaves out or holds, in words; one list for the document and the summary.

    Unknown power and price (`power_note`, `price_note`), what the peak axis holds (`peak_note`), what bound a
    serving batch (`batch_note`, from `Tally.batch_bounds`) and why the points were estimated one by one where they
    were (`batch_path.path_note`): the document's notes under its front and best tables and the command's summary say
    the same lines.
    """
    return [text for text in (power_note(problem), price_note(problem), peak_note(problem), batch_note(batch_bounds),
                              path_note(problem), *problem.notes) if text]
