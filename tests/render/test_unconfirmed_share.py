"""How much of a figure rests on unconfirmed draws, and the band stated ranges give (unconfband43).

newuser106 item 2: a DGX B200 rack's "57.3 kW (unconfirmed)" was 57.2 kW of sourced DGX B200 and one 98 W SN2201, and
read as unsure as a GB200 NVL72's 131.6 kW of estimated trays. The mark now says how much ("0.10 kW of it
unconfirmed"), or the band a stated range gives. Item 3: the figures built on such a draw (the CDU group's load, the
facility's power and energy, a passed check's value) carry the mark too, and heat to liquid follows REQ005's rule:
the liquid-cooled parts' draws and fractions only, not an air-cooled switch's.
"""

from __future__ import annotations

from archgen.analyse.optics import unconfirmed_optics_power
from archgen.analyse.rack_power_inputs import rack_power_inputs
from archgen.analyse.unconfirmed_share import CONFIRMED, Share, rack_shares, share
from archgen.pipeline import run
from archgen.render import fmt
from archgen.render.cluster import cluster_scope, power_cooling
from archgen.render.common import validation_section
from archgen.render.rack import abstract
from archgen.render.tables import marked, plain
from archgen.render.target import rack_scope
from archgen.units import Q_
from tests.conftest import SPECS, case_files, run_specs
from tests.data.clusters.small import files

#: An air-cooled management switch of the fixtures, its 100 W maximum listed unconfirmed.
MGMT = """kind: Switch
id: mgmt-x
name: Management test switch
source: test fixture (not a real part)
technology: ethernet
ports: {count: 48, speed: 1 Gbit/s}
mechanical: {height: 1 U, weight: 5 kg}
power: {max: 100 W}
unconfirmed: [power.max]
"""


def _key_rows(r, path):
    """A rack document's abstract (lead text, key-metrics rows by name)."""
    a = r.racks[path]
    section = abstract(rack_scope(r, a, "r", "2026-01-01")[0], a)
    return section.blocks[0].text, dict(next(b for b in section.blocks if getattr(b, "id", "") == "key-metrics").rows)


def test_the_mark_says_how_much_or_all_or_the_band():
    kw = Q_(57.3, "kW")
    assert marked(CONFIRMED) is plain
    assert fmt.cell(marked(Share(1.0))(kw), "kW", 1) == "57.3 kW (unconfirmed)"
    assert fmt.cell(marked(Share(0.1 / 57.3))(kw), "kW", 1) == "57.3 kW (0.1 kW of it unconfirmed)"
    assert fmt.cell(marked(Share(0.99))(Q_(100, "kW")), "kW", 1) == "100.0 kW (all but 1.0 kW of it unconfirmed)"
    assert fmt.cell(marked(Share(0.2, (0.9, 1.0)))(Q_(10, "kW")), "kW", 1) == \
        "10.0 kW (unconfirmed: 9.0 kW to 10.0 kW)"
    assert marked(Share(0.5))(Q_(0, "kW")) == Q_(0, "kW")   # no draw makes a zero
    # a second word keeps the first one's amount: the coolant flow on the loop's assumed ΔT
    flow = fmt.noted(marked(Share(0.25))(Q_(100, "L/min")), "assumed")
    assert fmt.cell(flow, "L/min", 1) == "100.0 L/min (25.0 L/min of it unconfirmed, assumed)"
    # a band only where every unconfirmed draw states a range: an estimate without one leaves it out
    assert share([(None, 9.0, False), (None, 1.0, True)]) == Share(0.1)
    assert share([(None, 9.0, False), (None, 1.0, False)]) == CONFIRMED


def test_one_small_unconfirmed_part_reads_its_share(spec_tree):
    """Four DGX H100 at NVIDIA's published 10.2 kW and one 100 W switch listed unconfirmed: 0.10 kW of 40.9 kW."""
    tree = files(switch="sw8")
    tree["racks/r.yaml"] = tree["racks/r.yaml"].replace(
        "  - {at: 3, part: dgx-h100, count: 4}\n", "  - {at: 3, part: dgx-h100, count: 4}\n"
                                                   "  - {at: 40, part: mgmt-x, count: 1}\n", 1)
    tree["parts/mgmt-x.yaml"] = MGMT
    r = run([spec_tree(tree)])
    a = r.racks["rack/c4"]
    small = fmt.q(Q_(100, "W"), "kW", 1)
    lead, rows = _key_rows(r, "rack/c4")
    it = fmt.q(a.power.it_power, "kW", 1)
    assert rows["IT power at the equipment (maximum)"] == f"{it} ({small} of it unconfirmed)"   # was "(unconfirmed)"
    assert f"It draws {it} ({small} of it unconfirmed) at maximum IT load" in lead
    assert rows["Heat to liquid / air"].startswith("0.0 kW / ")   # an air-cooled rack's zero stays plain
    scope = rack_scope(r, a, "r", "2026-01-01")[0]
    table = next(b for b in validation_section(scope).blocks if getattr(b, "id", "") == "validation")
    (feeds,) = [row for row in table.rows if row[0] == "PWR001" and row[3] == "pass"]
    assert feeds[4].endswith(" (0.10 kW of it unconfirmed)"), feeds   # a passed check's value carries it too
    c = r.clusters["cluster/c"]
    section = power_cooling(cluster_scope(r, c, "r", "2026-01-01")[0], c)
    by_type = {row[0]: row for row in next(b for b in section.blocks if getattr(b, "id", "") == "power-by-rack").rows}
    racks = c.cluster.rack_counts["c4"]
    assert by_type["c4"][2] == fmt.Noted(by_type["c4"][2].value, "unconfirmed", by_type["c4"][2].part)
    assert fmt.q(by_type["c4"][2].part, "kW", 2) == fmt.q(racks * Q_(100, "W"), "kW", 2)
    assert not isinstance(by_type["net"][2], fmt.Noted)   # the sw8 racks rest on no unconfirmed draw


