"""Port groups and media at the fabric: published designs reproduced, and bad ports or media located.

Sources:

* OPG-256: opencomputeproject/OCP-OCDAI-training-fabric, compositions/OPG-256/clos-ro--cx7-1x400g--bf3-2x200g--
  storage-conv-2x200g/topology-map.yaml (rail leaf ports 1-32 as 2 x 400G to 32 servers x 8 GPUs, ports 33-64 native
  800G uplinks) and wiring/wiring-backend.yaml (4 rail leaves, 2 spines, 16 x 800G from every leaf to every spine:
  128 leaf-spine links).
* DGX B300 XDR: NVIDIA DGX SuperPOD with DGX B300 and Quantum-X800 RA, "DGX SuperPOD Architecture", Table 3
  (1 SU: 72 nodes, 576 GPUs, 8 leaf, 4 spine, 576 node-leaf and 576 leaf-spine cables; 2 SU: 16/8; 4 SU: 32/18;
  8 SU: 64/36; 18 SU: 1,296 nodes, 144/72, 10,368 and 10,368 cables), https://docs.nvidia.com/dgx-superpod/reference-architecture/scalable-infrastructure-b300-xdr/latest/dgx-superpod-architecture.html
* XDR media rules: NVIDIA LinkX 800G 200G-PAM4 list (single-mode or LACC only; no DAC or multimode; no downshift to
  100G-PAM4), https://docs.nvidia.com/networking/display/800g200gpam4list
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from archgen.pipeline import run
from tests.data.clusters import small

DATA = Path(__file__).parent / "data" / "fabrics"
TH5 = DATA / "th5-16k-rail.yaml"


def _metrics(result, cluster: str, fabric: str) -> dict[str, float]:
    return {k: v.m for k, v in result.metrics[f"cluster/{cluster}/fabric/{fabric}"].items()}


def _errors(result) -> list:
    return [f for f in result.findings if f.severity == "error" and not f.waived]


def test_opg_256_backend_as_published() -> None:
    """4 rail leaves (2 rails each), 2 spines, 256 x 400G GPU links and 128 x 800G uplinks, no finding."""
    result = run([DATA / "opg-256.yaml"])
    assert not _errors(result), [f.message for f in _errors(result)]
    m = _metrics(result, "opg-256", "backend")
    assert (m["leaf.switches"], m["spine.switches"]) == (4, 2)
    assert (m["links.access"], m["links.leaf_spine"]) == (256, 128)
    assert m["leaf.oversubscription"] == 1.0          # 64 x 400G down, 32 x 800G up
    assert m["leaf.max_ports_used_per_switch"] == m["leaf.radix"] == 96


def test_a_th5_rail_leaf_prints_its_ports_as_cabled() -> None:
    """topo36: the OPG-256 rail leaf, a 64-port Tomahawk 5 (Broadcom BCM78900: 64 x 800GbE, 128 x 400GbE or 256 x
    200GbE) with ports 1-32 at 2x400G down and 33-64 at 800G up, was printed with radix 96, a count no Tomahawk 5
    has: 96 ports at two rates (64 x 400G + 32 x 800G). The documents print its 64 ports and their breakout; the
    ports at their rates are the ASIC's 51.2 Tb/s, as the 64 x 800GbE configuration is. The spine, every port at
    800G down, is 64 x 800G."""
    from archgen.render.cluster import architecture
    from archgen.render.cluster_fabrics import fabrics
    from archgen.render.common import Scope

    result = run([DATA / "opg-256.yaml"])
    a = result.clusters["cluster/opg-256"]
    leaf, spine = (a.fabrics[0].tier_at(t) for t in ("leaf", "spine"))
    assert (leaf.radix, leaf.ports, leaf.cabled) == (96, 64, "32 × 2x400G down, 32 × 800G up")
    assert (spine.ports, spine.cabled) == (64, "64 × 800G down")
    assert leaf.switch is not None and leaf.switch.switching_capacity is not None
    assert 32 * 2 * 400 + 32 * 800 == pytest.approx(leaf.switch.switching_capacity.m_as("Gbit/s")) == 64 * 800
    scaling = next(t for t in architecture(a).blocks if getattr(t, "id", "") == "scaling")
    assert [c.title for c in scaling.columns[4:6]] == ["Radix (ports)", "As cabled"]
    assert {r[1]: r[4:6] for r in scaling.rows}["leaf"] == (64, "32 × 2x400G down, 32 × 800G up")
    section = fabrics(Scope(result, a.cluster.path, a.cluster.spec, []), a)
    tiers = next(t for s in section.sections for t in s.blocks if getattr(t, "id", "") == "tiers-backend")
    assert [c.title for c in tiers.columns[3:5]] == ["Radix (ports)", "As cabled"]
    assert tiers.rows[0][3:5] == (64, "32 × 2x400G down, 32 × 800G up")


@pytest.mark.parametrize(("sus", "pods", "free"), [(32, 6, 16), (48, 8, 0)])
def test_th5_cores_come_in_groups_of_one_spine_per_pod(spec_tree, sus, pods, free) -> None:
    """topo36: newuser91's TH5 plane (pods of 48 leaves and 32 spines, each spine 16 core links at 3:1) on 6 pods
    takes 64 cores of 64 ports, where its 3,072 spine-core links fill 48 by ports alone. Spine j of every pod joins
    core group j (Facebook's spine planes): a group takes 6 x 16 = 96 links, more than one core's 64, so 2 cores of 8
    links from each pod, 48 of 64 ports used. No wiring in which every core takes the same links x from every pod does
    with fewer: x ≤ ⌊64 / 6⌋ = 10, and a pod's 512 uplinks over cores of x each take 512 / x, whole only where x divides
    512 (8: 64 cores). 48 cores would take 10 links from some pods and 11 from others (64 = 6 x 10 + 4). The 16 ports
    each core leaves free take pods 7 and 8 with no core more: 48 SUs, 8 full pods, the same 64 cores, full."""
    text = TH5.read_text(encoding="utf-8").replace(
        "  - {unit: su, count: 31}\n  - {unit: half, count: 1}\n", f"  - {{unit: su, count: {sus}}}\n")
    fa = run([spec_tree({"c.yaml": text})]).clusters["cluster/th5-16k"].fabrics[0]
    spine, core = fa.tier_at("spine"), fa.tier_at("core")
    k, per_pod = core.radix, spine.up * fa.spines_per_pod
    assert (fa.pods, fa.spines_per_pod, spine.up, k) == (pods, 32, 16, 64)
    assert core.switches == 64 and core.max_used_per_switch == 64 - free == pods * 8
    even = [per_pod // x for x in range(1, k // pods + 1) if per_pod % x == 0]   # every core x links from every pod
    assert min(even) == core.switches
    assert -(-pods * per_pod // k) == (48 if pods == 6 else 64)                 # by ports alone


def _b300(tmp_path: Path, sus: int) -> Path:
    yaml = YAML()
    docs = list(yaml.load_all((DATA / "dgx-b300-xdr-su.yaml").read_text(encoding="utf-8")))
    cluster = docs[-1]
    cluster["layout"] = [{"unit": "su", "count": sus}]
    cluster.pop("expect")
    out = tmp_path / "b300.yaml"
    with out.open("w", encoding="utf-8") as f:
        yaml.dump_all(docs, f)
    return out


@pytest.mark.parametrize(("sus", "leaf", "spine", "cables"), [(1, 8, 4, 576), (2, 16, 8, 1152), (4, 32, 18, 2304),
                                                              (8, 64, 36, 4608), (18, 144, 72, 10368)])
def test_dgx_b300_xdr_table_3(tmp_path: Path, sus: int, leaf: int, spine: int, cables: int) -> None:
    """NVIDIA's B300 XDR Table 3: leaves, spines, node-leaf and leaf-spine cables for 1 to 18 SUs (Q3400, 144 ports:
    72 rail leaves' uplinks divide over 18 and 36 spines, not 16 and 32; 18 SUs fill the 144 spine ports)."""
    path = DATA / "dgx-b300-xdr-su.yaml" if sus == 1 else _b300(tmp_path, sus)
    result = run([path])
    m = _metrics(result, "b300-xdr-su", "compute")
    assert (m["leaf.switches"], m["spine.switches"]) == (leaf, spine)
    assert m["links.access"] == m["links.leaf_spine"] == cables
    if sus == 1:
        assert not _errors(result), [f.message for f in _errors(result)]
        assert result.metrics["cluster/b300-xdr-su"]["accelerators"].m == 576


def _variant(tmp_path: Path, name: str, edit) -> Path:
    yaml = YAML()
    docs = list(yaml.load_all((DATA / name).read_text(encoding="utf-8")))
    edit(docs[-1]["fabrics"][0])
    out = tmp_path / name
    with out.open("w", encoding="utf-8") as f:
        yaml.dump_all(docs, f)
    return out


def test_ndr_media_on_xdr_fabric_is_an_error_naming_the_rule(tmp_path: Path) -> None:
    """NDR (100G-PAM4) DAC and multimode twin-port OSFPs on the Q3400's XDR ports: CAB002 with the LinkX rule."""
    def ndr(f):
        f["links"]["leaf_spine"] = ["dac-800g-osfp", "mmf-800g-sr8"]
    result = run([_variant(tmp_path, "dgx-b300-xdr-su.yaml", ndr)])
    found = [f for f in _errors(result) if f.id == "CAB002"]
    assert {f.location.line for f in found} and all(f.location.file.endswith("dgx-b300-xdr-su.yaml") for f in found)
    lanes = [f.message for f in found if "has 100G lanes, the q3400 port group 'ports' runs 200G lanes: expected "
             "200G lanes" in f.message]
    assert len(lanes) == 2, [f.message for f in found]  # each part once (the same ports at both ends)
    assert all("LinkX 200G-PAM4" in f.message for f in found)
    assert any("dac-800g-osfp is dac on 200G lanes" in f.message for f in found)


def test_breakout_the_group_does_not_allow(tmp_path: Path) -> None:
    """A 3x266G split of the DS5000's 800G ports: NET019 at the breakout with the allowed ones."""
    def bad(f):
        f["leaf"]["down"]["breakout"] = "8x100G"
        f["speed"] = "400 Gb/s"
    result = run([_variant(tmp_path, "opg-256.yaml", bad)])
    found = [f for f in _errors(result) if f.id == "NET019"]
    assert found and "breakout 8x100G gives 100G ports; this tier's links run at 400G: expected 2x400G" in \
        found[0].message
    assert found[0].location.line > 0


def test_breakout_not_in_the_groups_list(tmp_path: Path, spec_tree) -> None:
    """An SN5600 (breakouts 1x800G, 2x400G, 4x200G) asked for 8x100G: NET019 lists what it allows."""
    def bad(f):
        f["switch"] = "sn5600"
        f["speed"] = "100 Gb/s"
        f["leaf"]["down"]["breakout"] = "8x100G"
    result = run([_variant(tmp_path, "opg-256.yaml", bad)])
    found = [f.message for f in _errors(result) if f.id == "NET019"]
    assert any("does not allow breakout 8x100G: expected one of 1x800G, 2x400G, 4x200G" in m for m in found), found


def test_cage_mismatch(tmp_path: Path) -> None:
    """A finned (IHS) twin-port OSFP at the ConnectX-8's RHS cage: CAB005, expected a module for OSFP-RHS."""
    def bad(f):
        f["links"]["access"] = [{"a": "smf-1.6t-2xdr4", "b": "smf-1.6t-2xdr4"}]
    result = run([_variant(tmp_path, "dgx-b300-xdr-su.yaml", bad)])
    found = [f for f in _errors(result) if f.id == "CAB005"]
    assert found and "does not fit the OSFP-RHS cage of the dgx-b300 NIC connectx-8: expected a module for " \
        "OSFP-RHS" in found[0].message


def test_fixed_uplinks_count_against_the_radix(spec_tree) -> None:
    """A QM9700 leaf with 16 fixed 400G uplinks keeps 48 of its 64 ports for nodes (before: 64 + 16 on a 64-port
    switch); 128 node ports then take 3 leaves, not 2."""
    tree = small.files(sus=2, racks=2)
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("leaf: {rack: net}", "leaf: {rack: net, uplinks: 16}")
    result = run([spec_tree(tree)])
    m = _metrics(result, "c", "f")
    assert m["leaf.radix"] == 64 and m["leaf.max_ports_used_per_switch"] <= 64
    assert m["links.leaf_spine"] == m["leaf.switches"] * 16


def test_transceivers_per_port_end(tmp_path: Path) -> None:
    """DGX B300 SU: each ConnectX-8 port takes its own single-port 800G module (576), a Q3400 twin-port 1.6T module
    serves two 800G ports (288 at the leaves, 2 x 288 at both ends of the 576 leaf-spine links). Naming the twin-port
    part at the NIC end too still gives one module per NIC port: a NIC cage holds one port."""
    tiers = {t.tier: t for t in run([DATA / "dgx-b300-xdr-su.yaml"]).clusters["cluster/b300-xdr-su"].cabling.tiers}
    assert tiers["access"].modules == {"smf-800g-dr4-rhs": 576, "smf-1.6t-2xdr4": 288}
    assert tiers["leaf_spine"].modules == {"smf-1.6t-2xdr4": 576}

    def twin_at_nic(f):
        f["links"]["access"] = ["smf-1.6t-2xdr4"]
    result = run([_variant(tmp_path, "dgx-b300-xdr-su.yaml", twin_at_nic)])
    access = next(t for t in result.clusters["cluster/b300-xdr-su"].cabling.tiers if t.tier == "access")
    assert access.modules == {"smf-1.6t-2xdr4": 576 + 288}


def test_uplink_speed_alone_splits_the_cages_by_bandwidth(tmp_path: Path) -> None:
    """OPG-256's leaf written as `uplink_speed: 800 Gb/s` instead of port ranges: 32 cages of 2 x 400G down and 32 of
    800G up, the published split. Before, 64 of the 128 400G ports were called 800G uplinks: 96 cages on a 64-cage
    DS5000, leaf oversubscription 0.5, and 4 spines instead of 2."""
    def alone(f):
        f["leaf"] = {"rack": "opg-network", "uplink_speed": "800 Gb/s"}
    result = run([_variant(tmp_path, "opg-256.yaml", alone)])
    assert not _errors(result), [f.message for f in _errors(result)]
    m = _metrics(result, "opg-256", "backend")
    assert (m["leaf.switches"], m["spine.switches"], m["links.leaf_spine"]) == (4, 2, 128)
    assert (m["leaf.oversubscription"], m["leaf.max_ports_used_per_switch"]) == (1.0, 96)
    assert m["leaf.breakout_cages"] == 4 * 64


def test_uplinks_faster_than_the_group_are_net019_at_uplink_speed(tmp_path: Path) -> None:
    """800G uplinks asked of a 400G QM9700 leaf (no 800G group): NET019 at `uplink_speed`, where
    before only the spines' 0 ports at 800G were reported."""
    def fast(f):
        f["switch"] = "qm9700"
        f["leaf"] = {"rack": "opg-network", "uplink_speed": "800 Gb/s"}
        f.pop("spine", None)
    result = run([_variant(tmp_path, "opg-256.yaml", fast)])
    found = [f for f in _errors(result) if f.id == "NET019"]
    assert found and found[0].message.startswith("800 Gb/s uplinks on qm9700's 400 Gb/s group 'ports'"), found
    assert found[0].location.line > 0


def test_a_fabric_whose_nic_role_no_node_has_attaches_nothing(spec_tree) -> None:
    """`nic_role: frontend` on DGX H100s (compute, storage and management NICs): NET011 at the key. Before, the
    fabric passed with no endpoint, its leaves, spines, links and power counted (4 SUs: 4 leaves, 2 spines, 9 kW)."""
    tree = small.files()
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("  role: compute\n", "  role: compute\n  nic_role: frontend\n")
    found = [f for f in _errors(run([spec_tree(tree)])) if f.id == "NET011"]
    assert found and found[0].message.startswith("no node has NIC ports of role 'frontend' (their roles: compute, "
                                                 "management, storage)"), [f.message for f in found]
    assert found[0].location.line == 14                 # at `nic_role:`


def test_a_fabric_faster_than_its_switch_is_net016_alone(spec_tree) -> None:
    """800G on a 400G QM9700: NET016 at `speed`; the uplinks that run at the fabric rate are not also NET019."""
    tree = small.files()
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("speed: 400 Gb/s", "speed: 800 Gb/s")
    ids = sorted({f.id for f in _errors(run([spec_tree(tree)])) if f.id in ("NET016", "NET019")})
    assert ids == ["NET016"]


def test_a_group_that_names_no_unit_is_net014(spec_tree) -> None:
    """A rail-optimized fabric's `group` sizes its leaves per unit instance; one naming no unit was silently ignored
    (the leaves fell back to the plain count). A defined unit the layout does not place still falls back quietly:
    the B200 RA's one-SU row places only `su-ufm` under a fabric grouped by `su` (tests/test_clusters.py)."""
    tree = small.files()
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("  rail_optimized: true\n",
                                                            "  rail_optimized: true\n  group: nope\n")
    found = [f for f in _errors(run([spec_tree(tree)])) if f.id == "NET014"]
    assert [f.message for f in found] == ["group 'nope' is not defined in `units` (defined: su), so no leaf is "
                                          "sized by it"]
    assert found[0].location.line > 0


def test_a_fabric_faster_than_the_nics_is_net016(spec_tree) -> None:
    """DGX H100s (ConnectX-7, 400G) on an 800G SN5600 fabric: NET016 at `speed` naming the NIC. Before, it passed
    with 800 Gb/s of injection per GPU, which the estimates then ran on."""
    tree = small.files(switch="sn5600")
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("speed: 400 Gb/s", "speed: 800 Gb/s")
    found = [f for f in _errors(run([spec_tree(tree)])) if f.id == "NET016"]
    assert [f.message for f in found] == ["dgx-h100's connectx-7 ports run at 400 Gb/s, slower than the fabric's "
                                          "800 Gb/s"]
    assert found[0].location.line > 0


@pytest.mark.parametrize(("old", "new", "message"), [
    ("  rail_optimized: true\n", "  rail_optimized: false\n  rails: 4\n",
     "fabrics.0.rails: 4 rails given, but the fabric is not rail-optimized, so no NIC is wired by rail"),
    ("  rail_optimized: true\n", "  rail_optimized: true\n  ports_per_node: 4\n  endpoints: {nodes: false, extra: 8}\n",
     "fabrics.0.ports_per_node: ports_per_node 4 given, but endpoints.nodes is false, so no node attaches"),
])
def test_fabric_keys_nothing_reads_are_refused(tmp_path: Path, cli, old: str, new: str, message: str) -> None:
    """`rails` on a plain fat tree and `ports_per_node` on a fabric that attaches no node were accepted and ignored."""
    from tests.conftest import write_tree
    tree = small.files()
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace(old, new)
    r = cli("check", write_tree(tmp_path / "specs", tree))
    assert r.code == 1 and message in r.err, r.err


def test_up_without_ports_leaving_no_down_ports_is_net019(tmp_path: Path) -> None:
    """`down` and `up` given breakouts but no ports: `up` took the whole group, and the storage fabric had 0 leaves.

    Before, the 80 storage ports found no leaf, bisection was 0 and nothing was reported (newuser6's storage design).
    """
    def no_ports(f):
        f["leaf"]["down"] = {"breakout": "2x400G"}
        f["leaf"]["up"] = {"breakout": "2x400G"}
    result = run([_variant(tmp_path, "b200-storage-400g.yaml", no_ports)])
    found = [f for f in _errors(result) if f.id == "NET019"]
    assert len(found) == 1 and found[0].object == "cluster/b200-storage/fabric/storage", \
        [f.message for f in _errors(result)]
    assert found[0].message.startswith("`up` takes all 64 ports of sn5600's group 'ports' and leaves none for `down`")
    assert found[0].location.line > 0
    as_written = run([DATA / "b200-storage-400g.yaml"])
    assert not _errors(as_written), [f.message for f in _errors(as_written)]
    assert _metrics(as_written, "b200-storage", "storage")["leaf.switches"] == 2   # 80 ports over 64 down ports


def test_uplinks_slower_than_their_up_ports_take_a_cage_each(tmp_path: Path) -> None:
    """OPG-256's leaf with its `up` ports 33-64 at `uplink_speed: 400 Gb/s` and no `up` breakout: one 400G uplink per
    800G cage (`TierSplit.up_split` 1, as CAB012 reads it), so 32 down cages + 32 up cages per leaf. The breakout
    cages had re-derived the split as 2 x 400G / 400G = 2 uplinks per cage: 32 + 16 = 48 per leaf."""
    def slow(f):
        f["leaf"]["uplink_speed"] = "400 Gb/s"
    result = run([_variant(tmp_path, "opg-256.yaml", slow)])
    [fa] = result.clusters["cluster/opg-256"].fabrics
    assert (fa.tier("leaf").up, fa.tier("leaf").up_split) == (32, 1)
    assert _metrics(result, "opg-256", "backend")["leaf.breakout_cages"] == 4 * (32 + 32)
