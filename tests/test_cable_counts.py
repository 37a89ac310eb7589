"""Three counts per fabric tier kept apart: logical links, physical cables and transceivers.

Published: NVIDIA DGX SuperPOD B300 (Spectrum-4 Ethernet) RA, Table 3 "Larger DGX SuperPOD component counts"
(1 SU: 16 leaf, 8 spine, 512 node-leaf and 512 leaf-spine cables; 2 SU: 32 / 16 / 1,024 / 1,024; 4 SU:
64 / 32 / 2,048 / 2,048), with twin-planar 2 x 400GbE per GPU; the sources are in the data file's header.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from archgen.pipeline import run

DATA = Path(__file__).parent / "data" / "fabrics" / "dgx-b300-spectrum-x-su.yaml"
EXPECT = "    compute: {switches: {leaf: 16, spine: 8}, cables: {access: 512, leaf_spine: 512}}"


def _write(tmp_path: Path, sus: int, expect: str) -> Path:
    text = DATA.read_text(encoding="utf-8")
    assert "  - {unit: su, count: 1}" in text and EXPECT in text
    text = text.replace("  - {unit: su, count: 1}", f"  - {{unit: su, count: {sus}}}").replace(EXPECT, expect)
    text = text.replace("  accelerators: 512\n  nodes: 64\n", f"  accelerators: {512 * sus}\n  nodes: {64 * sus}\n")
    out = tmp_path / "b300.yaml"
    out.write_text(text, encoding="utf-8")
    return out


@pytest.mark.parametrize(("sus", "leaf", "spine", "cables"), [(1, 16, 8, 512), (2, 32, 16, 1024),
                                                              (4, 64, 32, 2048)])
def test_b300_spectrum_x_cables_as_published(tmp_path: Path, sus, leaf, spine, cables) -> None:
    """Each GPU's 800G cable splits 2 x 400G to two planes, each leaf uplink's to two spines: 2 x `cables` logical
    links per tier, `cables` cables (before, the links were counted as cables: 2x the table, and NET008 fired), and
    a transceiver per cable end: one at the node (a 2 x 400GbE SuperNIC cage), one per two links at the switch."""
    expect = (f"    compute: {{switches: {{leaf: {leaf}, spine: {spine}}}, links: {{access: {2 * cables}}}, "
              f"cables: {{access: {cables}, leaf_spine: {cables}}}, transceivers: {{leaf_spine: {2 * cables}}}}}")
    result = run([_write(tmp_path, sus, expect)])
    assert not [f.message for f in result.findings if f.id == "NET008" and f.severity == "error"]
    m = {k: v.m for k, v in result.metrics["cluster/b300-spectrum-x-su/fabric/compute"].items()}
    assert (m["leaf.switches"], m["spine.switches"]) == (leaf, spine)
    assert (m["links.access"], m["cables.access"], m["transceivers.access"]) == (2 * cables, cables, 2 * cables)
    assert (m["links.leaf_spine"], m["cables.leaf_spine"], m["transceivers.leaf_spine"]) == (2 * cables, cables,
                                                                                             2 * cables)


def test_expect_pins_each_count_and_names_it(tmp_path: Path) -> None:
    """A wrong links, cables or transceivers figure is NET008 at that key, with the derived count and the links."""
    expect = ("    compute: {links: {leaf_spine: 512}, cables: {access: 1024}, transceivers: {access: 512}}")
    result = run([_write(tmp_path, 1, expect)])
    found = sorted(f.message for f in result.findings if f.id == "NET008" and f.severity == "error")
    assert found == ["expected 1024 access cables in fabric compute, the fabric derives 512 (1024 links)",
                     "expected 512 access transceivers in fabric compute, the fabric derives 1024 (1024 links)",
                     "expected 512 leaf_spine links in fabric compute, the fabric derives 1024 (1024 links)"]


def test_b200_ufm_ports_take_a_cable_each(shipped) -> None:
    """The B200 SuperPOD's 1,016 node and 4 UFM ports: 1,020 cables as NVIDIA's Table 4 counts them. A UFM port
    is a single-port cage, so the 800G DAC to it carries one link (before, two UFM ports shared one: 1,018)."""
    m = shipped.metrics["cluster/dgx-b200-superpod/fabric/compute"]
    assert (m["links.access"].m, m["cables.access"].m) == (1020, 1020)
    assert (m["links.leaf_spine"].m, m["cables.leaf_spine"].m) == (1024, 1024)


def test_a_run_past_the_largest_length_bin_is_ordered_at_its_length(spec_tree) -> None:
    """Stocked lengths of 1 m and 3 m: a run between racks is ordered at its length rounded up to the metre, not at
    3 m (a cable shorter than the run, as before), and CAB006 says how many runs are past the bins."""
    from tests.data.clusters.small import files
    tree = files()
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("tray_drop: 1.5 m}",
                                                            "tray_drop: 1.5 m, length_bins: [1 m, 3 m]}")
    result = run([spec_tree(tree)])
    runs = result.clusters["cluster/c"].cabling.runs
    for tr in runs:
        assert (tr.bin >= tr.length - 1e-9).all()
        assert set(tr.bin[tr.length > 3]) <= set(np.ceil(tr.length[tr.length > 3]))
    assert any((tr.length > 3).any() for tr in runs)
    assert [f.id for f in result.findings if f.id == "CAB006"]
