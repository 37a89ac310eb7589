"""A restore's read and a repair wait give goodput's cost ends too, in `check` and in a sweep (restore42, issue 22).

Where which load a restore runs is not settled (NeMo 2 at ZeRO 1: `goodput_notes.RESTORE_ENDS`), goodput lies between
the one-copy read (the value) and each data-parallel replica reading its weights (`Goodput.replicas`). Before
restore42 only the blocking time's end gave cost ends (`workload_cost` on `unblocked`): the cost per token, per
million tokens and the run's cost read one number at the restore's end, and a target met at the one-copy read only
read met. Each is the cluster's cost per used accelerator-hour x accelerators over the goodput tokens an hour makes, so
its restore end is the value x goodput / goodput at the replicas' read: hand-derived here from the run's own inputs.
"""

from __future__ import annotations

import math

import pytest

from archgen.model.requirements import Status
from archgen.model.unsettled import also_key

PATH = "workload/dense-restore"
#: Llama 3.1 70B on 512 B200 GPUs at ZeRO 1 under NeMo 2 (no host end: a dense model hides the host's time), its token
#: budget stated. The layout search takes dp 128: a restore under Megatron's default load reads the 2-byte weights 128
#: times (`restore_read`), under NeMo 2's parallel load the 14-byte checkpoint once; the stack settles neither.
WORKLOAD = """\
kind: Workload
id: dense-restore
name: Llama 3.1 70B at ZeRO 1 under NeMo 2, its restore's load unsettled
model: llama3-70b
cluster: dgx-b200-superpod
accelerators: 512
checkpoint: {{tokens: 1e12}}
training:
  seq_len: 8192
  global_batch: 512
  precision: bf16
  stack: nemo-2025
  parallelism: {{zero: 1}}
requirements:
  - {{id: REQ-R-1, statement: Cost between the reads, metric: cost_per_token, target: "<= {between} uUSD"}}
  - {{id: REQ-R-2, statement: Cost above both, metric: cost_per_token, target: "<= 0.25 uUSD"}}
  - {{id: REQ-R-3, statement: Cost below both, metric: cost_per_token, target: "<= 0.2 uUSD"}}
  - {{id: REQ-R-4, statement: Hours between the reads, metric: goodput_accelerator_hours, target: "<= {hours} h"}}
"""
#: Between the value and the restore's end (0.243239 and 0.243275 uUSD; 104,812.3 and 104,827.4 GPU-hours): met at
#: the one-copy read only. Below the energy share's end (0.2186 uUSD, 10.1 % of the TCO at maximum draw) too.
BETWEEN, HOURS = 0.243257, 104_820.0


@pytest.fixture(scope="module")
def dense(tmp_path_factory):
    from archgen.pipeline import run

    path = tmp_path_factory.mktemp("restore") / "w.yaml"
    path.write_text(WORKLOAD.format(between=BETWEEN, hours=HOURS), encoding="utf-8")
    return run(["specs", str(path)])


def test_the_cost_ends_at_the_replicas_read_are_the_value_times_goodput_over_theirs(dense):
    est, g = dense.workloads[PATH].estimate, dense.operations.goodput[PATH]
    u = dense.operations.unsettled[PATH]
    used = dense.clusters["cluster/dgx-b200-superpod"].metrics["tco_per_used_accelerator_hour"].m_as("USD")
    tps = est.metrics["tokens_per_second"].m_as("1/s")
    assert g.replicas is not None and g.replicas.goodput < g.goodput   # 0.992554 against 0.992697
    assert not est.unsettled   # no host end: the restore's is the only end above the value
    for goodput, at in ((g.goodput, est.metrics), (g.replicas.goodput, {k: q for k, (q, _) in u.items()})):
        per_token = used * 512 / (tps * goodput * 3600)   # `derived.cost_per_token` on goodput tokens
        assert at["cost_per_token"].m_as("USD") == pytest.approx(per_token, rel=1e-12)
        assert at["cost_per_million_tokens"].m_as("USD") == pytest.approx(per_token * 1e6, rel=1e-12)
        assert at["job_cost"].m_as("USD") == pytest.approx(per_token * 1e12, rel=1e-12)
        assert at["goodput_accelerator_hours"].m_as("h") == pytest.approx(1e12 / tps / goodput / 3600 * 512,
                                                                          rel=1e-12)
    for name in ("cost_per_token", "cost_per_million_tokens", "job_cost", "goodput_accelerator_hours"):
        assert "a restore reading the checkpoint once" in u[name][1]
    # the energy share's end, below the value, is kept beside it (`joined`), not overwritten
    assert u[also_key("cost_per_token")][0] < est.metrics["cost_per_token"] < u["cost_per_token"][0]
    assert "maximum draw" in u[also_key("cost_per_token")][1]


