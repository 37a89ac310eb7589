"""What NET003 and NET001 tell a user whose out-of-band fabric outgrows 2 tiers (newuser55, nu55fix).

newuser55 scaled examples/gb300-nvl72-su to 16 SUs. Its OOB fabric (48 x 1G SN2201 leaves, 2 per NVL72 rack, 2 x
100G uplinks each; SN4600C spines, 64 x 100G) then has 16 x 459 = 7344 management ports on 256 leaves. 2 tiers of
64-port spines join at most 64 leaves, 64 x 48 = 3072 ports per plane, so NET003 is right to fail; but its advice,
"use 3 tiers", alone built cores of the fabric's `switch`, the SN2201 (NET001 "sn2201 has 0 at 100 Gb/s"), with no
word of why or what to name. The messages now say: name a core switch.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_specs

EXAMPLE = Path(__file__).parents[2] / "examples" / "gb300-nvl72-su"


def _findings(tmp_path, oob_tiers: str) -> list:
    files = {f"racks/{p.name}": p.read_text(encoding="utf-8") for p in (EXAMPLE / "racks").glob("*.yaml")}
    cluster = (EXAMPLE / "clusters" / "gb300-nvl72-su.yaml").read_text(encoding="utf-8")
    cluster = cluster.replace("{unit: su, count: 1}", "{unit: su, count: 16}").replace(
        "expect: {accelerators: 576, nodes: 144, racks: 11}", "")
    head, oob = cluster.split("  - id: oob", 1)
    assert "    tiers: 2\n" in oob
    files["clusters/c.yaml"] = head + "  - id: oob" + oob.replace("    tiers: 2\n", f"    tiers: {oob_tiers}\n", 1)
    run = run_specs(tmp_path, files)
    return [f for f in run.findings if f.object.endswith("/fabric/oob") and f.id in ("NET001", "NET003")]


def test_two_tiers_too_small_says_to_name_a_core_switch(tmp_path) -> None:
    [net003] = [f for f in _findings(tmp_path, "2") if f.id == "NET003"]
    assert net003.message.startswith("2 tiers of 64-port spines reach 3072 ports per plane; 7344 needed (256 leaves "
                                     "> 64 spine ports): use 3 tiers, with a core switch (`core: {switch: ...}`, e.g. "
                                     "the spines' sn4600c; without one the cores are the fabric's `switch`, sn2201)")
    assert 64 * 48 == 3072 and 16 * 459 == 7344     # spine ports x leaf down ports; SUs x ports per SU


def test_three_tiers_on_the_leaf_switch_say_why_and_what_to_name(tmp_path) -> None:
    found = {f.id: f.message for f in _findings(tmp_path, "3")}
    assert found["NET001"].endswith("; the cores are the fabric's `switch` (sn2201), not the spines' sn4600c, as "
                                    "`core.switch` names none: name a switch with 8 ports at 100 Gb/s "
                                    "(`core: {switch: ...}`)")
    assert found["NET003"].startswith("3 tiers reach no ports: the cores (sn2201) have none to take the spines' "
                                      "100 Gb/s uplinks (NET001)")
