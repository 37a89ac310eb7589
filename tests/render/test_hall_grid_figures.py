"""What the cluster document tells a hall's electrical engineer about its load over time and its upstream plant."""

from __future__ import annotations

import pytest

from tests.one_hall import cluster  # two GB200 NVL72 racks in a hall


def _hall_rows(tmp_path, hall: str, table: str) -> dict[str, str]:
    from archgen.render.cluster import cluster_scope
    from archgen.render.datacentre import datacentre
    from tests.conftest import run_specs
    run = run_specs(tmp_path, {"specs.yaml": hall + cluster("c", facility="h")})
    a = run.clusters["cluster/c"]
    scope, _ = cluster_scope(run, a, "r", "2026-01-01")
    return dict(next(b for b in datacentre(scope, a).blocks if getattr(b, "id", "") == table).rows)


_HALL = """kind: Facility
id: h
floor_rating: 2500 kg/m**2
water: {supply: 30 degC}
air: {supply: 25 degC}
"""


def test_load_swing_is_said_to_be_not_provided(tmp_path) -> None:
    """A grid operator asks for the swing in MW and MW/s (NVIDIA's GB300 NVL72 power smoothing exists for it);
    archgen models no power over time, so the needs table says "not provided" with what it would need (before, no
    row: the question went unanswered and unflagged)."""
    rows = _hall_rows(tmp_path, _HALL, "dc-needs")
    swing = rows["Load swing and ramp rate (MW, MW/s)"]
    assert swing.startswith("not provided: no power over time is computed")
    assert "ramp limits" in swing and "MW" not in swing.split(":", 1)[1]
    # newuser55: the one bound the specs give, the depth at most the IT power (the whole load falling to nothing)
    it = rows["IT power at the rack feeds (maximum)"].removesuffix(" (unconfirmed)")   # the needs row marks its draws
    assert swing.endswith(f"its depth is at most the IT power at maximum draw, {it} (the whole load falling to "
                          "nothing: no spec states the draw it falls to)")


def test_steady_figures_say_the_swing_is_not_judged(tmp_path) -> None:
    """newuser55: the UPS, generator and facility power rows are the maximum draw held steady, and say so.

    A utility engineer read "usable 400 kW for 352.7 kW ..., headroom 47.3 kW (PWR011)" and "Facility power ...
    at peak PUE 1.3" as covering a load that swings with every training step (arXiv:2508.14318); PWR011 judges the
    maximum draw only, and PWR022 says the swing is not judged.
    """
    hall = _HALL + """peak_pue: 1.3
feeds: {generators: N+1, generator_units: {count: 3, capacity: 200 kW}}
"""
    rows = _hall_rows(tmp_path, hall, "dc-hall")
    assert rows["Generator redundancy"].endswith("(PWR011), at the maximum draw held steady, its swing not judged "
                                                 "(PWR022)")
    assert rows["Facility power at design conditions (IT power × peak PUE)"].endswith(
        "at peak PUE 1.3, at the maximum draw held steady (its swing: the load swing row, not provided)")


