"""Storage servers beside a front end on the storage NICs, and the storage bandwidth a GPU gets (storfe).

From newuser6's design: 32 DGX B200 whose BlueField-3 pair serves the storage fabric (2 ports) and the in-band front
end (`nic_role: storage`, the other 2), as the DGX B200 SuperPOD wires it, with storage servers placed as systems
(one dual-port 400G NIC of role storage each). The fixture is tests/data/fabrics/b200-storage-400g.yaml.
"""

from __future__ import annotations

from pathlib import Path

from ruamel.yaml import YAML

from archgen.pipeline import run
from tests.test_storage_network import FIXTURE, FRONTEND, WORKLOAD

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
        "nothing", "no node has NIC ports of role 'frontend' (their roles: compute, management, storage), so the "
        "fabric attaches no node: its switches, links and bandwidth would describe nothing",
        "sto-server is listed to attach, but has no NIC port of role 'frontend' (its roles: storage)"]
    lines = path.read_text(encoding="utf-8").splitlines()
    assert {lines[f.location.line - 1].strip() for f in result.findings if f.id == "NET011"} >= {
        "- dgx-b300", "- sto-server"}


def test_systems_without_nodes_is_refused() -> None:
    """`endpoints.systems` with `endpoints.nodes: false` would be read by nothing."""
    import pytest

    from archgen.model.fabrics import FatTree
    from archgen.model.spec import FieldError
    with pytest.raises((FieldError, ValueError), match="endpoints.systems"):
        FatTree.model_validate({**FRONTEND, "ports_per_node": None, "endpoints": {"nodes": False, "systems": ["dgx-b200"]}})
