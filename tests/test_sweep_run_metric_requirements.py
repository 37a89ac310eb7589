"""A workload's SHALL on a training run's figures is judged on each sweep point, not its estimate (nu68fix).

newuser68 found a workload's `cost_per_million_tokens` SHALL judged on the sweep point's estimate, which has no cost
("not provided" at every point; fixed in `perf.explore.points.POINT_DERIVED`). The run's figures a point derives from
the workload's token budget (`model.sweep.RUN_METRICS`: time_to_train, accelerator_hours, job_it_energy, and the
goodput ones) are not in an estimate either; this judges each on the point, against the same figure's value there.
The design is the shipped 405B GB200 job with Llama 3.1 405B's 15.6e12 tokens (tests/test_sweep_time_to_train.py).
"""

from __future__ import annotations

import json

import pytest

from tests.test_run_bands import NEW, PATH
from tests.test_sweep_time_to_train import _sweep, setup  # noqa: F401  (the module's fixture)


@pytest.mark.parametrize(("metric", "target"), [("time_to_train", "<= 2000 day"), ("accelerator_hours", "<= 1e9 h"),
                                                ("job_it_energy", "<= 1e12 kWh")])
def test_a_workload_shall_on_a_run_figure_is_judged_on_the_point(setup, cli, metric, target):  # noqa: F811
    root, specs, est = setup
    f = specs / PATH
    req = f"  - {{id: REQ-RUN, statement: Run figure, metric: {metric}, target: '{target}'}}\n"
    f.write_text(f.read_text(encoding="utf-8").replace(NEW, NEW + req, 1), encoding="utf-8")
    try:
        r = cli("sweep", _sweep(root, objective="time_to_train"), "--path", specs, "--out", root / "o",
                "--format", "json")
        assert r.code == 0, r.err   # before: 1, "REQ-RUN (SHALL) not provided: target <= 2000 d does not have the
        # dimension of time_to_train", no point feasible
        (doc,) = json.loads(r.out)["sweeps"]
        (point,) = doc["front"]
        assert metric in point["metrics"], point["metrics"].keys()
        assert point["requirements"]["REQ-RUN"] is True, point
    finally:
        f.write_text(f.read_text(encoding="utf-8").replace(req, "", 1), encoding="utf-8")
