"""A cluster's stated control plane and software (`archgen.model.services`): what it names must be its own."""

from __future__ import annotations

import shutil
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
B200 = "specs/clusters/dgx-b200-superpod.yaml"


def _copy(tmp_path: Path, old: str, new: str) -> Path:
    root = tmp_path / "specs"
    shutil.copytree(REPO / "specs", root)
    path = root / "clusters" / "dgx-b200-superpod.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return root


def test_a_control_plane_group_names_only_the_clusters_fabrics_and_racks(tmp_path, cli):
    root = _copy(tmp_path, "fabrics: [storage, oob]}", "fabrics: [storge, oob]}")
    r = cli("validate", str(root))
    assert r.code == 1
    assert "dgx-b200-superpod.yaml:" in r.out + r.err and "control_plane.groups.2.fabrics.0: 'storge' is not a " \
        "fabric of this cluster (one of: compute, inband, oob, storage)" in r.out + r.err
    root = _copy(tmp_path / "b", "fabrics: [storage, oob]}", "fabrics: [storage, oob], rack: mgmt}")
    r = cli("validate", str(root))
    assert r.code == 1 and "control_plane.groups.2.rack: 'mgmt' is not a rack type placed" in r.out + r.err


def test_the_shipped_control_plane_and_software_validate(cli):
    assert cli("validate", str(REPO / "specs")).code == 0
