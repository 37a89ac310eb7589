"""Average power (issue 11 follow-up, item 5): `it_power_typical` per rack and cluster, typical draw where the
datasheet states one, else the maximum, plus the optics; budgets stay on the maximum.

Catalog figures (sources in the YAML files): qm9700 max 1,176 W, typical 747 W; sn5600 max 3 kW (a PSU rating,
`max_basis: psu-rating`), typical 940 W; sn4600c max = typical = 466 W; systems, NVLink trays and SN2201 state no
typical draw.
"""

from __future__ import annotations

import re

import pytest

from archgen.model import Switch, System
from archgen.render import render_all


@pytest.fixture(scope="module")
def result(shipped):
    return shipped


def test_rack_typical_power_uses_stated_typicals(result):
    leaf = result.racks["rack/dgx-b200-leaf"]
    # 8 QM9700 at 747 W instead of 1,176 W: 8 x 0.429 kW = 3.432 kW below the maximum
    assert leaf.metrics["it_power"].m_as("kW") - leaf.metrics["it_power_typical"].m_as("kW") == pytest.approx(3.432)
    eth = result.racks["rack/gb200-su-eth"]
    # 5 SN5600 at 940 W instead of the 3 kW PSU rating: 5 x 2.06 kW = 10.3 kW, less the 72 storage-leaf SR8 modules
    # (17 W) the rating holds and the typical (with passive cables) does not: 10.3 - 1.224 kW
    assert eth.power.optics_held.m_as("kW") == pytest.approx(72 * 17 / 1000)
    assert eth.metrics["it_power"].m_as("kW") - eth.metrics["it_power_typical"].m_as("kW") == pytest.approx(
        10.3 - 72 * 17 / 1000)
    assert eth.power.typical_from_max == ()          # SN5600 and SN4600C both state a typical draw


def test_rack_without_typical_figures_falls_back_to_max_and_says_which(result):
    nvl = result.racks["rack/gb200-nvl72"]
    assert nvl.metrics["it_power_typical"].m_as("kW") == pytest.approx(nvl.metrics["it_power"].m_as("kW"))
    # sn2201 states its typical 98 W (the figure its source gives as typical, provenance42), so it is not named
    assert nvl.power.typical_from_max == ("gb200-compute-tray", "nvlink5-switch-tray")


@pytest.mark.parametrize("cluster", ["cluster/dgx-b200-superpod", "cluster/gb200-nvl72-su"])
def test_cluster_typical_power_is_max_less_each_switch_and_system_typical_saving(result, cluster):
    a = result.clusters[cluster]
    saving = 0.0
    for line in a.cabling.bom:       # every system and switch of the cluster, in racks or not, with its count
        part = result.specs.get(line.part)
        if isinstance(part, System | Switch) and part.power.typical is not None:
            saving += (part.power.max - part.power.typical).m_as("kW") * line.quantity
    # less the modules a switch's maximum holds and its typical (with passive cables) does not: the GB200 SU's
    # SN5600 storage leaves, 72 x 17 W (`Switch.power_includes_optics`)
    held = sum((t.switch_optics_power - t.switch_optics_typical).m_as("kW") for t in a.cabling.tiers)
    assert held == pytest.approx(72 * 17 / 1000 if cluster == "cluster/gb200-nvl72-su" else 0)
    m = a.metrics
    assert m["it_power"].m_as("kW") - m["it_power_typical"].m_as("kW") == pytest.approx(saving - held)
    assert saving > 0


def test_documents_state_the_rule_and_the_psu_rating(result, tmp_path, drawn_once):
    render_all(result, tmp_path, target="gb200-su-eth", formats=("md",), revision="test")
    md = (tmp_path / "gb200-su-eth" / "gb200-su-eth.md").read_text(encoding="utf-8")
    # 6.9 kW before the SU's OOB leaves were sized per rack: 16 leaves' 32 uplinks end on the rack's two SN4600C
    # spines instead of 6 leaves' 12, 20 more 100G SR4 modules x 3.5 W = +0.07 kW (mmf-100g-sr4)
    row = "| IT power at the equipment (typical, for energy) | 7.0 kW"   # "(unconfirmed)" while its switches' typical
    assert re.search(re.escape(row) + r"(?: \([^)]*unconfirmed\))? \|", md)   # figures are (unconfmark42),
    # with how much of it (unconfband43)
    assert "Every part states a typical draw." in md
    assert "sn5600: power.max 3.00 kW is a power-supply rating, not a draw" in md
