"""Storage servers beside a front end on the storage NICs, and the storage bandwidth a GPU gets (storfe).

From newuser6's design: 32 DGX B200 whose BlueField-3 pair serves the storage fabric (2 ports) and the in-band front
end (`nic_role: storage`, the other 2), as the DGX B200 SuperPOD wires it, with storage servers placed as systems
(one dual-port 400G NIC of role storage each). The fixture is tests/data/fabrics/b200-storage-400g.yaml.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from archgen.errors import ValidateError
from archgen.perf.hw.arch import Arch
from archgen.pipeline import run
from archgen.render.blocks import Para
from archgen.render.reference import storage
from tests.test_storage_network import FIXTURE, FRONTEND, WORKLOAD, _design

#: A storage server (assumed test part): one dual-port 400G ConnectX-7 of role storage, no accelerator.
SERVER = {"kind": "System", "id": "sto-server", "name": "Storage server (test)", "source": "test part",
          "nics": [{"part": "connectx-7-dual", "count": 1, "role": "storage"}],
          "mechanical": {"height": "2 U", "weight": "30 kg"}, "power": {"max": "1.2 kW"}}


def servers_design(tmp_path: Path, servers: int = 2, frontend: dict | None = None, storage: dict | None = None,
                   write: str = "320 GB/s") -> Path:
    """The fixture with `servers` storage servers as its storage's ports (no `endpoints.extra`), a front end on the
    storage NICs (`frontend` overrides its keys; None: the plain one) and `storage` overriding the storage fabric's."""
    yaml = YAML()
    docs = list(yaml.load_all(FIXTURE.read_text(encoding="utf-8")))
    cluster = docs[-1]
    cluster["storage"]["write_bandwidth"] = cluster["storage"]["read_bandwidth"] = write
    del cluster["fabrics"][0]["endpoints"]
    cluster["fabrics"][0].update(storage or {})
    cluster["fabrics"].append({**FRONTEND, **(frontend or {})})
    cluster["layout"].append({"rack": "sto-servers", "count": 1})
    rack = {**docs[0], "id": "sto-servers", "name": "Storage server rack",
            "slots": [{"at": 5, "part": "sto-server", "count": servers},
                      {"at": 1, "part": "pdu-415v-60a-3ph", "count": 2}]}
    out = tmp_path / "servers.yaml"
    with out.open("w", encoding="utf-8") as f:
        yaml.dump_all([SERVER, rack, *docs, WORKLOAD], f)
    return out


def test_a_front_end_on_the_storage_nics_attaches_only_the_systems_it_names(tmp_path: Path) -> None:
    """The front end took the storage servers' two storage ports as well: NET011 said they use 4 of their 2.

    `endpoints.systems: [dgx-b200]` keeps the servers on the storage fabric alone.
    """
    before = run([servers_design(tmp_path)])
    found = [f for f in before.findings if f.id == "NET011"]
    assert [f.message.split(";")[0] for f in found] == [
        "sto-server: the fabrics ('storage', 'frontend') use 4 NIC ports of role 'storage', it has 2"]
    assert "`endpoints.systems`" in found[0].message
    assert before.metrics["cluster/b200-storage/fabric/frontend"]["endpoint_ports"].m == 32 * 2 + 2 * 2
    after = run([servers_design(tmp_path, frontend={"endpoints": {"systems": ["dgx-b200"]}})])
    assert not [f for f in after.findings if f.id == "NET011"]
    assert after.metrics["cluster/b200-storage/fabric/frontend"]["endpoint_ports"].m == 32 * 2
    assert after.metrics["cluster/b200-storage/fabric/storage"]["endpoint_ports"].m == 32 * 2 + 2 * 2


def test_a_named_system_that_is_not_placed_or_lacks_the_ports_is_an_error(tmp_path: Path) -> None:
    """A typo in `endpoints.systems` would silently drop the nodes; a server without ports of the role attaches
    nothing. Both are NET011 at the entry."""
    path = servers_design(tmp_path, frontend={"nic_role": "frontend",
                                              "endpoints": {"systems": ["dgx-b300", "sto-server"]}})
    result = run([path])
    found = sorted(f.message for f in result.findings if f.id == "NET011")
    assert found == [
        "'dgx-b300' is not a system the cluster's racks hold (they hold: dgx-b200, sto-server), so it attaches "
        "nothing", "sto-server is listed to attach, but has no NIC port of role 'frontend' (its roles: storage)"]
    lines = path.read_text(encoding="utf-8").splitlines()
    assert {lines[f.location.line - 1].strip() for f in result.findings if f.id == "NET011"} == {
        "- dgx-b300", "- sto-server"}


