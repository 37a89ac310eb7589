"""Issue 25's remaining gap, term by term: two plans, each evaluated in both models.

`python -m tests.perf.calculon_terms CALCULON_COMMAND` (with `CALCULON_ROOT`, as `calculon_plans`) takes, for each
case, Calculon's like-for-like optimum (tests/perf/data/calculon-optima.yaml `calculon_optimum_like`, searched by
bench/calculon_optimum.py --like-archgen) and archgen's like-for-like pick (`calculon_plans.search_like`), writes
each as the other model's input (`execution`, `layout_of`) and prints every term of the step in both models, per
step, in seconds: compute (forward, backward, recompute; archgen's includes its embedding and output layer, which
Calculon's blocks lack), TP communication exposed (Calculon's `tp_comm_exposed_time` + `recomm_exposed_time`),
PP exposed, DP exposed, bubble, optimizer step (archgen's includes the gradient norm and clipping), offload exposed
(archgen: the step with the plan's offload less the same plan without it, the other terms being the plan's without
offload: so a CPU optimizer step or the write-back of offloaded weights shows here), and the memory per GPU (GiB;
Calculon's tier 1 and tier 2). The tables in docs/perf-model.md and tests/perf/data/calculon-optima.yaml (`terms`) are its
output. Calculon is not imported: its CLI writes the stats.
"""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import replace
from pathlib import Path

import yaml

from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.memory import OFFLOAD_CODES, WEIGHT_OFFLOAD
from archgen.perf.train.job import Job, Layout
from archgen.perf.train.stacks import resolve
from archgen.perf.train.training import RECOMPUTE_CODES, TrainingEstimate, estimate_training
from tests.perf.calculon_plans import (
    CASES,
    LIKE_JOB,
    LIKE_PIPELINE,
    LIKE_STATED,
    LIKE_ZEROS,
    RECOMPUTE,
    STACK,
    Case,
    calculon_rate,
    execution,
    hardware,
    search_like,
)

DATA = Path(__file__).parent / "data" / "calculon-optima.yaml"
GIB = 2.0**30
#: The terms, in table order.
TERMS = ("compute", "tp", "pp", "dp", "bubble", "optimizer", "offload", "total", "memory_gib", "host_gib")


def layout_of(exe: dict) -> tuple[Layout, dict[str, object]]:
    """Calculon's execution as archgen's layout and job switches (the inverse of `calculon_plans.execution`)."""
    code = (OFFLOAD_CODES["activations"] if exe["activations_offload"] else 0) | (
        OFFLOAD_CODES["optimizer"] if exe["optimizer_offload"] else 0) | (
        WEIGHT_OFFLOAD if exe["weight_offload"] else 0)
    recompute = {v: k for k, v in RECOMPUTE.items()}[exe["activation_recompute"]]
    lay = Layout(exe["tensor_par"], exe["pipeline_par"], exe["data_par"], exe["microbatch_size"],
                 interleave=exe["pipeline_interleaving"], recompute=RECOMPUTE_CODES[recompute],
                 sequence_parallel=exe["tensor_par_comm_type"] == "rs_ag",
                 zero=2 if exe["optimizer_sharding"] else 0, pipeline=LIKE_PIPELINE, offload=code)
    dpo = bool(exe["data_par_overlap"])
    switches = {"overlap_tp_comm": exe["tensor_par_overlap"] != "none", "overlap_grad_reduce": dpo,
                "overlap_param_gather": dpo and bool(exe["optimizer_sharding"])}
    return lay, switches


def archgen_plan(case: Case, exe: dict, accelerators=None) -> tuple[Hardware, Job, Layout]:
    """`exe` as archgen's estimate inputs (stack nemo-2025, `LIKE_STATED` stated, `LIKE_JOB` set).

    `estimate_training(*archgen_plan(...))` estimates it.
    """
    lay, switches = layout_of(exe)
    job = replace(Job.from_knobs(case.arch, 2048, case.batch, "bf16", resolve(STACK, LIKE_STATED, "bf16")),
                  **switches, **LIKE_JOB)  # type: ignore[arg-type]
    return hardware(case, accelerators), job, lay


