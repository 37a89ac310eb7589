"""A UALink pod: four compute racks cabled to one stage of switches in a switch rack (`scale_up.switch_rack`).

UALink 200G 1.0 joins up to 1,024 accelerators through switches that give each accelerator a port (Tom's Hardware on
the final specification, 2025-04-08; the consortium's press release), over x1/x2/x4 ports of 200G lanes, cables
optimised for under 4 m. newuser59 and newuser83 wrote it and were refused "not modelled"; ualink30 models it
(`analyse.scale_up_pod`). The pod: 128 MI355X (four catalog `mi355x-compute` racks of 32, standing in for UALink
accelerators: CAB010 says so) at 1.6 TB/s both ways over x4 links of 800G, so 8 links each, to 8 switches of 128
x4 ports in one switch rack standing between them. No UALink switch has a datasheet, so the switch and its 3 m DAC
are `tests.analyse.test_scale_up_switch_rack`'s test inputs (every figure an assumption), not catalog parts.

Switches by lanes: 128 x 8 links x 4 lanes / (128 ports x 4 lanes) = 8. Runs: rack pitch 0.6 m, tray drop 0.5 m,
slack 0.5 m, so a compute rack beside the switch rack runs 2 x 0.5 + 0.6 + 0.5 = 2.1 m and the next 2.7 m
(`analyse.cabling`: 2 x tray_drop + Manhattan + slack), inside the DAC's 3 m.
"""

from __future__ import annotations

import pytest

from archgen.errors import ValidateError
from tests.analyse.test_scale_up_switch_rack import PARTS
from tests.conftest import run_specs

POD = PARTS.split("---\nkind: Cluster")[0] + """---
kind: Cluster
id: ualpod
layout: [{rack: mi355x-compute, count: 2}, {rack: ual-sw-rack, count: 1}, {rack: mi355x-compute, count: 2}]
floor: {racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3.6 m, tray_drop: 0.5 m, slack: 0.5 m}
scale_up: {domain: rack, racks: 4, size: 128, technology: ualink, topology: switched, bandwidth: 1.6 TB/s,
           switch: ual-switch, switches: 8, link: ual-dac, switch_rack: ual-sw-rack}
"""
JOB = """---
kind: Workload
id: w
model: llama3-8b
cluster: ualpod
accelerators: 64
training: {seq_len: 8192, global_batch: 64, precision: bf16, parallelism: {tp: 8, pp: 1}}
"""


def _run(tmp_path, old: str = "", new: str = "", extra: str = ""):
    return run_specs(tmp_path, {"c.yaml": POD.replace(old, new, 1) + extra})


def _found(run, check: str) -> list[str]:
    return [f.message for f in run.findings if f.id == check]


def test_the_pod_is_modelled_one_hop_its_links_laid_to_the_switch_rack(tmp_path) -> None:
    run = _run(tmp_path)
    assert _found(run, "NET010") == [] and _found(run, "CAB001") == []
    m = run.metrics["cluster/ualpod"]
    assert m["scale_up.switch_hops"].m == 1   # ualink30: was 2 for any multi-rack switched domain
    assert "scale_up.trunk_links" not in m or m["scale_up.trunk_links"].m == 0
    cab = run.clusters["cluster/ualpod"].cabling
    (tier,) = [t for t in cab.tiers if t.fabric == "scale_up"]
    assert (tier.tier, tier.links, tier.physical) == ("access", 128 * 8, 128 * 8)
    assert tier.max_length.m_as("m") == pytest.approx(2.7)
    (runs,) = cab.trunk_runs
    assert sorted({round(float(x), 6) for x in runs.length}) == [2.1, 2.7]
    assert int(runs.weight.sum()) == 1024


def test_too_few_switches_for_the_lanes_are_refused(tmp_path) -> None:
    found = _found(_run(tmp_path, "switches: 8, link", "switches: 4, link"), "NET010")
    assert ("128 accelerators x 8 links x 4 lanes need 8 ual-switch of 128 x4 ports; the pod has 4") in found
    assert "1 ual-sw-rack place 8 ual-switch; 1 domain(s) of 4 make 4" in found


def test_a_switch_rack_at_the_rows_end_is_past_the_dacs_reach(tmp_path) -> None:
    """The two farthest compute racks stand four and three pitches off: 3.9 and 3.3 m, past the 3 m DAC."""
    run = _run(tmp_path, "layout: [{rack: mi355x-compute, count: 2}, {rack: ual-sw-rack, count: 1}, "
               "{rack: mi355x-compute, count: 2}]", "layout: [{rack: mi355x-compute, count: 4}, "
               "{rack: ual-sw-rack, count: 1}]")
    (f,) = [f for f in run.findings if f.id == "CAB001"]
    msg = f.message
    assert msg.startswith("access: 512 link(s) up to 3.9 m exceed the 3 m reach of ual-dac; 2 rack(s) at one end, "
                          "1 at the other")
    line = (tmp_path / f.location.file).read_text(encoding="utf-8").splitlines()[f.location.line - 1]
    assert "link: ual-dac" in line   # at the domain's `link`, not `trunk_link`
    assert "stand the switch racks in the compute racks' row, between them" in msg


