"""A storage architect's design (newuser6): DGX B200 nodes on a 400GbE storage fabric beside a front end.

Each test comes from an input that showed a defect; the fixture is tests/data/fabrics/b200-storage-400g.yaml (one
scalable unit of 32 DGX B200, two 400G BlueField-3 ports per node on a 2-tier SN5600 storage fabric).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from archgen.perf.hw.arch import Arch
from archgen.pipeline import run
from archgen.render.reference import storage

FIXTURE = Path(__file__).parent / "data" / "fabrics" / "b200-storage-400g.yaml"
#: Llama 3.1 70B pre-training on all 256 GPUs, with 14-byte checkpoints.
WORKLOAD = {"kind": "Workload", "id": "ckpt-70b", "name": "Llama 3.1 70B pre-training", "model": "llama3-70b",
            "cluster": "b200-storage", "accelerators": 256,
            "training": {"seq_len": 8192, "global_batch": 256, "precision": "bf16"}}
#: The front end on the other two BlueField-3 ports (nic_role storage), as the DGX B200 SuperPOD wires its in-band.
FRONTEND = {"id": "frontend", "topology": "fat-tree", "role": "frontend", "nic_role": "storage", "ports_per_node": 2,
            "speed": "400 Gb/s", "switch": "sn5600", "tiers": 2, "oversubscription": "4:1",
            "leaf": {"rack": "sto-net"}, "spine": {"rack": "sto-net"},
            "links": {"access": [{"a": "mmf-400g-sr4", "b": "mmf-800g-sr8"}], "leaf_spine": ["mmf-800g-sr8"]}}


def _design(tmp_path: Path, write: str, extra: int | None = None) -> Path:
    """The fixture with the workload and the front end, its storage at `write` both ways; `extra`: storage ports
    (0: not stated, so that nothing bounds the storage by its ports)."""
    yaml = YAML()
    docs = list(yaml.load_all(FIXTURE.read_text(encoding="utf-8")))
    cluster = docs[-1]
    cluster["storage"]["write_bandwidth"] = cluster["storage"]["read_bandwidth"] = write
    if extra is not None:
        cluster["fabrics"][0]["endpoints"]["extra"] = extra
    cluster["fabrics"].append(FRONTEND)
    out = tmp_path / "design.yaml"
    with out.open("w", encoding="utf-8") as f:
        yaml.dump_all([*docs, WORKLOAD], f)
    return out


def test_checkpoints_are_written_over_the_storage_fabric_not_every_storage_nic_port(tmp_path: Path) -> None:
    """The storage fabric takes 2 of the 4 BlueField-3 ports (the front end the other 2): 32 nodes x 800 Gb/s.

    Before, the checkpoint bound counted every port of the storage NICs, 32 x 1.6 Tb/s, and halved the write time
    of a job whose storage outruns its nodes' links.
    """
    result = run([_design(tmp_path, "100 TB/s", extra=0)])
    size = Arch.from_model(result.specs.get("llama3-70b")).params() * 14
    w = result.metrics["workload/ckpt-70b"]
    assert w["checkpoint_size"].m_as("B") == pytest.approx(size)
    assert w["checkpoint_write_time"].m_as("s") == pytest.approx(size / (32 * 2 * 400e9 / 8))
    assert w["checkpoint_restore_time"].m_as("s") == pytest.approx(size / (32 * 2 * 400e9 / 8))
    # storage slower than the nodes' links: the stated bandwidth, as before
    slow = run([_design(tmp_path, "100 GB/s")]).metrics["workload/ckpt-70b"]
    assert slow["checkpoint_write_time"].m_as("s") == pytest.approx(size / 100e9)


def test_the_storage_table_lists_the_storage_fabric_not_the_front_end_on_the_same_nics(tmp_path: Path) -> None:
    """A front end on the storage NICs (`nic_role: storage`) was listed as a fabric carrying storage traffic."""
    result = run([_design(tmp_path, "160 GB/s")])
    table = next(b for b in storage(result.clusters["cluster/b200-storage"], result.specs).blocks
                 if getattr(b, "id", "") == "storage-network")
    assert [row[0] for row in table.rows] == ["storage"]


def test_pdu_phase_loads_carry_the_optics_the_pdu_budget_carries() -> None:
    """The storage network rack: 6 SN5600 (3 kW each) on 2 PDUs, plus the transceivers in their ports.

    The PDU budget carried the optics, the phase loads and the PDU failure cases did not: the phases summed to the
    switches' 18 kW while the budget said more, and a side lost showed a margin the optics would eat.
    """
    from archgen.render.distribution import section
    result = run([FIXTURE])
    a = result.racks["rack/sto-net"]
    # the SR4/SR8 modules in the switch ports (0.68 kW) are inside the SN5600's 3 kW rating since it says its figure
    # holds them (`power_includes_optics`; newuser26): the rack's optics are the DAC ends left, and the typical
    # draw (940 W, with passive cables) adds the modules back
    assert a.power.optics.m_as("kW") > 0 and a.power.optics_held.m_as("kW") > 0.5
    sub, _ = section(a)
    phases = next(b for b in sub.blocks if getattr(b, "id", "") == "phase-load")
    carried = sum(cell.m_as("kW") for row in phases.rows for cell in row[2:5])
    pdu_stage = next(s for s in a.power.stages if s.key == "pdus")
    assert carried == pytest.approx(pdu_stage.load.m_as("kW")) == pytest.approx(6 * 3.0 + a.power.optics.m_as("kW"))
    lost = next(b for b in sub.blocks if getattr(b, "id", "") == "pdu-failure").rows[0]
    assert lost[3].m_as("kW") == pytest.approx(carried / 3)   # one side carries the whole rack on its 3 phases


def test_checkpoints_pass_through_the_storage_appliances_ports(tmp_path: Path) -> None:
    """Fewer storage appliances than the stated bandwidth needs (an architect's variant): 4 x 400G ports, 200 GB/s.

    Before, a checkpoint was written at the stated 320 GB/s (3.1 s for 70B) with no finding, though only 200 GB/s
    of storage ports reach the fabric; now at 200 GB/s (4.9 s), and REL010 says why.
    """
    result = run([_design(tmp_path, "320 GB/s", extra=4)])
    size = Arch.from_model(result.specs.get("llama3-70b")).params() * 14
    w = result.metrics["workload/ckpt-70b"]
    assert w["checkpoint_write_time"].m_as("s") == pytest.approx(size / 200e9)
    assert w["checkpoint_restore_time"].m_as("s") == pytest.approx(size / 200e9)
    found = [f for f in result.findings if f.id == "REL010"]
    assert len(found) == 2   # write and read
    assert found[0].message.startswith("storage.write_bandwidth 320 GB/s exceeds the 4 storage port(s) of fabric "
                                       "'storage' at their line rate, 200 GB/s")
    # the fixture's 16 ports (800 GB/s) carry it: the stated figure, no finding
    fits = run([_design(tmp_path, "320 GB/s")])
    assert fits.metrics["workload/ckpt-70b"]["checkpoint_write_time"].m_as("s") == pytest.approx(size / 320e9)
    assert not [f for f in fits.findings if f.id == "REL010"]


def test_storage_servers_placed_as_systems_are_the_storage_ports(tmp_path: Path) -> None:
    """Two storage servers placed in a rack (systems without accelerators, one dual-port 400G NIC each) on the
    storage fabric: their 4 x 400G ports carry 200 GB/s, below the stated 320 GB/s (REL010, writes at 200 GB/s)."""
    yaml = YAML()
    docs = list(yaml.load_all(FIXTURE.read_text(encoding="utf-8")))
    cluster = docs[-1]
    cluster["storage"]["write_bandwidth"] = cluster["storage"]["read_bandwidth"] = "320 GB/s"
    del cluster["fabrics"][0]["endpoints"]
    cluster["layout"].append({"rack": "sto-servers", "count": 1})
    server = {"kind": "System", "id": "sto-server", "name": "Storage server (test)", "source": "test part",
              "nics": [{"part": "connectx-7-dual", "count": 1, "role": "storage"}],
              "mechanical": {"height": "2 U", "weight": "30 kg"}, "power": {"max": "1.2 kW"}}
    rack = {**docs[0], "id": "sto-servers", "name": "Storage server rack",
            "slots": [{"at": 5, "part": "sto-server", "count": 2}, {"at": 1, "part": "pdu-415v-60a-3ph", "count": 2}]}
    out = tmp_path / "servers.yaml"
    with out.open("w", encoding="utf-8") as f:
        yaml.dump_all([server, rack, *docs, WORKLOAD], f)
    result = run([out])
    assert result.metrics["cluster/b200-storage/fabric/storage"]["endpoint_ports"].m == 32 * 2 + 2 * 2
    size = Arch.from_model(result.specs.get("llama3-70b")).params() * 14
    assert result.metrics["workload/ckpt-70b"]["checkpoint_write_time"].m_as("s") == pytest.approx(size / 200e9)
    assert [f.message.split(":")[0] for f in result.findings if f.id == "REL010"] == [
        "storage.write_bandwidth 320 GB/s exceeds the 4 storage port(s) of fabric 'storage' at their line rate, "
        "200 GB/s", "storage.read_bandwidth 320 GB/s exceeds the 4 storage port(s) of fabric 'storage' at their "
        "line rate, 200 GB/s"]
