"""A project started by copying the repository's `specs/` with its catalog (newuser32's and newuser34's trials).

The copied `specs/catalog` loaded as the project's own documents: its racks joined the design as the project's (a
library rack joins only where a spec names it), and `check` gave 1 error absent in the repository: REQ001 on
rack/gb300-nvl72, input_power 142.0 kW against the example hall's 132 kW busway budget (REQ-HALL-PWR-001). An
unchanged copy of a catalog file is now the library's, as the repository's own catalog is; an edited one stays the
project's, and CAT007 names what it changes (`pipeline._shipped_copies`).
"""

from __future__ import annotations

import json
import shutil

import pytest

from tests.conftest import SPECS

TRAY = "catalog/switches/nvlink5-switch-tray.yaml"


def _findings(cli, *args: str) -> tuple[int, list[dict]]:
    r = cli("check", *args, "--format", "json")
    return r.code, json.loads(r.out)["findings"]


@pytest.mark.slow
def test_a_copied_catalog_is_the_library_as_in_the_repository(tmp_path, cli, monkeypatch):
    shutil.copytree(SPECS, tmp_path / "specs")
    monkeypatch.chdir(tmp_path)
    code, found = _findings(cli, "specs")
    assert code == 0                                        # was 1: REQ001 rack/gb300-nvl72, 142.0 kW > 132 kW
    assert not [f for f in found if f["object"] == "rack/gb300-nvl72"]
    assert not [f for f in found if f["id"] == "CAT007"]
    monkeypatch.chdir(SPECS.parent)
    _, shipped = _findings(cli, "specs")                   # the same findings as in the repository
    assert sorted((f["id"], f["object"], f["message"]) for f in found) == \
        sorted((f["id"], f["object"], f["message"]) for f in shipped)


@pytest.mark.slow
def test_an_edited_copy_is_the_projects_own(tmp_path, cli, monkeypatch):
    """The trial's shadowing edit (power.max 3.8 kW → 0.5 kW) in the copied catalog: CAT007 at the copy."""
    shutil.copytree(SPECS, tmp_path / "specs")
    tray = tmp_path / "specs" / TRAY
    text = tray.read_text(encoding="utf-8")
    assert "max: 3.8 kW" in text
    tray.write_text(text.replace("max: 3.8 kW", "max: 0.5 kW", 1), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    _, found = _findings(cli, "specs")
    [replaced] = [f for f in found if f["id"] == "CAT007"]
    assert replaced["file"] == f"specs/{TRAY}"
    assert "power.max 3.8 kW → 0.5 kW" in replaced["message"]
