"""A rack's weight that leaves something installed out is a lower bound, and a requirement it meets is not provided.

The leads' note (weight67): "Rack weight as installed, for the hall's lifts and ramps" (REQ-HALL-MECH-001) was judged
met on the dry weight of the parts that state one, with the PDUs, cables, transceivers and a liquid loop's coolant
not counted. Four DGX H100 (130.45 kg each: NVIDIA DGX H100/H200 User Guide, Introduction to the DGX H100 System,
specifications table, https://docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html) in a 170 kg
enclosure weigh 170 + 4 x 130.45 = 691.8 kg, without the three 0U PDUs (no weight stated) and the cables and
transceivers of their 40 NIC ports (no link part states a weight): at least 691.8 kg, so `weight <= 1400 kg` is not
provided (REQ002), `weight <= 600 kg` not met (REQ001), and `weight >= 600 kg` met.
"""

from __future__ import annotations

import math

import pytest

from archgen.analyse import rack
from archgen.analyse.rack import CABLES, COOLANT
from archgen.model.requirements import Status
from tests.conftest import run_specs

DGX_H100 = 130.45          # kg, NVIDIA DGX H100/H200 User Guide, specifications table
ENCLOSURE = 170.0          # kg, the rack's stated empty weight
WEIGHT = ENCLOSURE + 4 * DGX_H100   # 691.8 kg


def _rack(targets: list[str], pdu: str = "") -> dict[str, str]:
    reqs = "\n".join(f"  - {{id: REQ-W-{i}, statement: weight, metric: weight, target: \"{t}\"}}"
                     for i, t in enumerate(targets))
    return {"specs.yaml": f"""kind: PDU
id: vpdu
source: test
voltage: 415 V
basis: line-to-line
phases: 3
current: 60 A
{pdu}
---
kind: Rack
id: r
form_factor: {{standard: eia-19, height: 42 U, width: 600 mm, depth: 1200 mm, max_payload: 1360 kg, weight: 170 kg}}
slots:
  - {{at: 3, part: dgx-h100, count: 4}}
  - {{at: 1, part: vpdu, count: 3}}
power:
  feeds: {{count: 3, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+1}}
  pdus: {{redundancy: N+1}}
cooling:
  air: {{class: A2, delta_t: 16 K}}
requirements:
{reqs}
"""}


def _statuses(run) -> dict[str, tuple[Status, str]]:
    return {j.bound.req.id: (j.outcome.status, j.outcome.note) for j in run.requirements}


def test_a_weight_that_leaves_parts_out_is_a_lower_bound(tmp_path):
    run = run_specs(tmp_path, _rack(["<= 1400 kg", "<= 600 kg", ">= 600 kg"]))
    space = run.racks["rack/r"].space
    assert space.weight.m_as("kg") == pytest.approx(WEIGHT)                  # 691.8 kg
    assert space.lower_bound and space.left_out == ("vpdu x3, which states no weight", CABLES)
    status = _statuses(run)
    assert status["REQ-W-0"][0] is Status.NOT_PROVIDED                      # met by the lower bound only
    assert "weight is at least 691.8 kg, a lower bound, and the target <= 1400 kg is met there but may not be" in status["REQ-W-0"][1]
    assert "vpdu x3, which states no weight" in status["REQ-W-0"][1]
    assert f"which must add under {1400 - WEIGHT:.4g} kg for it to hold" in status["REQ-W-0"][1]   # 708.2 kg (mech28)
    assert status["REQ-W-1"][0] is Status.NOT_MET                           # the lower bound already misses it
    assert status["REQ-W-2"][0] is Status.MET                               # a lower bound meets a floor
    found = {(f.id, f.requirement): f for f in run.findings if f.id in ("REQ001", "REQ002")}
    assert found[("REQ002", "REQ-W-0")].severity == "error"                 # SHALL: as severe as a miss
    assert found[("REQ001", "REQ-W-1")].value.m_as("kg") == pytest.approx(WEIGHT)


def test_floor_load_is_a_lower_bound_with_the_weight(tmp_path):
    run = run_specs(tmp_path, _rack([">= 600 kg"]))
    bounds = run.operations.unsettled["rack/r"]
    assert math.isinf(bounds["weight"][0].m_as("kg")) and math.isinf(bounds["floor_load"][0].m_as("kg/m**2"))
    assert run.racks["rack/r"].space.floor_load.m_as("kg/m**2") == pytest.approx(WEIGHT / 0.72)   # 960.8 kg/m²


