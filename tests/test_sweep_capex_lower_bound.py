"""A sweep judges a cost on a capex that leaves parts out as `check` does: at risk, not met (newuser99).

`check` reads a cost whose capex leaves out parts the bill of materials counts with no price (rail kits, blanking
panels, fibre cords) or lists as not provided (liquid fittings) as a lower bound, and a target it meets at risk
(`model.unsettled.at_lower_bound`, cost31). A sweep read the same target plainly met: a start-up's 128-accelerator
pod, REQ-NX-T3 cost per token <= 2 uUSD, "met" at every point of `archgen sweep` and "at risk" (REQ004) in `check`.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from archgen.model.requirements import Requirement, Status
from archgen.model.unsettled import met_above
from archgen.perf.explore.points import evaluate_point, on_lower_bound
from archgen.perf.explore.vectorised import evaluate as batched
from tests.conftest import sweep_problem_written

SWEEP = """kind: Sweep
id: lb
workload: llama3-70b-pretrain-b200
axes:
  accelerators: [512]
objectives:
  - {metric: tokens_per_second}
  - {metric: cost_per_token}
requirements:
  - {id: REQ-LB-1, statement: Cost, metric: cost_per_token, target: "<= 10 uUSD"}
  - {id: REQ-LB-2, statement: Cost floor, metric: cost_per_token, target: ">= 0.001 uUSD"}
"""


def test_a_cost_met_on_a_lower_bound_capex_is_at_risk_in_a_sweep(tmp_path: Path) -> None:
    problem = sweep_problem_written(tmp_path, SWEEP)
    (base,) = {b.capex_left_out for b in problem.bases.values()}
    assert base.startswith("it leaves out")           # the shipped SuperPOD's capex is a lower bound in `check`
    for row in (evaluate_point(problem, 0), *batched(problem, 0, 1)):
        assert row.feasible and row.met["REQ-LB-1"] is True
        assert "REQ-LB-1" in row.at_risk              # read "met" before
        assert "REQ-LB-2" not in row.at_risk          # a floor a lower bound meets holds whatever it leaves out


def test_the_sweep_document_says_why(tmp_path: Path) -> None:
    """The table of requirements counts them at risk; a note beside it says which cluster's capex leaves what out."""
    from tests.conftest import SPECS, run_cli

    (tmp_path / "sweep.yaml").write_text(SWEEP, encoding="utf-8")
    r = run_cli("sweep", str(tmp_path / "sweep.yaml"), "--path", str(SPECS), "--out", str(tmp_path / "out"),
                "--formats", "md")
    assert r.code == 0, r.err
    md = (tmp_path / "out" / "lb" / "lb.md").read_text(encoding="utf-8")
    assert "> Cluster dgx-b200-superpod: its capex leaves out " in md
    assert "so the capex and every cost made from it are lower bounds, and a cost target they meet is at risk" in md


def test_check_and_a_sweep_ask_one_rule_at_infinity() -> None:
    """`model.unsettled.met_above`, which `at_lower_bound` (check) and `points.on_lower_bound` (a sweep's statuses)
    both ask (review59: each had judged at infinity on its own): a ceiling is at risk on a lower bound, a floor met."""
    def req(target: str) -> Requirement:
        return Requirement(id="REQ-X-001", statement="s", metric="cost_per_token", target=target)

    assert [met_above(req(t)) for t in ("<= 10 uUSD", "< 10 uUSD", ">= 0.001 uUSD", "> 0.001 uUSD")] == [
        False, False, True, True]
    left_out = SimpleNamespace(capex_left_out="it leaves out fibre cords x752")   # all `on_lower_bound` reads
    assert [on_lower_bound(req(t), Status.MET, left_out) for t in ("<= 10 uUSD", ">= 0.001 uUSD")] == [
        Status.AT_RISK, Status.MET]
