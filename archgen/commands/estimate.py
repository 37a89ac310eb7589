"""`archgen estimate`: a workload on a cluster, or validation cases scored; (text, exit code), the CLI prints."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from archgen.as_of import judging
from archgen.commands.common import located
from archgen.errors import UsageError
from archgen.model.requirements import Outcome, miss_severity
from archgen.output.envelope import document, dumps
from archgen.output.estimate import (
    case_defaults_text,
    case_switches_text,
    estimate_json,
    estimate_text,
    switches_json,
    switches_text,
    what_if_json,
    what_if_text,
)
from archgen.perf.api import (
    EXTRA_PARAMETERS,
    PARAMETERS,
    JobOnCluster,
    estimate_hardware,
    explain_switches,
    peak_scope,
    plan_dict,
    plan_for_workload,
    plan_text,
    precision,
    serving_taken,
)
from archgen.pipeline import built, job_on_cluster
from archgen.waivers import requirement_waivers

FORMATS = ("text", "json")


def run(cases: Path | None, cluster: str | None, workload: str | None, paths: list[Path], fmt: str = "text",
        what_if: list[str] | None = None, explain: bool = False, search_plan: bool = False,
        model_only: bool = False) -> tuple[str, int]:
    """`archgen estimate`: score `cases`, or estimate `workload` (on `cluster`, under `what_if`) from `paths`.

    `explain` adds every training switch an estimate used and where its value came from (`stacks.explain`);
    `search_plan` adds the plan search (`perf.explore.plan`) beside the estimate; `model_only` has it also search
    weight offload, which no stack runs.
    """
    if cases is not None:
        if cluster or workload or what_if:
            raise UsageError("give either --cases or --workload (with any --cluster and --what-if), not both")
        if search_plan or model_only:
            raise UsageError("--search-plan searches a training workload's plan: give it with --workload, not --cases")
        return estimate_cases(cases, fmt, explain)
    if not workload:
        raise UsageError("give --cases FILE, or --workload ID (and --cluster ID to run it elsewhere)")
    if model_only and not search_plan:
        raise UsageError("--model-only widens the plan search: give it with --search-plan")
    factors = parse_what_if(what_if or [])
    if not paths:   # `existing_spec_paths`: none given and no specs/ here, so only the shipped catalog
        raise UsageError(f"no workload '{workload}': no --path given and no specs/ in {Path.cwd()}; "
                         "give the project's specs with --path DIR")
    specs, design = built(paths)
    _check_format(fmt)
    doc = specs.items.get(workload)
    job = next((k for k in ("training", "inference", "collective") if getattr(doc, k, None)), None)
    bound = (*(b for b in design.workload_requirements if b.owner == workload), *design.elsewhere(workload))
    on = judging(specs.items.values(), None)   # as `check` judges waivers without --as-of

    def waived(outcomes: Sequence[Outcome]) -> tuple[str, ...]:
        return requirement_waivers(specs, bound, outcomes, workload, on)
    with located(specs, (workload, (job,)) if job else None):  # the model's errors at their subject, else the job
        return estimate_workload(job_on_cluster(specs, design, workload, cluster), fmt, factors, explain,
                                 search_plan, model_only, waived)


def _check_format(fmt: str) -> None:
    if fmt not in FORMATS:
        raise UsageError(f"unknown format '{fmt}' (expected one of: {', '.join(FORMATS)})")


def estimate_cases(path: Path, fmt: str = "text", explain: bool = False) -> tuple[str, int]:
    """Score a validation-case file, every case it can; exit code 1 when a case is refused, else 0.

    Accuracy is reported, not judged, here. A case the model cannot score (invalid fields, an unknown accelerator,
    a layout the model refuses) is reported with its located problems and the other cases are still scored; a
    problem of the file itself (YAML, schema, no cases) raises `ValidateError`. The text and the JSON (`unstated` on
    a row) also give each case's range over what it leaves unstated, as the accuracy page does
    (`scoring.unstated.unstated_span`: stack profiles, unsettled switches, open knobs and efficiencies; not scored).
    Each measurement is also set beside the band its family carries (`case_bands.case_band`: the model's error alone,
    at the run's load bin, arrival and context) with its expected coverage, and whether the measured value lies
    inside (text: `in band`; JSON: `band`, `in_band`), the held-out check of docs/accuracy.md on any run.
    `explain` adds each scored training case's switches and where each came from (JSON: a `switches` list on each of
    its rows), and each serving case's fields left to their defaults with the value taken (JSON: `defaults`).
    The lists of `output.cases.CASE_LISTS` follow the table: the layouts that do not fit by the model, the serving
    cases the replica admits fewer of than they state, the FLOP metrics a case counts by its own formula (JSON, on each
    row of a case that holds memory: `fits`, and `unfit`, `admitted`, `flop_note` where they apply).
    """
    from archgen.output.cases import case_bands, case_scores_json, case_scores_text  # not for a workload's estimate
    from archgen.scoring import unstated
    from archgen.scoring.case_checks import virtual_stages
    from archgen.scoring.case_memory import admission_cap, unfit_reason
    from archgen.scoring.cases import case_vendor, flop_note, read_case_file
    from archgen.scoring.catalog import load_accelerators
    from archgen.scoring.scores import score_cases
    _check_format(fmt)
    cf = read_case_file(path)
    scores = score_cases(cf)
    ran = [(s.case, s.prediction) for s in scores.scored if s.results]   # each with what its prediction was made from
    accs = load_accelerators()
    used = {c.id: explain_switches(t, {"tp": t.tp, "pp": t.pp, "dp": t.dp, "cp": t.cp, "ep": t.ep, "etp": t.etp,
                                       "zero": t.zero, "interleave": virtual_stages(t)},
                                   c.model.moe is not None if c.model else None, case_vendor(c, accs),
                                   c.model.position_embedding == "rope" if c.model else None)
            for c, _ in ran if explain and (t := c.training) is not None}
    defaults = {c.id: {t.name: t.value for t in serving_taken(
                    c.inference, case_vendor(c, accs), job.max_batch_size, job.kv_reserve, job.kv_rule,
                    job.kv_fraction, c.inference.tp, c.inference.replicas, "field default")}
                for c, p in ran if explain and c.inference is not None and p.footprint is not None
                and (job := p.footprint.job) is not None}
    ranges = {c.id: span for c, p in ran if (span := unstated.unstated_span(c, accs, p))[0]}
    bands = case_bands(cf.cases, scores.results)
    unfit = {c.id: why for c, p in ran if c.collective is None and (why := unfit_reason(c, p.footprint)) is not None}
    capped = {c.id: why for c, p in ran if (why := admission_cap(c, p)) is not None}
    flop = {c.id: why for c, _ in ran if (why := flop_note(c)) is not None}
    if fmt == "json":
        said = {c.id: {"fits": c.id not in unfit} | ({"unfit": unfit[c.id]} if c.id in unfit else {})
                | ({"admitted": capped[c.id]} if c.id in capped else {})
                | ({"flop_note": flop[c.id]} if c.id in flop else {})
                for c, _ in ran if c.collective is None}
        rows = [row | said.get(row["id"], {}) if "metric" in row else row
                for row in case_scores_json(scores, ranges, bands)]
        rows = [row | {"switches": switches_json(used[row["id"]])} if row["id"] in used and "metric" in row else
                row | {"defaults": defaults[row["id"]]} if row["id"] in defaults and "metric" in row else row
                for row in rows]
        return dumps(rows), 1 if scores.refused else 0
    lists = {"unfit": unfit, "capped": capped, "flop": flop}
    text = (case_scores_text(scores, ranges, bands, lists) + (case_switches_text(used) if used else "")
            + case_defaults_text(defaults))
    return text, 1 if scores.refused else 0


#: The largest change --what-if scales a parameter by, either way (issue 23: a factor of 1e-9 or 1e300 ran to
#: estimates of years per step or overflowed; HBM bandwidth grew about 10x from V100 to B200 in seven years).
MAX_WHAT_IF = 1000.0


def parse_what_if(items: list[str]) -> dict[str, float]:
    """`PARAMETER=FACTOR` strings (e.g. 'hbm_bandwidth=1.5') as a mapping, with clear errors."""
    known = (*PARAMETERS, *EXTRA_PARAMETERS)
    out: dict[str, float] = {}
    for item in items:
        name, sep, text = item.partition("=")
        name = name.strip()
        if not sep or name not in known:
            raise UsageError(f"--what-if '{item}': expected PARAMETER=FACTOR with PARAMETER one of: {', '.join(known)}")
        try:
            factor = float(text)
        except ValueError:
            factor = math.nan
        if not math.isfinite(factor) or factor <= 0:
            raise UsageError(f"--what-if '{item}': expected a positive factor such as 1.5, got '{text.strip()}'")
        if not 1 / MAX_WHAT_IF <= factor <= MAX_WHAT_IF:
            raise UsageError(f"--what-if '{item}': expected a factor from {1 / MAX_WHAT_IF:g} to {MAX_WHAT_IF:g}, got "
                             f"'{text.strip()}' (a thousandfold change is beyond any hardware generation)")
        if name in out:
            raise UsageError(f"--what-if gives '{name}' twice")
        out[name] = factor
    return out


def estimate_workload(placed: JobOnCluster, fmt: str = "text", what_if: Mapping[str, float] | None = None,
                      explain: bool = False, search_plan: bool = False, model_only: bool = False,
                      waivers: Callable[[Sequence[Outcome]], tuple[str, ...]] | None = None) -> tuple[str, int]:
    """A workload's estimate on a cluster as text or JSON; exit code 1 when it does not fit or misses a SHALL target.

    `placed` is the workload on its cluster, or another (`pipeline.job_on_cluster`): its `estimate()` holds every
    note and its requirements judged, as a Python caller gets it. `what_if` multiplies hardware parameters
    (`hardware.PARAMETERS`, `EXTRA_PARAMETERS`); the estimate is then made on the scaled hardware, its layout searched
    again where the workload leaves it open, and reported against the baseline (the exit code judges the what-if).
    `explain` adds the training switches the estimate used, with where each came from (`stacks.explain`; JSON:
    `switches`). `search_plan` adds the plan search of a training workload (`perf.explore.plan`: every switch its
    stack allows; JSON: `plan`); the estimate itself does not change. `model_only` has that search also try weight
    offload, which no stack runs (a plan taking it says so). `waivers` gives, per requirement judged, what `check`
    says of its finding where a waiver covers it (`waivers.requirement_waivers`): the requirement reads "not met
    (waived: ...)" as there, and a waived miss does not fail the exit code, as it does not fail `check`.
    """
    _check_format(fmt)
    workload, model, on = placed.workload, placed.model, placed.on
    est = placed.estimate()
    used = explain_switches(workload.training, est.layout, model.moe is not None if model else None,
                            on.hardware.vendor, model.position_embedding == "rope" if model else None) \
        if explain and workload.training is not None else []
    extra: dict[str, object] = {"switches": switches_json(used)} if used else {}
    plan = None
    if search_plan and (workload.training is None or what_if):
        why = "not a training job" if workload.training is None else "given --what-if"
        raise UsageError(f"--search-plan searches a training job's plan on its own hardware; workload "
                         f"'{workload.id}' is {why}")
    if search_plan:
        # timed on the job's hardware, as the estimate it is compared with (`estimate_hardware`), not the cluster's
        plan = plan_for_workload(workload, model, estimate_hardware(workload, on),
                                 workload.accelerators or on.accelerators, model_only, placed.elsewhere)
        extra["plan"] = plan_dict(plan)
    if what_if:
        base, dtype, hw = est, precision(workload) or "bf16", on.hardware
        for name, factor in what_if.items():
            hw = hw.scaled(name, factor, dtype)
        est = placed.estimate(hw)
        factors = dict(what_if)
        scope = peak_scope(placed.estimate, on.hardware, factors, dtype, est)
        text = dumps(document(**what_if_json(base, est, factors, scope), **extra)) if fmt == "json" else \
            what_if_text(base, est, factors, scope)
    reqs = est.requirements or ()
    waived = waivers(reqs) if waivers is not None else ("",) * len(reqs)   # the what-if's, where one was asked
    if not what_if:
        text = dumps(document(**estimate_json(est, waived), **extra)) if fmt == "json" else estimate_text(est, waived)
    if used and fmt != "json":
        text += switches_text(used)
    if plan is not None and fmt != "json":
        text += plan_text(plan, float(est.metrics["step_time"].m) if "step_time" in est.metrics else None)
    # a target missed fails as `check` judges it, by its level (`miss_severity`): a SHOULD missed is a warning there;
    # a waived one fails neither
    failed = not est.fits or any(o.met is False and miss_severity(o.requirement.level) == "error" and not w
                                 for o, w in zip(reqs, waived, strict=True))
    return text, 1 if failed else 0
