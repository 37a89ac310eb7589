"""A switched scale-up domain with no switch part (`analyse.scale_up_switches`).

The trial's Trn2 pod stated its NeuronLink domain as `switched` with no switch part; inside one node that shape is
also a DGX's (NVSwitch chips on the baseboard), but a rack domain of several systems has no system to hold the
switches: four trn2.48xlarge in a rack written as one switched domain of 64 names nothing that joins them.
"""

from __future__ import annotations

from tests.conftest import run_specs
from tests.test_scale_up_torus import CLUSTER, NODE, PARTS


def _net010(tmp_path, scale_up: str) -> list[str]:
    r = run_specs(tmp_path, PARTS | {"clusters/t.yaml": CLUSTER.replace("SCALE_UP", scale_up)})
    return [f.message for f in r.findings if f.id == "NET010"]


def test_a_switched_rack_domain_without_switches_is_refused(tmp_path) -> None:
    """Four systems per rack domain, no `switch`: NET010 at scale_up.switch, once per rack type."""
    found = _net010(tmp_path, "domain: rack, size: 64, technology: ethernet, topology: switched, "
                              "bandwidth: 1.28 TB/s")
    assert [m for m in found if "names no switch part" in m] == [
        "a switched rack domain of 4 systems in trn2-rack names no switch part, so nothing joins its systems: "
        "expected `switch` and `switches` (the trays in the rack), or topology torus or mesh for direct links"]


def test_a_switched_node_domain_is_taken_at_its_word(tmp_path) -> None:
    """One system holds a node domain; it may hold the switch chips (a DGX), so no finding; its torus neither."""
    assert not [m for m in _net010(tmp_path, "domain: node, size: 16, technology: ethernet, topology: switched, "
                                             "bandwidth: 1.28 TB/s") if "switch part" in m]
    assert _net010(tmp_path, NODE) == []
