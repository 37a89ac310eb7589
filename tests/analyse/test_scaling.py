"""The scaling series: the same cluster analysis at 1, 2, 4, ... times the layout, up to the fabric's largest size.

Switch counts are checked against NVIDIA's DGX SuperPOD B200 scaling table (the rows and citation are in
tests/test_clusters.py, whose `_superpod` helper writes the scaled specs the pipeline is compared with).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from archgen.analyse.scaling import scaled_spec, scaling
from archgen.pipeline import run
from tests.data.clusters.small import files
from tests.test_clusters import RACKS, SCALING, _superpod

SPECS = Path(__file__).resolve().parents[2] / "specs"



def _series(result, cluster_id: str):
    cluster = next(c for c in result.design.clusters if c.spec.id == cluster_id)
    return scaling(result.design, result.racks, cluster)


def _transceivers(analysis) -> int:
    """Optical module ends of a pipeline cluster analysis, counted independently of `scaling`."""
    optical = {end.id for t in analysis.cabling.tiers for opt in t.options for end in (opt.a, opt.b)
               if end.media in ("multimode", "singlemode")}
    return sum(line.quantity for line in analysis.cabling.bom if line.kind == "Link" and line.part in optical)


def test_the_design_is_the_first_point(shipped) -> None:
    """Factor 1 is the design itself: the pipeline's accelerators, switches, optics and network power."""
    for cid in ("dgx-b200-superpod", "gb200-nvl72-su"):
        a, m = shipped.clusters[f"cluster/{cid}"], shipped.metrics[f"cluster/{cid}"]
        first = _series(shipped, cid).points[0]
        assert (first.factor, first.accelerators, first.racks) == (1, m["accelerators"].m, m["racks"].m)
        assert first.network_power.m_as("kW") == pytest.approx(m["network_power"].m_as("kW"))
        assert first.switches == {fa.fabric.spec.id: {t.name: t.switches * fa.planes for t in fa.tiers}
                                  for fa in a.fabrics}
        assert first.transceivers == _transceivers(a)


def test_b200_series_reproduces_the_ra_scaling_table(tmp_path: Path) -> None:
    """2 SUs doubled five times: leaf/spine/core switches of the compute fabric match the RA for 2 to 64 SUs."""
    result = run([_superpod(tmp_path, 2, 0, ufm=False), RACKS])
    series = _series(result, "dgx-b200-superpod")
    got = {p.units: p.switches["compute"] for p in series.points}
    for sus, _nodes, gpus, leaf, spine, core, *_ in SCALING:
        assert got[sus] == {"leaf": leaf, "spine": spine, **({"core": core} if core else {})}
        assert next(p for p in series.points if p.units == sus).accelerators == gpus


def test_a_scaled_point_equals_the_pipeline_on_the_scaled_spec(tmp_path: Path) -> None:
    """8 SUs from 2 SUs × 4 in memory = the pipeline run of the spec written with 8 SUs (and 4 spine racks)."""
    small = run([_superpod(tmp_path / "a", 2, 0, ufm=False), RACKS])
    point = next(p for p in _series(small, "dgx-b200-superpod").points if p.factor == 4)
    big = run([_superpod(tmp_path / "b", 8, 0, ufm=False), RACKS])
    a, m = big.clusters["cluster/dgx-b200-superpod"], big.metrics["cluster/dgx-b200-superpod"]
    assert (point.accelerators, point.racks) == (m["accelerators"].m, m["racks"].m)
    assert point.network_power.m_as("kW") == pytest.approx(m["network_power"].m_as("kW"))
    assert point.transceivers == _transceivers(a) > 0


def test_series_stops_at_the_fabric_largest_size(shipped) -> None:
    """B200: 3 tiers of 64-port switches reach 64³/4 = 65,536 GPUs, so 4 SUs double six times (65,024 GPUs);
    GB200 SU: a 2-tier compute fabric of 64-port spines takes 64 leaves; an SU's 72 rails take 18 rail leaves (4 rails
    of 8 racks on each), so 3 whole SUs, 1,728 GPUs (64²/2 = 2,048 before, though a 4th SU's 72 leaves exceed 64
    spine ports), and 576 GPUs double once.
    """
    b200 = _series(shipped, "dgx-b200-superpod")
    assert [p.factor for p in b200.points] == [1, 2, 4, 8, 16, 32, 64]
    assert b200.fabric == "compute" and b200.max_accelerators == 64 ** 3 // 4
    assert b200.points[-1].accelerators <= b200.max_accelerators < 2 * b200.points[-1].accelerators
    assert [p.switches["compute"].get("core", 0) for p in b200.points][:3] == [0, 0, 64]
    gb = _series(shipped, "gb200-nvl72-su")
    assert [p.accelerators for p in gb.points] == [576, 1152] and gb.max_accelerators == 64 // 18 * 576 == 1728
    assert "1,728" in gb.stop


