"""A sweep point on scaled hardware has no cost per token: the catalogued parts' price is not its price (small27).

Before: newuser58 made such a point's power and energy not provided (tests/test_sweep_scaled_power.py), but its cost
per token was still the cluster's cost per accelerator-hour (the catalogued parts' capex and energy) over its faster
token rate, so cost per token fell with the factors for free. Now a scaled point has no `cost_per_token` (nor its
range or `cost_per_million_tokens`), with the reason, also under a `tdp` axis (which states a power, not a price);
the catalogued point keeps `cost_per_accelerator_hour x accelerators / (tokens per second x 3600)` (at a `tdp` level,
that hourly cost plus the level's energy: (TDP - the part's) x PUE x price)
(`derived.cost_per_token`; goodput tokens where the point has a goodput).
"""

from __future__ import annotations

import pytest

from tests.conftest import SPECS, sweep_problems_of

SWEEP = """\
kind: Sweep
id: peak-cost
workload: llama3-70b-pretrain-b200
axes:
  accelerators: [256]
  peak: [1, 2]
objectives:
  - {metric: tokens_per_second}
  - {metric: cost_per_token}
requirements:
  - {id: REQ-C, statement: Cost, metric: cost_per_token, target: "<= 1 USD"}
"""
TDP = SWEEP.replace("  peak: [1, 2]\n", "  peak: [1, 2]\n  tdp: [\"1500 W\"]\n")
COST = {"cost_per_token", "cost_per_token_low", "cost_per_token_high", "cost_per_million_tokens"}


def _problem(tmp_path, text: str):
    path = tmp_path / "sweep.yaml"
    path.write_text(text, encoding="utf-8")
    return sweep_problems_of(path, [SPECS, tmp_path])[0]


@pytest.mark.parametrize("batched", [False, True])
@pytest.mark.parametrize("text", [SWEEP, TDP])
def test_a_scaled_peak_has_no_cost_per_token(tmp_path, batched, text) -> None:
    from archgen.perf.explore import points, vectorised

    problem = _problem(tmp_path, text)
    plain, scaled = (vectorised.evaluate if batched else points.evaluate)(problem, 0, problem.size)
    base = problem.bases[("dgx-b200-superpod", None)]
    assert base.cost_per_accelerator_hour is not None   # the cluster is priced
    tokens = plain.metrics.get("goodput_tokens_per_second", plain.metrics["tokens_per_second"])
    # at 1,500 W the hall bills the B200's 500 W more x PUE x price an hour (tests/test_sweep_energy_axes.py)
    per_hour = base.cost_per_accelerator_hour + (0.5 * base.energy_price if text == TDP else 0.0)
    assert plain.metrics["cost_per_token"] == pytest.approx(per_hour * 256 / (tokens * 3600), rel=1e-12)
    assert plain.feasible and plain.met["REQ-C"] is True
    assert scaled.metrics["tokens_per_second"] > plain.metrics["tokens_per_second"]   # the speed moves
    assert not COST & scaled.metrics.keys()
    assert not scaled.feasible and scaled.met["REQ-C"] is None
    assert ("REQ-C (SHALL) not provided: the point has no cost_per_token: its hardware is scaled (peak), and the "
            "cluster's cost per accelerator-hour prices its parts (and their energy) as catalogued, not these: the "
            "sweep states no price for them") in scaled.reason
    result = points.summarise(problem, [plain, scaled])
    assert result.best["cost_per_token"] == 0


def test_the_document_summary_and_json_say_why(tmp_path) -> None:
    from archgen.output.sweep import summary, to_json
    from archgen.perf.explore.points import evaluate, summarise
    from archgen.render.sweep import best_section

    problem = _problem(tmp_path, SWEEP)
    result = summarise(problem, evaluate(problem, 0, problem.size))
    why = ("Cost per token is not provided at the points whose hardware is scaled (peak at a level other than as "
           "catalogued)", "The objective on cost_per_token ranks only the points that have it",
           "REQ-C is not provided there")
    notes = [b.text for b in best_section(result).blocks if getattr(b, "style", "") == "note"]
    assert any(all(w in n for w in why) for n in notes)
    assert all(w in summary(result) for w in why)
    assert all(w in to_json(result)["unpriced"] for w in why)


def test_no_note_where_no_point_is_scaled(tmp_path) -> None:
    from archgen.perf.explore.hardware_scope import price_note

    assert price_note(_problem(tmp_path, SWEEP.replace("peak: [1, 2]", "peak: [1]"))) == ""
