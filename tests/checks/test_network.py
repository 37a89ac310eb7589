"""NET checks beyond their case files: the exact wording of findings on small clusters and the shipped examples."""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.pipeline import run
from tests.data.clusters.small import files

SPECS = Path(__file__).resolve().parents[2] / "specs"



def _surplus(result, cluster: str) -> list[str]:
    return sorted(f.message for f in result.findings if f.id == "NET017" and f.object == f"cluster/{cluster}")


def test_surplus_names_switch_rack_placed_and_derived(spec_tree) -> None:
    """2 SUs of 8 DGX H100: 2 rail leaves per SU and 2 spines; the two 'net' racks hold 36 QM9700 each."""
    result = run([spec_tree(files())])
    assert _surplus(result, "c") == ["qm9700 in the 'net' racks: 72 placed (2 x 36 per rack), the fabrics derive 6 "
                                     "(f leaf: 4, f spine: 2): 66 unused draw 77.6 kW at maximum, 31.0% of the IT "
                                     "power (above 1%)"]
    # 66 x 1,176 W (QM9700's maximum, the catalog's) = 77.6 kW: a warning, not info, above 1 % of the IT power
    assert {f.severity for f in result.findings if f.id == "NET017"} == {"warning"}


def test_surplus_counts_tiers_without_a_rack_against_it(spec_tree) -> None:
    """Spines that name no rack may stand in the surplus slots (as the BOM counts them); what is left is reported."""
    tree = files()
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("  spine: {rack: net}\n", "")
    assert _surplus(run([spec_tree(tree)]), "c") == [
        "qm9700 in the 'net' racks: 72 placed (2 x 36 per rack), the fabrics derive 6 (f leaf: 4, tiers naming no "
        "rack: 2): 66 unused draw 77.6 kW at maximum, 30.9% of the IT power (above 1%)"]


def test_no_surplus_of_the_gb200_management_switches(shipped) -> None:
    """Two SN2201 per NVL72 rack, and the OOB leaves sized per rack derive 2 each (55 ports; test_management_leaves).

    Before `leaf.serves_racks` the SU's OOB pooled its ports into 6 leaves and 10 of the 16 stood unused.
    """
    assert _surplus(shipped, "gb200-nvl72-su") == []


def test_shipped_surplus_is_only_the_deliberate_management_switches(shipped) -> None:
    """The example racks place what their fabrics derive, but for per-rack OOB switches, which are waived."""
    assert _surplus(shipped, "dgx-b200-superpod") == [
        "sn2201 in the 'dgx-b200-compute-3' racks: 1 placed (1 x 1 per rack), the fabrics derive none there: 1 unused "
        "draw 0.1 kW at maximum, 0.0% of the IT power (within 1%)"]
    found = [f for f in shipped.findings if f.id == "NET017"]
    assert len(found) == 1 and all("top-of-rack" in f.waived for f in found)
    assert found[0].severity == "info"   # one management switch: within 1 % of the IT power


def _superpod_expecting(tmp_path: Path, expect: str) -> list:
    """NET008 findings of the shipped B200 SuperPOD with its `expect:` block replaced by `expect`."""
    text = (SPECS / "clusters" / "dgx-b200-superpod.yaml").read_text(encoding="utf-8")
    start = text.index("\nexpect:\n") + 1
    end = text.index("\nrequirements:", start) + 1
    spec = tmp_path / "dgx-b200-superpod.yaml"
    spec.write_text(text[:start] + expect + text[end:], encoding="utf-8")
    result = run([spec, SPECS / "racks"])
    return sorted((f.object, f.message) for f in result.findings if f.id == "NET008")


