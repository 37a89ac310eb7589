"""The BOM by size flags runs beyond their media's reach, as CAB001 flags the design's own.

The network architect's job1 rendered 2,048 multimode fibres of 300 m at 2 x the design with no note: the scaled
analysis knew the runs were past the 100 m reach of their SR4 optics (its cabling's `over_reach`) and the section
dropped it. Here the small fixture's leaf-spine links may only be copper or SR8 multimode (50 m, the catalog's
mmf-800g-sr8): the design's runs fit, 8 x the design's do not.
"""

from __future__ import annotations

from archgen.analyse.scaling import scaling
from archgen.pipeline import run
from archgen.render.blocks import Bullets, Para
from archgen.render.reference import over_reach, unlaid
from tests.data.clusters.small import files

FULL = "    leaf_spine: [dac-800g-osfp, acc-800g-osfp, mmf-800g-sr8, smf-800g-dr8]"
SHORT = "    leaf_spine: [dac-800g-osfp, acc-800g-osfp, mmf-800g-sr8]"


def test_runs_past_reach_at_a_larger_size_are_listed_under_the_bom(spec_tree) -> None:
    tree = files(sus=4)
    assert FULL in tree["clusters/c.yaml"]
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace(FULL, SHORT)
    result = run([spec_tree(tree)])
    assert not [f for f in result.findings if f.id == "CAB001"]            # the design itself is within reach
    series = scaling(result.design, result.racks, result.clusters["cluster/c"].cluster)
    beyond = {p.factor: p.over_reach for p in series.points if p.over_reach}
    assert list(beyond) == [8]
    [(fabric, link, label, n, longest, reach)] = beyond[8]
    assert (fabric, link, label, reach.m_as("m")) == ("f", "leaf_spine", "mmf-800g-sr8", 50)
    assert n > 0 and longest > 50
    para, bullets = over_reach(series)
    assert isinstance(para, Para) and "CAB001" in para.text and isinstance(bullets, Bullets)
    assert bullets.items == (f"8 × the design (32 units), fabric f: leaf_spine: {n:,} link(s) up to {longest:.1f} m "
                             "exceed the 50 m reach of mmf-800g-sr8",)


def test_no_note_when_every_size_is_within_reach(spec_tree) -> None:
    result = run([spec_tree(files(sus=4))])
    series = scaling(result.design, result.racks, result.clusters["cluster/c"].cluster)
    assert not any(p.over_reach for p in series.points) and over_reach(series) == ()


#: A second fabric of 8-port test switches on fixed 2 tiers: 4 leaves at the design's size (16 storage ports), 8 at
#: 2 x, 16 at 4 x, more than an 8-port spine joins (NET003), so from 4 x it is counted, not laid out.
STORE = """- id: store
  topology: fat-tree
  role: storage
  speed: 400 Gb/s
  switch: sw8
  ports_per_node: 1
  tiers: 2
  links:
    access: [mmf-800g-sr8]
    leaf_spine: [mmf-800g-sr8]
"""


def test_a_fabric_not_laid_out_at_a_larger_size_is_named_under_the_bom(spec_tree) -> None:
    """The network architect's job1: its OOB fabric's runs beyond reach (cat6a 112 m, SR4 127 m) were listed at 1 x
    and not at 2 x and up. Not because they fit: at 2 x the OOB's fixed 2 tiers hold 96 leaves on 64-port spines
    (NET003), so the fabric is counted but not wired, its links counted as their first option without lengths
    (192 DACs for runs of about 127 m), and the over-reach list had nothing to say. The sizes where a fabric is not
    laid out are now listed under the BOM, with the links counted that way."""
    tree = files(sus=2)
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("fabrics:\n", "fabrics:\n" + STORE)
    result = run([spec_tree(tree)])
    series = scaling(result.design, result.racks, result.clusters["cluster/c"].cluster, max_points=4)
    assert {p.factor: p.unlaid for p in series.points} == {
        1: (), 2: (),
        4: (("store", "access", "mmf-800g-sr8", 64), ("store", "leaf_spine", "mmf-800g-sr8", 64)),
        8: (("store", "access", "mmf-800g-sr8", 128), ("store", "leaf_spine", "mmf-800g-sr8", 128))}
    assert all(not p.over_reach for p in series.points)
    para, bullets = unlaid(series)
    assert "not laid out" in para.text and "not a design" in para.text
    assert bullets.items == (
        "4 × the design (8 units), fabric store: access: 64 link(s) as mmf-800g-sr8, leaf_spine: 64 link(s) as "
        "mmf-800g-sr8",
        "8 × the design (16 units), fabric store: access: 128 link(s) as mmf-800g-sr8, leaf_spine: 128 link(s) as "
        "mmf-800g-sr8")
    assert unlaid(scaling(result.design, result.racks, result.clusters["cluster/c"].cluster, max_points=2)) == ()
