"""`gap A/ B/`: each PROPOSAL path with a cluster is a design of its own; our site may go under `--against`.

newuser41's open item 6 (nu41misc item 2): `archgen gap vendorA-full/ vendorB-full/ --against req/` failed with
"duplicate id 'hall-liquid'" because both vendors' folders override the shipped `hall-liquid` (the buyer's hall, with
its own energy price), and a Facility under `--against` was refused ("--against takes only Requirements documents").
Now each proposal runs on its own with the paths that hold no cluster and `--against`, so each keeps its own
overrides, and `--against` takes our site's Facility. The energy cost per year is average power x 8,766 h x PUE x
price (docs/metrics.md), so under one power it scales with the price: each cluster's must equal its design's alone.
"""

from __future__ import annotations

import shutil

import pytest

from archgen.commands.gap import designs, gap
from tests.conftest import REPO, SPECS, run_cli

REQ = """kind: Requirements
id: buyer
name: Buyer sign-off
requirements:
  - {id: B-001, statement: Energy cost per year, subject: "cluster/*", metric: energy_cost_per_year, target: "<= 1e9 USD"}
"""


def _hall(price: str) -> str:
    """The shipped `hall-liquid` with another energy price: a proposal's (or our) override of it."""
    text = (SPECS / "catalog" / "facilities" / "hall-liquid.yaml").read_text(encoding="utf-8")
    assert "price: 0.0895 USD/kWh" in text
    return text.replace("price: 0.0895 USD/kWh", f"price: {price}")


@pytest.fixture
def folders(tmp_path):
    """Vendor A: the GB300 example with a hall at 0.20 USD/kWh; vendor B: the MI355X cluster with one at 0.05."""
    a, b, ours, site = tmp_path / "a", tmp_path / "b", tmp_path / "req", tmp_path / "site"
    shutil.copytree(REPO / "examples" / "gb300-nvl72-su", a)
    (a / "facility.yaml").write_text(_hall("0.20 USD/kWh"), encoding="utf-8")
    b.mkdir()
    shutil.copy(SPECS / "clusters" / "mi355x-th5.yaml", b / "mi355x.yaml")
    (b / "facility.yaml").write_text(_hall("0.05 USD/kWh"), encoding="utf-8")
    for d, name, text in ((ours, "buyer.yaml", REQ), (site, "hall.yaml", _hall("0.10 USD/kWh"))):
        d.mkdir()
        (d / name).write_text(text, encoding="utf-8")
    return a, b, ours, site


def _energy(g) -> dict[str, float]:
    return {r.subject: r.value.m_as("USD") for r in g.rows if r.requirement.id == "B-001" and r.value is not None}


def test_two_proposals_that_override_one_facility_keep_their_own(folders):
    a, b, ours, _ = folders
    both = gap([a, b], [ours])                       # before: ValidateError, duplicate id 'hall-liquid'
    alone = {**_energy(gap([a], [ours])), **_energy(gap([b], [ours]))}
    assert _energy(both) == pytest.approx(alone) and len(alone) == 2, (_energy(both), alone)
    assert not [f for f in both.findings if "duplicate id" in f.message]
    # vendor A's own hall requirements (`cluster/*` globs in a/requirements/gb300-hall.yaml) judge A alone
    assert not [f for f in both.findings if f.object.startswith("cluster/mi355x") and "REQ-GB300" in f.message]
    assert {"cluster/gb300-nvl72-su", "cluster/mi355x-th5"} <= set(both.objects)


def test_our_site_goes_under_against(folders):
    a, b, ours, site = folders
    for p in (a, b):
        (p / "facility.yaml").unlink()
    g = gap([a, b], [site, ours])                    # before: UsageError, --against takes only Requirements
    lone = _energy(gap([a, site], [ours]))
    assert _energy(g)["cluster/gb300-nvl72-su"] == pytest.approx(lone["cluster/gb300-nvl72-su"])
    r = run_cli("gap", a, b, "--against", site, "--against", ours)
    assert "error" not in r.err, r.err
    clash = run_cli("gap", a, b, "--against", ours, "--against", REPO / "examples" / "gb300-nvl72-su" / "clusters")
    assert clash.code == 2 and "found kind 'Cluster'" in clash.err and "our site's Facility" in clash.err


def test_paths_without_a_cluster_join_every_design(folders):
    a, b, _, site = folders
    runs = designs([a, b, site], set())
    assert [paths for paths, _ in runs] == [[a, site], [b, site]]
    assert designs([a, site], set())[0][0] == [a, site]          # one cluster path: one design, as `check` reads