def test_a_stated_range_gives_a_band(spec_tree):
    """The catalog's 800G SR8 module states 15-17 W (`power_range`) for its unconfirmed 17 W: a rack of switches
    (a QM9700 copy, its figures taken as stated) whose only unconfirmed draw is those modules in their ports reads
    the band, the IT power at both ends."""
    tree = files(switch="qm-x")
    body = [line for line in (SPECS / "catalog" / "switches" / "qm9700.yaml").read_text(encoding="utf-8")
            .splitlines() if not line.startswith(("id:", "unconfirmed:"))]
    tree["parts/qm-x.yaml"] = "\n".join(["id: qm-x", *body, ""])
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("[dac-800g-osfp, acc-800g-osfp, mmf-800g-sr8, "
                                                              "smf-800g-dr8]", "[mmf-800g-sr8]")
    r = run([spec_tree(tree)])
    link = r.design.specs.get("mmf-800g-sr8")
    assert link.is_unconfirmed("power_per_end") and link.power_range is not None
    (held,) = unconfirmed_optics_power(r.clusters)["rack/net"].values()
    a = r.racks["rack/net"]
    low, high = (a.power.it_power - Q_(held[1], "kW") * (1 - end / link.power_per_end) for end in link.power_range)
    _, rows = _key_rows(r, "rack/net")
    assert rows["IT power at the equipment (maximum)"] == (f"{fmt.q(a.power.it_power, 'kW', 1)} (unconfirmed: "
                                                           f"{fmt.q(low, 'kW', 1)} to {fmt.q(high, 'kW', 1)})")
    assert low < high == a.power.it_power
    # without the range the same rack reads how much of it instead
    shares = rack_shares(a, r.design.specs, {"rack/net": {"mmf-800g-sr8": (link.model_copy(
        update={"power_range": None}), held[1])}})
    assert shares.it.band is None and 0 < shares.it.part < 1
    c = r.clusters["cluster/c"]
    section = power_cooling(cluster_scope(r, c, "r", "2026-01-01")[0], c)
    (fabric,) = [row for row in next(b for b in section.blocks if getattr(b, "id", "") == "network-power").rows
                 if row[0] == "f"]
    assert isinstance(fabric[1], fmt.Noted) and fabric[1].band is not None and fabric[1].band[1] == fabric[1].value


def _liquid(tmp_path):
    """COOL012's liquid-cooled rack of four MI355X platforms, their figures taken as confirmed (a test copy), and
    one air-cooled switch whose 100 W is listed unconfirmed."""
    tree = case_files("COOL012", "pass_in_row_cdu_not_placed")
    body = [line for line in (SPECS / "catalog" / "systems" / "amd-mi355x-platform.yaml").read_text(encoding="utf-8")
            .splitlines() if not line.startswith(("id:", "unconfirmed:"))]
    tree["catalog/plat-x.yaml"] = "\n".join(["id: plat-x", *body, ""])
    tree["catalog/mgmt-x.yaml"] = MGMT
    tree["racks/r.yaml"] = tree["racks/r.yaml"].replace("part: amd-mi355x-platform, count: 4}",
                                                        "part: plat-x, count: 4}\n- {at: 45, part: mgmt-x, count: 1}")
    return run_specs(tmp_path, tree)


def test_heat_to_liquid_follows_the_liquid_cooled_parts_as_req005_does(tmp_path):
    """Item 3: the rack abstract's liquid-heat mark followed any unconfirmed draw, where REQ005 names only the
    liquid-cooled parts' draws and fractions for heat to liquid. One rule now: an air-cooled switch's estimate marks
    the heat to air (its 100 W of it), not the heat to liquid."""
    r = _liquid(tmp_path)
    a = r.racks["rack/r"]
    assert a.cooling.heat_liquid.m > 0
    _, rows = _key_rows(r, "rack/r")
    liquid, air = rows["Heat to liquid / air"].split(" / ")
    assert liquid == fmt.q(a.cooling.heat_liquid, "kW", 1)   # was "(unconfirmed)"
    assert air == f"{fmt.q(a.cooling.heat_air, 'kW', 1)} ({fmt.q(Q_(100, 'W'), 'kW', 1)} of it unconfirmed)"
    assert rows["Coolant flow"].startswith(fmt.q(a.cooling.coolant_flow, "L/min", 1)) and \
        "unconfirmed" not in rows["Coolant flow"]
    named = rack_power_inputs(r.racks, r.design.specs)["rack/r"]
    shares = rack_shares(a, r.design.specs, {})
    for metric, part in (("heat_to_liquid", shares.liquid), ("coolant_flow", shares.liquid),
                         ("heat_to_air", shares.air), ("air_flow", shares.air), ("it_power", shares.it)):
        assert bool(named.get(metric)) == bool(part.part), metric   # REQ005 names inputs where the mark marks