def test_upstream_rows_show_what_pwr011_compared(tmp_path) -> None:
    """The UPS and generator rows give PWR011's usable capacity, load and headroom, so a pass shows its margin.

    Two GB200 NVL72 racks (271.3 kW at their feeds, `it_power`) on N+1 of 3 x 150 kW UPS modules: 2 x 150 = 300 kW
    usable; on N+1 of 3 x 200 kW generator sets at peak PUE 1.3: 400 kW usable for 271.3 x 1.3 = 352.7 kW (before,
    the rows gave only the scheme and the units, and PWR011's pass row in the validation report no figure).
    """
    from tests.conftest import run_specs
    hall = _HALL + """peak_pue: 1.3
feeds:
  ups: N+1
  ups_units: {count: 3, capacity: 150 kW}
  generators: N+1
  generator_units: {count: 3, capacity: 200 kW}
"""
    it = run_specs(tmp_path / "run", {"specs.yaml": hall + cluster("c", facility="h")}).metrics["cluster/c"][
        "it_power"].m_as("kW")
    rows = _hall_rows(tmp_path, hall, "dc-hall")
    assert rows["UPS redundancy"] == (f"N+1 (3 x 150 kW modules); usable 300 kW for {it:.1f} kW of IT power, "
                                      f"headroom {300 - it:.1f} kW (PWR011), at the maximum draw held steady, its swing not judged (PWR022)")
    assert rows["Generator redundancy"] == (
        f"N+1 (3 x 200 kW sets); usable 400 kW for {it * 1.3:.1f} kW of facility power at design conditions (the "
        "UPS batteries' recharge after a ride-through left out: not provided), "
        f"headroom {400 - it * 1.3:.1f} kW (PWR011), at the maximum draw held steady, its swing not judged (PWR022)")
    recharged = _hall_rows(tmp_path / "recharge", hall.replace("generators: N+1", "ups_recharge: 10 kW\n  generators: N+1"),
                           "dc-hall")
    assert recharged["Generator redundancy"] == (   # power29: 3 x 10 kW, counted once for the hall
        f"N+1 (3 x 200 kW sets); usable 400 kW for {it * 1.3 + 30:.1f} kW of facility power at design conditions and "
        "the UPS battery recharge after a ride-through (at most 3 x 10.0 kW = 30.0 kW, the chargers' full power, once for the hall), "
        f"headroom {400 - it * 1.3 - 30:.1f} kW (PWR011), at the maximum draw held steady, its swing not judged (PWR022)")


def test_power_table_totals_are_the_heat_the_hall_checks_count(shipped) -> None:
    """The cluster document's power table sums each rack with its own optics, so its total heat to air is COOL009's
    and the data-centre requirements' (`rack_heat`), and its input power plus the parts in no rack is the IT power.

    Before, each type's most loaded rack x count: the DGX B200 SuperPOD's table gave 1,049 W more than its racks
    hold (tests/analyse/test_heat_balance.py), and a 64-rack GB300 hall 2,278.4 kW of heat to air against the
    2,265.3 kW COOL009 judged.
    """
    from archgen.analyse.rack_heat import rack_heat, unracked_heat
    from archgen.render.cluster import cluster_scope, power_cooling
    a = shipped.clusters["cluster/dgx-b200-superpod"]
    scope, _ = cluster_scope(shipped, a, "r", "2026-01-01")
    table = next(b for b in power_cooling(scope, a).blocks if getattr(b, "id", "") == "power-by-rack")
    name, _n, _it, *shown = table.rows[-1]
    feeds, liquid, air = (getattr(v, "value", v) for v in shown)   # a sum of unconfirmed draws is marked
    heat = rack_heat(a, shipped.racks)
    assert name == "All racks"
    assert (feeds, liquid, air) == (heat.total, heat.liquid, heat.air)
    assert (feeds + unracked_heat(a)).m_as("W") == pytest.approx(shipped.metrics[a.cluster.path]["it_power"].m_as(
        "W"), abs=1.0)


def test_upstream_headroom_in_a_shared_hall_is_the_clusters_own(tmp_path) -> None:
    """PWR011 judges each cluster alone (and warns where the run's clusters exceed the hall together), so with a
    second cluster naming the hall the row's headroom is said to be this cluster's alone: 300 kW less one cluster's
    feed power, not two."""
    from archgen.render.cluster import cluster_scope
    from archgen.render.datacentre import datacentre
    from tests.conftest import run_specs
    hall = _HALL + "feeds:\n  ups: N+1\n  ups_units: {count: 3, capacity: 150 kW}\n"
    run = run_specs(tmp_path, {"specs.yaml": hall + cluster("c", facility="h") + cluster("d", facility="h")})
    a = run.clusters["cluster/c"]
    it = run.metrics["cluster/c"]["it_power"].m_as("kW")
    scope, _ = cluster_scope(run, a, "r", "2026-01-01")
    rows = dict(next(b for b in datacentre(scope, a).blocks if getattr(b, "id", "") == "dc-hall").rows)
    assert rows["UPS redundancy"].endswith(f"headroom {300 - it:.1f} kW (this cluster alone) (PWR011), at the maximum draw held steady, its swing not judged (PWR022)")


