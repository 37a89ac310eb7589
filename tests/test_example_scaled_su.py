"""The GB300 example scaled to a 64-rack hall: its network racks are one SU's, and the check says so (lo23power, 4).

newuser41 built a 4,608-GPU hall from `examples/gb300-nvl72-su/` by setting its layout to 8 SUs (64 GB300 NVL72
racks, 16 gb300-su-ib racks of six Q3400 each: 96 slots). The compute fabric (2 tiers, rail-optimized, one 800G port
per GPU) then needs 64 leaves (8 a SU, 72 GPU-facing and 72 uplink ports each) and 36 spines: the 4,608 uplinks fill
4,608 / 144 = 32 spines, but each leaf's 72 uplinks spread evenly only over a divisor of 72, and the smallest at
least 32 is 36 (`analyse.upper_tiers`, 2 links from each leaf to each spine). 64 + 36 = 100 switches for 96 slots:
the spec is wrong, not the check. NET012 names it (a warning: the 4 spines are counted in no rack, their power in
the cluster's, their rack space in no cost, COST007), so no change to the check; this test pins that it does.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_specs

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "gb300-nvl72-su"


def test_eight_sus_of_the_example_need_four_more_q3400_slots_than_their_racks_hold(tmp_path):
    files = {str(p.relative_to(EXAMPLE)): p.read_text(encoding="utf-8") for p in EXAMPLE.rglob("*.yaml")}
    cluster = "clusters/gb300-nvl72-su.yaml"
    assert "- {unit: su, count: 1}" in files[cluster]
    files[cluster] = files[cluster].replace("- {unit: su, count: 1}", "- {unit: su, count: 8}", 1)
    run = run_specs(tmp_path, files)
    fabric = run.metrics["cluster/gb300-nvl72-su/fabric/compute"]
    leaves, spines = fabric["leaf.switches"].m, fabric["spine.switches"].m
    assert (leaves, spines) == (8 * 8, 36)          # 36: smallest divisor of 72 uplinks >= 64 x 72 / 144 = 32
    assert leaves + spines - 16 * 6 == 4
    [net] = [f for f in run.findings if f.id == "NET012" and "spine" in f.message]
    assert net.severity == "warning"
    assert "spine needs 36 x q3400; the 'gb300-su-ib' racks hold 96, 64 already taken (64 by compute leaf)" in (
        net.message)
    assert [f for f in run.findings if f.id == "COST007" and "q3400 x4" in f.message]
