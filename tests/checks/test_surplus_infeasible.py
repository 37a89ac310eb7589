"""NET017 does not call switches unused against the counts of a fabric its own errors say cannot be built (review62).

The shipped GB200 SU grown to 16 SUs: its compute fabric's 2 tiers reach 1,728 ports of the 9,216 it needs (NET003),
and its OOB fabric's 2 SN4600C spines need 256 ports each (NET001, NET003). Before, NET017 still weighed the racks'
switches against the counts those fabrics derive: "qm9700 ... 544 placed, the fabrics derive 432 ... 112 unused" and
"sn4600c ... 32 placed, the fabrics derive 2 ... 30 unused", with its Fix to lower the rack types' switch counts,
beside the errors that say the fabrics need more (a third tier, spines with more ports). Those counts are not a build
(`analyse.network.infeasible`), so NET017 judges none of them, as NET027 and NET031 do not.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import run_specs

CLUSTER = Path(__file__).parents[2] / "specs" / "clusters" / "gb200-nvl72-su.yaml"


def _findings(tmp_path, sus: int) -> list:
    text = CLUSTER.read_text(encoding="utf-8").replace("  - {unit: su, count: 1}", f"  - {{unit: su, count: {sus}}}")
    run = run_specs(tmp_path, {"clusters/c.yaml": text.replace("expect: {accelerators: 576, nodes: 144, racks: 10}",
                                                               "")})
    return run.findings


def test_no_surplus_is_judged_on_an_infeasible_fabric(tmp_path) -> None:
    found = _findings(tmp_path, 16)
    errors = {(f.id, f.object.rsplit("/", 1)[1]) for f in found if f.severity == "error"}
    assert {("NET003", "compute"), ("NET003", "oob"), ("NET001", "oob")} <= errors
    assert [f.message for f in found if f.id == "NET017"] == []


def test_a_feasible_fabric_beside_one_still_has_its_surplus_judged(tmp_path) -> None:
    found = _findings(tmp_path, 4)
    # 4 SUs: the compute fabric's 72 leaves outgrow 64-port spines (NET003); the OOB fabric's 2 spines still hold
    assert {(f.id, f.object.rsplit("/", 1)[1]) for f in found if f.severity == "error"} >= {("NET003", "compute")}
    assert not any(f.id in ("NET001", "NET003", "NET018") and f.object.endswith("/oob") for f in found)
    assert [f.message for f in found if f.id == "NET017"] == [
        "sn4600c in the 'gb200-su-eth' racks: 8 placed (4 x 2 per rack), the fabrics derive 2 (oob spine: 2): 6 unused "
        "draw 2.8 kW at maximum, 0.1% of the IT power (within 1%)"]
