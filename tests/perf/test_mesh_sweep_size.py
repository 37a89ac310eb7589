"""A sweep's `scale_up_size` on a full-mesh domain stops where the part's links do (newuser22's finding).

Before: `scale_up_size: [8, 16, 64]` on the shipped MI355X cluster (mi355x-th5, an Infinity Fabric full mesh of 8,
seven links per MI355X: catalog mi355x `scale_up.links`) estimated all three points as feasible, 16 and 64 at
430,949 tokens/s for Llama 3.1 405B, on meshes of 16 and 64 that need 15 and 63 peer links per accelerator;
`archgen check` refuses the same domain in a cluster (NET010). A mesh of n needs n - 1 links per accelerator, so
the largest mesh seven links make is 8.
"""

from __future__ import annotations

from tests.conftest import sweep_problem_written

SWEEP = """\
kind: Sweep
id: mesh-size
workload: llama3-70b-pretrain-mi355x
axes:
  scale_up_size: [4, 8, 16, 64]
  accelerators: [256]
objectives:
  - {metric: step_time, goal: min}
"""


def _problem(tmp_path):
    return sweep_problem_written(tmp_path, SWEEP)


def test_the_machine_knows_its_mesh_limit(tmp_path) -> None:
    problem = _problem(tmp_path)
    [base] = problem.bases.values()
    assert base.mesh_limit == 7 + 1  # mi355x: 7 links, one per peer (links_per_peer 1)


def test_a_mesh_larger_than_the_links_allow_is_invalid_on_both_paths(tmp_path) -> None:
    from archgen.perf.explore import points, vectorised

    problem = _problem(tmp_path)
    for rows in (points.evaluate(problem, 0, problem.size), vectorised.evaluate(problem, 0, problem.size)):
        four, eight, sixteen, sixty_four = rows
        assert four.status == "ok" and eight.status == "ok", (four.reason, eight.reason)
        assert sixteen.status == "invalid" and "needs 15 peer links" in sixteen.reason, sixteen.reason
        assert sixty_four.status == "invalid" and "needs 63 peer links" in sixty_four.reason
        assert "at most 8 (NET010)" in sixteen.reason
