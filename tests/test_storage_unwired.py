"""A storage architect's trial (newuser23): `storage:` that no fabric of the design reaches.

The fixture is tests/data/fabrics/b200-storage-400g.yaml (32 DGX B200 on a 2-tier SN5600 storage fabric). Labelled
a front end (`role: frontend`), the same fabric carries no storage, and checkpoints were timed over the nodes'
storage NICs at line rate with no finding: a checkpoint time that rests on a path the design does not build.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from archgen.pipeline import run
from tests.test_storage_uplinks import FIXTURE, WORKLOAD


def _design(tmp_path: Path, role: str) -> Path:
    yaml = YAML()
    docs = list(yaml.load_all(FIXTURE.read_text(encoding="utf-8")))
    fabric = docs[-1]["fabrics"][0]
    fabric["role"] = role
    if role != "storage":
        fabric["nic_role"] = "storage"
        del fabric["endpoints"]
    out = tmp_path / f"design-{role}.yaml"
    with out.open("w", encoding="utf-8") as f:
        yaml.dump_all([*docs, WORKLOAD], f)
    return out


def test_storage_no_fabric_carries_is_reported_at_the_storage_key(tmp_path: Path) -> None:
    wired = run([_design(tmp_path, "storage")])
    assert not [f for f in wired.findings if f.id == "REL012"]
    design = _design(tmp_path, "frontend")
    result = run([design])
    found = [f for f in result.findings if f.id == "REL012"]
    assert len(found) == 1 and found[0].severity == "warning", [f.message for f in found]
    f = found[0]
    assert f.object == "cluster/b200-storage" and f.location is not None
    assert design.read_text(encoding="utf-8").splitlines()[f.location.line - 1].startswith("storage:")
    assert "no fabric of role storage or converged" in f.message and "bluefield-3" in f.message
    # two BlueField-3 cards of 2 x 400G, each at most PCIe Gen5 x16: 32 GT/s x 16 x 128/130 / 8 = 63.0 GB/s
    assert f.value is not None and f.value.m_as("B/s") == pytest.approx(2 * 32e9 * 16 * 128 / 130 / 8)
    # the nodes' storage NICs reach nothing either (NET023), so the checkpoint times are not provided (REL006, rel2);
    # a NET023 waiver saying who builds that network restores them on the line-rate path REL012 describes
    assert "checkpoint_write_time" not in result.metrics["workload/ckpt-70b"]
    assert [f.id for f in result.findings if f.id == "REL006"] == ["REL006"]
