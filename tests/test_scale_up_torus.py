"""A scale-up domain wired as a torus (`scale_up.topology: torus`): what validation refuses, and its link counts.

AWS, Amazon EC2 Trn2 Architecture (AWS Neuron documentation): a trn2.48xlarge joins its 16 Trainium2 in a 4x4 2D
torus; a Trn2 UltraServer joins four instances, the chips of the same coordinates in a ring. Counts from the torus
formulas (Jouppi et al., ISCA 2023; `analyse.topologies`): with N = Π d_i chips, 2 links per chip per dimension of
3 or more and N/d_i·d_i = N links per such dimension. A 4x4 torus: 4 links per chip, 32 per domain, all on the
instance's board. A 4x4x4 of four 4x4 instances: 6 per chip, 3·64 = 192 per domain; each instance keeps its 4x4's
32 links on its board (128), and the 16 rings of 4 along the third dimension, 64 links, are cables.
"""

from __future__ import annotations

import pytest

from archgen.analyse.scale_up_torus import block_links
from archgen.analyse.topologies import torus_figures
from tests.conftest import REPO, run_specs, write_tree

TRN2 = REPO / "tests" / "data" / "trn2"
PARTS = {f"parts/{p}.yaml": (TRN2 / f"{p}.yaml").read_text(encoding="utf-8")
         for p in ("trn2-48xlarge", "rack", "efa-v3-trn2")}
CLUSTER = """kind: Cluster
id: t
layout: [{rack: trn2-rack, count: 2}]
floor: {racks_per_row: 8, rack_pitch: 600 mm, row_pitch: 3 m, tray_drop: 1.5 m}
scale_up: {SCALE_UP}
"""
NODE = "domain: node, size: 16, technology: neuronlink, topology: torus, dims: [4, 4], bandwidth: 1.024 TB/s"


def _metrics(tmp_path, scale_up: str, parts: dict[str, str] = PARTS) -> tuple[dict[str, float], list]:
    r = run_specs(tmp_path, parts | {"clusters/t.yaml": CLUSTER.replace("SCALE_UP", scale_up)})
    return ({k: v.m for k, v in r.metrics["cluster/t"].items() if k.startswith("scale_up.")},
            [f.message for f in r.findings if f.id == "NET010"])


def test_trn2_instance_torus(tmp_path) -> None:
    """Two racks of four trn2.48xlarge: 8 domains x 32 links, every one a board trace; no NET010."""
    m, net010 = _metrics(tmp_path, NODE)
    assert (m["scale_up.domains"], m["scale_up.links_per_accelerator"]) == (8, 4)
    assert (m["scale_up.links"], m["scale_up.board_links"], m["scale_up.cables"]) == (256, 256, 0)
    assert net010 == []


def test_ultraserver_torus_cables_its_third_dimension(tmp_path) -> None:
    """One rack of four instances as a 4x4x4 torus, each instance a [4, 4, 1] block; the catalog's trainium2
    states no link count (AWS's "4 NeuronLink-v3" cannot be the 6 neighbours of its own UltraServer), so none is refused."""
    parts = dict(PARTS)
    parts["parts/trn2-48xlarge.yaml"] += "torus_block: [4, 4, 1]\n"
    m, net010 = _metrics(tmp_path, "domain: rack, size: 64, technology: neuronlink, topology: torus, "
                                   "dims: [4, 4, 4], bandwidth: 1.28 TB/s", parts)
    assert (m["scale_up.domains"], m["scale_up.links_per_accelerator"]) == (2, 6)
    assert (m["scale_up.links"], m["scale_up.board_links"], m["scale_up.cables"]) == (2 * 192, 2 * 128, 2 * 64)
    assert net010 == []


CABLE = """kind: Link
id: test-neuronlink-cable
name: copper cable of this test (not a real part)
vendor: test
source: ["this test"]
media: dac
rate: 1024 Gbit/s
reach: 3 m
power_per_end: 0.5 W
lanes: 4
"""


