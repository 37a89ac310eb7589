"""A system whose power figure leaves its NICs out has them added, once (trialfix item 6, from the new-user trials).

Before, nothing added NIC draw to a rack's or cluster's power: right for every shipped system, whose figure is a
whole-system maximum input (docs/clusters.md, Power, lists the basis of each), but a system whose source states a
board's figure without its NICs had them left out silently. `System.power_includes_nics: false` now adds each
NIC's `power` x its count wherever the system's draw is used, and PWR012 says which systems' figures include their
NICs and which have them added.
"""

from __future__ import annotations

import shutil

import pytest

from archgen.model import System
from archgen.pipeline import run
from tests.conftest import SPECS

CLUSTER = "cluster/dgx-b200-superpod"
#: The DGX B200's NICs as catalogued: 8 x connectx-7 at 75 W, 2 x bluefield-3 at 150 W, the BMC port at 0 W.
B200_NICS = 8 * 75 + 2 * 150 + 0


def _superpod(root, excluded: bool):
    """The shipped B200 SuperPOD, its DGX B200 stated (a user copy of the catalog's) with or without its NICs."""
    shutil.copytree(SPECS, root, ignore=shutil.ignore_patterns("catalog"))
    text = (SPECS / "catalog" / "systems" / "dgx-b200.yaml").read_text(encoding="utf-8")
    (root / "dgx-b200.yaml").write_text(text + ("power_includes_nics: false\n" if excluded else ""), encoding="utf-8")
    return run([root])


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """The superpod run with the DGX B200's figure including its NICs (as shipped) and excluding them."""
    return (_superpod(tmp_path_factory.mktemp("in") / "specs", False),
            _superpod(tmp_path_factory.mktemp("out") / "specs", True))


def test_the_nics_are_added_to_every_figure_the_system_draw_makes(both):
    included, excluded = both
    systems = excluded.design.specs.get("dgx-b200")
    assert isinstance(systems, System) and systems.nic_power.m_as("W") == pytest.approx(B200_NICS)
    assert included.design.specs.get("dgx-b200").nic_power is None        # the default: never added
    n = 127                                                               # 1,016 GPUs / 8 (the RA: 127 nodes)
    for metric in ("it_power", "power_average"):
        grew = excluded.metrics[CLUSTER][metric] - included.metrics[CLUSTER][metric]
        assert grew.m_as("W") == pytest.approx(n * B200_NICS), metric    # before: 0, the NICs left out
    rack = "rack/dgx-b200-compute"
    grew = excluded.metrics[rack]["it_power"] - included.metrics[rack]["it_power"]
    assert grew.m_as("W") == pytest.approx(4 * B200_NICS)


def test_pwr012_says_whether_the_nics_are_included_or_added(both, tmp_path):
    included, excluded = both
    added = ("bluefield-3 power (2 in each dgx-b200, added to its power)",
             "connectx-7 power (8 in each dgx-b200, added to its power)")
    (said,) = [f.message for f in included.findings if f.id == "PWR012" and f.object == CLUSTER]
    assert "dgx-b200" not in said                    # its 14.3 kW is confirmed and holds its NICs: nothing to name
    (said,) = [f.message for f in excluded.findings if f.id == "PWR012" and f.object == CLUSTER]
    assert all(a in said for a in added) and "dgx-b200 power.max" not in said   # the NICs' figures are unconfirmed
    text = (SPECS / "catalog" / "systems" / "dgx-b200.yaml").read_text(encoding="utf-8").replace(
        "unconfirmed: [host_memory.bandwidth]", "unconfirmed: [host_memory.bandwidth, power.max]")
    for excluded_nics, expect in ((False, "dgx-b200 power.max (127 placed, NICs included)"),
                                  (True, "dgx-b200 power.max (127 placed, NICs added)")):
        root = tmp_path / str(excluded_nics) / "specs"
        shutil.copytree(SPECS, root, ignore=shutil.ignore_patterns("catalog"))
        (root / "dgx-b200.yaml").write_text(text + ("power_includes_nics: false\n" if excluded_nics else ""),
                                            encoding="utf-8")
        (msg,) = [f.message for f in run([root]).findings if f.id == "PWR012" and f.object == CLUSTER]
        assert expect in msg, msg
        assert all((a in msg) == excluded_nics for a in added), msg


def test_every_catalog_system_keeps_its_nics_inside_its_figure():
    """The catalog's figures were checked one by one (docs/clusters.md, Power): each is a whole-system input."""
    from archgen.pipeline import built
    specs, _ = built([SPECS / "racks"])
    systems = {s.id: s.power_includes_nics for s in specs.of(System)}
    assert systems and all(systems.values()), systems