def test_check_judges_a_cost_target_at_both_reads(dense):
    """Met at the one-copy read and missed at the replicas' (REQ-R-1, REQ-R-4): not provided, the note naming the
    restore; met at both (REQ-R-2) judged; missed at every end (REQ-R-3) not met. On main REQ-R-1 read met."""
    outcomes = {o.requirement.id: o for o in dense.workloads[PATH].estimate.requirements}
    for rid in ("REQ-R-1", "REQ-R-4"):
        assert outcomes[rid].status is Status.NOT_PROVIDED, rid
        assert "each data-parallel replica reading its weights" in outcomes[rid].note
    assert outcomes["REQ-R-2"].status in (Status.MET, Status.AT_RISK)
    assert outcomes["REQ-R-3"].status is Status.NOT_MET


def test_the_cluster_takes_the_restore_end_of_its_goodput_job(dense):
    """The cluster's goodput is its largest job's (tied at 512 GPUs and equal goodput with the shipped job, the first
    by id): its cost per goodput accelerator-hour at the replicas' read is the cost per used hour over that goodput."""
    c = dense.clusters["cluster/dgx-b200-superpod"].metrics
    u = dense.operations.unsettled["cluster/dgx-b200-superpod"]
    assert dense.operations.goodput_job["cluster/dgx-b200-superpod"].startswith("dense-restore's")
    low = dense.operations.goodput[PATH].replicas.goodput
    end, why = u["tco_per_goodput_accelerator_hour"]
    assert end.m_as("USD") == pytest.approx(c["tco_per_used_accelerator_hour"].m_as("USD") / low, rel=1e-12)
    assert "a restore reading the checkpoint once" in why
    assert math.isclose(u["goodput"][0].m, low)


def test_check_hands_the_estimates_ends_whole_to_the_judgement(tmp_path):
    """`judge_requirements` took `{**est.unsettled, **ops}`: nothing was dropped only because `Operations.unsettled`
    holds every key of the estimate's (joined in `operations_stage`). It now takes check's whole where given; this
    holds the premise on a job with the host's ends, a restore's and the rate's (review61's Qwen3 repro)."""
    from archgen.pipeline import run
    from tests.perf.test_host_requirements import RESTORE

    (tmp_path / "w.yaml").write_text(RESTORE, encoding="utf-8")
    done = run(["specs", str(tmp_path / "w.yaml")])
    est, u = done.workloads["workload/moe-host"].estimate, done.operations.unsettled["workload/moe-host"]
    assert est.unsettled and set(est.unsettled) <= set(u)
    for k, (q, why) in est.unsettled.items():   # the estimate's end, or the corner beyond it with its reason
        got = [u[key] for key in (k, also_key(k)) if key in u]
        assert (q, why) in got or any(why.split(":")[0] in w for _, w in got), k


def test_a_headroom_end_is_joined_to_an_end_the_cluster_holds(tmp_path, monkeypatch):
    """pipeline.py merged `headroom_ends` by `{**held, **ends}`: an end the cluster already held on a headroom was
    dropped. No producer writes one there today, so one is planted before the merge; both are kept (`joined`)."""
    import archgen.analyse.operations_stage as stage
    from archgen.units import Q_
    from tests.analyse.test_headroom_occupants import _d

    real = stage.analyse_operations

    def planted(design, clusters, workloads):
        ops, out = real(design, clusters, workloads)
        held = clusters["cluster/d"].metrics.get("it_capacity_headroom")
        if held is not None:
            ops.unsettled.setdefault("cluster/d", {})["it_capacity_headroom"] = (held + Q_(1, "kW"), "planted")
        return ops, out

    monkeypatch.setattr(stage, "analyse_operations", planted)
    r, d, _ = _d(tmp_path)
    u = r.operations.unsettled["cluster/d"]
    assert u["it_capacity_headroom"][1] == "planted"
    other, why = u[also_key("it_capacity_headroom")]
    assert "'c' hall 'a'" in why and other.m_as("kW") == pytest.approx(24.6, abs=0.05)   # 32.7 kW less c's 8.13


