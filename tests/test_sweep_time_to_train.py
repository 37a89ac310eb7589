"""A sweep point has `time_to_train` and `goodput_time_to_train`, with their bands, as `check` gives them (newuser38).

Before: `sweep` computed neither, and a SHALL target on either in the workload made the sweep refuse to run ("which a
sweep does not compute"), while `check` computes both. A point now has the time to train (the workload's token budget
over its tokens/s) and, with a goodput, the goodput time to train with the ends goodput's range makes
(`perf.workload.run_figures.run_times`); a requirement on them takes the step time's band, at each end of goodput's range
for the goodput time (`run_figures.run_bands`, `judge_points`), as `check` judges them (tests/test_run_bands.py). The
design is the shipped 405B GB200 job with Llama 3.1 405B's token budget (15.6e12 tokens, arXiv 2407.21783 section
3.1). Without a token budget no point could compute them: the sweep refuses an objective on them at its line, and
a workload's SHALL on them, naming the missing budget.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from archgen.model.requirements import Requirement, Status
from archgen.perf.explore.points import evaluate_point
from archgen.perf.explore.vectorised import evaluate as batched
from archgen.perf.workload.band_table import TABLE
from archgen.perf.workload.derived import judge_requirements
from tests.conftest import SPECS, shipped_edited, sweep_problems_of
from tests.test_run_bands import JOB, NEW, OLD, PATH

LOW, HIGH = TABLE["dense-training"]["step_time"][1:3]
DAY = 86400.0


def _specs(root: Path) -> Path:
    """The shipped specs (their catalog kept shipped) with the 405B GB200 job's token budget."""
    out = root / "specs"
    shutil.copytree(SPECS, out, ignore=shutil.ignore_patterns("catalog"))
    f = out / PATH
    f.write_text(f.read_text(encoding="utf-8").replace(OLD, NEW, 1), encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("ttt")
    est = shipped_edited(root / "run", PATH, OLD, NEW).workloads[JOB].estimate
    return root, _specs(root), est


def _sweep(root: Path, requirement: str = "", objective: str = "goodput_time_to_train",
           workload: str = "llama3-405b-pretrain-gb200") -> Path:
    path = root / "sweep.yaml"
    path.write_text(f"kind: Sweep\nid: ttt\nworkload: {workload}\naxes:\n  accelerators: [576]\n"
                    f"objectives: [{{metric: {objective}}}]\n"
                    + (f"requirements:\n  - {requirement}\n" if requirement else ""), encoding="utf-8")
    return path


def test_a_point_has_checks_time_to_train_on_both_paths(setup):
    root, specs, est = setup
    (problem,) = sweep_problems_of(_sweep(root), [specs])
    assert est.accelerators == 576
    for row in (evaluate_point(problem, 0), *batched(problem, 0, 1)):
        for name in ("time_to_train", "goodput_time_to_train", "goodput_time_to_train_low",
                     "goodput_time_to_train_high"):
            assert row.metrics[name] == pytest.approx(est.metrics[name].m_as("s"), rel=1e-9), name
        t, g = row.metrics["time_to_train"], row.metrics["goodput"]
        assert t == pytest.approx(15.6e12 / row.metrics["tokens_per_second"])
        assert row.metrics["goodput_time_to_train"] == pytest.approx(t / g)
        assert row.metrics["goodput_time_to_train_low"] == pytest.approx(t / row.metrics["goodput_high"])
        assert row.metrics["goodput_time_to_train_high"] == pytest.approx(t / row.metrics["goodput_low"])


def test_a_requirement_on_them_takes_checks_band(setup):
    """Met at the value, missed at the band's pessimistic end (at goodput_low for the goodput time): at risk, as
    `check` says; past that end: met; below the value: not met. Both paths, the sweep's own requirement. The job
    leaves no idle node, so its goodput time's range reaches down to no wait for a repair (goodput16k): below the
    value but above that end is not judged (check: REQ002), so "not met" is below that end."""
    root, specs, est = setup
    for metric, slow, fast in (
            ("time_to_train", est.metrics["time_to_train"].m_as("day") / (1 + LOW), est.metrics["time_to_train"]),
            ("goodput_time_to_train", est.metrics["goodput_time_to_train_high"].m_as("day") / (1 + LOW),
             est.metrics["goodput_time_to_train_low"]),
            # an end of its range carries its band too (bandcarry40: before, met was at risk as unmeasured)
            ("goodput_time_to_train_high", est.metrics["goodput_time_to_train_high"].m_as("day") / (1 + LOW),
             est.metrics["goodput_time_to_train_high"])):
        v = est.metrics[metric].m_as("day")
        for target, want in ((fast.m_as("day") * 0.99, Status.NOT_MET), ((v + slow) / 2, Status.AT_RISK),
                             (slow * 1.01, Status.MET)):
            [o] = judge_requirements([Requirement(id="REQ-S-T", statement="t", metric=metric,
                                                  target=f"<= {target} day")], est)
            assert o.status is want, (metric, target)   # check's judgement of the same design
            (problem,) = sweep_problems_of(_sweep(root, f"{{id: REQ-S-T, statement: t, metric: {metric}, "
                                                        f"target: '<= {target} day'}}"), [specs])
            for row in (evaluate_point(problem, 0), *batched(problem, 0, 1)):
                got = (Status.NOT_MET if row.met["REQ-S-T"] is False else
                       Status.AT_RISK if "REQ-S-T" in row.at_risk else Status.MET)
                assert got is want, (metric, target, row.metrics[metric] / DAY)


def test_a_workload_shall_on_time_to_train_runs_and_is_judged(setup, cli):
    """Before: refused ("which a sweep does not compute"). Now the sweep runs and judges it at every point."""
    root, specs, est = setup
    f = specs / PATH
    req = "  - {id: REQ-TTT, statement: Time to train, metric: goodput_time_to_train, target: '<= 2000 day'}\n"
    f.write_text(f.read_text(encoding="utf-8").replace(NEW, NEW + req, 1), encoding="utf-8")
    try:
        r = cli("sweep", _sweep(root, objective="time_to_train"), "--path", specs, "--out", root / "o",
                "--format", "json")
        assert r.code == 0, r.err
        (doc,) = json.loads(r.out)["sweeps"]
        (point,) = doc["front"]
        assert point["requirements"]["REQ-TTT"] is True
        assert point["metrics"]["time_to_train"]["value"] == pytest.approx(est.metrics["time_to_train"].m_as("s"))
        csv = (root / "o" / "ttt" / "points.csv").read_text(encoding="utf-8")
        assert "Time to train (day)" in csv.splitlines()[0]
    finally:
        f.write_text(f.read_text(encoding="utf-8").replace(req, "", 1), encoding="utf-8")


def test_without_a_token_budget_they_are_refused_with_the_reason(tmp_path, cli):
    """The shipped 70B B200 job states no token budget: no point could have a time to train."""
    path = tmp_path / "sweep.yaml"
    path.write_text("kind: Sweep\nid: t\nworkload: llama3-70b-pretrain-b200\naxes:\n  accelerators: [256]\n"
                    "objectives:\n  - {metric: time_to_train}\n", encoding="utf-8")
    r = cli("sweep", path, "--path", SPECS, "--out", tmp_path / "o")
    assert r.code == 2 and "Traceback" not in r.err, r.err
    assert "sweep.yaml:7:14: error: sweep 't': objective 'time_to_train' needs the training job's token budget, " \
           "and workload 'llama3-70b-pretrain-b200' states none (give it `checkpoint: {tokens: ...}`" in r.err, r.err


def test_a_workload_shall_on_time_to_train_without_a_budget_is_refused_at_its_line(tmp_path, cli):
    """Before: refused as "a sweep does not compute" it; now the reason is the missing token budget."""
    from tests.test_sweep_workload_requirements import _specs as with_requirement
    from tests.test_sweep_workload_requirements import _sweep as sweep_file

    specs = with_requirement(tmp_path, "{id: REQ-X, statement: Time, metric: time_to_train, target: '<= 30 day'}")
    r = cli("sweep", sweep_file(tmp_path), "--path", specs, "--out", tmp_path / "o")
    assert r.code == 1 and "Traceback" not in r.err, r.err
    assert "llama3-70b.yaml:18:42: error: sweep 't': workload 'llama3-70b-pretrain-b200' requirement REQ-X (SHALL) " \
           "targets 'time_to_train', which no point of the sweep can compute: workload 'llama3-70b-pretrain-b200' " \
           "states no token budget (`checkpoint.tokens`); so no point could meet it and none would be feasible (to " \
           "judge it: give the workload its token budget, `checkpoint: {tokens: ...}`; or make it SHOULD or MAY" in r.err, \
        r.err


def test_on_an_unmeasured_part_the_band_spans_its_efficiency_ranges_as_in_check(tmp_path):
    """Trainium2 has no dense-training measurement and states efficiency ranges: the estimate's band spans the step
    time over them (`Band.spread`), and so does the time to train's; both sweep paths judge as `check` does."""
    from archgen.pipeline import run
    from tests.perf.test_unmeasured_band import TRN2

    (tmp_path / "w").mkdir()
    (tmp_path / "w" / "w.yaml").write_text(
        "kind: Workload\nid: trn-ttt\nmodel: llama3-70b\ncluster: trn2-pod\naccelerators: 256\n"
        "training: {seq_len: 8192, global_batch: 512, precision: bf16}\ncheckpoint: {tokens: 15.6e12}\n",
        encoding="utf-8")
    paths = [SPECS, TRN2, tmp_path / "w"]
    est = run(paths).workloads["workload/trn-ttt"].estimate
    band = est.bands["time_to_train"]
    assert band.spread is not None and band.spread[0] < 1 < band.spread[1]   # the ranges' span, in the band
    v = est.metrics["time_to_train"].m_as("day")
    slow = band.values(est.metrics["time_to_train"])[1].m_as("day")
    for target, want in ((v * 0.99, Status.NOT_MET), ((v + slow) / 2, Status.AT_RISK), (slow * 1.01, Status.MET)):
        [o] = judge_requirements([Requirement(id="REQ-S-T", statement="t", metric="time_to_train",
                                              target=f"<= {target} day")], est)
        assert o.status is want
        sweep = tmp_path / "s.yaml"
        sweep.write_text("kind: Sweep\nid: s\nworkload: trn-ttt\naxes:\n  accelerators: [256]\n"
                         "objectives: [{metric: time_to_train}]\nrequirements:\n  - {id: REQ-S-T, statement: t, "
                         f"metric: time_to_train, target: '<= {target} day'}}\n", encoding="utf-8")
        (problem,) = sweep_problems_of(sweep, paths)
        for row in (evaluate_point(problem, 0), *batched(problem, 0, 1)):
            got = (Status.NOT_MET if row.met["REQ-S-T"] is False else
                   Status.AT_RISK if "REQ-S-T" in row.at_risk else Status.MET)
            assert got is want and row.metrics["time_to_train"] == pytest.approx(v * DAY)
