"""An NVL72 rack's NVLink backplane (copper cable cartridges) is a part class of the failure model, never silent.

The input that showed it (new-user trial, a fleet reliability engineer): a 1,152-GPU GB200 cluster (2 SUs of 8 NVL72
racks) counted its GPUs, trays, switches, cables and optics, but the cartridges joining every GPU to every NVLink
switch tray (`nvlink-copper-cartridge`, media `copper-backplane`) were in no failure class: no REL004, no rate, no
mention, and an MTTI target read "met" as if they never fail. No published failure rate for them was found, so they
are a class without a rate: REL004 warns, the failure-rate table lists them as not provided, and a requirement on
MTTI names them among what it rests on. A rate the user gives (`classes.backplane`) is applied to every link.

Links per rack: 72 GPUs x 18 NVLink 5 links (1.8 TB/s per GPU over 2 x 400 Gb/s per link, the catalog's figures);
the shipped SU has 8 racks: 8 x 72 x 18 = 10,368.
"""

from __future__ import annotations

import pytest

from tests.conftest import shipped_edited

CLUSTER = "cluster/gb200-nvl72-su"
LINKS = 8 * 72 * 18
LABEL = "backplane (nvlink-copper-cartridge)"


def test_the_backplane_is_an_unrated_class_with_its_links(shipped):
    rel = shipped.operations.reliability[CLUSTER]
    assert rel.unrated_units == {LABEL: LINKS}
    (finding,) = [f for f in shipped.findings if f.id == "REL004" and f.object == CLUSTER]
    assert LABEL in finding.message and "left out" in finding.message


def test_mtti_names_the_backplane_it_leaves_out(shipped):
    assumed = shipped.operations.assumed[CLUSTER]["mtti"]
    assert f"{LABEL} failures (no rate: left out)" in assumed


@pytest.fixture(scope="module")
def rated(tmp_path_factory):
    """The shipped specs with a user's set that gives the backplane a rate (on top of field-h100-2024)."""
    rates = ("kind: FailureRates\nid: bp\nbase: field-h100-2024\nclasses:\n"
             "  backplane: {fit: 100, basis: assumed, source: 'a test rate'}\n")
    return shipped_edited(tmp_path_factory.mktemp("backplane"), "clusters/gb200-nvl72-su.yaml",
                          "facility: hall-liquid\nstorage:", "facility: hall-liquid\nfailure_rates: bp\nstorage:",
                          {"bp.yaml": rates})


def test_a_given_backplane_rate_counts_every_link(rated):
    rel = rated.operations.reliability[CLUSTER]
    (bp,) = [c for c in rel.classes if c.name == "backplane"]
    assert bp.units == LINKS and not rel.unrated
    assert bp.per_day == pytest.approx(LINKS * 100 * 8766 / 1e9 / 365.25)
