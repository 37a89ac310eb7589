"""The cluster layer reproduces NVIDIA's published DGX SuperPOD B200 compute-fabric tables exactly.

Sources (both read 2026 from docs.nvidia.com, NVIDIA DGX SuperPOD Reference Architecture featuring DGX B200,
RA-11334-001):

* SCALING: "DGX SuperPOD Architecture" page, table of larger DGX SuperPOD component counts (SU count, node count,
  GPU count, InfiniBand leaf/spine/core switch counts, node-leaf/leaf-spine/spine-core cable counts),
  https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/latest/dgx-superpod-architecture.html
* TABLE_4: "Network Fabrics" page, Table 4 "Compute fabric component count" (31/63/95/127 nodes: one DGX gives way
  to the UFM connections), https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-b200/latest/network-fabrics.html
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from archgen.pipeline import run

ROOT = Path(__file__).resolve().parents[1]
SPEC = ROOT / "specs" / "clusters" / "dgx-b200-superpod.yaml"
RACKS = ROOT / "specs" / "racks"

#: (SUs, nodes, GPUs, leaf, spine, core, node-leaf, leaf-spine, spine-core); core 0 = none ("–" in the RA).
SCALING = [
    (2, 64, 512, 16, 8, 0, 512, 512, 0),
    (4, 128, 1024, 32, 16, 0, 1024, 1024, 0),
    (8, 256, 2048, 64, 32, 0, 2048, 2048, 0),
    (16, 512, 4096, 128, 128, 64, 4096, 4096, 4096),
    (32, 1024, 8192, 256, 256, 128, 8192, 8192, 8192),
    (64, 2048, 16384, 512, 512, 256, 16384, 16384, 16384),
]
#: (SUs, nodes, GPUs, leaf, spine, compute-and-UFM cables, spine-leaf cables).
TABLE_4 = [
    (1, 31, 248, 8, 4, 252, 256),
    (2, 63, 504, 16, 8, 508, 512),
    (3, 95, 760, 24, 16, 764, 768),
    (4, 127, 1016, 32, 16, 1020, 1024),
]


def _superpod(tmp_path: Path, full: int, short: int, ufm: bool, counts: dict[str, int] | None = None) -> Path:
    """The shipped B200 SuperPOD spec with `full` 32-node SUs and `short` 31-node SUs, enough spine racks, and the
    compute fabric's tier counts fixed to `counts` (tier name: count)."""
    yaml = YAML()
    doc = yaml.load(SPEC.read_text(encoding="utf-8"))
    for tier, n in (counts or {}).items():
        doc["fabrics"][0][tier]["count"] = n
    doc["layout"] = ([{"unit": "su", "count": full}] if full else []) + \
        ([{"unit": "su-ufm", "count": short}] if short else [])
    # spines and cores: up to 12 QM9700 per SU (8 spines + 4 cores at 3 tiers), 8 per spine rack
    doc["layout"].append({"rack": "dgx-b200-spine", "count": max(1, math.ceil((full + short) * 12 / 8)),
                          "new_row": True})
    if not ufm:
        doc["fabrics"][0]["reserved"] = []
    doc.pop("expect")
    doc.pop("control_plane", None)   # it names the fabrics dropped here (a control-plane group may name only its own)
    doc["fabrics"] = doc["fabrics"][:1]
    out = tmp_path / "specs"
    (out / "clusters").mkdir(parents=True)
    with (out / "clusters" / "c.yaml").open("w", encoding="utf-8") as f:
        yaml.dump(doc, f)
    return out


def _compute(result) -> dict:
    return result.metrics["cluster/dgx-b200-superpod/fabric/compute"]


@pytest.mark.parametrize("row", SCALING, ids=lambda r: f"{r[0]}su")
def test_b200_scaling_table(tmp_path: Path, row: tuple) -> None:
    """Leaf, spine and core switches and cables per tier match the RA's scaling table for 2 to 64 SUs."""
    sus, nodes, gpus, leaf, spine, core, node_leaf, leaf_spine, spine_core = row
    result = run([_superpod(tmp_path, sus, 0, ufm=False), RACKS])
    cluster, m = result.metrics["cluster/dgx-b200-superpod"], _compute(result)
    assert cluster["nodes"].m == nodes and cluster["accelerators"].m == gpus
    assert m["tiers"].m == (3 if core else 2)
    assert m["leaf.switches"].m == leaf and m["spine.switches"].m == spine
    assert m.get("core.switches", 0 * m["tiers"]).m == core
    assert m["links.access"].m == node_leaf and m["links.leaf_spine"].m == leaf_spine
    assert m.get("links.spine_core", 0 * m["tiers"]).m == spine_core
    assert not [f for f in result.errors if f.id.startswith(("NET", "CAB"))]


