"""REL012 is information, not a warning, where every training job checkpoints in peer host memory (newuser41 item 8).

The input that showed it (new-user trial, vB3/): the MI355X proposal states `storage:` on the buyer's existing
storage network (`external_network`) and its only training job checkpoints in memory (`checkpoint.in_memory: true`,
to peer nodes' host memory, Gemini, SOSP 2023; no storage is written). REL012 still warned that "checkpoints are timed
over each node's compute NICs ... on the network `storage.external_network` names", a path no checkpoint takes. Now
the finding says that only the storage's own bandwidth per accelerator rests on that path, as information; a
storage checkpoint on the same cluster keeps the warning (tests/test_storage_unwired.py).
"""

from __future__ import annotations

from pathlib import Path

from ruamel.yaml import YAML

from archgen.pipeline import run
from tests.test_storage_uplinks import FIXTURE, WORKLOAD


def _design(tmp_path: Path, in_memory: bool) -> Path:
    """The storage fixture with its storage fabric relabelled a front end, storage on an external network."""
    yaml = YAML()
    docs = list(yaml.load_all(FIXTURE.read_text(encoding="utf-8")))
    fabric = docs[-1]["fabrics"][0]
    fabric["role"], fabric["nic_role"] = "frontend", "storage"
    del fabric["endpoints"]
    docs[-1]["storage"]["external_network"] = "the site's storage network"
    job = {**WORKLOAD, "checkpoint": {"in_memory": in_memory}}
    out = tmp_path / f"design-{in_memory}.yaml"
    with out.open("w", encoding="utf-8") as f:
        yaml.dump_all([*docs, job], f)
    return out


def test_in_memory_checkpoints_make_rel012_information(tmp_path: Path) -> None:
    (f,) = [f for f in run([_design(tmp_path, True)]).findings if f.id == "REL012"]
    assert f.severity == "info", f.severity                 # before: warning
    assert "checkpoints are timed" not in f.message and "no checkpoint is timed over it" in f.message, f.message
    assert "`checkpoint.in_memory`: ckpt-70b" in f.message
    (g,) = [f for f in run([_design(tmp_path, False)]).findings if f.id == "REL012"]
    assert g.severity == "warning" and "checkpoints are timed" in g.message
