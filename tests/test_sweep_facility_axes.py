"""Sweep axes over the hall's `utilisation` and `discount_rate` (newuser27's open finding 7).

A buyer swept utilisation (0.8 / 0.5 / 0.2) by editing the hall file once per point. The axes now put each level in
place of the facility's `cost.utilisation` / `cost.discount_rate`; a point's cost per token is the job's cost per
used accelerator-hour over its tokens (docs/reliability.md, Cost), so at one layout it scales with that hourly cost,
which the test derives from the cluster's own capex, energy and rent:
per used hour = (capex x CRF(r, n) + energy(u) + rent) / (accelerators x 8,766 h x u), with
energy(u) = (average load x u + idle load x (1 - u)) x 8,766 h x PUE x price.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from archgen.analyse.cost import HOURS_PER_YEAR, capital_recovery
from archgen.errors import BuildError

CLUSTER = "cluster/dgx-b200-superpod"
SWEEP = """kind: Sweep
id: hall
workload: llama3-70b-pretrain-b200
axes:
  accelerators: [512]
  utilisation: [1, 0.5]
  discount_rate: [0, 0.08]
objectives:
  - {metric: cost_per_token}
"""


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    from archgen.perf.explore.points import evaluate
    from archgen.perf.explore.vectorised import evaluate as batched
    from tests.test_sweep import problem_of

    problem = problem_of(tmp_path_factory.mktemp("hall"), SWEEP)
    return problem, evaluate(problem, 0, 4), batched(problem, 0, 4)


def _per_used_hour(shipped, u: float, r: float) -> float:
    cost = shipped.operations.cost[CLUSTER]
    hall = shipped.clusters[CLUSTER].cluster.facility.cost
    load = cost.power_average.m_as("kW") * u + cost.power_idle.m_as("kW") * (1 - u)
    energy = load * HOURS_PER_YEAR * hall.energy.pue * hall.energy.price.m_as("USD/kWh")
    tco = cost.capex.m_as("USD") * capital_recovery(r, hall.depreciation_years) + energy \
        + cost.space_per_year.m_as("USD")
    return tco / (shipped.metrics[CLUSTER]["accelerators"].m * HOURS_PER_YEAR * u)


def test_cost_per_token_follows_the_hourly_cost_at_each_level(rows, shipped):
    problem, one, batched = rows
    levels = [(problem.point(i)["utilisation"], problem.point(i)["discount_rate"]) for i in range(4)]
    assert levels == [(1, 0), (1, 0.08), (0.5, 0), (0.5, 0.08)]
    for path in (one, batched):
        tokens = {lv: row.metrics["cost_per_token"] for lv, row in zip(levels, path, strict=True)}
        for lv in levels:   # same layout at every level (cost is no search input): the ratio is the hourly cost's
            assert tokens[lv] / tokens[(1, 0.08)] == pytest.approx(
                _per_used_hour(shipped, *lv) / _per_used_hour(shipped, 1, 0.08), rel=1e-9)


def test_the_halls_own_levels_give_checks_hourly_cost(rows, shipped):
    """hall-air states 8 % and no utilisation (1): the point at (1, 0.08) is priced as `check` prices the cluster."""
    problem, _, _ = rows
    per_hour, utilisation, share, price = problem.facility[("dgx-b200-superpod", 1, 0.08, None, None)]
    assert price == pytest.approx(0.0895 * 1.4, rel=1e-12)   # hall-air: 0.0895 USD/kWh x PUE 1.4 per IT kWh
    assert share == pytest.approx((shipped.metrics[CLUSTER]["energy_cost_per_year"]
                                   / shipped.metrics[CLUSTER]["tco_per_year"]).m_as(""), rel=1e-9)   # at max draw
    assert utilisation == 1
    assert per_hour == pytest.approx(shipped.metrics[CLUSTER]["tco_per_used_accelerator_hour"].m_as("USD"), rel=1e-12)


def named_unless_swept(swept, tmp_path, unswept: str, words: str) -> None:
    """`words` stand among the rates and inputs under cost per token of the sweep `unswept` (the sweep without its
    facility axes), and not among those of `swept` (the problem of the sweep with them)."""
    from tests.test_sweep import problem_of

    plain = problem_of(tmp_path, unswept)
    assert words in plain.bases[("dgx-b200-superpod", None)].rates
    assert words not in swept.bases[("dgx-b200-superpod", None)].rates


def test_a_swept_level_is_no_unstated_input(rows, tmp_path):
    """hall-air states no utilisation: a sweep names it as assumed under cost per token, unless it sweeps it."""
    named_unless_swept(rows[0], tmp_path, SWEEP.replace("  utilisation: [1, 0.5]\n  discount_rate: [0, 0.08]\n", ""),
                       "hall-air utilisation (not stated: every hour taken as used)")


def _refusal(tmp_path, edit: Callable[[str], str]) -> BuildError:
    """What `sweep_problems.problems` raises for `SWEEP` (its objective goodput: no cost objective refuses it first)
    on a copy of hall-air that `edit` rewrites (shadowing the shipped one)."""
    from archgen.commands import sweep as sw
    from archgen.commands import sweep_problems
    from tests.conftest import SPECS
    from tests.test_sweep import sweep_file

    hall = (SPECS / "catalog" / "facilities" / "hall-air.yaml").read_text(encoding="utf-8")
    (tmp_path / "hall").mkdir()
    (tmp_path / "hall" / "hall-air.yaml").write_text(edit(hall), encoding="utf-8")
    text = SWEEP.replace("{metric: cost_per_token}", "{metric: goodput_tokens_per_second}")
    specs, clusters, sweeps = sw.load(sweep_file(tmp_path, text), [SPECS, tmp_path / "hall"])
    with pytest.raises(BuildError) as err:
        sweep_problems.problems(specs, clusters, sweeps)
    return err.value


def test_a_facility_axis_on_a_hall_without_cost_is_refused(tmp_path):
    """hall-air without its `cost:`: the axis would change nothing, so it is refused."""
    err = _refusal(tmp_path, lambda hall: hall[:hall.index("\ncost:")] + "\n")
    assert "axis 'utilisation' changes the facility's cost, and cluster 'dgx-b200-superpod' has facility " \
           "'hall-air' with no `cost:`" in str(err)


def test_a_facility_axis_on_a_cluster_with_no_cost_per_token_is_refused_with_the_reason(tmp_path):
    """hall-air priced in EUR: the cluster's parts are priced in USD, so it has no cost per token at any level (a
    sweep's is in USD, and its hourly cost would add two currencies); the axis would change nothing, so it is refused
    at its line with what is missing (fin8: it was accepted, and every point read "not provided")."""
    err = _refusal(tmp_path, lambda hall: hall.replace("USD/", "EUR/"))
    assert str(err).startswith(
        "sweep 'hall': axis 'utilisation' changes the cost per token, and cluster 'dgx-b200-superpod' gives none at "
        "any of its levels: prices in several currencies (EUR, USD); archgen does not convert them"), str(err)
    assert err.location is not None and err.location.line == 6


def test_a_level_reads_as_a_share_not_a_factor():
    from archgen.render.point_table import level_text

    assert (level_text(0.8, "utilisation"), level_text(0.08, "discount_rate"), level_text(1.5, "peak")) == \
        ("0.8", "0.08", "×1.5")