def test_a_pod_over_1024_accelerators_is_refused(tmp_path) -> None:
    found = _found(_run(tmp_path, "racks: 4, size: 128", "racks: 33, size: 1056"), "NET010")
    assert ("a UALink pod of 1056 accelerators: UALink 200G 1.0 joins at most 1024 (its 10-bit accelerator "
            "identifier): expected at most 1024") in found


def test_a_switch_rack_the_layout_does_not_place_is_refused(tmp_path) -> None:
    found = _found(_run(tmp_path, ", {rack: ual-sw-rack, count: 1}", ""), "NET010")
    assert ("switch_rack ual-sw-rack is in no `layout` entry, so the pod's 8 ual-switch a domain stand nowhere: "
            "expected a rack type the layout places") in found


def test_a_pod_with_a_trunk_link_is_refused_at_its_key(tmp_path) -> None:
    with pytest.raises(ValidateError) as err:
        _run(tmp_path, "switch_rack: ual-sw-rack", "switch_rack: ual-sw-rack, trunk_link: ual-dac")
    assert ("scale_up.trunk_link: a pod's accelerators link to its switches in switch_rack directly, one switch "
            "hop apart, with no switch-to-switch link: leave trunk_link out") in str(err.value)
    assert "c.yaml:" in str(err.value)


def test_a_job_on_the_pod_takes_one_hop_and_the_runs_flight(tmp_path) -> None:
    """1.9 us (the MI355X's borrowed step) + 2 x 2.7 m x 4.5 ns/m = 1.9243 us a step; no second hop between racks."""
    parts = POD.replace("power: {max: 3 kW}", "latency: 250 ns\npower: {max: 3 kW}", 1)
    run = run_specs(tmp_path, {"c.yaml": parts + JOB})
    est = run.workloads["workload/w"].estimate
    (note,) = [n for n in est.notes if "`scale_up.switch_rack`" in n]
    assert "any two of its accelerators, in one rack or two, are one switch hop apart" in note
    assert "plus 24.3 ns (2 x 12.2 ns of flight over the longest run, 2.7 m of dac at up to 4.5 ns/m)" in note
    assert note.endswith("1.924 us (docs/perf-model.md, UALink pods)")
    assert not [n for n in est.notes if "(`scale_up.racks`)" in n or "port-to-port `latency`" in n]


def _sweep_steps(tmp_path, floor: str, batched: bool) -> list[float]:
    from archgen.perf.explore import points, vectorised
    from tests.conftest import sweep_problems_of
    from tests.test_sweep_second_hop import SWEEP

    path = tmp_path / f"{floor[11:14]}{batched}" / "c.yaml"   # "0.5" or "0 m"
    path.parent.mkdir(parents=True)
    text = POD.replace("tray_drop: 0.5 m, slack: 0.5 m", floor)
    path.write_text(text + JOB + SWEEP, encoding="utf-8")
    problem = sweep_problems_of(path, [path.parent])[0]
    rows = (vectorised.evaluate if batched else points.evaluate)(problem, 0, problem.size)
    assert [r.status for r in rows] == ["ok", "ok"]
    return [r.metrics["step_time"] for r in rows]


def test_a_sweep_adds_the_pods_flight_on_both_paths(tmp_path) -> None:
    """Longer runs (2.7 m, not 1.2 m with no tray drop or slack) slow each point alike on the point and batched paths."""
    far = [_sweep_steps(tmp_path, "tray_drop: 0.5 m, slack: 0.5 m", b) for b in (False, True)]
    near = [_sweep_steps(tmp_path, "tray_drop: 0 m, slack: 0 m", b) for b in (False, True)]
    assert far[1] == pytest.approx(far[0], rel=1e-6) and near[1] == pytest.approx(near[0], rel=1e-6)
    assert all(f > n for f, n in zip(far[0], near[0], strict=True)), (far, near)


def test_an_all_to_all_on_the_pod_pays_its_flight_on_every_send_and_no_second_hop() -> None:
    """64 ranks over two of the pod's racks: every send crosses one switch, so each of the 63 / 8 send steps
    (`perf.comm.algorithms.all_to_all`) takes the runs' flight, 2 x 2.7 m x 4.5 ns/m, and none the rack hop that a
    trunked domain's sends to the other rack take (tests/perf/test_a2a_rack_hop.py: +1 us at 250 ns)."""
    from archgen.perf.workload.racks_note import second_hop
    from tests.perf.test_a2a_rack_hop import BASE, _a2a

    flight = 2 * 2.7 * 4.5e-9
    pod = second_hop(BASE, BASE, 1, 0.0, flight)
    assert (pod.rack_cross, pod.rack_size) == (BASE.rack_cross, BASE.rack_size)
    assert _a2a(pod, 64)[0] - _a2a(BASE, 64)[0] == pytest.approx(63 / 8 * flight, rel=1e-9)   # 191.4 ns


