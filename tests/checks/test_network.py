"""NET checks beyond their case files: the exact wording of findings on small clusters and the shipped examples."""

from __future__ import annotations

from pathlib import Path

from archgen.pipeline import run
from tests.data.clusters.small import files

SPECS = Path(__file__).resolve().parents[2] / "specs"



def _surplus(result, cluster: str) -> list[str]:
    return sorted(f.message for f in result.findings if f.id == "NET017" and f.object == f"cluster/{cluster}")


def test_surplus_names_switch_rack_placed_and_derived(spec_tree) -> None:
    """2 SUs of 8 DGX H100: 2 rail leaves per SU and 2 spines; the two 'net' racks hold 36 QM9700 each."""
    result = run([spec_tree(files())])
    assert _surplus(result, "c") == ["qm9700 in the 'net' racks: 72 placed (2 x 36 per rack), the fabrics derive 6 "
                                     "(f leaf: 4, f spine: 2)"]


def test_surplus_counts_tiers_without_a_rack_against_it(spec_tree) -> None:
    """Spines that name no rack may stand in the surplus slots (as the BOM counts them); what is left is reported."""
    tree = files()
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("  spine: {rack: net}\n", "")
    assert _surplus(run([spec_tree(tree)]), "c") == [
        "qm9700 in the 'net' racks: 72 placed (2 x 36 per rack), the fabrics derive 6 (f leaf: 4, tiers naming no "
        "rack: 2)"]


def test_surplus_of_the_gb200_management_switches(shipped) -> None:
    """Two SN2201 per NVL72 rack against the 6 OOB leaves derived; the NVLink switch trays (scale-up) are not counted."""
    assert _surplus(shipped, "gb200-nvl72-su") == [
        "sn2201 in the 'gb200-nvl72' racks: 16 placed (8 x 2 per rack), the fabrics derive 6 (oob leaf: 6)"]


def test_shipped_surplus_is_only_the_deliberate_management_switches(shipped) -> None:
    """The example racks place what their fabrics derive, but for per-rack OOB switches, which are waived."""
    assert _surplus(shipped, "dgx-b200-superpod") == [
        "sn2201 in the 'dgx-b200-compute-3' racks: 1 placed (1 x 1 per rack), the fabrics derive none there"]
    found = [f for f in shipped.findings if f.id == "NET017"]
    assert len(found) == 2 and all("top-of-rack" in f.waived for f in found)
