"""Sweep axes over the hall's electricity price and PUE, and a `tdp` axis's energy cost (issue 25, "search every knob").

A TCO study varies the tariff and the PUE: the axes put each level in place of the facility's `cost.energy.price` /
`cost.energy.pue`, and a point's cost per token is the job's cost per used accelerator-hour over its tokens
(docs/reliability.md, Cost), so at one layout it scales with that hourly cost, which the test derives from the
cluster's own capex, energy and rent (`analyse.cost`):
per used hour = (capex x CRF(r, n) + energy + rent) / (accelerators x 8,766 h x u), with
energy = (average load x u + idle load x (1 - u)) x 8,766 h x PUE x price.

A `tdp` level moves the IT power by accelerators x (TDP - the part's) (tests/test_sweep_scaled_power.py); the hall
bills that draw x PUE x price over the used hours, so the cost per used accelerator-hour moves by
(TDP - the part's) x PUE x price. Before, it stayed the cluster's at every TDP: a point at 1,500 W cost per token what
one at the B200's 1,000 W did (`point_axes.at_tdp`).

hall-air (specs/catalog/facilities/hall-air.yaml): 0.0895 USD/kWh (EIA Electric Power Monthly, Table 5.6.B,
industrial, Illinois, January-July 2024), PUE 1.4 (assumed), 8 % discount rate, utilisation not stated (1).
"""

from __future__ import annotations

import pytest

from archgen.analyse.cost import HOURS_PER_YEAR, capital_recovery
from archgen.model.sweep_axes import facility_levels

CLUSTER = "cluster/dgx-b200-superpod"
HALL_PRICE, HALL_PUE = 0.0895, 1.4   # hall-air's `cost.energy`
SWEEP = """kind: Sweep
id: tariff
workload: llama3-70b-pretrain-b200
axes:
  accelerators: [256, 512]
  electricity_price: ["0.05 USD/kWh", "0.0895 USD/kWh", "0.15 USD/kWh"]
  pue: [1.1, 1.4, 1.6]
objectives:
  - {metric: tokens_per_second}
  - {metric: cost_per_token}
"""
TDP = """kind: Sweep
id: capped
workload: llama3-70b-pretrain-b200
axes:
  accelerators: [256]
  pue: [1.2, 1.4]
  tdp: ["1000 W", "1200 W", 0.8]
objectives:
  - {metric: cost_per_token}
"""


@pytest.fixture(scope="module")
def tariff(tmp_path_factory):
    from archgen.perf.explore.points import evaluate
    from archgen.perf.explore.vectorised import evaluate as batched
    from tests.test_sweep import problem_of

    problem = problem_of(tmp_path_factory.mktemp("tariff"), SWEEP)
    return problem, evaluate(problem, 0, problem.size), batched(problem, 0, problem.size)


@pytest.fixture(scope="module")
def capped(tmp_path_factory):
    from archgen.perf.explore.points import evaluate
    from archgen.perf.explore.vectorised import evaluate as batched
    from tests.test_sweep import problem_of

    problem = problem_of(tmp_path_factory.mktemp("capped"), TDP)
    return problem, evaluate(problem, 0, problem.size), batched(problem, 0, problem.size)


def _per_used_hour(shipped, price: float, pue: float) -> float:
    """hall-air's cost per used accelerator-hour at `price` USD/kWh and `pue` (its utilisation 1, rate 0.08)."""
    cost = shipped.operations.cost[CLUSTER]
    hall = shipped.clusters[CLUSTER].cluster.facility.cost
    energy = cost.power_average.m_as("kW") * HOURS_PER_YEAR * pue * price
    tco = cost.capex.m_as("USD") * capital_recovery(hall.discount_rate, hall.depreciation_years) + energy \
        + cost.space_per_year.m_as("USD")
    return tco / (shipped.metrics[CLUSTER]["accelerators"].m * HOURS_PER_YEAR)


def _levels(problem, i: int) -> tuple[float, float]:
    point = problem.point(i)
    return point["electricity_price"].m_as("USD/kWh"), point["pue"]


def test_batched_rows_are_the_per_point_rows(tariff, capped):
    from tests.perf.test_batch import same

    for _, one, batched in (tariff, capped):
        assert len(one) == len(batched)
        for fast, ref in zip(batched, one, strict=True):
            same(fast, ref)


def test_cost_per_token_follows_the_tariff_and_the_pue(tariff, shipped):
    problem, one, _ = tariff
    assert problem.size == 18 and all(r.status == "ok" for r in one)
    for row in one:
        per_hour = _per_used_hour(shipped, *_levels(problem, row.index))
        assert problem.facility[("dgx-b200-superpod", *facility_levels(row.values))][0] == pytest.approx(per_hour, rel=1e-12)
        tokens = row.metrics.get("goodput_tokens_per_second", row.metrics["tokens_per_second"])
        assert row.metrics["cost_per_token"] == pytest.approx(
            per_hour * row.values["accelerators"] / (tokens * 3600), rel=1e-12)


def test_the_halls_own_tariff_is_checks_cost(tariff, shipped):
    """At 0.0895 USD/kWh and PUE 1.4 the point's hourly cost is `check`'s for the cluster."""
    problem, one, _ = tariff
    own = next(r.values for r in one if _levels(problem, r.index) == (HALL_PRICE, HALL_PUE))
    per_hour, utilisation, share, price = problem.facility[("dgx-b200-superpod", *facility_levels(own))]
    assert per_hour == pytest.approx(shipped.metrics[CLUSTER]["tco_per_used_accelerator_hour"].m_as("USD"), rel=1e-12)
    assert (utilisation, price) == (1.0, pytest.approx(HALL_PRICE * HALL_PUE, rel=1e-12))
    assert share == pytest.approx((shipped.metrics[CLUSTER]["energy_cost_per_year"]
                                   / shipped.metrics[CLUSTER]["tco_per_year"]).m_as(""), rel=1e-9)


