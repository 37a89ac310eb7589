"""Closed-form network figures: fat-tree sizes, rails, planes, scale-up domains and failure domains."""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.pipeline import run
from tests.data.clusters.small import files

SPECS = Path(__file__).resolve().parents[2] / "specs"



def _fabric(result, cluster: str, fabric: str):
    return next(f for f in result.clusters[f"cluster/{cluster}"].fabrics if f.fabric.spec.id == fabric)


def test_gb200_su_scale_up_domain(shipped) -> None:
    """NVL72: 72 GPUs x 18 NVLink 5 links = 1,296 links on 9 trays x 144 ports (1.8 TB/s / 2 x 400 Gb/s = 18)."""
    su = shipped.clusters["cluster/gb200-nvl72-su"].scale_up
    assert (su.domains, su.links_per_accelerator, su.links_needed, su.switch_ports) == (8, 18, 1296, 1296)


def test_xgmi_mesh_shows_its_links(shipped) -> None:
    """An 8-GPU Infinity Fabric mesh joins every pair: 8 x 7 / 2 = 28 xGMI links on the baseboard, 7 per GPU (tpuamd
    finding 5: the scale-up table said "Links needed 0")."""
    su = shipped.clusters["cluster/mi355x-th5"].scale_up
    assert (su.size, su.links_per_accelerator, su.links_needed, su.switch_ports) == (8, 7, 28, 0)   # was 0 links


def test_dgx_b200_scale_up_links_come_from_the_accelerator(shipped) -> None:
    """A DGX B200's NVLink runs to NVSwitch chips inside the node, so the SuperPOD spec names no link part; each
    B200 still has 18 NVLink 5 links (catalog `scale_up.links`; 18 x 100 GB/s = 1.8 TB/s both ways, as the domain
    states), where the analysis used to report 0. No switch part: no switch ports are counted."""
    su = shipped.clusters["cluster/dgx-b200-superpod"].scale_up
    assert (su.domains, su.size, su.links_per_accelerator, su.switch_ports) == (127, 8, 18, 0)
    assert shipped.metrics["cluster/dgx-b200-superpod"]["scale_up.links_per_accelerator"].m == 18


def test_gb200_su_compute_fabric(shipped) -> None:
    """576 GPU ports on 72 rails (one per GPU of a rack), 4 rails per 32-port leaf: 18 leaves; spines divide 32."""
    fa = _fabric(shipped, "gb200-nvl72-su", "compute")
    assert (fa.rails, fa.rails_per_leaf, fa.tier("leaf").switches) == (72, 4, 18)
    assert fa.tier("spine").switches == 16 and 32 % fa.tier("spine").switches == 0
    assert fa.links == {"access": 576, "leaf_spine": 576}
    assert fa.bisection.m_as("Tbit/s") == pytest.approx(576 * 0.4 / 2)
    assert fa.metrics["injection_per_accelerator"].m_as("Gbit/s") == pytest.approx(400)


def test_leaf_failure_takes_the_accelerators_whose_ports_it_carries(shipped) -> None:
    """Issue 21 item 8, the new user's hand check. GB200 SU: a rail leaf carries 4 of the 72 rails of each of the 8
    racks, 32 ports, and each port is one GPU's CX-7 (4 GPUs, 4 ports per tray): 32 accelerators, not the 576 of
    the 8 racks. DGX B200: one leaf per rail, 32 nodes x 1 port, one GPU behind each: 32, not 32 x 8 = 256."""
    gb = _fabric(shipped, "gb200-nvl72-su", "compute").metrics
    b200 = _fabric(shipped, "dgx-b200-superpod", "compute").metrics
    assert gb["failure.leaf.accelerators_affected"].m == 4 * 8 == 32
    assert b200["failure.leaf.accelerators_affected"].m == 32 * 1 == 32
    domain = next(d for d in shipped.operations.reliability["cluster/gb200-nvl72-su"].domains if d.name == "leaf (compute)")
    assert domain.accelerators == 32


def test_totals_of_shipped_clusters(shipped) -> None:
    """Accelerators = nodes x accelerators per node; the B200 SuperPOD has 127 nodes and 38 racks."""
    b200 = shipped.metrics["cluster/dgx-b200-superpod"]
    assert (b200["nodes"].m, b200["accelerators"].m, b200["racks"].m) == (127, 1016, 38)
    gb = shipped.metrics["cluster/gb200-nvl72-su"]
    assert (gb["nodes"].m, gb["accelerators"].m) == (144, 576)


