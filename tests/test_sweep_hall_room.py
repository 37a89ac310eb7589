"""sites31: a sweep point whose cluster draws more than its hall leaves it is not feasible, and says why.

A `tdp` (or `accelerator`) axis moves a cluster's IT power (`perf.explore.point_axes.at_tdp`); before, no point was
held to its hall's capacities, so a point over the hall was feasible without a word. Now the hall's room for the
cluster (`analyse.hall_room`: the least of its headrooms, in IT watts at the rack feeds) bounds the point's IT power
in `check`'s rule (`perf.explore.points.feasibility`). Fixture: examples/brownfield-hall, a 1.2 MW hall whose
`deployed` lists the GB200 row (542.6 kW) and the GB300 row (567.9 kW, 288 GB300 at 1,400 W), so the GB300 row has
1,200 - 542.6 = 657.4 kW: 1,700 W adds 288 x 300 W / 0.97 = 89.1 kW at the feeds (the trays' shelves' loss, review48;
657.0 kW, within), 2,000 W 178.1 kW (746.0 kW, over by 88.7 kW). Without the `deployed` list the rows may be alternatives: each is held to the hall alone, as PWR010's error.
"""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import REPO, SPECS, sweep_problems_of

SWEEP = """\
kind: Workload
id: gb300-train
name: Llama 3.1 70B pre-training on the GB300 row
model: llama3-70b
cluster: gb300-row
accelerators: 64
training: {seq_len: 8192, global_batch: 64, precision: bf16}
---
kind: Sweep
id: gb300-tdp
workload: gb300-train
axes:
  tdp: ["1400 W", "1700 W", "2000 W"]
objectives:
  - {metric: tokens_per_second}
"""


def _problem(tmp_path, deployed: bool = True):
    site = tmp_path / "site"
    shutil.copytree(REPO / "examples" / "brownfield-hall", site)
    if not deployed:
        fac = site / "facilities" / "hall-brownfield.yaml"
        fac.write_text(fac.read_text(encoding="utf-8").replace("deployed: [gb200-row, gb300-row]\n", ""),
                       encoding="utf-8")
    path = tmp_path / "sweep.yaml"
    path.write_text(SWEEP, encoding="utf-8")
    return sweep_problems_of(path, [SPECS / "catalog", SPECS / "racks", site, path])[0]


@pytest.mark.parametrize("batched", [False, True])
def test_a_point_over_its_halls_room_is_not_feasible(tmp_path, batched) -> None:
    from archgen.perf.explore import points, vectorised

    problem = _problem(tmp_path)
    rows = (vectorised.evaluate if batched else points.evaluate)(problem, 0, problem.size)
    assert [r.feasible for r in rows] == [True, True, False]
    reason = rows[2].reason
    assert "does not fit facility 'hall-brownfield'" in reason and "746.0 kW" in reason, reason
    assert "657.4 kW" in reason and "by 88.7 kW" in reason and "'gb200-row'" in reason, reason
    assert rows[1].reason == ""


def test_without_a_deployed_list_each_row_is_held_to_the_hall_alone(tmp_path) -> None:
    """The rows may be alternatives: the GB300 row alone has 632.1 kW of room, so 2,000 W (172.8 kW more) fits."""
    from archgen.perf.explore import points

    problem = _problem(tmp_path, deployed=False)
    assert [r.feasible for r in points.evaluate(problem, 0, problem.size)] == [True, True, True]


def test_a_tdp_level_moves_the_feeds_by_the_shelves_loss_too(tmp_path) -> None:
    """review48: the GB300 trays hang on 0.97-efficient shelves, so a watt more on a GPU is 1 / 0.97 W at the rack
    feeds (`analyse.conversion`: `it_power` is at the feeds). At 2,000 W the row draws 567.9 + 288 x 600 / 0.97 =
    746.0 kW, not 740.7 kW (the shelves' 5.3 kW left out), over the 657.4 kW room by 88.7 kW; at 1,700 W it draws
    567.9 + 288 x 300 / 0.97 = 657.0 kW, still within.
    """
    from archgen.perf.explore import points

    problem = _problem(tmp_path)
    rows = points.evaluate(problem, 0, problem.size)
    assert [r.feasible for r in rows] == [True, True, False]
    base = next(iter(problem.bases.values()))
    assert base.feed_per_watt == pytest.approx(1 / 0.97)
    assert base.it_power / 1e3 == pytest.approx(567.88, abs=0.01)
    assert "746.0 kW" in rows[2].reason and "by 88.7 kW" in rows[2].reason, rows[2].reason