def test_expect_pins_switches_and_cables_per_tier_of_a_published_table(shipped, tmp_path) -> None:
    """Issue 11, item 10: the shipped SuperPOD pins NVIDIA's Table 4 (127 nodes: 32 leaves, 16 spines, 1,020
    compute-and-UFM and 1,024 spine-leaf cables, B200 RA, Network Fabrics) and checks clean; a wrong count is found
    at its tier, and a fabric the cluster lacks is named."""
    assert not [f for f in shipped.findings if f.id == "NET008"]
    got = _superpod_expecting(tmp_path, "expect:\n  fabrics:\n    compute: {switches: {leaf: 32, spine: 12, core: 4},"
                                        " cables: {access: 1024, leaf_spine: 1024}}\n    ib: {switches: {leaf: 1}}\n")
    fabric = "cluster/dgx-b200-superpod/fabric/compute"
    assert got == sorted([
        (fabric, "expected 12 spine switches in fabric compute, the fabric derives 16"),
        (fabric, "expected 4 core switches in fabric compute, the fabric derives 0 (it has 2 tier(s))"),
        (fabric, "expected 1024 access cables in fabric compute, the fabric derives 1020 (1020 links)"),
        ("cluster/dgx-b200-superpod", "expect names fabric 'ib', which the cluster does not have (fabrics: compute, "
                                      "inband, oob, storage)")])


def test_stated_counts_are_what_model_dump_gives() -> None:
    """`expectations.stated` reads an expectation's counts from its fields (no serializer built): the dict, in its
    order, that `model_dump(exclude_none=True)` gives."""
    from archgen.checks.expectations import stated
    from archgen.model.cluster import TierCables, TierSwitches
    for counts in (TierSwitches(spine=16, leaf=32), TierSwitches(core=0), TierSwitches(),
                   TierCables(spine_core=4, access=1020), TierCables(leaf_spine=1024)):
        assert list(stated(counts).items()) == list(counts.model_dump(exclude_none=True).items())
    assert list(stated(TierSwitches(spine=16, leaf=32))) == ["leaf", "spine"]


def test_inconsistent_expectation_is_explained(tmp_path) -> None:
    """Issue 11, item 10: `expect: {accelerators: 1024, nodes: 127}` (a full 4-SU count beside the UFM SU's nodes)
    cannot hold for 8-GPU nodes; NET008 says the expectation contradicts itself, not only that the layout differs."""
    got = _superpod_expecting(tmp_path, "expect: {accelerators: 1024, nodes: 127}\n")
    assert got == [("cluster/dgx-b200-superpod", "expected 1024 accelerators, the layout gives 1016; the expectation "
                    "contradicts itself: 127 expected nodes x 8 accelerators per node (dgx-b200) = 1016, not 1024")]
    assert _superpod_expecting(tmp_path, "expect: {accelerators: 1024, nodes: 128}\n") == [
        ("cluster/dgx-b200-superpod", "expected 1024 accelerators, the layout gives 1016"),
        ("cluster/dgx-b200-superpod", "expected 128 nodes, the layout gives 127")]


def test_network_share_counts_each_transceiver_once_on_both_sides(spec_tree) -> None:
    """NET021 compares like with like: network power holds every module, the NIC ends too, whether or not the
    system's maximum holds them (`power_includes_optics`); IT power holds each once, adding the NIC ends only where
    the system's figure leaves them out. NET021's failing case (one DGX H100 per rack behind a 3-tier fabric)."""
    from ruamel.yaml import YAML

    doc = YAML(typ="safe", pure=True).load((Path(__file__).parent / "cases" / "NET021.yml").read_text(
        encoding="utf-8"))
    case = next(c for c in doc["cases"] if c["name"] == "fail_network_power_share")
    dgx = (SPECS / "catalog" / "systems" / "dgx-h100.yaml").read_text(encoding="utf-8")
    got = {}
    for inside in (True, False):
        tree = dict(case["files"])
        tree["systems/x.yaml"] = dgx.replace("id: dgx-h100", "id: dgx-h100-x") + (
            f"\npower_includes_optics: {str(inside).lower()}\n")
        tree["racks/r.yaml"] = tree["racks/r.yaml"].replace("part: dgx-h100,", "part: dgx-h100-x,")
        m = run([spec_tree(tree)]).clusters["cluster/c"].metrics
        got[inside] = (m["network_power"].m_as("W"), m["it_power"].m_as("W"))
    node_ends = got[False][1] - got[True][1]
    # 5 QM9700 at maximum and 1,363.2 W of modules (275.2 W before the case named its core tier's media: a tier
    # without them now leaves the power not provided)
    assert got[True][0] == got[False][0] == pytest.approx(7243.2)
    assert 0 < node_ends < 1363.2  # the DGX's own modules, now beside its figure: on the IT side only