def test_series_grows_and_reports_other_fabrics_problems(shipped) -> None:
    """Counts never shrink as the design doubles; the OOB spine pair's overflow is listed, not hidden."""
    points = _series(shipped, "dgx-b200-superpod").points
    for small, big in zip(points, points[1:], strict=False):
        assert big.switch_total > small.switch_total and big.transceivers > small.transceivers
        assert big.network_power > small.network_power
    assert not points[0].problems
    assert any(fabric == "oob" and problem.check for fabric, problem in points[-1].problems)


def test_rack_limit_bounds_the_series(shipped) -> None:
    """A rack limit stops the doubling early and says so."""
    cluster = next(c for c in shipped.design.clusters if c.spec.id == "dgx-b200-superpod")
    series = scaling(shipped.design, shipped.racks, cluster, max_racks=200)
    assert [p.racks for p in series.points] == [38, 76, 152] and "200 racks" in series.stop


def test_a_cluster_without_racks_has_no_series(shipped) -> None:
    """Nothing to double: an empty series that says why (the document then leaves the growth section out)."""
    import dataclasses
    cluster = next(c for c in shipped.design.clusters if c.spec.id == "gb200-nvl72-su")
    series = scaling(shipped.design, shipped.racks, dataclasses.replace(cluster, rack_counts={}))
    assert series.points == () and series.stop == "the cluster has no racks"


def test_scaled_spec_multiplies_every_layout_entry(shipped) -> None:
    """Units and stand-alone racks alike; the original spec is untouched (models are frozen values)."""
    cluster = next(c for c in shipped.design.clusters if c.spec.id == "dgx-b200-superpod")
    before = [p.count for p in cluster.spec.layout]
    spec = scaled_spec(cluster, 4)
    assert [p.count for p in spec.layout] == [4 * n for n in before]
    assert [p.count for p in cluster.spec.layout] == before


def test_series_ends_where_a_fixed_leaf_count_runs_short(spec_tree) -> None:
    """2 SUs with leaf.count 6 (4 rail leaves derived, 2 spares): at 2 x the 4 SUs need 4 x 2 = 8 leaves, so the
    series is the design alone and says why, instead of growing the accelerators on 6 leaves."""
    tree = files()
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("leaf: {rack: net}", "leaf: {rack: net, count: 6}")
    series = _series(run([spec_tree(tree)]), "c")
    assert [(p.factor, p.switches["f"]["leaf"]) for p in series.points] == [(1, 6)]
    assert series.stop == ("fabric f's fixed leaf.count does not hold 2 × the design (256 accelerators): 6 leaves "
                           "per plane are fewer than the 8 the endpoints need: 4 group(s) of 8 scale-up domains x 2 "
                           "rail leaves for 8 rails")


def test_counts_written_in_the_fabrics_are_named_as_kept(shipped) -> None:
    """What the layout does not multiply is said, not silently held: the GB200 SU's OOB fabric keeps 2 spines
    (`spine.count`). Its 144 tray BMC ports were `endpoints.extra` (kept: 402 access cables at 2 x, not 546, newuser31
    finding 4); as `endpoints.node_management: 1` they grow with the trays (deliv2). Per SU: 144 BMC + 8 racks x (9
    NVLink trays x 3 + 2 SN2201 + 8 power shelves) + 41 network-rack switches = 481; 2 x 481 = 962."""
    series = _series(shipped, "gb200-nvl72-su")
    assert series.kept == ("fabric oob: 2 spine switches (`spine.count`)",)
    cat6a = [dict((line[0], line[3]) for line in p.bom)["cat6a-1g"] for p in series.points]
    per_su = 144 + 8 * (9 * 3 + 2 + 8) + 41
    assert cat6a == [per_su, 2 * per_su] == [481, 962]
    b200 = _series(shipped, "dgx-b200-superpod")
    assert b200.kept == ("fabric compute: 4 reserved leaf ports (UFM appliance)",      # in the spec's order
                         "fabric storage: 32 extra endpoint ports (`endpoints.extra`)",
                         "fabric oob: 2 spine switches (`spine.count`)")
