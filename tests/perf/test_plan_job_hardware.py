"""`--search-plan` times plans on the hardware the estimate it is compared with runs on (planhw38).

The estimate times a job on its own hardware (`cluster.estimate_hardware`: its share of each scale-up domain, its
OCS slice, a hop between racks); the plan search took the cluster's (`on.hardware`). Qwen3-30B-A3B on 64 of the
72-GPU NVLink domains of gb200-nvl72-su holds 64 of each domain, not 72: the plan timed the estimate's own layout
at 0.5025 s and printed "+1.0 % vs the estimate's 0.4974 s". Here the workload states the estimate's layout and
the switches it takes, so the plan search has that one plan to time: its time must be the estimate's, exactly.
"""

from __future__ import annotations

import json

from archgen.perf.api import estimate_hardware
from archgen.pipeline import built, job_on_cluster
from tests.conftest import SPECS, run_cli
from tests.data.workloads import qwen3_training


def _estimate(tmp_path, parallelism: str, *flags: str, **training: object) -> dict:
    (tmp_path / "w.yaml").write_text(qwen3_training("w", parallelism, stack="nemo-2025", **training), encoding="utf-8")
    r = run_cli("estimate", "--path", SPECS, "--path", tmp_path, "--workload", "w", "--format", "json", *flags)
    assert r.code == 0, r.err
    return json.loads(r.out)


def test_the_plan_of_the_estimates_own_layout_takes_the_estimates_step_time(tmp_path):
    est = _estimate(tmp_path, "{}", "--explain")
    placed = job_on_cluster(*built([str(SPECS), str(tmp_path)]), "w")
    job, cluster = estimate_hardware(placed.workload, placed.on), placed.on.hardware
    assert (job.job_domain, cluster.job_domain) == (64, 0)  # the job's hardware is not the cluster's: this can fail
    switches = {s["name"]: s["value"] for s in est["switches"] if s["used"] and s["name"] != "stack"}
    etp = est["layout"].get("etp", est["layout"]["tp"])  # searched (etp39): shown where it is not tp
    layout = ", ".join(f"{k}: {v}" for k, v in est["layout"].items() if k not in ("recompute", "etp"))  # a training key
    own = _estimate(tmp_path, f"{{{layout}, etp: {etp}, offload: none}}", "--search-plan",
                    recompute=est["layout"]["recompute"], **switches)
    assert own["layout"] == est["layout"] | {"etp": etp} and own["metrics"]["step_time"] == est["metrics"]["step_time"]
    plan = own["plan"]
    assert {k: v for k, v in plan["layout"].items() if k in est["layout"]} == est["layout"]
    unused = {s["name"] for s in est["switches"] if not s["used"]}  # tp 1: sequence parallelism, the TP overlap
    assert {k for k, v in plan["searched"].items() if len(v) > 1} <= unused  # the one plan: nothing that acts is open
    assert plan["step_time_s"] == est["metrics"]["step_time"]["value"]
