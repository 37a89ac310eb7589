"""A sweep point on scaled hardware has no power or energy: the catalogued parts' draw is not its draw (newuser58).

Before: power stayed the cluster's IT load share at every point of a `peak` or `hbm_bandwidth` sweep (1463.2 kW at
each point of newuser58's 405B sweep), so energy per token fell with the factors for free and the energy objective's
best point was the hypothetical one, with a footnote alone to say so. The shipped `llama3-70b-train-platforms` picked
scale_out_bandwidth x2 points for its energy objective the same way. Now such a point provides no `power`,
`energy_per_token` or `job_it_energy`; it is off the front of an objective on them, and a SHALL requirement on them is
not provided there, with the reason (`perf.explore.hardware_scope`). The catalogued point keeps its power: the
cluster's IT power x accelerators used / accelerators in the cluster (docs/sweeps.md, Metrics, power and feasibility).
"""

from __future__ import annotations

import pytest

from tests.conftest import SPECS, sweep_problems_of

SWEEP = """\
kind: Sweep
id: peak-energy
workload: llama3-70b-pretrain-b200
axes:
  accelerators: [256]
  peak: [1, 2]
objectives:
  - {metric: tokens_per_second}
  - {metric: energy_per_token}
"""

SHALL = SWEEP + """\
requirements:
  - {id: REQ-E, statement: Energy, metric: energy_per_token, target: "<= 100 J"}
"""


def _problem(tmp_path, text: str):
    path = tmp_path / "sweep.yaml"
    path.write_text(text, encoding="utf-8")
    return sweep_problems_of(path, [SPECS, tmp_path])[0]


@pytest.mark.parametrize("batched", [False, True])
def test_a_scaled_peak_has_no_power_and_is_off_the_energy_front(tmp_path, batched) -> None:
    from archgen.perf.explore import points, vectorised

    problem = _problem(tmp_path, SWEEP)
    rows = (vectorised.evaluate if batched else points.evaluate)(problem, 0, problem.size)
    plain, scaled = rows
    base = problem.bases[("dgx-b200-superpod", None)]
    power = base.it_power * 256 / base.accelerators   # the job's share of the cluster's IT load
    assert plain.metrics["power"] == pytest.approx(power, rel=1e-12)
    assert plain.metrics["energy_per_token"] == pytest.approx(power / plain.metrics["tokens_per_second"], rel=1e-12)
    assert scaled.metrics["tokens_per_second"] > plain.metrics["tokens_per_second"]   # the speed moves
    assert not {"power", "energy_per_token", "job_it_energy"} & scaled.metrics.keys()
    result = points.summarise(problem, rows)
    assert result.front == [0] and result.best == {"tokens_per_second": 1, "energy_per_token": 0}


def test_the_document_summary_and_json_say_why(tmp_path) -> None:
    from archgen.output.sweep import summary, to_json
    from archgen.perf.explore.points import evaluate, summarise
    from archgen.render.sweep import best_section, conventions_section

    problem = _problem(tmp_path, SWEEP)
    result = summarise(problem, evaluate(problem, 0, problem.size))
    why = ("not provided at the points whose hardware is scaled (peak at a level other than as catalogued)",
           "The objective on energy_per_token ranks only the points that have it")
    notes = [b.text for b in best_section(result).blocks if getattr(b, "style", "") == "note"]
    assert any(all(w in n for w in why) for n in notes)
    assert all(w in summary(result) for w in why)
    assert all(w in to_json(result)["unpowered"] for w in why)
    assert "speed, not the power" not in str(conventions_section(result).blocks)


def test_a_shall_on_energy_is_not_provided_at_a_scaled_point(tmp_path) -> None:
    from archgen.perf.explore.points import evaluate

    problem = _problem(tmp_path, SHALL)
    plain, scaled = evaluate(problem, 0, problem.size)
    assert plain.feasible and plain.met["REQ-E"] is True
    assert not scaled.feasible and scaled.met["REQ-E"] is None
    assert scaled.reason == ("REQ-E (SHALL) not provided: the point has no energy_per_token: its hardware is scaled "
                             "(peak), and the cluster's IT power is the maximum draw of its parts as catalogued, not "
                             "of these: the sweep states no power for them")


def test_the_shipped_platform_sweep_ranks_energy_on_catalogued_points_only() -> None:
    from archgen.perf.explore.tally import catalogued, chunk, merge
    from archgen.perf.explore.vectorised import evaluate

    [problem] = [p for p in sweep_problems_of(SPECS / "sweeps" / "llama3-70b.yaml", [SPECS])
                 if p.sweep.id == "llama3-70b-train-platforms"]
    rows = evaluate(problem, 0, problem.size)
    for r in rows:
        assert ("energy_per_token" in r.metrics) == (r.values["scale_out_bandwidth"] == 1), r.index
    result = merge(problem, [chunk(problem, rows, 0)])
    assert all(catalogued(result.rows[i], problem) for i in result.front)
    assert result.rows[result.best["energy_per_token"]].values["scale_out_bandwidth"] == 1


TDP = """\
kind: Sweep
id: peak-tdp
workload: llama3-70b-pretrain-b200
axes:
  accelerators: [256]
  peak: [2]
  tdp: ["1500 W"]
  scale_out_bandwidth: [1, 2]
objectives:
  - {metric: tokens_per_second}
  - {metric: energy_per_token}
requirements:
  - {id: REQ-P, statement: Power, metric: power, target: "<= 10 MW"}
"""


@pytest.mark.parametrize("batched", [False, True])
def test_a_tdp_axis_states_the_power_of_a_scaled_chip_not_of_a_scaled_fabric(tmp_path, batched) -> None:
    """A `tdp` level moves the cluster's IT power by its difference from the part's TDP on every accelerator in the
    cluster, as an `accelerator` axis does; it states nothing of a faster scale-out fabric's parts."""
    from archgen.perf.explore import points, vectorised
    from archgen.render.point_table import hypothetical

    problem = _problem(tmp_path, TDP)
    chip, fabric = (vectorised.evaluate if batched else points.evaluate)(problem, 0, problem.size)
    key = ("dgx-b200-superpod", None)
    base, own = problem.bases[key], problem.tdp[key]   # the B200's catalogued TDP (specs/accelerators)
    power = (base.it_power + base.accelerators * (1500.0 - own)) * 256 / base.accelerators
    assert chip.metrics["power"] == pytest.approx(power, rel=1e-12) and chip.feasible
    assert chip.metrics["energy_per_token"] == pytest.approx(power / chip.metrics["tokens_per_second"], rel=1e-12)
    assert hypothetical(chip, problem) == ["peak ×2", "tdp 1,500 W"]
    assert "power" not in fabric.metrics and not fabric.feasible
    assert fabric.reason.endswith("a `tdp` axis states the accelerator's, not the fabric's (scale_out_bandwidth)")