def archgen_terms(case: Case, exe: dict, accelerators=None) -> dict[str, float]:
    """The terms of `exe` in archgen's model (stack nemo-2025 with `LIKE_STATED`, `LIKE_JOB`)."""
    hw, job, lay = archgen_plan(case, exe, accelerators)
    est: TrainingEstimate = estimate_training(hw, job, lay)
    plain = estimate_training(hw, job, replace(lay, offload=0))
    off = float(est.step_time) - float(plain.step_time)
    return {"compute": float(plain.compute), "tp": float(plain.tp_comm), "pp": float(plain.pp_comm),
            "dp": float(plain.dp_comm), "bubble": float(plain.bubble), "optimizer": float(plain.optimizer),
            "offload": off, "total": float(est.step_time), "memory_gib": float(est.memory.total) / GIB,
            "host_gib": float(est.memory.host) / GIB}


def calculon_terms(command: list[str], root: Path, case: Case, exe: dict) -> dict:
    """The same terms in Calculon's model (its `llm` stats), with its refusal if any."""
    s, refused = calculon_rate(command, root, case, exe)
    out: dict = {
        "compute": s["fw_time"] + s["bw_time"] + s["recompute_time"],
        "tp": s["tp_comm_exposed_time"] + s["recomm_exposed_time"], "pp": s["pp_comm_exposed_time"],
        "dp": s["dp_comm_exposed_time"], "bubble": s["bubble_time"], "optimizer": s["optim_step_time"],
        "offload": s["fw_offload_exposed_time"] + s["bw_offload_exposed_time"], "total": s["total_time"],
        "memory_gib": s["proc_mem_tier1_cap_req"] / GIB, "host_gib": s["proc_mem_tier2_cap_req"] / GIB,
        "sample_rate": s["sample_rate"]}
    if refused:
        out["refused"] = refused
    return out


#: Column headings of `table`.
HEADINGS = {"optimum_in_calculon": "Calculon's optimum, in Calculon", "optimum_in_archgen": "in archgen",
            "pick_in_calculon": "archgen's pick, in Calculon", "pick_in_archgen": "in archgen"}


def table(rows: dict[str, dict]) -> list[str]:
    """A markdown table: one column per (plan, model), one row per term."""
    head = "| term (s per step; GiB) | " + " | ".join(HEADINGS[k] for k in rows) + " |"
    lines = [head, "|---|" + "---:|" * len(rows)]
    for term in TERMS:
        lines.append(f"| {term} | " + " | ".join(f"{r[term]:.3f}" for r in rows.values()) + " |")
    return lines


def main() -> None:
    """Print both plans of each case in both models, as a table and as the YAML recorded in the data file."""
    command = shlex.split(sys.argv[1] if len(sys.argv) > 1 else os.environ.get("CALCULON", ""))
    root = Path(os.environ.get("CALCULON_ROOT", "."))
    data = yaml.safe_load(DATA.read_text(encoding="utf-8"))
    record: dict[str, dict] = {}
    for key, case in CASES.items():
        plan, _ = search_like(case)
        pick = execution(plan, case)
        assert plan.estimate is not None
        got = calculon_terms(command, root, case, pick)
        like = {"stack": STACK, "stated": LIKE_STATED, "job": LIKE_JOB, "zeros": list(LIKE_ZEROS), "model_only": True,
                "pipeline": "no embedding or loss slot", "layout": plan.best, "switches": plan.switches,
                "step_time_s": round(float(plan.estimate.step_time), 6),
                "calculon": {"execution": pick, "sample_rate": round(float(got["sample_rate"]), 4),
                             "total_time_s": round(float(got["total"]), 4)} | (
                                 {"refused": got["refused"]} if "refused" in got else {})}
        print(yaml.safe_dump({key: {"archgen_plan_like": like}}, sort_keys=False, width=120, default_flow_style=None))
        optimum = dict(data["cases"][key]["calculon_optimum_like"]["execution"], num_procs=case.gpus,
                       datatype="float16", fused_activation=True, attention_type="multihead", training=True)
        rows: dict[str, dict] = {"optimum_in_calculon": calculon_terms(command, root, case, optimum),
                "optimum_in_archgen": archgen_terms(case, optimum),
                "pick_in_calculon": calculon_terms(command, root, case, pick),
                "pick_in_archgen": archgen_terms(case, pick)}
        print(f"\n{case.name}\n" + "\n".join(table(rows)))
        record[key] = {k: {t: v if isinstance(v, str) else round(float(v), 3) for t, v in r.items()}
                       for k, r in rows.items()}
    for key, rows in record.items():
        print(yaml.safe_dump({key: {"terms": {k: dict(r) for k, r in rows.items()}}}, sort_keys=False,
                             width=120, default_flow_style=None))


if __name__ == "__main__":
    main()
