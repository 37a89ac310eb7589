"""CAT007: a spec document that takes a shipped catalog entry's id says so (newuser32's trial, item 3).

A pull request adding `specs/racks/sw.yaml` with `id: nvlink5-switch-tray` and `power.max: 0.5 kW` (3.8 kW shipped)
replaced the part in every GB200 NVL72 rack with no finding at all: `check` passed and `diff` showed only the rack's
power falling. Now it is a CAT007 warning at the replacing document's id, naming the entry and the field.
"""

from __future__ import annotations

import pytest

from archgen.units import Q_
from tests.conftest import REPO, shipped_edited

#: NVLink switch trays per GB200 NVL72 rack: "9 x 1RU NVLink switch trays" (NVIDIA DGX GB200 User Guide, Hardware,
#: as specs/catalog/switches/nvlink5-switch-tray.yaml cites it).
TRAYS = 9


def test_a_document_replacing_a_shipped_part_is_a_warning_naming_the_changed_field(shipped, tmp_path):
    tray = (REPO / "specs/catalog/switches/nvlink5-switch-tray.yaml").read_text(encoding="utf-8")
    assert "max: 3.8 kW" in tray
    run = shipped_edited(tmp_path, "racks/dgx-h100-4.yaml", "kind:", "kind:",
                         {"racks/sw.yaml": tray.replace("max: 3.8 kW", "max: 0.5 kW")})
    (f,) = [f for f in run.findings if f.id == "CAT007"]
    assert (f.severity, f.object, str(f.location)) == ("warning", "part/nvlink5-switch-tray", "specs/racks/sw.yaml:2:5")
    assert f.message == ("replaces the shipped catalog's Switch 'nvlink5-switch-tray' (catalog/switches/"
                         "nvlink5-switch-tray.yaml:2:5) in this project, with different power.max 3.8 kW → 0.5 kW")
    moved = shipped.metrics["rack/gb200-nvl72"]["it_power"] - run.metrics["rack/gb200-nvl72"]["it_power"]
    assert moved.m_as("kW") == pytest.approx((TRAYS * (Q_(3.8, "kW") - Q_(0.5, "kW"))).m_as("kW"))
    assert not [f for f in shipped.findings if f.id == "CAT007"]      # the shipped specs replace nothing


def _fork(tmp_path, edit: tuple[str, str] = ("", "")):
    """The shipped specs with a fork of the library rack gb200-nvl72 as `catalog show --format yaml` writes it."""
    from tests.conftest import run_cli, run_specs
    shown = run_cli("catalog", "show", "gb200-nvl72", "--format", "yaml")
    assert shown.code == 0 and "coolant:" not in shown.out   # pg25 is the model's default: left out
    return run_specs(tmp_path, {"fork.yaml": shown.out.replace(*edit)})


def test_a_fork_written_by_catalog_show_differs_in_nothing(tmp_path):
    # newuser51: forking gb200-nvl72 as docs/facility.md says, to name the hall, CAT007 named
    # "cooling.liquid.coolant pg25 → (not given)": the shipped file states the default the fork leaves out.
    assert not [f for f in _fork(tmp_path).findings if f.id == "CAT007"]


def test_a_fork_that_states_another_value_than_the_default_still_differs(tmp_path):
    run = _fork(tmp_path, ("  liquid:\n", "  liquid:\n    coolant: water\n"))
    (f,) = [f for f in run.findings if f.id == "CAT007"]
    assert f.message.endswith("with different cooling.liquid.coolant pg25 → water")