def test_systems_without_nodes_is_refused() -> None:
    """`endpoints.systems` with `endpoints.nodes: false` would be read by nothing."""
    from archgen.model.fabrics import FatTree
    from archgen.model.spec import FieldError
    with pytest.raises((FieldError, ValueError), match="endpoints.systems"):
        FatTree.model_validate({**FRONTEND, "ports_per_node": None, "endpoints": {"nodes": False, "systems": ["dgx-b200"]}})
    with pytest.raises((FieldError, ValueError), match="endpoints.storage 4 given on a fabric of role 'frontend'"):
        FatTree.model_validate({**FRONTEND, "endpoints": {"extra": 8, "storage": 4}})


def _edited(tmp_path: Path, write: str, edit: dict, requirement: dict | None = None) -> Path:
    """The fixture with the plain front end, storage at `write` both ways, the storage fabric's keys replaced by
    `edit`, and `requirement` on the cluster."""
    yaml = YAML()
    path = _design(tmp_path, write)
    docs = list(yaml.load_all(path.read_text(encoding="utf-8")))
    cluster = next(d for d in docs if d["kind"] == "Cluster")
    cluster["fabrics"][0].update(edit)
    if requirement is not None:
        cluster["requirements"] = [requirement]
    with path.open("w", encoding="utf-8") as f:
        yaml.dump_all(docs, f)
    return path


def _storage_rows(result) -> dict[str, str]:   # noqa: ANN001 (a pipeline Result)
    table = next(b for b in storage(result.clusters["cluster/b200-storage"], result.specs).blocks
                 if getattr(b, "id", "") == "storage-system")
    return {row[0]: row[1] for row in table.rows}


def test_the_storage_table_and_metric_give_the_bandwidth_checkpoints_use(tmp_path: Path) -> None:
    """4 storage ports (200 GB/s) under a stated 320 GB/s: checkpoints used 200 GB/s while the table showed 320 GB/s
    and 1.25 GB/s per GPU, and no metric held what a GPU gets. Now both, the stated figure beside, and a
    requirement on it is judged."""
    req = {"id": "R-STO", "statement": "Storage write bandwidth per GPU",
           "metric": "storage_write_bandwidth_per_accelerator", "target": ">= 1 GB/s"}
    result = run([_edited(tmp_path, "320 GB/s", {"endpoints": {"extra": 4}}, req)])
    m = result.metrics["cluster/b200-storage"]
    assert m["storage_write_bandwidth_per_accelerator"].m_as("B/s") == pytest.approx(200e9 / 256)
    assert m["storage_read_bandwidth_per_accelerator"].m_as("B/s") == pytest.approx(200e9 / 256)
    rows = _storage_rows(result)
    assert rows["Aggregate write bandwidth"] == "200 GB/s (stated 320 GB/s)"
    assert rows["Write bandwidth per accelerator"] == "0.781 GB/s (stated 1.250 GB/s)"
    assert [f.message.split(" ")[0] for f in result.findings if f.id == "REQ001"] == ["R-STO"]
    # the storage's 16 ports carry 320 GB/s; the nodes' 32 x 800 Gb/s too: the stated figure alone
    fits = run([_edited(tmp_path, "320 GB/s", {})])
    assert _storage_rows(fits)["Write bandwidth per accelerator"] == "1.250 GB/s"
    assert fits.metrics["cluster/b200-storage"]["storage_write_bandwidth_per_accelerator"].m_as("GB/s") == 1.25
    # faster than the nodes' ports to storage (32 x 2 x 400 Gb/s = 3.2 TB/s): what they carry
    fast = run([_edited(tmp_path, "100 TB/s", {"endpoints": {"extra": 1000}})])
    assert fast.metrics["cluster/b200-storage"]["storage_read_bandwidth_per_accelerator"].m_as("B/s") == \
        pytest.approx(32 * 2 * 400e9 / 8 / 256)


