"""A storage architect's trial (newuser23): checkpoint traffic crosses the storage fabric's leaf uplinks.

The fixture is tests/data/fabrics/b200-storage-400g.yaml (32 DGX B200, two 400G ports per node on a 2-tier SN5600
storage fabric). With the storage's ports on the same fabric, the traffic from the nodes to the storage that leaves
a node's leaf climbs its uplinks; an oversubscribed storage fabric carries no more than they do.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from archgen.perf.hw.arch import Arch
from archgen.pipeline import run
from archgen.render.reference import storage

FIXTURE = Path(__file__).parent / "data" / "fabrics" / "b200-storage-400g.yaml"
WORKLOAD = {"kind": "Workload", "id": "ckpt-70b", "name": "Llama 3.1 70B pre-training", "model": "llama3-70b",
            "cluster": "b200-storage", "accelerators": 256,
            "training": {"seq_len": 8192, "global_batch": 256, "precision": "bf16"}}


def _design(tmp_path: Path, oversubscription: str) -> Path:
    """The fixture with 64 storage ports (3.2 TB/s at 400G), storage stated at 100 TB/s, at `oversubscription`."""
    yaml = YAML()
    docs = list(yaml.load_all(FIXTURE.read_text(encoding="utf-8")))
    cluster = docs[-1]
    cluster["storage"]["write_bandwidth"] = cluster["storage"]["read_bandwidth"] = "100 TB/s"
    fabric = cluster["fabrics"][0]
    fabric["endpoints"]["extra"] = 64
    fabric["oversubscription"] = oversubscription
    out = tmp_path / f"design-{oversubscription.replace(':', '-')}.yaml"
    with out.open("w", encoding="utf-8") as f:
        yaml.dump_all([*docs, WORKLOAD], f)
    return out


def test_an_oversubscribed_storage_fabric_bounds_the_checkpoint_bandwidth(tmp_path: Path) -> None:
    """8:1 storage leaves: before, 32 nodes x 800 Gb/s (3.2 TB/s) wrote a 70B checkpoint in 0.31 s, as at 1:1.

    Traffic striped over every storage port (a parallel file system's striping) leaves a leaf in the share
    1 - s_i/S of its nodes' traffic; with the storage ports spread over the L leaves in proportion (the placement
    that lets most traffic stay on its leaf), the leaf tier carries W (1 - 1/L) over U, its uplinks (one direction):
    W <= U L / (L - 1).
    """
    flat = run([_design(tmp_path, "1:1")])
    size = Arch.from_model(flat.specs.get("llama3-70b")).params() * 14
    assert flat.metrics["workload/ckpt-70b"]["checkpoint_write_time"].m_as("s") == pytest.approx(
        size / (32 * 2 * 400e9 / 8))   # the nodes' ports bound it, as before
    result = run([_design(tmp_path, "8:1")])
    leaf = next(fa for fa in result.clusters["cluster/b200-storage"].fabrics
                if fa.fabric.spec.id == "storage").tier_at("leaf")
    leaves, uplinks = leaf.used_switches, leaf.used_switches * leaf.up * leaf.up_speed.m_as("B/s")
    bound = uplinks * leaves / (leaves - 1)
    assert bound < 32 * 2 * 400e9 / 8   # the uplinks, not the nodes' ports, bound it at 8:1
    w = result.metrics["workload/ckpt-70b"]
    assert w["checkpoint_write_time"].m_as("s") == pytest.approx(size / bound)
    assert w["checkpoint_restore_time"].m_as("s") == pytest.approx(size / bound)
    c = result.metrics["cluster/b200-storage"]
    assert c["storage_write_bandwidth_per_accelerator"].m_as("B/s") == pytest.approx(bound / 256)
    found = [f for f in result.findings if f.id == "REL011"]
    assert found and "uplinks" in found[0].message and found[0].location is not None


def _four_ports(tmp_path: Path, **fabric_fields: str) -> Path:
    """The fixture with all four BlueField-3 ports of each node on the storage fabric, storage at 100 TB/s."""
    yaml = YAML()
    docs = list(yaml.load_all(FIXTURE.read_text(encoding="utf-8")))
    cluster = docs[-1]
    cluster["storage"]["write_bandwidth"] = cluster["storage"]["read_bandwidth"] = "100 TB/s"
    fabric = cluster["fabrics"][0]
    fabric["ports_per_node"] = 4
    fabric["endpoints"]["extra"] = 128
    fabric.update(fabric_fields)
    out = tmp_path / "design.yaml"
    with out.open("w", encoding="utf-8") as f:
        yaml.dump_all([*docs, WORKLOAD], f)
    return out


def test_net007_counts_each_nic_card_at_its_host_interface(tmp_path: Path) -> None:
    """storage2 item 4: NET007 took 4 x 400 Gb/s for 8 GPUs = 200 Gb/s each and passed a 150 Gb/s floor, while the
    two PCIe Gen5 x16 cards carry 2 x 504 Gb/s, 126 Gb/s per GPU; it now fails the floor, saying why."""
    result = run([_four_ports(tmp_path, min_bandwidth_per_accelerator="150 Gb/s")])
    (f,) = [f for f in result.findings if f.id == "NET007"]
    pcie_gen5_x16 = 32e9 * 16 * 128 / 130            # bit/s per direction
    assert f.value.m_as("bit/s") == pytest.approx(2 * pcie_gen5_x16 / 8)
    assert "each NIC card at most its host interface" in f.message, f.message
    assert not [f for f in run([_four_ports(tmp_path, min_bandwidth_per_accelerator="120 Gb/s")]).findings
                if f.id == "NET007"]


def test_the_storage_table_shows_the_host_interface_capped_rate_beside_the_line_rate(tmp_path: Path) -> None:
    """storage2 item 4: the storage network table's "Bandwidth per node" showed 4 x 400 Gb/s = 1,600 Gb/s, the
    ports at line rate, while checkpoints used 2 PCIe Gen5 x16 cards' 2 x 504 Gb/s (the rate below). It now shows
    the line rate and, beside it, the rate the model uses."""
    result = run([_four_ports(tmp_path)])
    table = next(b for b in storage(result.clusters["cluster/b200-storage"], result.specs).blocks
                 if getattr(b, "id", "") == "storage-network")
    titles = [c.title for c in table.columns]
    (row,) = table.rows
    line, used = row[titles.index("Line rate per node")], row[titles.index("Bandwidth per node used")]
    assert line.m_as("Gbit/s") == pytest.approx(1600)
    pcie_gen5_x16 = 32e9 * 16 * 128 / 130 / 8            # B/s per direction, as below
    assert used.m_as("B/s") == pytest.approx(2 * pcie_gen5_x16)
    assert result.metrics["cluster/b200-storage"]["storage_write_bandwidth_per_accelerator"].m_as("B/s") == \
        pytest.approx(32 * used.m_as("B/s") / 256)   # the figure the model uses: every node at once, 256 GPUs


def test_a_nic_carries_no_more_than_its_host_interface(tmp_path: Path) -> None:
    """All four BlueField-3 ports (2 cards x 2 x 400G) on the storage fabric: 1.6 Tb/s of ports per node.

    Each card sits on PCIe Gen5 x16, 32 GT/s x 16 lanes with 128b/130b encoding: 63.0 GB/s (504 Gb/s) per
    direction (the PCI Express specifications' per-lane rates and encodings, as in the dgx-h100 catalog entry's
    63 GB/s), so the node writes at most 2 x 63.0 GB/s = 126 GB/s, not 4 x 50 GB/s = 200 GB/s. The catalog's own
    connectx-7-dual note says a 2 x 400G card cannot run both ports at full rate over PCIe Gen5 x16; before, the
    checkpoint bound counted the ports at line rate.
    """
    yaml = YAML()
    docs = list(yaml.load_all(FIXTURE.read_text(encoding="utf-8")))
    cluster = docs[-1]
    cluster["storage"]["write_bandwidth"] = cluster["storage"]["read_bandwidth"] = "100 TB/s"
    fabric = cluster["fabrics"][0]
    fabric["ports_per_node"] = 4
    fabric["endpoints"]["extra"] = 128
    out = tmp_path / "design.yaml"
    with out.open("w", encoding="utf-8") as f:
        yaml.dump_all([*docs, WORKLOAD], f)
    result = run([out])
    size = Arch.from_model(result.specs.get("llama3-70b")).params() * 14
    pcie_gen5_x16 = 32e9 * 16 * 128 / 130 / 8            # B/s per direction
    nodes = 32 * 2 * pcie_gen5_x16
    assert nodes < 32 * 4 * 400e9 / 8
    w = result.metrics["workload/ckpt-70b"]
    assert w["checkpoint_write_time"].m_as("s") == pytest.approx(size / nodes)
    c = result.metrics["cluster/b200-storage"]
    assert c["storage_read_bandwidth_per_accelerator"].m_as("B/s") == pytest.approx(nodes / 256)
