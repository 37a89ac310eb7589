"""A storage architect's trial (newuser23): `storage:` that no fabric of the design reaches.

The fixture is tests/data/fabrics/b200-storage-400g.yaml (32 DGX B200 on a 2-tier SN5600 storage fabric). Labelled
a front end (`role: frontend`), the same fabric carries no storage, and checkpoints were timed over the nodes'
storage NICs at line rate with no finding: a checkpoint time that rests on a path the design does not build.
Now one condition gives one finding: undeclared, the figures are not provided (REL006, on the job); where
`storage.external_network` names who builds the network, they are given at line rate and REL012 says so.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from archgen.pipeline import run
from tests.test_storage_uplinks import FIXTURE, WORKLOAD


def _design(tmp_path: Path, role: str, external: str | None = None) -> Path:
    yaml = YAML()
    docs = list(yaml.load_all(FIXTURE.read_text(encoding="utf-8")))
    fabric = docs[-1]["fabrics"][0]
    fabric["role"] = role
    if role != "storage":
        fabric["nic_role"] = "storage"
        del fabric["endpoints"]
    if external:
        docs[-1]["storage"]["external_network"] = external
    out = tmp_path / f"design-{role}-{bool(external)}.yaml"
    with out.open("w", encoding="utf-8") as f:
        yaml.dump_all([*docs, WORKLOAD], f)
    return out


def _ids(result, *ids: str) -> list[str]:
    return sorted(f.id for f in result.findings if f.id in ids)


def test_storage_no_fabric_carries_is_not_provided_with_one_finding(tmp_path: Path) -> None:
    wired = run([_design(tmp_path, "storage")])
    assert _ids(wired, "REL006", "REL012") == []
    result = run([_design(tmp_path, "frontend")])
    assert _ids(result, "REL006", "REL012") == ["REL006"]
    (f,) = [f for f in result.findings if f.id == "REL006"]
    assert f.object == "workload/ckpt-70b" and "storage.external_network" in f.message and "not provided" in f.message
    assert "checkpoint_write_time" not in result.metrics["workload/ckpt-70b"]


def test_storage_on_an_external_network_is_timed_at_line_rate_at_the_key(tmp_path: Path) -> None:
    design = _design(tmp_path, "frontend", "the site's storage network")
    result = run([design])
    assert _ids(result, "REL006", "REL012") == ["REL012"]
    (f,) = [f for f in result.findings if f.id == "REL012"]
    assert f.severity == "warning" and f.object == "cluster/b200-storage" and f.location is not None
    assert design.read_text(encoding="utf-8").splitlines()[f.location.line - 1].count("external_network:") == 1
    assert "bluefield-3" in f.message and "the site's storage network" in f.message
    # two BlueField-3 cards of 2 x 400G, each at most PCIe Gen5 x16: 32 GT/s x 16 x 128/130 / 8 = 63.0 GB/s
    assert f.value is not None and f.value.m_as("B/s") == pytest.approx(2 * 32e9 * 16 * 128 / 130 / 8)
    assert "checkpoint_write_time" in result.metrics["workload/ckpt-70b"]


def test_external_network_where_a_fabric_carries_the_storage_is_reported_unused(tmp_path: Path) -> None:
    result = run([_design(tmp_path, "storage", "the site's storage network")])
    assert _ids(result, "REL006", "REL012") == ["REL012"]
    (f,) = [f for f in result.findings if f.id == "REL012"]
    assert "'storage'" in f.message and "not used" in f.message and f.value is None
