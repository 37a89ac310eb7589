"""A requirement met on a figure of the model that carries no error band at all is at risk (REQ004), not met.

newuser100 (issue 20's bar 3): `exposed_communication_share <= 0.07` read "met" at 6.29 % and `memory_headroom >= 40
GB` "met" at 41.15 GB, though no published run measures the model's error on either (the overlap figure issue 20
doubts; a memory that reserves no allocator fragmentation, perf/hw/reserve.py). A figure with a band no run measured
was already at risk (`unbanded`); one with no band was judged plainly. The registry now says which figures of the
model have no band and why (`Metric.unmeasured`); the rest without a band are arithmetic on stated inputs or have a
range of their own, and stay plainly judged.
"""

from __future__ import annotations

import json

import pytest

from archgen.metrics import REGISTRY, find
from archgen.model.at_risk import UNMEASURED, unmeasured
from archgen.model.requirements import Requirement, Status, judge
from archgen.perf.workload.band_families import QUANTITIES
from archgen.units import Q_
from tests.conftest import SPECS, run_cli

#: Workload figures with no band that are judged plainly, each for its reason: arithmetic on stated inputs (a size,
#: a bandwidth, prices), an upper bound whose pass is a pass, or a reliability figure judged across its own range.
PLAIN = {
    # the failure rates and Daly's closed forms, each judged across its range over the rate sets (`spread`)
    "interruptions_per_day", "mtti", "goodput", "checkpoint_interval", "restart_time", "spares", "spare_power",
    "spare_space",
    # parameters x bytes, and sizes over the stated storage bandwidth
    "checkpoint_size", "checkpoint_write_time", "checkpoint_restore_time", "checkpoint_restore_read",
    "checkpoint_storage_needed", "checkpoint_blocking_time",
    # upper bounds from the parts' stated draw: a target they meet is met (metrics_swing.py)
    "job_power_swing", "checkpoint_power_dip",
    # prices x accelerators: no step time enters a cost per hour (band_families.QUANTITIES)
    "job_cost_per_hour", "job_cost_per_hour_low", "job_cost_per_hour_high",
    # a closed loop's stated N, or offline the stated batch; the KV cache's capacity where neither is stated rests on
    # the memory model (not split by job here: one registry row)
    "concurrency",
}


def _banded(name: str, jobs: tuple[str, ...]) -> bool:
    return any(name in QUANTITIES.get(job, {}) for job in jobs)


def test_every_workload_figure_is_banded_unmeasured_or_plain():
    """Each workload metric is one of three: banded (its quantity in `QUANTITIES`), a model figure with no band
    (`unmeasured`, with why), or plainly judged (`PLAIN`): a new metric must be put in one, never none."""
    unsorted = []
    for m in REGISTRY:
        if m.subject != "workload":
            continue
        plain = m.name in PLAIN or m.name.startswith(("interruptions_per_day", "mtti_", "goodput_low", "goodput_high",
                                                       "spares_", "spare_", "restart_time_", "memory_per_gpu_",
                                                       "memory_headroom_"))   # the ends of a training job's memory
        kinds = [_banded(m.name, m.jobs), bool(m.unmeasured), plain]
        if sum(kinds) != 1:
            unsorted.append((m.name, kinds))
    assert not unsorted


def test_the_metric_reference_says_which_of_the_three_each_figure_is():
    """docs/metrics.md's *error band* column (`docs.band_of`): the same three, words for each (bandcarry40)."""
    from archgen.docs import band_of
    from tests.conftest import REPO
    ends = {f"memory_{f}_{e}" for f in ("per_gpu", "headroom") for e in ("low", "high")}   # a range's ends
    for m in REGISTRY:
        if m.subject == "workload" and m.name not in ends:
            words = band_of(m)
            assert (words == "arithmetic on stated inputs") is (not _banded(m.name, m.jobs) and not m.unmeasured), m
    room = find("workload", "memory_headroom")
    assert band_of(room) == ("training: range over the caching allocator's waste (`memory_headroom_low` to "
                             "`memory_headroom_high`); on a TPU none, unmeasured as below; inference: unmeasured: "
                             f"{room.unmeasured}")
    assert band_of(find("workload", "memory_per_gpu_high")) == ("the high end of the range of `memory_per_gpu` over "
                                                                "the caching allocator's waste")
    assert band_of(find("workload", "job_cost_low")) == band_of(find("workload", "job_cost")) == "band of `step_time`"
    assert band_of(find("workload", "tokens_per_second")) == ("training: band of `step_time`; inference: band of "
                                                               "`tokens_per_second`")
    assert band_of(find("point", "step_time_low")) == "the low end of the band of `step_time`"
    assert band_of(find("workload", "decode_step_time")).startswith("unmeasured: no published run's decode step")
    page = (REPO / "docs" / "metrics.md").read_text(encoding="utf-8")
    row = next(line for line in page.splitlines() if line.startswith("| `memory_headroom` |"))
    assert f"| {band_of(room)} |" in row


