"""A sweep's `scale_up_size` on a switched domain stops where its switches' ports do (newuser46's finding).

Before: `scale_up_size: [36, 72, 144]` on NVL72 racks estimated all three sizes as feasible, 144 included, a domain
whose 144 GPUs of 18 NVLink 5 links need 2,592 switch ports where its 9 NVLink switch trays have 9 x 144 = 1,296
(catalog nvlink5-switch-tray `ports.count`; gb200-nvl72-su: 1.8 TB/s both ways over 400 Gb/s links is 18 links a
GPU). `archgen check` refuses the same domain in a cluster (NET010: size x links > switches x ports); the sweep
now takes the same rule (`perf.hw.switch_ports.ports_needed`), so the widest domain is 1,296 / 18 = 72.
"""

from __future__ import annotations

from archgen.perf.hw.switch_ports import ports_needed, widest_switched
from tests.conftest import sweep_problem_written

SWEEP = """\
kind: Sweep
id: switched-size
workload: llama3-405b-pretrain-gb200
axes:
  scale_up_size: [36, 72, 144]
  accelerators: [576]
objectives:
  - {metric: step_time, goal: min}
"""


def _problem(tmp_path):
    return sweep_problem_written(tmp_path, SWEEP)


def test_the_widest_domain_is_check_s_ports_rule() -> None:
    assert widest_switched(18, 9 * 144) == 72                       # 72 x 18 = 1,296 ports
    assert ports_needed(18, 72) <= 9 * 144 < ports_needed(18, 73)
    assert widest_switched(2.5, 10) == 4                             # 4 x 2.5 = 10; 5 x 2.5 = 12.5 -> 13 ports
    assert widest_switched(18, 0) == 0                               # no switch part: no limit known


def test_the_machine_knows_its_switch_limit(tmp_path) -> None:
    problem = _problem(tmp_path)
    [base] = problem.bases.values()
    assert base.switch is not None and base.switch.widest() == 9 * 144 // 18 == 72
    assert base.mesh_limit == 0


def test_a_domain_wider_than_the_switch_ports_is_invalid_on_both_paths(tmp_path) -> None:
    from archgen.perf.explore import points, vectorised

    problem = _problem(tmp_path)
    for rows in (points.evaluate(problem, 0, problem.size), vectorised.evaluate(problem, 0, problem.size)):
        s36, s72, s144 = rows
        assert s36.status == "ok" and s72.status == "ok", (s36.reason, s72.reason)
        assert s144.status == "invalid" and not s144.feasible
        assert "ports join at most 72 accelerators" in s144.reason and "(NET010)" in s144.reason, s144.reason