def test_the_port_map_lists_each_accelerator_to_switch_cable_with_both_ends(tmp_path) -> None:
    """1,024 rows `scale_up-A-…` from a system's U to a switch in the switch rack, titled accelerator to switch."""
    from archgen.analyse.portmap import port_map
    from archgen.render.wiring import tier_title

    rows = [r for r in port_map(_run(tmp_path).clusters["cluster/ualpod"]).rows if r.fabric == "scale_up"]
    assert len(rows) == 1024 and rows[0].id == "scale_up-A-0001" and rows[0].tier == "access"
    assert (rows[0].a.rack, rows[0].a.u, rows[0].b.rack, rows[0].b.u) == ("mi355x-compute-01", 9, "ual-sw-rack-01", 5)
    assert {r.b.rack for r in rows} == {"ual-sw-rack-01"} and (rows[0].length, rows[0].ordered) == (2.7, 3.0)
    assert tier_title("scale_up", "access") == "accelerator to switch of a scale-up domain"   # was endpoint to leaf


def test_a_pod_over_four_racks_is_not_warned_as_a_trunked_domain(tmp_path) -> None:
    """review46: CAB010's "one to four racks" is a trunked domain's; a pod's every run is held to its link's reach.

    Eight compute racks of 32 (256 accelerators) at 400 GB/s, 2 x4 links each, on switches of 256 x4 ports (a test
    input): 256 x 2 x 4 / (256 x 4) = 2 switches in a switch rack between them. The farthest rack stands 4 pitches off: 2 x 0.5 + 2.4 + 0.5 = 3.9 m, inside a 5 m DAC
    (a test input). CAB010 said "a UALink domain over 8 racks ... expected at most 4" (ualink30's doubt); a
    trunked domain over more than four racks still warns (tests/checks/cases/CAB010.yml).
    """
    pod = (POD.replace("count: 8}", "count: 2}", 1).replace("ports: {count: 128", "ports: {count: 256", 1).replace("reach: 3 m", "reach: 5 m", 1)
           .replace("{rack: mi355x-compute, count: 2}", "{rack: mi355x-compute, count: 4}")
           .replace("racks: 4, size: 128", "racks: 8, size: 256").replace("bandwidth: 1.6 TB/s", "bandwidth: 400 GB/s")
           .replace("switches: 8, link", "switches: 2, link").replace("racks_per_row: 8", "racks_per_row: 9"))
    run = run_specs(tmp_path, {"c.yaml": pod})
    assert _found(run, "NET010") == [] and _found(run, "CAB001") == []
    cab = run.clusters["cluster/ualpod"].cabling
    assert max(float(x) for x in cab.trunk_runs[0].length) == pytest.approx(3.9)
    assert [m for m in _found(run, "CAB010") if "racks" in m and "expected at most 4" in m] == []
    assert _found(run, "CAB010")   # the MI355X stand-in's Infinity Fabric is still said


def _x2(tmp_path, breakouts: str):
    """The test pod on x2 links of 400G (16 a GPU at 1.6 TB/s: 128 x 16 x 2 / 512 = 8 switches) to x4 ports."""
    pod = (POD.replace("lanes: 4}", f"lanes: 4, breakouts: {breakouts}}}", 1)
           .replace("rate: 800 Gbit/s\nreach: 3 m\npower_per_end: 0 W\nlanes: 4",
                    "rate: 400 Gbit/s\nreach: 3 m\npower_per_end: 0 W\nlanes: 2", 1))
    return _found(run_specs(tmp_path, {"c.yaml": pod}), "NET010")


def test_a_link_narrower_than_the_ports_needs_the_switch_to_split_them(tmp_path) -> None:
    """review46: an x2 link takes half an x4 port only where the switch lists a 2-way split; one listing only 1x800G
    passed (ualink30's doubt: "not checked against the part's `breakouts`"). An empty list accepts any whole split."""
    assert _x2(tmp_path / "split", "['1x800G', '2x400G']") == []
    assert _x2(tmp_path / "any", "[]") == []
    found = _x2(tmp_path / "whole", "['1x800G']")
    assert ("ual-dac has 2 lanes, a ual-switch port 4: 2 links share a port only where it splits 2 ways, and "
            "ual-switch lists 1x800G: expected a link of 4 lanes, or a switch whose ports list a 2-way breakout"
            ) in found