@pytest.mark.parametrize("name", ["memory_headroom", "memory_per_gpu", "exposed_communication_share"])
def test_model_figures_with_no_band_say_why(name):
    m = find("workload", name)
    assert m is not None and m.unmeasured and "_" not in m.unmeasured   # words for people, no spec key


@pytest.mark.parametrize("name", ["dataset_read_bandwidth", "goodput_time_to_train_high", "job_cost_low"])
def test_figures_made_exactly_from_tokens_per_second_carry_its_band(name):
    """bandcarry40: tokens/s times or over stated inputs take its band (tests/test_rate_end_bands.py), not unmeasured."""
    m = find("workload", name)
    assert m is not None and not m.unmeasured and _banded(name, m.jobs)


def test_met_is_at_risk_and_not_met_stays():
    room = find("workload", "memory_headroom")
    req = Requirement(id="REQ-R-1", statement="s", metric="memory_headroom", target=">= 40 GB")
    met = unmeasured(judge(req, Q_(41.15, "GB")), room)
    assert met.status is Status.AT_RISK and met.note.startswith(f"{UNMEASURED}: ")
    assert "fragmentation" in met.note
    assert unmeasured(judge(req, Q_(39, "GB")), room).status is Status.NOT_MET
    size = Requirement(id="REQ-S-1", statement="s", metric="checkpoint_size", target="<= 2 TB")
    assert unmeasured(judge(size, Q_(1, "TB")), find("workload", "checkpoint_size")).status is Status.MET


WORKLOAD = """\
kind: Workload
id: l70-unbanded
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 512
training: {seq_len: 8192, global_batch: 512, precision: bf16, stack: nemo-2025}
requirements:
  - {id: REQ-U-1, statement: Exposed communication, metric: exposed_communication_share, target: "<= 0.5"}
  - {id: REQ-U-2, statement: Fits, metric: memory_headroom, target: ">= 0 GB"}
  - {id: REQ-U-3, statement: Small, metric: memory_per_gpu, target: "<= 1 GB"}
"""


def test_check_matrix_and_sarif_report_them_at_risk(spec_tree):
    """`check`: both met figures are REQ004 warnings at their lines with the reason, in the compliance matrix and in
    SARIF; the memory target the estimate misses stays not met (PERF001)."""
    root = spec_tree({"w.yaml": WORKLOAD})
    doc = json.loads(run_cli("check", SPECS, root, "--format", "json").out)
    rows = {r["requirement"]: r for r in doc["requirements"] if r["requirement"].startswith("REQ-U-")}
    assert {k: (r["status"], r["check"]) for k, r in rows.items()} == {
        "REQ-U-1": ("at risk", "REQ004"), "REQ-U-2": ("at risk", "REQ004"), "REQ-U-3": ("not met", "PERF001")}
    sarif = json.loads(run_cli("check", SPECS, root, "--format", "sarif").out)
    found = {(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]): r["message"]["text"]
             for run in sarif["runs"] for r in run["results"] if "REQ-U-" in r["message"]["text"]}
    assert found[("REQ004", 8)].count(UNMEASURED) == 1 and "overlap model" in found[("REQ004", 8)]
    # a training job's memory has a range (memband41): the searched layout leaves 0.035 GB, the range's low end none
    assert "the pessimistic end of its range" in found[("REQ004", 9)]
    assert "no allocator waste" in found[("REQ004", 9)] and UNMEASURED not in found[("REQ004", 9)]
    assert ("PERF001", 10) in found


def test_a_sweep_point_judges_memory_across_its_range_on_both_paths(tmp_path):
    """A sweep's own requirement on a training job's memory headroom is judged across its range over the allocator's
    waste (memband41): met at the point but not at the range's low end, at risk (the point stays feasible: at risk
    passes); met at both ends, met; on the per-point path and the batched one alike, as `check` and `estimate` judge
    it. Before, both read at risk (no band: newuser100), and the batched path read the first met."""
    from archgen.perf.explore.points import evaluate_point
    from archgen.perf.explore.vectorised import evaluate as batched
    from tests.test_sweep import TRAIN, problem_of
    text = TRAIN.replace("  accelerators: [256, 512]\n  scale_out_bandwidth: [1, 0.5]\n", "  accelerators: [512]\n")
    text += ("requirements:\n  - {id: REQ-SWP-MEM, statement: Fits, metric: memory_headroom, target: '>= 0 GB'}\n"
             "  - {id: REQ-SWP-LOW, statement: Loose, metric: memory_headroom, target: '>= -200 GB'}\n")
    p = problem_of(tmp_path, text)
    rows = (evaluate_point(p, 0), *batched(p, 0, 1))
    assert len(rows) == 2
    for row in rows:
        m = row.metrics
        assert -200e9 < m["memory_headroom_low"] < 0 < m["memory_headroom"] == m["memory_headroom_high"]
        assert row.status == "ok" and row.met["REQ-SWP-MEM"] is row.met["REQ-SWP-LOW"] is True and row.feasible
        assert row.at_risk == ("REQ-SWP-MEM",)
