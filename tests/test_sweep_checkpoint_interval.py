"""A sweep over the checkpoint interval, with the job's MTTI as a sweep metric (issue 22).

A reliability engineer could not study checkpoint policy in a sweep: there was no `checkpoint_interval` axis, and
`mtti` was no sweep metric, so a SHALL on it refused the whole sweep (SWP001). A point's MTTI and goodput now come from
the one `perf.train.goodput.job_goodput` that `check` runs (`goodput_of`), so a point and `check` agree to the bit on
the same job: the shipped 70B job on 512 of the DGX B200 SuperPOD's GPUs, which states no interval (Daly's optimum).
"""

from __future__ import annotations

import json

import pytest

from archgen.perf.train.goodput import ettr

PATH = "workload/llama3-70b-pretrain-b200"
SWEEP = """kind: Sweep
id: ckpt
workload: llama3-70b-pretrain-b200
axes:
  accelerators: [512]
  checkpoint_interval: ['10 min', '2 h', optimal]
objectives:
  - {metric: mtti}
  - {metric: goodput}
"""


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    """The sweep's points, one at a time and batched (the path `archgen sweep` takes)."""
    from archgen.perf.explore.points import evaluate
    from archgen.perf.explore.vectorised import evaluate as batched
    from tests.test_sweep import problem_of

    problem = problem_of(tmp_path_factory.mktemp("ckpt"), SWEEP)
    return problem, evaluate(problem, 0, 3), batched(problem, 0, 3)


def test_the_interval_axis_sets_the_jobs_interval_and_optimal_leaves_dalys(rows):
    problem, _, _ = rows
    from archgen.perf.explore.point_axes import point_job

    intervals = [point_job(problem.workload, problem.point(i)).checkpoint.interval for i in range(3)]
    assert [None if i is None else i.m_as("s") for i in intervals] == [600.0, 7200.0, None]


def test_a_point_and_check_agree_to_the_bit_on_mtti_and_goodput(rows, shipped):
    """MTTI and its range's ends are `check`'s (`analyse.goodput.goodput`: its `mtti` and `band`), whatever the
    interval; at 'optimal' the goodput is `check`'s too, the shipped job stating no interval."""
    _, one, many = rows
    g = shipped.operations.goodput[PATH]
    assert g.accelerators == 512 and g.mtti > 0
    for row in (*one, *many):
        assert row.status == "ok", row.reason
        p = row.metrics
        assert (p["mtti"], p["mtti_low"], p["mtti_high"]) == (g.mtti, *g.band["mtti"])
    for row in (one[2], many[2]):
        assert (row.metrics["goodput"], row.metrics["goodput_low"], row.metrics["goodput_high"]) == \
            (g.goodput, *g.band["goodput"])
    assert [r.metrics for r in one] == [r.metrics for r in many]


def test_a_stated_interval_gives_dalys_expected_goodput_at_that_interval(rows, shipped):
    """Daly (2006) eq. 20's useful-time fraction (`ettr`) at 10 min and 2 h, from `check`'s blocking, restart, wait
    and MTTI of the same job, times the share planned maintenance leaves, which no interval changes (`check`'s
    goodput over `ettr` at its own interval); Daly's optimum (`check`'s interval) is above both."""
    _, one, _ = rows
    g = shipped.operations.goodput[PATH]
    planned = g.goodput / ettr(g.interval, g.blocking, g.restart + g.wait, g.mtti)
    assert 0.99 < planned <= 1.0
    for row, tau in zip(one, (600.0, 7200.0), strict=False):
        assert row.metrics["goodput"] == pytest.approx(planned * ettr(tau, g.blocking, g.restart + g.wait, g.mtti),
                                                       rel=1e-12)
    assert one[2].metrics["goodput"] > max(one[0].metrics["goodput"], one[1].metrics["goodput"])


def test_the_same_interval_written_in_the_workload_gives_checks_goodput_to_the_bit(rows, tmp_path):
    """`check` of the workload with `checkpoint: {interval: 2 h}` and the sweep's 2 h point: one figure."""
    from tests.conftest import shipped_edited

    _, one, many = rows
    run = shipped_edited(tmp_path, "workloads/llama3-70b.yaml", "id: llama3-70b-pretrain-b200\n",
                         "id: llama3-70b-pretrain-b200\ncheckpoint: {interval: 2 h}\n")
    g = run.operations.goodput[PATH]
    assert g.interval == 7200.0
    for row in (one[1], many[1]):
        assert (row.metrics["goodput"], row.metrics["goodput_low"], row.metrics["goodput_high"]) == \
            (g.goodput, *g.band["goodput"])


def test_an_interval_under_a_second_or_a_word_is_refused(tmp_path, cli):
    from tests.conftest import SPECS

    for level, why in (("'0.5 s'", "at least 1 s"), ("often", "or optimal")):
        path = tmp_path / "s.yaml"
        path.write_text(SWEEP.replace("['10 min', '2 h', optimal]", f"[{level}]"), encoding="utf-8")
        r = cli("sweep", path, "--path", SPECS, "--out", tmp_path / "o")
        assert r.code == 1 and "Traceback" not in r.err and why in r.err and "s.yaml:" in r.err, r.err


def test_a_shall_on_mtti_is_judged_at_every_point_not_refused(tmp_path, cli, shipped):
    """Before: SWP001 refused the sweep ("targets 'mtti', which a sweep does not compute"). Now each point is judged
    on its MTTI with `check`'s range (REQ004): a target between the MTTI's low end and its value is at risk."""
    from tests.conftest import SPECS

    g = shipped.operations.goodput[PATH]
    low, value = g.band["mtti"][0] / 3600, g.mtti / 3600
    target = (low + value) / 2
    path = tmp_path / "s.yaml"
    path.write_text(SWEEP + f"requirements:\n  - {{id: REQ-MTTI, statement: MTTI, metric: mtti, "
                            f"target: '>= {target} h'}}\n", encoding="utf-8")
    checked = json.loads(cli("check", SPECS, path, "--format", "json").out)
    assert not [f for f in checked["findings"] if f["id"] == "SWP001" and f["object"] == "sweep/ckpt"]
    r = cli("sweep", path, "--path", SPECS, "--out", tmp_path / "o", "--format", "json")
    (doc,) = json.loads(r.out)["sweeps"]
    assert doc["summary"]["feasible"] == 3
    assert all("REQ-MTTI" in p["at_risk"] for p in doc["front"])


def test_an_objective_on_a_ranges_end_goes_the_way_of_its_value():
    """`mtti`, goodput and goodput tokens are maximised; so are their ends (an objective on `goodput_low` was
    minimised unless told, and `diff` called neither direction of a change in it better)."""
    from archgen.model.sweep import MAXIMISED

    ends = {f"{m}_{e}" for m in ("mtti", "goodput", "goodput_tokens_per_second") for e in ("low", "high")}
    assert ends | {"mtti", "goodput", "goodput_tokens_per_second"} <= MAXIMISED
    assert not {"cost_per_token_low", "cost_per_token_high"} & MAXIMISED