SWEEP = """kind: Sweep
id: restore
workload: dense-restore
axes:
  accelerators: [512]
objectives:
  - {{metric: goodput_tokens_per_second}}
requirements:
  - {{id: REQ-S-1, statement: Goodput between the reads, metric: goodput, target: ">= {goodput}"}}
  - {{id: REQ-S-2, statement: Goodput below both, metric: goodput, target: ">= 0.99"}}
"""
#: Between goodput at the replicas' read (0.992554) and at the one-copy read (0.992697).
GOODPUT = 0.99262


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """The dense job swept at its own 512 GPUs, on both paths (the per-point one, and the batched one: no memory
    target sends it to the per-point path)."""
    from archgen.perf.explore.batch_path import per_point
    from archgen.perf.explore.points import evaluate_point
    from archgen.perf.explore.vectorised import evaluate as batched
    from tests.conftest import sweep_problem_written

    tmp_path = tmp_path_factory.mktemp("sweep")
    (tmp_path / "w.yaml").write_text(WORKLOAD.format(between=BETWEEN, hours=HOURS), encoding="utf-8")
    problem = sweep_problem_written(tmp_path, SWEEP.format(goodput=GOODPUT))
    assert per_point(problem) == ""
    return evaluate_point(problem, 0), batched(problem, 0, 1)[0]


def test_a_sweep_points_goodput_is_checks_for_the_same_design(swept, dense):
    """restore42: a sweep timed every restore at the one-copy read, so its goodput range stopped at 0.99270's rate-set
    ends where `check`'s reaches the replicas' read. Both paths now give check's goodput, its range and what is made
    from it, at the same layout."""
    est = dense.workloads[PATH].estimate
    for row in swept:
        assert {k: row.layout[k] for k in ("dp", "cp", "zero")} == {k: est.layout[k] for k in ("dp", "cp", "zero")}
        for name in ("goodput", "goodput_low", "goodput_high"):
            assert row.metrics[name] == pytest.approx(est.metrics[name].m, rel=1e-12), name
        for name, unit in (("goodput_tokens_per_second", "1/s"), ("cost_per_token", "USD"),
                           ("goodput_accelerator_hours", "s")):
            assert row.metrics[name] == pytest.approx(est.metrics[name].m_as(unit), rel=1e-9), name


def test_a_sweep_judges_goodput_and_its_cost_at_both_reads_on_both_paths(swept, dense):
    """A target met at the one-copy read only (REQ-S-1 on goodput; the workload's REQ-R-1 and REQ-R-4 on the cost per
    token and the GPU-hours) is not provided, naming what a restore reads; met at both (REQ-S-2, REQ-R-2) judged;
    missed at both (REQ-R-3) not met. The rows of both paths are equal."""
    one, many = swept
    assert one.met == many.met and one.reason == many.reason and one.metrics == many.metrics
    g, low = dense.operations.goodput[PATH].goodput, dense.operations.goodput[PATH].replicas.goodput
    assert low < GOODPUT < g
    for rid in ("REQ-S-1", "REQ-R-1", "REQ-R-4"):
        assert one.met[rid] is None, rid
        assert f"{rid} (SHALL) not provided: " in one.reason and "one end only of what a restore reads" in one.reason
    assert one.met["REQ-S-2"] is True and one.met["REQ-R-2"] is True and one.met["REQ-R-3"] is False


def test_both_paths_agree_where_the_points_layouts_read_differently(tmp_path):
    """The batched path shares a batch's goodput figures by what each chosen layout reads (`restore_key`): the
    dense job's 512 GPUs at four peaks and two scale-out bandwidths, one batch whose search takes dp 32, 64 and 128
    (the replicas' read 32 to 128 copies of the weights), give the per-point path's rows, goodput's range and the
    replicas' end among them."""
    from archgen.perf.explore.batch_path import per_point
    from archgen.perf.explore.points import evaluate_point
    from archgen.perf.explore.vectorised import evaluate as batched
    from tests.conftest import sweep_problem_written

    (tmp_path / "w.yaml").write_text(WORKLOAD.format(between=BETWEEN, hours=HOURS), encoding="utf-8")
    problem = sweep_problem_written(tmp_path, SWEEP.format(goodput=GOODPUT).replace(
        "accelerators: [512]", "accelerators: [512]\n  peak: [0.5, 1, 2, 4]\n  scale_out_bandwidth: [0.25, 4]"))
    assert per_point(problem) == ""
    many = batched(problem, 0, 8)
    reads = set()
    for i, row in enumerate(many):
        one = evaluate_point(problem, i)
        assert (one.layout, one.met, one.reason) == (row.layout, row.met, row.reason), i
        assert one.metrics == pytest.approx(row.metrics, rel=1e-12), i
        reads.add((row.layout["dp"], row.metrics["goodput_low"]))
    # goodput's low end is the replicas' read's, so it falls as dp grows (on main all three read one copy: 0.97648)
    assert [dp for dp, _ in sorted(reads)] == [32, 64, 128]
    lows = [low for _, low in sorted(reads)]
    assert lows[0] > lows[1] > lows[2]


