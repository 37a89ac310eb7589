"""A sweep's switched-domain port rule reads the point's `scale_up_bandwidth` (nu46fix's open item).

Before: the rule took the cluster's stated links per accelerator whatever the point's bandwidth, so on NVL72 racks
(gb200-nvl72-su: 1.8 TB/s both ways over 400 Gb/s NVLink 5 links is 1.8e12 / (2 x 50e9) = 18 links a GPU; catalog
nvlink5-switch-tray: 9 trays x 144 ports = 1,296) a point at x2 bandwidth and 72 GPUs was estimated although
72 x 36 links = 2,592 ports, twice what the trays have; and x0.5 bandwidth at 144 GPUs (144 x 9 = 1,296 ports) was
refused. The links per accelerator are the bandwidth over the cluster's `link` part's rate (analyse.network, NET010),
so the sweep now scales them with the point's bandwidth (`perf.hw.switch_ports.SwitchPorts`). The same links may not
exceed the chip's own 18 NVLink 5 links (catalog gb200 `scale_up.links`; NET010's chip_links rule): x2 at 36 GPUs
needs only 1,296 ports but 36 links a GPU, and is refused for that.
"""

from __future__ import annotations

from archgen.perf.hw.switch_ports import SwitchPorts, ports_needed
from tests.conftest import sweep_problem_written
from tests.perf.test_batch import same

SWEEP = """\
kind: Sweep
id: switched-bandwidth
workload: llama3-405b-pretrain-gb200
axes:
  scale_up_size: [36, 72, 144]
  scale_up_bandwidth: [0.5, 1, 2]
  accelerators: [576]
objectives:
  - {metric: step_time, goal: min}
"""

PORTS = 9 * 144   # nvlink5-switch-tray ports.count x the cluster's 9 switches


def test_links_follow_the_bandwidth_over_a_link_part() -> None:
    over_link, own = SwitchPorts(PORTS, 18, True, 18), SwitchPorts(PORTS, 18, False)
    assert over_link.widest(2.0) == 36 and ports_needed(36, 36) == PORTS       # 36 x 36 = 1,296
    assert over_link.widest(0.5) == 144 and ports_needed(9, 144) == PORTS      # 144 x 9 = 1,296
    assert own.widest(2.0) == own.widest(0.5) == 72                           # the chip's links: bandwidth moves none
    assert over_link.chip_short(2.0) and not over_link.chip_short(1.0) and not own.chip_short(2.0)


def test_a_point_s_bandwidth_moves_its_port_limit_on_both_paths(tmp_path) -> None:
    from archgen.perf.explore import points, vectorised

    problem = sweep_problem_written(tmp_path, SWEEP)
    [base] = problem.bases.values()
    assert base.switch == SwitchPorts(PORTS, 18.0, True, 18)
    one, batch = points.evaluate(problem, 0, problem.size), vectorised.evaluate(problem, 0, problem.size)
    # the batch path asks the rule once per level of a layout set (here: per scale_up_size), with the same answer,
    # wherever a chunk cuts the set: (72, 0.5) | (72, 1) | (72, 2), a chunk of one admitted point, one of a refused one
    cut = vectorised.evaluate(problem, 0, 4) + vectorised.evaluate(problem, 4, 5) + vectorised.evaluate(
        problem, 5, problem.size)
    for a, b, c in zip(batch, cut, one, strict=True):
        same(a, c)
        same(b, c)
    for rows in (one, batch):
        got = {(r.values["scale_up_size"], r.values["scale_up_bandwidth"]): r for r in rows}
        for ok in ((36, 0.5), (36, 1), (72, 0.5), (72, 1), (144, 0.5)):
            assert got[ok].status == "ok", (ok, got[ok].reason)
        for refused, most in (((72, 2), 36), ((144, 1), 72), ((144, 2), 36)):
            row = got[refused]
            assert row.status == "invalid" and not row.feasible, (refused, row.reason)
            assert f"join at most {most} accelerators" in row.reason and "(NET010)" in row.reason, row.reason
        assert "at 2x the cluster's scale-up bandwidth (36 links per accelerator" in got[(72, 2)].reason
        chip = got[(36, 2)]
        assert chip.status == "invalid", chip.reason
        assert chip.reason.startswith("scale_up_bandwidth at 2x the cluster's takes 36 links per accelerator over its "
                                      "`link` part, and gb200 has 18 (`scale_up.links`, NET010)"), chip.reason
