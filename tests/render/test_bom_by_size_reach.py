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
from archgen.render.reference import over_reach
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