@pytest.mark.parametrize(("switch", "tiers", "limit"), [("qm9700", 2, 64 ** 2 // 2), ("qm9700", 3, 64 ** 3 // 4),
                                                         ("sw8", 2, 8 ** 2 // 2), ("sw8", 3, 8 ** 3 // 4)])
def test_largest_size_is_k2_over_2_and_k3_over_4(spec_tree, switch, tiers, limit) -> None:
    """A 1:1 fat tree of k-port switches grows to k²/2 endpoints with 2 tiers and k³/4 with 3."""
    fa = run([spec_tree(files(sus=1, racks=1, switch=switch, tiers=tiers, rail=False))]).clusters["cluster/c"]
    assert fa.fabrics[0].max_endpoints == limit


def test_oversubscription_trades_uplinks_for_reach(spec_tree) -> None:
    """3:1 leaves: 48 down and 16 up of 64 ports; 2 tiers then reach 64 x 48 = 3,072 ports."""
    fa = run([spec_tree(files(over="3:1", rail=False))]).clusters["cluster/c"].fabrics[0]
    leaf = fa.tier("leaf")
    assert (leaf.down, leaf.up, fa.max_endpoints) == (48, 16, 3072)
    assert fa.oversubscription["leaf"] == pytest.approx(48 / 16)   # the busiest leaf: 48 ports over 16 uplinks


def test_leaf_oversubscription_is_the_busiest_leafs(spec_tree) -> None:
    """review47: leaves fill in order, so 128 ports on 3:1 leaves of 48 down are 48 + 48 + 32: two leaves run at
    48:16 = 3.00. The tier's figure was the ports over all the used leaves' uplinks, 128 / 48 = 2.67, which no leaf
    has; a `leaf.oversubscription <= 2.8` requirement passed on it. The storage fabric of the GB300 SU likewise: 288
    ports on 128-port leaves are 128 + 128 + 32 at 128 uplinks each, 1.00 on two leaves, not 288 / 384 = 0.75."""
    fa = run([spec_tree(files(over="3:1", rail=False))]).clusters["cluster/c"].fabrics[0]
    assert fa.leaf_endpoints() == [48, 48, 32]
    assert fa.metrics["leaf.oversubscription"].m == pytest.approx(3.0)
    gb300 = run([SPECS.parent / "examples" / "gb300-nvl72-su"])
    storage = _fabric(gb300, "gb300-nvl72-su", "storage-inband")
    assert storage.leaf_endpoints() == [128, 128, 32]
    assert storage.oversubscription["leaf"] == pytest.approx(1.0)


def test_planes_halve_each_fabric_and_double_capacity(spec_tree) -> None:
    """Two planes: each takes half of every node's 8 NIC ports (4 rails), counts double, failure of a plane = 1/2."""
    one = run([spec_tree(files(sus=4))]).clusters["cluster/c"].fabrics[0]
    two = run([spec_tree(files(sus=4, planes=2))]).clusters["cluster/c"].fabrics[0]
    assert (one.rails, two.rails) == (8, 4)
    assert two.max_endpoints == 2 * one.max_endpoints
    assert two.metrics["links.access"].m == one.metrics["links.access"].m == 4 * 8 * 8
    assert two.metrics["failure.plane.bandwidth_lost"].m == 0.5


def test_tiers_auto_picks_the_fewest_that_fit(spec_tree) -> None:
    """8-port switches at 1:1: 32 DGX ports fit 2 tiers (8 x 4 = 32 endpoints); 64 ports need 3."""
    small = run([spec_tree(files(sus=1, racks=1, switch="sw8", tiers='"auto"', rail=False))])
    assert small.clusters["cluster/c"].fabrics[0].tiers_used == 2
    large = run([spec_tree(files(sus=1, racks=2, switch="sw8", tiers='"auto"', rail=False))])
    assert large.clusters["cluster/c"].fabrics[0].tiers_used == 3


def test_unknown_rack_type_is_a_finding_not_a_crash(spec_tree) -> None:
    """A rack type named in the layout but defined nowhere is REF001 at its line; the rest still runs."""
    tree = files()
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("- {unit: su, count: 2}",
                                                              "- {unit: su, count: 2}\n- {rack: ghost, count: 3}")
    result = run([spec_tree(tree)])
    refs = [f for f in result.findings if f.id == "REF001" and f.object == "cluster/c"]
    assert len(refs) == 1 and "ghost" in refs[0].message and refs[0].location.line == 8
    assert result.metrics["cluster/c"]["racks"].m == 6


def test_scale_out_path_of_shipped_clusters(shipped) -> None:
    """Both shipped compute fabrics are non-blocking, 400 Gb/s per GPU (one CX-7 port per B200; GB200 per GPU)."""
    for cid in ("dgx-b200-superpod", "gb200-nvl72-su"):
        path = shipped.clusters[f"cluster/{cid}"].scale_out
        assert (path.bandwidth.m_as("Gbit/s"), path.oversubscription, path.pod, path.tiers) == (400, 1.0, 0, 2)


@pytest.mark.parametrize(("kw", "taper", "pod"), [
    # plain 3:1 leaves (48 down, 16 up): 128 node ports on 3 leaves, 48 + 48 + 32; a leaf holds 48 // 8 = 6 nodes.
    # The taper is the fullest leaf's 48:16 (review47; was 128 / 48 = 2.67 over all the uplinks, no leaf's ratio)
    ({"over": "3:1", "rail": False}, 48 / 16, 6 * 8),
    # rail-optimized: a leaf takes its rails of all 8 domains of an SU, so one SU (64 GPUs) stays under a leaf;
    # 6 rails per leaf -> 2 leaves per SU holding 6 x 8 = 48 and 2 x 8 = 16 ports: the first runs at 48:16 (was
    # 128 / 64 = 2.0 over the 4 leaves' uplinks)
    ({"over": "3:1", "rail": True}, 48 / 16, 8 * 8),
    ({"over": "1:1"}, 1.0, 0),
])
def test_scale_out_path_of_a_tapered_fabric(spec_tree, kw, taper, pod) -> None:
    """The taper is the fullest leaf's used down:up ratio; the non-blocking pod is what one leaf reaches."""
    path = run([spec_tree(files(**kw))]).clusters["cluster/c"].scale_out
    assert path.oversubscription == pytest.approx(taper) and path.pod == pod
    assert path.bandwidth.m_as("Gbit/s") == 400  # 8 x 400 Gb/s per DGX H100, 8 GPUs


def test_scale_out_path_prefers_the_compute_fabric(spec_tree) -> None:
    """A converged fabric listed first (2 ports per node: 100 Gb/s per GPU) does not stand in for the compute one."""
    spec = files()
    converged = """- id: conv
  topology: fat-tree
  role: converged
  nic_role: compute
  ports_per_node: 2
  speed: 400 Gb/s
  switch: qm9700
  tiers: 2
  rail_optimized: false
  leaf: {rack: net}
  spine: {rack: net}
  links:
    access: [dac-800g-osfp, acc-800g-osfp, mmf-800g-sr8, smf-800g-dr8]
    leaf_spine: [dac-800g-osfp, acc-800g-osfp, mmf-800g-sr8, smf-800g-dr8]
"""
    spec["clusters/c.yaml"] = spec["clusters/c.yaml"].replace("fabrics:\n", "fabrics:\n" + converged)
    result = run([spec_tree(spec)])
    assert [fa.fabric.spec.role for fa in result.clusters["cluster/c"].fabrics] == ["converged", "compute"]
    assert result.clusters["cluster/c"].scale_out.bandwidth.m_as("Gbit/s") == 400


def test_scale_out_path_without_a_compute_fabric_is_the_nodes_compute_nics(spec_tree) -> None:
    """With no compute fabric, the compute node's compute NICs stand in, non-blocking: 8 x 400 Gb/s CX-7 ports on
    a DGX H100 of 8 GPUs is 400 Gb/s per GPU; the performance model gets the same figure."""
    spec = files()
    cluster = spec["clusters/c.yaml"]
    spec["clusters/c.yaml"] = cluster[:cluster.index("fabrics:\n")]
    result = run([spec_tree(spec)])
    path = result.clusters["cluster/c"].scale_out
    assert (path.bandwidth.m_as("Gbit/s"), path.oversubscription, path.pod, path.tiers) == (400, 1.0, 0, 0)