@pytest.mark.parametrize("row", TABLE_4, ids=lambda r: f"{r[0]}su")
def test_b200_table_4_with_ufm(tmp_path: Path, row: tuple) -> None:
    """With the UFM appliance on 4 leaf ports and one DGX removed, Table 4 of the Network Fabrics page holds."""
    sus, nodes, gpus, leaf, spine, compute_ufm, spine_leaf = row
    result = run([_superpod(tmp_path, sus - 1, 1, ufm=True), RACKS])
    cluster, m = result.metrics["cluster/dgx-b200-superpod"], _compute(result)
    assert (cluster["nodes"].m, cluster["accelerators"].m) == (nodes, gpus)
    assert (m["leaf.switches"].m, m["spine.switches"].m) == (leaf, spine)
    assert (m["links.access"].m, m["links.leaf_spine"].m) == (compute_ufm, spine_leaf)
    assert not [f for f in result.errors if f.id.startswith(("NET", "CAB"))]


def test_two_tier_limit_is_k_squared_over_two(tmp_path: Path) -> None:
    """2 tiers of 64-port switches reach 64²/2 = 2,048 GPUs (8 SUs); 3 tiers reach 64³/4 = 65,536."""
    m8 = _compute(run([_superpod(tmp_path / "a", 8, 0, ufm=False), RACKS]))
    m16 = _compute(run([_superpod(tmp_path / "b", 16, 0, ufm=False), RACKS]))
    assert m8["max_endpoints"].m == 64 ** 2 // 2
    assert m16["max_endpoints"].m == 64 ** 3 // 4
    assert (m8["hops_max"].m, m16["hops_max"].m) == (3, 5)


def test_b200_core_count_above_the_derived_spreads_each_spine_over_more_cores(tmp_path: Path) -> None:
    """16 SUs: 4 pods of 32 spines with 32 uplinks; the RA's 64 cores are 32 groups of 2, each core taking 16 links
    from its spine in each pod (64 ports). core.count 128 makes groups of 4 cores at 32 / 4 = 8 links per spine and
    pod: 4 x 8 = 32 of a core's 64 ports; the 128 x 32 = 4,096 spine-core cables stay, 64 more QM9700 draw power."""
    base = _compute(run([_superpod(tmp_path / "a", 16, 0, ufm=False), RACKS]))
    result = run([_superpod(tmp_path / "b", 16, 0, ufm=False, counts={"core": 128}), RACKS])
    m = _compute(result)
    assert (base["core.switches"].m, m["core.switches"].m) == (64, 128)
    assert m["links.spine_core"].m == base["links.spine_core"].m == 4096
    assert (base["core.max_ports_used_per_switch"].m, m["core.max_ports_used_per_switch"].m) == (64, 32)
    extra = (m["network_power"] - m["optics_power"]) - (base["network_power"] - base["optics_power"])
    assert extra.m_as("W") == pytest.approx(64 * 1176)
    assert not [f for f in result.errors if f.id.startswith(("NET", "CAB"))]


def test_b200_core_count_below_the_derived_is_an_error_at_the_count(tmp_path: Path) -> None:
    """16 SUs, core.count 32: one core per group takes all 32 uplinks of its spine in each of the 4 pods, 128 ports
    on a 64-port QM9700: NET018 at core.count (32 given, 64 needed), not also NET001."""
    specs = _superpod(tmp_path, 16, 0, ufm=False, counts={"core": 32})
    result = run([specs, RACKS])
    [f] = [f for f in result.findings if f.id == "NET018"]
    text = (specs / "clusters" / "c.yaml").read_text(encoding="utf-8").splitlines()
    line = next(i for i, t in enumerate(text, 1) if t.strip() == "core: {rack: dgx-b200-spine, count: 32}")
    assert (f.location.line, f.value.m, f.limit.m) == (line, 32, 64)
    assert f.message == ("32 cores are fewer than the 64 the spines need: each core takes 32 links from its spine in "
                         "each of the 4 pods, 128 ports, and qm9700 has 64")
    assert not [f for f in result.findings if f.id == "NET001"]


def test_b200_core_count_that_does_not_split_the_spine_uplinks_is_net002(tmp_path: Path) -> None:
    """16 SUs, core.count 96: 96 / 32 groups = 3 cores per group, which do not divide a spine's 32 uplinks; the
    counts that do are 32 x (2, 4, 8, 16, 32) = 64 ... 1,024, given from the smallest that fits the core radix."""
    result = run([_superpod(tmp_path, 16, 0, ufm=False, counts={"core": 96}), RACKS])
    [f] = [f for f in result.findings if f.id == "NET002"]
    assert f.message.endswith("split the 32 spine uplinks evenly; counts that do: 64, 128, 256, 512, ...")
    assert (f.value.m, f.limit.m) == (96, 64)


def test_estimates_one_cluster_as_the_pipeline_sizes_it(shipped):
    """`archgen estimate` analyses only its cluster (`pipeline.cluster_network`): the same compute fabric as the
    whole pipeline gives each shipped cluster, alone or all at once."""
    from archgen.pipeline import built, cluster_network, scale_out_paths
    _, design = built([Path(__file__).parents[1] / "specs"])
    whole = scale_out_paths(shipped.clusters)
    assert whole and cluster_network(design, set(whole))[0] == whole
    for cid, path in whole.items():
        assert cluster_network(design, {cid})[0] == {cid: path}
