"""newuser80: a copper assembly's shortest length sold is a length to order, not a run it refuses.

NVIDIA's twin-port DAC (MCP4Y10) is sold 0.5-2 m and its linear active copper cable (LACC) "extends the reach to 3,
4, and 5-meters" (LinkX 100G-PAM4 product line overview,
https://docs.nvidia.com/networking/display/400g100gpam4ovpub/linkx-100g-pam4-product-line-overview). Input (a
cabling engineer's trial): the GB200 SU lists `leaf_spine: [dac-800g-osfp, acc-800g-osfp, mmf-800g-sr8, ...]`, and
its 66 leaf-spine switch pairs 2.0-2.5 m apart inside the InfiniBand rack, past the DAC's 2 m, skipped the LACC
(3 m shortest) for two SR8 transceivers and a fibre per link: 132 modules at 17 W, 2.24 kW, where a 3 m LACC with its
extra half metre dressed in the rack serves (1.5 W an end). An optical module's `min_length` stays a shortest link:
the 500 m DR8 (MMS4X00-NM, "100-500 m") is not taken below 100 m.
"""

from __future__ import annotations

import pytest
import yaml

from archgen.analyse.cabling import _shortest_run
from archgen.analyse.copper_choice import shortest_sold as _shortest_sold
from archgen.build import LinkOption
from archgen.model.network import Link
from tests.conftest import SPECS

SU = "cluster/gb200-nvl72-su"


def _tier(analysis, fabric: str, tier: str):
    return next(t for t in analysis.cabling.tiers if (t.fabric, t.tier) == (fabric, tier))


def _option(part: str) -> LinkOption:
    data = yaml.safe_load((SPECS / "catalog" / "links" / f"{part}.yaml").read_text(encoding="utf-8"))
    link = Link.model_validate(data)
    return LinkOption(link, link, ("test",))


def test_short_runs_take_the_lacc_at_3_m(shipped) -> None:
    """The SU's 576 leaf-spine links: 222 DACs and 66 LACC at 3 m, no transceiver (was 132 SR8 on 132 fibres)."""
    t = _tier(shipped.clusters[SU], "compute", "leaf_spine")
    assert t.links == 576 and t.transceivers == 0
    assert t.modules == {"dac-800g-osfp": 222, "acc-800g-osfp": 66}
    assert t.cables_by_bin[("acc-800g-osfp", 3.0)] == 66
    runs = next(r for r in shipped.clusters[SU].cabling.runs if (r.fabric, r.tier) == ("compute", "leaf_spine"))
    acc = runs.option == [o.a.id for o in t.options].index("acc-800g-osfp")
    assert acc.sum() and (runs.length[acc] < 3.0).all() and (runs.bin[acc] == 3.0).all()
    # 222 DACs x 2 ends x 0.1 W + 66 LACC x 2 ends x 1.5 W (was + 132 SR8 x 17 W = 2,288.4 W)
    assert t.optics_power.m_as("W") == pytest.approx(222 * 0.2 + 66 * 3.0)


def test_optical_shortest_link_still_refuses_short_runs() -> None:
    """The shortest run each option takes in the first pass: an optic's `min_length`, a copper assembly's none."""
    assert _shortest_run(_option("smf-800g-dr8-500m")) == 100.0
    assert _shortest_run(_option("acc-800g-osfp")) == 0.0 and _shortest_sold(_option("acc-800g-osfp")) == 3.0
    assert _shortest_sold(_option("smf-800g-dr8-500m")) == 0.0


def test_lacc_is_straight_at_1_5_w_an_end(shipped) -> None:
    """nu80fix: the LACC is the straight 800G-to-800G cable, 1.5 W at each 800G end (LinkX overview); the 0.6 W and
    0.35 W split ends belong to the LACC splitters NVIDIA discontinued ("LACCs 1:2 and 1:4 OSFP splitters have been
    discontinued", copper DAC and LACC overview), so no end of the part draws them and the SU's 66 cables draw
    66 x 2 x 1.5 W = 198 W."""
    data = yaml.safe_load((SPECS / "catalog" / "links" / "acc-800g-osfp.yaml").read_text(encoding="utf-8"))
    assert data["power_per_end"] == "1.5 W" and "power_at" not in data and "switch-to-NIC" not in data["description"]
    t = _tier(shipped.clusters[SU], "compute", "leaf_spine")
    assert t.modules["acc-800g-osfp"] == 66 and t.cables_by_bin[("acc-800g-osfp", 3.0)] == 66


def test_lacc_placeholder_price_is_named_assumed(shipped) -> None:
    """nu80fix: no public LACC price was found, so its 500 USD placeholder (the DAC's) is `basis: assumed`, and the
    capex names it among its assumed inputs; the 752 fibre cords have no catalog price and are accessories the capex
    leaves out, listed by name (an open item), never priced at 0 USD on a line."""
    cost = shipped.operations.cost[SU]
    acc = next(line for line in cost.lines if line.part == "acc-800g-osfp")
    assert acc.basis == "assumed" and acc.quantity == 66 and "acc-800g-osfp price" in cost.assumed
    cords = [line for line in cost.accessories if line.part.startswith("fibre-")]
    assert sum(line.quantity for line in cords) == 576 + 144 + 32 and all(line.unit_price is None for line in cords)
