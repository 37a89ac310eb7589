"""Two link ends meet on one medium, lane rate and wavelength plan, lane groups matching after breakout (optics35).

catalog35 found `{a: smf-400g-dr4, b: smf-800g-fr4}` checking clean (CAB002 compared lane rates only), while a plain
"same standard" rule would refuse `{a: smf-400g-dr4, b: lpo-800g-dr8}`, a DR8 broken out to two DR4 ends. The pairs
below are the catalog's parts; the two hypothetical modules (an 8-lane CWDM port, a 3-lane parallel port) are copies
with one field changed, to reach the lane-group rules no catalog part breaks.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from archgen.checks.link_interfaces import PLANS, ends_unjudged, ends_unmet, linking_modules, port_lanes
from archgen.checks.media_ends import Port
from archgen.load import load_paths
from archgen.model import Link
from archgen.units import Q_

LINKS = {d.id: Link.model_validate(d.data)
         for d in load_paths([Path(__file__).resolve().parents[2] / "specs" / "catalog" / "links"])}


@pytest.mark.parametrize(("a", "b"), [
    ("smf-400g-dr4", "smf-800g-dr8"),          # 2 x DR4 twin-port: one DR4 port each
    ("smf-400g-dr4", "lpo-800g-dr8"),          # DR8 (8 parallel lanes) breaks out to two DR4
    ("mmf-400g-sr4", "mmf-800g-sr8"),
    ("smf-800g-dr4-rhs", "smf-1.6t-2xdr4"),    # 200G-PAM4 DR4 against a 2 x DR4 port
    ("dac-400g", "dac-800g-osfp"),             # a splitter cable's two ends
    ("ici-v4-optical", "ocs-fibre-port"),      # a fibre end with no transceiver carries what it is sent
])
def test_pairs_that_link(a: str, b: str) -> None:
    assert ends_unmet(LINKS[a], LINKS[b]) == []
    assert ends_unjudged(LINKS[a], LINKS[b]) == ""


def test_dr4_and_fr4_do_not_link() -> None:
    [(message, _, _)] = ends_unmet(LINKS["smf-400g-dr4"], LINKS["smf-800g-fr4"])
    assert "Clause 124" in message and "Clause 151" in message and "expected one wavelength plan" in message


def test_multimode_against_single_mode_and_copper_against_fibre() -> None:
    assert "one medium" in ends_unmet(LINKS["mmf-400g-sr4"], LINKS["smf-800g-dr8"])[0][0]
    assert "one medium" in ends_unmet(LINKS["dac-400g"], LINKS["smf-800g-dr8"])[0][0]


def test_lane_rates_still_compared() -> None:
    [(message, value, limit)] = ends_unmet(LINKS["smf-800g-dr4-rhs"], LINKS["smf-800g-dr8"])
    assert "same lane rate" in message and value.m_as("Gbit/s") == 200 and limit.m_as("Gbit/s") == 100


def test_a_wdm_port_does_not_break_out() -> None:
    """A CWDM4 port carries its 4 lanes on one pair: an 8-lane CWDM port (FR8-like) does not meet it."""
    fr8 = LINKS["smf-800g-fr4"].model_copy(update={"id": "fr8", "optical_ports": 1})
    assert port_lanes(fr8) == 8 and port_lanes(LINKS["smf-800g-fr4"]) == 4 and PLANS["CWDM4"].per_pair == 4
    [(message, _, _)] = ends_unmet(LINKS["smf-800g-fr4"], fr8)
    assert "does not break out" in message


def test_a_parallel_port_breaks_out_in_whole_shares() -> None:
    odd = LINKS["smf-400g-dr4"].model_copy(update={"id": "dr3", "lanes": 3, "rate": LINKS["smf-400g-dr4"].rate * 3 / 4})
    [(message, _, _)] = ends_unmet(odd, LINKS["smf-400g-dr4"])
    assert "expected one to divide the other" in message


def test_a_module_with_no_plan_is_said_not_judged() -> None:
    bare = LINKS["smf-400g-dr4"].model_copy(update={"id": "bare-dr4", "wavelengths": ""})
    assert ends_unmet(bare, LINKS["smf-800g-fr4"]) == []
    assert "bare-dr4 states no wavelength plan" in ends_unjudged(bare, LINKS["smf-800g-fr4"])


def test_every_catalog_optic_with_a_standard_states_its_plan_on_its_medium() -> None:
    """So that no shipped pair of modules is passed unjudged (ici-v4-optical states no standard: Google publishes
    neither its module nor its wavelengths)."""
    optics = [p for p in LINKS.values() if p.media in ("singlemode", "multimode") and p.standard]
    assert len(optics) == 12
    assert {p.id: PLANS[p.wavelengths].media for p in optics} == {p.id: p.media for p in optics}


#: A design whose catalog is the shipped links, for CAB005's remedy; a QM9700's twin-port cage and a ConnectX-7's.
CATALOG = SimpleNamespace(design=SimpleNamespace(specs=SimpleNamespace(of=lambda kind: list(LINKS.values()))))
QM9700 = Port("qm9700 port group 'ports'", "OSFP-IHS", Q_(100, "Gbit/s"), 8)
CX7 = Port("hgx-h800-8gpu NIC connectx-7", "OSFP-RHS", Q_(100, "Gbit/s"), 4)


def test_the_remedy_names_the_parts_that_link_by_the_rule_not_by_standard_text() -> None:
    """A QM9700 cage facing a ConnectX-7's DR4 takes the 2 x DR4 modules and the LPO DR8 (a DR8 broken out to two
    DR4), the LPO named although its standard differs in text; the 2 x FR4 fits the cage but meets no DR4."""
    found = linking_modules(CATALOG, LINKS["smf-400g-dr4"], QM9700, "b")
    assert found == ["lpo-800g-dr8", "smf-800g-dr8", "smf-800g-dr8-500m"]
    assert "OSFP-IHS" in LINKS["smf-800g-fr4"].cages and "smf-800g-fr4" not in found


def test_the_remedy_leaves_out_modules_too_wide_for_the_cage() -> None:
    """Facing a twin-port DR4 at the switch, a ConnectX-7's 4-lane cage takes the single-port DR4 only: the LPO DR8
    fits its shape (plain OSFP) and links, but has 8 lanes; and nothing of the catalog meets a 2 x FR4 there."""
    assert "OSFP" in LINKS["lpo-800g-dr8"].cages and not ends_unmet(LINKS["lpo-800g-dr8"], LINKS["smf-800g-dr8"])
    assert linking_modules(CATALOG, LINKS["smf-800g-dr8"], CX7, "a") == ["smf-400g-dr4"]
    assert linking_modules(CATALOG, LINKS["smf-800g-fr4"], CX7, "a") == []