def test_storage_ports_are_what_the_fabric_states(tmp_path: Path) -> None:
    """REL010 counted every non-compute port of a storage fabric as the storage's, and did not say so; a converged
    fabric (storage and front end together) was never bounded. `endpoints.storage` states the count."""
    # the default, said in the finding: 4 extra ports assumed the storage's
    assumed = run([_edited(tmp_path, "320 GB/s", {"endpoints": {"extra": 4}})])
    size = Arch.from_model(assumed.specs.get("llama3-70b")).params() * 14
    assert [f.message.split("(storage ports: ")[1] for f in assumed.findings if f.id == "REL010"][0] == (
        "every endpoint of 'storage' that is not a compute node (endpoints.extra 4), assumed the storage's "
        "(endpoints.storage states how many are))")
    # 16 endpoint ports of which the storage takes 4: bounded at 200 GB/s (before: 16 ports, 800 GB/s, no finding)
    stated = run([_edited(tmp_path, "320 GB/s", {"endpoints": {"extra": 16, "storage": 4}})])
    assert stated.metrics["workload/ckpt-70b"]["checkpoint_write_time"].m_as("s") == pytest.approx(size / 200e9)
    assert [f.message for f in stated.findings if f.id == "REL010"][0] == (
        "storage.write_bandwidth 320 GB/s exceeds the 4 storage port(s) of fabric 'storage' at their line rate, "
        "200 GB/s: checkpoints are written at 200 GB/s (storage ports: 'storage' endpoints.storage 4)")
    # a converged fabric: not bounded unless it states its storage ports (before: never)
    plain = run([_edited(tmp_path, "320 GB/s", {"role": "converged", "endpoints": {"extra": 4}})])
    assert plain.metrics["workload/ckpt-70b"]["checkpoint_write_time"].m_as("s") == pytest.approx(size / 320e9)
    assert not [f for f in plain.findings if f.id == "REL010"]
    assert "converged) states no endpoints.storage" in " ".join(
        b.text for b in storage(plain.clusters["cluster/b200-storage"], plain.specs).blocks if isinstance(b, Para))
    conv = run([_edited(tmp_path, "320 GB/s", {"role": "converged", "endpoints": {"extra": 8, "storage": 4}})])
    assert conv.metrics["workload/ckpt-70b"]["checkpoint_write_time"].m_as("s") == pytest.approx(size / 200e9)
    assert len([f for f in conv.findings if f.id == "REL010"]) == 2
    # more storage ports stated than the fabric has endpoints for: said, and bounded by those it has
    over = run([_edited(tmp_path, "320 GB/s", {"endpoints": {"extra": 4, "storage": 6}})])
    assert (
        "fabric 'storage' states 6 storage port(s), but has 4 endpoint port(s) that are not compute nodes' "
        "(endpoints.extra, reserved, systems without accelerators): the storage is bounded by those 4") in [
        f.message for f in over.findings if f.id == "REL010"]
    assert "(storage ports: 'storage' endpoints.storage 6, of which the fabric has 4)" in " ".join(
        f.message for f in over.findings if f.id == "REL010")


def test_a_converged_fabrics_storage_ports_beside_a_storage_fabric_are_refused(tmp_path: Path) -> None:
    """Checkpoints are written over the storage fabric where there is one (`analyse.goodput.storage_fabrics`), so a
    converged fabric's `endpoints.storage` beside it was read by nothing (storfe's open point): refused at the key."""
    path = servers_design(tmp_path, frontend={"role": "converged", "endpoints": {"extra": 8, "storage": 4}})
    with pytest.raises(ValidateError) as caught:
        run([path])
    text = str(caught.value)
    assert "servers.yaml:" in text and "fabrics.1.endpoints.storage: endpoints.storage 4 given on converged " in text
    assert "checkpoints are written over the storage fabric 'storage', so it would not be read" in text


def test_a_system_without_accelerators_attaches_the_ports_it_has(tmp_path: Path) -> None:
    """`ports_per_node` is the compute nodes'. A storage server with one port of the fabric's role was counted with
    the nodes' two, a switch port it does not have (storfe's finding; no shipped design has such a server): it
    attaches its one. A server without a port of the role attaches none."""
    path = servers_design(tmp_path, frontend={"endpoints": {"systems": ["dgx-b200"]}})
    yaml = YAML()
    docs = list(yaml.load_all(path.read_text(encoding="utf-8")))
    docs[0]["nics"] = [{"part": "connectx-7", "count": 1, "role": "storage"}]     # one 400G port
    with path.open("w", encoding="utf-8") as f:
        yaml.dump_all(docs, f)
    one = run([path])
    assert one.metrics["cluster/b200-storage/fabric/storage"]["endpoint_ports"].m == 32 * 2 + 2 * 1
    assert not [f for f in one.findings if f.id == "NET011"]
    docs[0]["nics"] = [{"part": "connectx-7", "count": 1, "role": "frontend"}]    # no storage port
    with path.open("w", encoding="utf-8") as f:
        yaml.dump_all(docs, f)
    none = run([path])
    assert none.metrics["cluster/b200-storage/fabric/storage"]["endpoint_ports"].m == 32 * 2
