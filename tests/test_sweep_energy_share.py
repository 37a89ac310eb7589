"""A sweep judges cost per token as `check` does: a range where its energy cost is at maximum draw (nu64fix).

newuser64 C4 made `check`, `gap` and `diff` judge a TCO-proportional figure between the value with no energy cost and
the value where some part's maximum draw stands in for its typical one (`analyse.job_energy.energy_share_bounds`): on
the DGX B200 SuperPOD 10.1 % of the TCO is energy at maximum draw. A sweep judged cost per token as a single figure,
so a target met only at the lower end read "not met". Both sweep paths now take the same rule
(`upper_bounds.without_energy`, `Machine.energy_share`): met at one end only is not provided, missed or met at both ends is
judged. The share is the cluster's energy cost per year over its TCO per year, from the shipped run.
"""

from __future__ import annotations

import pytest

CLUSTER = "cluster/dgx-b200-superpod"
SWEEP = """kind: Sweep
id: tco
workload: llama3-70b-pretrain-b200
axes:
  accelerators: [512]
objectives:
  - {metric: cost_per_million_tokens}
"""


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    from archgen.perf.explore.points import evaluate
    from tests.test_sweep import problem_of

    problem = problem_of(tmp_path_factory.mktemp("plain"), SWEEP)
    return problem, evaluate(problem, 0, 1)[0]


def test_the_share_is_checks(plain, shipped):
    problem, _ = plain
    m = shipped.metrics[CLUSTER]
    share = (m["energy_cost_per_year"] / m["tco_per_year"]).m_as("")
    assert problem.bases[("dgx-b200-superpod", None)].energy_share == pytest.approx(share, rel=1e-9)
    assert 0.09 < share < 0.11   # 10.1 % (newuser64)


def test_a_target_between_the_ends_is_not_provided(plain, tmp_path):
    from archgen.perf.explore.points import evaluate
    from archgen.perf.explore.vectorised import evaluate as batched
    from tests.test_sweep import problem_of

    problem, row = plain
    value = row.metrics["cost_per_million_tokens"]
    share = problem.bases[("dgx-b200-superpod", None)].energy_share
    low = value * (1 - share)
    reqs = "".join(f"  - {{id: {i}, statement: cost, metric: cost_per_million_tokens, target: '<= {t:.6g} USD'}}\n"
                   for i, t in (("T-BETWEEN", (low + value) / 2), ("T-ABOVE", value * 1.01),
                                ("T-BELOW", low * 0.99)))
    judged = problem_of(tmp_path, SWEEP + "requirements:\n" + reqs)
    for got in (evaluate(judged, 0, 1)[0], batched(judged, 0, 1)[0]):
        assert {k: v for k, v in got.met.items() if k.startswith("T-")} == {
            "T-BETWEEN": None, "T-ABOVE": True, "T-BELOW": False}
        assert not got.feasible
        assert "T-BETWEEN (SHALL) not provided: cost_per_million_tokens counts an energy cost at maximum draw " \
               f"({share * 100:.1f} % of the TCO" in got.reason