def test_the_pdu_weighed_leaves_the_cables_out(tmp_path):
    """Stating the PDUs' weight (12 kg, as the test's; no vendor page read gives the class's) still leaves the cables
    and transceivers: the weight 691.8 + 3 x 12 = 727.8 kg is a lower bound."""
    run = run_specs(tmp_path, _rack(["<= 1400 kg"], "mechanical: {height: 0 U, weight: 12 kg}"))
    space = run.racks["rack/r"].space
    assert space.weight.m_as("kg") == pytest.approx(WEIGHT + 36) and space.left_out == (CABLES,)
    assert _statuses(run)["REQ-W-0"][0] is Status.NOT_PROVIDED


def test_a_rack_whose_every_installed_part_is_weighed_is_judged(tmp_path):
    """A rack of PDUs only (each 12 kg): nothing with ports, no liquid loop; 170 + 3 x 12 = 206 kg is its weight."""
    files = _rack(["<= 1400 kg"], "mechanical: {height: 0 U, weight: 12 kg}")
    files["specs.yaml"] = files["specs.yaml"].replace("  - {at: 3, part: dgx-h100, count: 4}\n", "")
    run = run_specs(tmp_path, files)
    space = run.racks["rack/r"].space
    assert space.weight.m_as("kg") == pytest.approx(ENCLOSURE + 36) and not space.lower_bound
    assert _statuses(run)["REQ-W-0"][0] is Status.MET and "rack/r" not in run.operations.unsettled


def test_an_enclosure_stating_no_weight_is_not_provided_and_named(tmp_path):
    """weight36: an enclosure whose empty weight no source states leaves `form_factor.weight` out. The rack's weight
    is then the placed parts' (4 x 130.45 + 3 x 12 = 557.8 kg, the PDUs weighed), a lower bound naming the enclosure
    first, and a requirement it meets is not provided; the rated payload never holds the enclosure, so MECH003 does
    not name it, and `unconfirmed: true` marks no weight that is not there (MECH005 names the four others)."""
    files = _rack(["<= 1400 kg"], "mechanical: {height: 0 U, weight: 12 kg}")
    files["specs.yaml"] = files["specs.yaml"].replace(
        "max_payload: 1360 kg, weight: 170 kg}", "max_payload: 1360 kg, unconfirmed: true}")
    run = run_specs(tmp_path, files)
    space = run.racks["rack/r"].space
    assert space.weight.m_as("kg") == pytest.approx(4 * DGX_H100 + 36)
    assert space.left_out == (rack.ENCLOSURE, CABLES) and space.payload_left_out == (CABLES,)
    assert _statuses(run)["REQ-W-0"][0] is Status.NOT_PROVIDED
    found = {f.id: f.message for f in run.findings if f.object == "rack/r"}
    assert "enclosure" not in found["MECH003"] and "vpdu" not in found["MECH003"]
    assert "(form_factor.unconfirmed): height 42 U, width 600 mm, depth 1200 mm, max_payload 1360 kg;" in found[
        "MECH005"]


def test_the_shipped_gb200_rack_leaves_out_its_coolant(shipped):
    """The GB200 NVL72's 1,205 kg (the placed trays, shelves and switches) is a lower bound 195 kg under
    REQ-MECH-001's 1,400 kg: its enclosure (no public source states its empty weight; weight36), its coolant (none
    gives the loop's volume) and its cables and transceivers are not weighed, so the requirement is not provided
    (waived in the shipped spec as an open finding), never met."""
    space = shipped.racks["rack/gb200-nvl72"].space
    assert space.left_out == (rack.ENCLOSURE, CABLES, COOLANT)
    judged = {(j.bound.subject, j.bound.req.id): j.outcome.status for j in shipped.requirements}
    assert judged[("rack/gb200-nvl72", "REQ-MECH-001")] is Status.NOT_PROVIDED
    assert judged[("rack/gb200-nvl72", "REQ-HALL-MECH-001")] is Status.NOT_PROVIDED
    assert all(f.waived for f in shipped.findings if f.id == "REQ002" and f.object.startswith("rack/"))