def test_a_generator_headroom_on_the_annual_pue_says_it_is_optimistic(tmp_path) -> None:
    """Without `peak_pue` PWR011 judges the generator sets on IT power x the annual PUE and says, as an info finding,
    that the margin is optimistic; the document's row gave the same headroom as a plain figure. 2 x 200 kW usable
    (N+1 of 3) for IT power x 1.2."""
    from tests.conftest import run_specs
    hall = _HALL + """cost:
  energy: {price: 0.09 USD/kWh, pue: 1.2, basis: assumed, source: test case}
  space_per_rack: 2000 USD/month
  depreciation_years: 5
  basis: assumed
  source: test case
feeds:
  generators: N+1
  generator_units: {count: 3, capacity: 200 kW}
"""
    it = run_specs(tmp_path / "run", {"specs.yaml": hall + cluster("c", facility="h")}).metrics["cluster/c"][
        "it_power"].m_as("kW")
    rows = _hall_rows(tmp_path, hall, "dc-hall")
    assert rows["Generator redundancy"] == (
        f"N+1 (3 x 200 kW sets); usable 400 kW for {it * 1.2:.1f} kW of facility power on the annual PUE (no "
        f"`peak_pue`: optimistic), headroom {400 - it * 1.2:.1f} kW (PWR011), at the maximum draw held steady, its swing not judged (PWR022)")


def test_facility_power_metrics_say_they_are_the_steady_maximum() -> None:
    """newuser55: `facility_power` read "what the hall draws from its utility feed", a steady figure for a load that
    swings each training step (arXiv:2508.14318); the metric documents (check --format json, docs/metrics.md) now say
    it is the maximum IT draw held steady, and the generator load's steps are not judged (PWR022)."""
    from archgen import metrics
    by_name = {m.name: m for m in metrics.declared("cluster")}
    assert "held steady" in by_name["facility_power"].description
    assert "PWR022" in by_name["facility_power_peak"].description


def test_utility_row_says_a_shared_connection_is_not_judged(tmp_path) -> None:
    """newuser55: utility capacity is judged per hall, never summed across the halls at a shared connection.

    No spec names a connection several halls share (a campus substation), so the utility row says its pass is this
    hall's load alone (before: "... headroom ... (PWR011), at the maximum draw held steady, its swing not judged
    (PWR022)", read as the site's answer). The generator row, the hall's own plant, does not say it.
    """
    hall = _HALL + """peak_pue: 1.3
feeds:
  generators: N+1
  generator_units: {count: 3, capacity: 200 kW}
  utility: N+1
  utility_units: {count: 3, capacity: 200 kW}
"""
    rows = _hall_rows(tmp_path, hall, "dc-hall")
    assert rows["Utility feeds"].endswith("its swing not judged (PWR022); this hall's load alone: a utility "
                                          "connection shared with other halls not judged (none is stated: "
                                          "`feeds.shared_utility`)")
    assert "shared" not in rows["Generator redundancy"]


def test_utility_row_of_a_hall_naming_its_shared_connection(tmp_path) -> None:
    """A hall that names its shared connection (`feeds.shared_utility`, judged by PWR011) does not say it is unjudged."""
    hall = _HALL + """peak_pue: 1.3
feeds:
  utility: N+1
  utility_units: {count: 3, capacity: 200 kW}
  shared_utility: {id: campus, capacity: 1 MW}
"""
    rows = _hall_rows(tmp_path, hall, "dc-hall")
    assert rows["Utility feeds"].endswith("its swing not judged (PWR022)")