def test_ultraserver_cables_reach_cabling_bom_and_reliability(tmp_path) -> None:
    """The 4x4x4's 2 x 64 cables between instances are a cabling tier of `scale_up.link`, as a torus fabric's
    neighbour links: 128 copper assemblies in the BOM, 128 x 2 ends x 0.5 W = 128 W of optics, 128 cable units in
    the reliability model (one cable per link: the part does not split)."""
    from archgen.analyse.reliability import analyse_reliability

    parts = dict(PARTS) | {"parts/cable.yaml": CABLE}
    parts["parts/trn2-48xlarge.yaml"] += "torus_block: [4, 4, 1]\n"
    r = run_specs(tmp_path, parts | {"clusters/t.yaml": CLUSTER.replace("SCALE_UP", (
        "domain: rack, size: 64, technology: neuronlink, topology: torus, dims: [4, 4, 4], bandwidth: 1.28 TB/s, "
        "link: test-neuronlink-cable"))})
    a = r.clusters["cluster/t"]
    assert a.cabling is not None
    (tier,) = [t for t in a.cabling.tiers if t.fabric == "scale_up"]
    assert (tier.tier, tier.links, tier.cables) == ("neighbour", 128, {"test-neuronlink-cable": 128})
    assert tier.optics_power.m_as("W") == pytest.approx(128 * 2 * 0.5)
    assert [(b.kind, b.quantity) for b in a.cabling.bom if b.part == "test-neuronlink-cable"] == [("Link", 128)]
    assert r.metrics["cluster/t"]["links"].m == 128
    cables = [c for c in analyse_reliability(r.specs, a).classes if c.name == "cable"]
    assert [(c.units, c.parts) for c in cables] == [(128, ("test-neuronlink-cable",))]


def test_block_links_keep_the_wraparound_of_a_spanned_dimension() -> None:
    """A block spanning a dimension keeps its ring on the board; a smaller block keeps b - 1 links per line."""
    assert block_links([4, 4, 4], [4, 4, 1]) == 128
    assert block_links([4, 4], [4, 4]) == torus_figures([4, 4])["links"] == 32
    assert block_links([16, 16, 16], [2, 2, 1]) == 1024 * torus_figures([2, 2, 1], False)["links"]


@pytest.mark.parametrize(("scale_up", "at", "message"), [
    ("domain: node, size: 16, technology: neuronlink, topology: torus, dims: [4, 2], bandwidth: 1.024 TB/s", "dims",
     "scale_up.dims: a 4x2 torus joins 8 accelerators, the domain 16 (`size`): expected dims whose product is 16"),
    ("domain: node, size: 16, technology: neuronlink, topology: torus, bandwidth: 1.024 TB/s", "",
     "scale_up.dims: a torus scale-up domain needs its shape: give dims"),
    ("domain: node, size: 16, topology: switched, dims: [4, 4], bandwidth: 1.024 TB/s", "dims",
     "scale_up.dims: dims shape a torus; a switched domain has none: leave dims out, or set topology: torus"),
    (NODE + ", switches: 2", "2", "scale_up.switches: a torus scale-up domain joins accelerators directly"),
])
def test_a_torus_that_cannot_be_is_refused_where_written(tmp_path, cli, scale_up: str, at: str,
                                                        message: str) -> None:
    """Each where it is written (a list at its key, a number at its value, a missing `dims` at `scale_up:`), with
    what is expected."""
    col = len("scale_up: {") + scale_up.rindex(at) + 1 if at else 1
    root = write_tree(tmp_path / "specs", PARTS | {"clusters/t.yaml": CLUSTER.replace("SCALE_UP", scale_up)})
    r = cli("check", root)
    assert r.code == 1 and f"t.yaml:5:{col}: error: {message}" in r.err, r.err


def test_trn2_torus_pod_checks_clean(cli) -> None:
    """The trial's parts with the pod on its 4x4 torus (tests/data/trn2-torus): exit 0, no NET warning; what is
    left says the parts have no price (COST002), the pod names no checkpoint storage (REL006) and its EFA fabric no
    link media (CAB003, a warning since its cables and optics are not provided, and REL004, their failures left out
    of the reliability figures: newuser105)."""
    parts = [str(TRN2 / f"{p}.yaml") for p in ("trn2-48xlarge", "rack", "efa-v3-trn2")]
    r = cli("check", *parts, str(REPO / "tests" / "data" / "trn2-torus"))
    assert r.code == 0, r.out + r.err
    warnings = {line.split(": ")[2].split()[0] for line in r.out.splitlines() if ": warning: " in line}
    assert warnings == {"CAB003", "COST002", "REL004", "REL006"}, r.out