def test_the_front_of_cost_and_speed_keeps_the_cheapest_energy(tariff):
    """Tokens/s against cost per token: the tariff and PUE move no speed, so only the cheapest energy (0.05 USD/kWh,
    PUE 1.1) is on the front, at each job size; the best cost point is the lowest PUE at the lowest price."""
    from archgen.perf.explore.points import summarise

    problem, one, _ = tariff
    result = summarise(problem, one)
    front = {(one[i].values["accelerators"], _levels(problem, i)) for i in result.front}
    assert front <= {(n, (0.05, 1.1)) for n in (256, 512)} and front
    best = one[result.best["cost_per_token"]]
    assert _levels(problem, best.index) == (0.05, 1.1)
    by_pue = {_levels(problem, r.index)[1]: r.metrics["cost_per_token"] for r in one
              if r.values["accelerators"] == best.values["accelerators"] and _levels(problem, r.index)[0] == 0.05}
    assert by_pue[1.1] < by_pue[1.4] < by_pue[1.6]


def test_a_swept_price_and_pue_are_no_assumed_inputs(tariff, tmp_path):
    """hall-air's price and PUE are `basis: assumed`: named under cost per token, unless the sweep gives both."""
    from tests.test_sweep_facility_axes import named_unless_swept

    named_unless_swept(tariff[0], tmp_path, SWEEP.replace("  pue: [1.1, 1.4, 1.6]\n", ""),
                       "hall-air energy price and PUE")


def test_a_tdp_level_moves_the_hourly_cost_by_its_energy(capped, shipped):
    """(TDP - 1,000 W) x PUE x 0.0895 USD/kWh per used accelerator-hour, on both paths; the energy share with it."""
    problem, one, batched = capped
    own = problem.tdp[("dgx-b200-superpod", None)]
    assert own == 1000.0   # the B200's catalogued TDP
    for path in (one, batched):
        for row in path:
            pue, level = row.values["pue"], row.values["tdp"]
            tdp = level.m_as("W") if not isinstance(level, float) else own * level
            at_own = _per_used_hour(shipped, HALL_PRICE, pue)
            per_hour = at_own + (tdp - own) / 1000 * pue * HALL_PRICE
            tokens = row.metrics.get("goodput_tokens_per_second", row.metrics["tokens_per_second"])
            assert row.metrics["cost_per_token"] == pytest.approx(per_hour * 256 / (tokens * 3600), rel=1e-12)
    from archgen.perf.explore.point_axes import point_base

    base = point_base(problem, problem.point(1))   # PUE 1.2, 1200 W: 0.2 kW x 1.2 x 0.0895 = 0.02148 USD an hour more
    at_own = point_base(problem, problem.point(0))
    assert base.cost_per_accelerator_hour - at_own.cost_per_accelerator_hour == pytest.approx(0.02148, rel=1e-9)
    assert base.energy_share * base.cost_per_accelerator_hour == pytest.approx(
        at_own.energy_share * at_own.cost_per_accelerator_hour + 0.02148, rel=1e-9)   # at maximum draw, as the rest
    assert base.it_power - at_own.it_power == pytest.approx(200.0 * base.accelerators, rel=1e-12)


@pytest.mark.parametrize(("axis", "message"), [
    ('electricity_price: ["-0.05 USD/kWh"]', "expected a price of energy of at least 0 USD/kWh, got '-0.05 USD/kWh'"),
    ('electricity_price: ["0.05 USD"]', "expected a price of energy such as '0.09 USD/kWh', got '0.05 USD'"),
    ("electricity_price: [0.05]", "number '0.05' has no unit"),
    ("pue: [1.3, 0.9]", "axes.pue.1: expected a number of at least 1.0, got 0.9"),
])
def test_a_level_out_of_range_is_refused_at_its_line(tmp_path, cli, axis, message):
    head = "kind: Sweep\nid: s\nworkload: llama3-70b-pretrain-b200\nobjectives: [{metric: tokens_per_second}]\naxes:\n"
    (tmp_path / "s.yaml").write_text(f"{head}  {axis}\n", encoding="utf-8")
    r = cli("validate", str(tmp_path))
    assert r.code == 1
    line = next(x for x in r.err.splitlines() if "error:" in x)
    assert line.startswith(f"{tmp_path / 's.yaml'}:6:") and message in line, r.err


def test_a_price_in_another_currency_is_refused_at_its_line(tmp_path):
    from archgen.commands import sweep as sw
    from archgen.commands import sweep_problems
    from archgen.errors import BuildError
    from tests.conftest import SPECS
    from tests.test_sweep import sweep_file

    text = SWEEP.replace('"0.15 USD/kWh"', '"0.15 EUR/kWh"')
    specs, clusters, sweeps = sw.load(sweep_file(tmp_path, text), [SPECS])
    with pytest.raises(BuildError, match=r"electricity price '0.15 EUR/kWh' is in EUR, and facility 'hall-air' of "
                                         r"cluster 'dgx-b200-superpod' prices in USD") as err:
        sweep_problems.problems(specs, clusters, sweeps)
    assert err.value.location is not None and err.value.location.line == 6


def test_a_level_reads_as_written():
    from archgen.render.point_table import level_text
    from archgen.units import Q_

    assert (level_text(1.3, "pue"), level_text(Q_(0.0895, "USD/kWh"), "electricity_price")) == \
        ("1.3", "0.0895 USD/kWh")