def test_a_cost_per_tokens_four_ends_join_two_by_two_at_their_corners(tmp_path):
    """ends41's job on all 576 GPUs of the GB200 SU (Qwen3-30B-A3B fp8 ep16, ZeRO 1, NeMo 2): no hot spare (the repair
    wait's end, goodput 0.9926 above the value 0.8073), the restore's load unsettled (0.8068 below), the host binding
    (8.46 against 10.13 M tokens/s) and the energy at maximum draw (12.8 % of the TCO). The cost per token's cheap
    ends, the repair's and the energy share's, give their corner, value x g / g_repair x (1 - share); its dear ends,
    the restore's and the host's, theirs, value x g / g_restore x tokens/s / tokens/s at 20 us. Before restore42 the
    repair's and the restore's were missing: the corners were the energy share's and the host's ends alone."""
    from archgen.pipeline import run
    from tests.perf.test_host_requirements import WHOLE_SU

    (tmp_path / "w.yaml").write_text(WHOLE_SU, encoding="utf-8")
    done = run(["specs", str(tmp_path / "w.yaml")])
    path = "workload/moe-host"
    est, g, u = done.workloads[path].estimate, done.operations.goodput[path], done.operations.unsettled[path]
    assert g.swapped is not None and g.replicas is not None
    share = 1 - (u["job_cost_per_hour"][0] / est.metrics["job_cost_per_hour"]).m_as("")   # the energy share's end
    assert share == pytest.approx(0.128, abs=5e-4)
    ratio = (est.metrics["tokens_per_second"] / est.unsettled["tokens_per_second"][0]).m_as("")
    value = est.metrics["cost_per_token"].m_as("USD")
    cheap = value * g.goodput / g.swapped.goodput * (1 - share)
    dear = value * g.goodput / g.replicas.goodput * ratio
    for name, scale in (("cost_per_token", 1.0), ("cost_per_million_tokens", 1e6), ("job_cost", 1e12)):
        assert u[name][0].m_as("USD") == pytest.approx(cheap * scale, rel=1e-9), name
        assert u[also_key(name)][0].m_as("USD") == pytest.approx(dear * scale, rel=1e-9), name
        assert "waiting the rate set's repair time" in u[name][1] and "maximum draw" in u[name][1]
        assert "a restore reading the checkpoint once" in u[also_key(name)][1] and "host's time" in u[also_key(name)][1]


def test_a_stated_per_replica_load_times_a_sweeps_restore_as_checks(tmp_path):
    """`checkpoint.parallel_load: false` settles the replicas' read: `check` times every restore at it (no range over
    the read, no other end); a sweep point timed it at the one copy before restore42 (goodput 0.992697, check's
    0.992554). Now the same, on both paths."""
    from archgen.perf.explore.points import evaluate_point
    from archgen.perf.explore.vectorised import evaluate as batched
    from archgen.pipeline import run
    from tests.conftest import sweep_problem_written

    job = WORKLOAD.format(between=BETWEEN, hours=HOURS).replace("{tokens: 1e12}", "{tokens: 1e12, parallel_load: false}")
    (tmp_path / "w.yaml").write_text(job, encoding="utf-8")
    done = run(["specs", str(tmp_path / "w.yaml")])
    est, g = done.workloads[PATH].estimate, done.operations.goodput[PATH]
    assert g.replicas is None and est.metrics["checkpoint_restore_time"].m_as("s") == pytest.approx(47.27, abs=0.01)
    problem = sweep_problem_written(tmp_path, SWEEP.format(goodput=GOODPUT))
    for row in (evaluate_point(problem, 0), batched(problem, 0, 1)[0]):
        for name in ("goodput", "goodput_low", "goodput_high", "checkpoint_restore_time"):
            assert row.metrics[name] == pytest.approx(est.metrics[name].m_as("s" if "time" in name else ""),
                                                      rel=1e-12), name
        assert row.met["REQ-S-1"] is False and "REQ-S-1 (SHALL) not met" in row.reason   # 0.992554 < 0.99262
