"""A watt more on an accelerator behind PDUs reaches the rack feeds through its system's PSUs (review50).

A system's `power.max` is at its AC input, its PSUs' loss inside it, so the cluster's figures count a PDU-fed system
and a shelf-fed one at their AC feeds alike (`analyse.conversion`). A sweep's `tdp` change moved a shelf-fed
system's feeds by 1 / the shelves' efficiency (review48) but a PDU-fed system's by its own watt. Where the system
states its PSUs' efficiency (`psus.efficiency`) the change is now 1 / that; where it does not, its own watt, a lower
bound, as docs/sweeps.md says. Fixture: the small cluster (tests/data/clusters/small.py), four DGX H100 per rack on
PDUs; 0.96 is 80 PLUS Titanium's minimum at 50 % load, 230 V internal redundant (80 PLUS levels table,
https://www.tomshardware.com/uk/reviews/80-plus-psu-efficiency,4848-2.html: 90/94/96/91 % at 10/20/50/100 %), an
example value, not the DGX's.
"""

from __future__ import annotations

import pytest

from archgen.analyse.conversion import feed_per_watt
from archgen.pipeline import run
from tests.conftest import SPECS
from tests.data.clusters.small import files

PSUS = "  psus: {count: 6, capacity: 3.3 kW, redundancy: N+2, inlet: C20}"


def _feed_per_watt(spec_tree, efficiency: str = "") -> float:
    tree = files()
    if efficiency:
        system = (SPECS / "catalog" / "systems" / "dgx-h100.yaml").read_text(encoding="utf-8")
        assert PSUS in system and "\nid: dgx-h100\n" in system
        tree["systems/dgx-h100-titanium.yaml"] = system.replace("\nid: dgx-h100\n", "\nid: dgx-h100-titanium\n").replace(
            PSUS, PSUS[:-1] + f", efficiency: {efficiency}}}")
        tree["racks/r.yaml"] = tree["racks/r.yaml"].replace("part: dgx-h100,", "part: dgx-h100-titanium,")
        assert "dgx-h100-titanium" in tree["racks/r.yaml"]
    return feed_per_watt(run([spec_tree(tree)]).clusters["cluster/c"])


def test_a_pdu_fed_system_stating_its_psu_efficiency_adds_its_psus_loss(spec_tree) -> None:
    assert _feed_per_watt(spec_tree, "0.96") == pytest.approx(1 / 0.96)


def test_a_pdu_fed_system_stating_none_adds_its_own_watt(spec_tree) -> None:
    assert _feed_per_watt(spec_tree) == 1.0
