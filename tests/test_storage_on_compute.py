"""Storage reached over the compute fabric (Lustre on InfiniBand) can be described (storage2 item 5).

newuser23: `endpoints.storage` on a compute fabric is refused, and the refusal named only a storage or converged
fabric, so storage on the compute fabric fell back to the unwired-NIC assumption (REL012). The way to write it is
the compute fabric as `role: converged`, `nic_role: compute`: it stays the scale-out path (no compute fabric
beside it) and carries the checkpoints (no storage fabric beside it). The refusal now says so.
"""

from __future__ import annotations

import json
import shutil

import pytest

from archgen.model.fabrics import FatTree
from tests.conftest import SPECS, run_cli
from tests.test_storage_network import FRONTEND

CLUSTER = "clusters/mi355x-th5.yaml"
WORKLOAD = "workload/llama3-70b-pretrain-mi355x"
COMPUTE = "    role: compute\n    speed: 400 Gb/s\n"
STORAGE = ('storage: {capacity: 4 PB, write_bandwidth: 400 GB/s, read_bandwidth: 400 GB/s, basis: assumed, '
           'source: "test"}\n')


def test_the_refusal_on_a_compute_fabric_names_the_way_to_write_it():
    """Before: "... leave it out, or give it on the storage (or converged) fabric", no word of the compute fabric."""
    compute = {**FRONTEND, "role": "compute", "nic_role": None, "endpoints": {"extra": 8, "storage": 4}}
    with pytest.raises((ValueError,), match="written as that fabric with `role: converged` and `nic_role: compute`"):
        FatTree.model_validate(compute)
    with pytest.raises(ValueError) as frontend:   # a front end carries no storage: no such advice
        FatTree.model_validate({**FRONTEND, "endpoints": {"extra": 8, "storage": 4}})
    assert "nic_role: compute" not in str(frontend.value)


def test_the_compute_fabric_written_converged_carries_checkpoints_and_the_same_scale_out(tmp_path):
    """The shipped MI355X cluster (compute fabric only, 400G ports) with storage stated at 400 GB/s on 4 of the
    compute fabric's ports: checkpoints are bounded by those ports, 4 x 400 Gb/s = 200 GB/s (REL010), and the
    job's step time is the shipped one (the same scale-out path). Before, no checkpoint figure at all (no fabric
    could carry the storage)."""
    shipped = json.loads(run_cli("check", SPECS, "--format", "json").out)["metrics"][WORKLOAD]
    root = tmp_path / "specs"
    shutil.copytree(SPECS, root, ignore=shutil.ignore_patterns("catalog"))
    path = root / CLUSTER
    text = path.read_text(encoding="utf-8")
    assert COMPUTE in text and "\nstorage:" not in text
    text = text.replace(COMPUTE, "    role: converged\n    nic_role: compute\n    endpoints: {extra: 8, storage: 4}\n"
                                 "    speed: 400 Gb/s\n", 1).replace("fabrics:\n", STORAGE + "fabrics:\n", 1)
    path.write_text(text, encoding="utf-8")
    doc = json.loads(run_cli("check", root, "--format", "json").out)
    w = doc["metrics"][WORKLOAD]
    assert w["step_time"]["value"] == pytest.approx(shipped["step_time"]["value"], rel=1e-12)
    assert "checkpoint_write_time" not in shipped
    size = w["checkpoint_size"]["value"]
    assert w["checkpoint_write_time"]["value"] == pytest.approx(size / (4 * 400e9 / 8))
    assert [f["id"] for f in doc["findings"] if f["object"].startswith("cluster/mi355x-th5")
            and f["id"] in ("REL010", "REL012")] == ["REL010", "REL010"]