#: A liquid-cooled tray stating its fill, in a loop that states the whole rack's (`cooling.liquid.coolant_volume`:
#: trays, manifolds and hoses) or not (test figures: no shipped part's datasheet read states a volume). PG25 at 40 °C:
#: 1,015 kg/m³ (ASHRAE Handbook—Fundamentals 2021, ch. 31, Tables 5-6; `analyse.rack.COOLANTS`), so the loop's 26 L
#: weigh 26.39 kg, and the trays' 4 x 1.5 L = 6 L alone 6.09 kg.
WET = """kind: System
id: wet-tray
name: test tray
source: test
accelerators: 0
mechanical: {height: 1 U, weight: 30 kg}
power: {max: 2 kW}
cooling: {type: liquid, liquid_fraction: 0.8%s}
---
kind: CoolingUnit
id: cdu
type: in-row-cdu
source: test
capacity: 1 MW
---
kind: Rack
id: r
form_factor: {standard: eia-19, height: 42 U, width: 600 mm, depth: 1200 mm, max_payload: 1360 kg, weight: 170 kg}
slots:
  - {at: 3, part: wet-tray, count: 4}
power:
  feeds: {count: 2, voltage: 415 V, basis: line-to-line, phases: 3, current: 60 A, redundancy: N+N}
cooling:
  liquid: {cdu: cdu, supply: 40 degC, delta_t: 10 K, coolant: pg25, class: W32%s}
  air: {class: A2, delta_t: 20 K}
"""


def test_the_loops_stated_coolant_is_weighed_once(tmp_path):
    """The loop's `coolant_volume` holds the trays' too: 26 L, not 26 L + 4 x 1.5 L; the weight counts all coolant."""
    for tray in ("", ", coolant_volume: 1.5 L"):
        run = run_specs(tmp_path / str(len(tray)), {"specs.yaml": WET % (tray, ", coolant_volume: 26 L")})
        space = run.racks["rack/r"].space
        assert space.coolant.m_as("kg") == pytest.approx(26 * 1.015)                     # 26.39 kg
        assert space.weight.m_as("kg") == pytest.approx(170 + 4 * 30 + 26 * 1.015)       # 316.39 kg
        assert space.payload.m_as("kg") == pytest.approx(4 * 30)        # MECH003 judges the equipment alone
        assert space.left_out == (CABLES,)


def test_coolant_is_left_out_where_the_loop_states_no_volume(tmp_path):
    """The trays' stated 6 L are weighed (6.09 kg), a lower bound without the manifolds' and hoses' coolant."""
    run = run_specs(tmp_path, {"specs.yaml": WET % (", coolant_volume: 1.5 L", "")})
    space = run.racks["rack/r"].space
    assert space.coolant.m_as("kg") == pytest.approx(6 * 1.015)                      # the trays' only
    assert space.weight.m_as("kg") == pytest.approx(170 + 4 * 30 + 6 * 1.015)
    assert space.left_out[-1] == "the coolant in its manifolds and hoses, as no volume is stated for it"
    assert run_specs(tmp_path / "dry", {"specs.yaml": WET % ("", "")}).racks["rack/r"].space.left_out[-1] == COOLANT


def test_a_loop_stating_less_than_its_parts_is_found(tmp_path):
    """MECH006 (review35): the loop's 5 L cannot hold the trays' stated 4 x 1.5 L = 6 L; weighing 5 L would leave 1 L
    (1.015 kg of PG25) out of a weight that reads complete. 6 L, what the trays alone hold, passes."""
    run = run_specs(tmp_path, {"specs.yaml": WET % (", coolant_volume: 1.5 L", ", coolant_volume: 5 L")})
    [f] = [f for f in run.findings if f.id == "MECH006"]
    assert (f.severity, f.object) == ("error", "rack/r")
    assert f.value.m_as("L") == 5 and f.limit.m_as("L") == pytest.approx(4 * 1.5)
    assert "the loop's coolant volume 5 l is less than the 6 l its placed parts state they hold (wet-tray 4 x 1.5 l)" \
        in f.message
    run = run_specs(tmp_path / "ok", {"specs.yaml": WET % (", coolant_volume: 1.5 L", ", coolant_volume: 6 L")})
    assert not [f for f in run.findings if f.id == "MECH006"]
