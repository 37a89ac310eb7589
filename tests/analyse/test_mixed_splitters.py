"""cab29: a mixed access tier names each cable by what it carries, a 1:2 splitter or a straight cord.

A ConnectX-8's single-port 800G DR4 (`smf-800g-dr4-rhs`, one MPO-12/APC) split 2 x 400G over two planes leaves on one
cable split at the far end (NVIDIA DGX SuperPOD B300 on Spectrum-X, Table 3: one node-leaf cable per 800G port,
tests/analyse/test_split_cables.py); a reserved leaf port (UFM) ends at a single-port cage (docs/clusters.md, Media
choice: "access ports that end at no node ... end at a single-port cage, so each takes its own cable"), one link on
a straight cord. NVIDIA sells the two apart (MFP7E30 straight single-mode, MFP7E40 1:2 splitter: MMS4X00-NS400
overview, https://docs.nvidia.com/networking/display/mms4x00ns400/overview). On main the BOM took the option's split
for every cable of it: the 4 reserved ports' straight cords were ordered as 1:2 splitters (260 splitters, where
the port map listed 256 splitters and 4 straight cords).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from tests.data.clusters.build import b300_planes

SPLIT = "fibre-singlemode-mpo-12-apc-type-b-split-1x2-os2-10m"
STRAIGHT = "fibre-singlemode-mpo-12-apc-type-b-os2-10m"


def test_reserved_ports_take_straight_cords_beside_splitters(tmp_path: Path) -> None:
    """256 SuperNIC cables (512 links over two planes) are splitters, the 4 reserved ports' 4 cables straight;
    the BOM's fibre lines count what the port map lists, cable by cable."""
    from archgen.analyse.portmap import port_map
    from archgen.pipeline import analyse_paths

    b300_planes(tmp_path, "b300-mixed", 1, speed="400 Gb/s", nic_breakout="2x400G", tiers=2, planes=2,
                reserved="[{name: UFM appliances, ports: 4}]", oversubscription='"2:1"')
    a = analyse_paths([tmp_path]).clusters["cluster/b300-mixed"]
    access = next(t for t in a.cabling.tiers if t.tier == "access")
    assert (access.links, access.physical) == (256 * 2 + 4, 256 + 4)
    rows = Counter(r.cable for r in port_map(a).rows if r.tier == "access")
    assert dict(rows) == {SPLIT: 256, STRAIGHT: 4}
    bom = {line.part: line.quantity for line in a.cabling.bom if line.kind == "Fibre"}
    leaf_spine = next(t for t in a.cabling.tiers if t.tier == "leaf_spine").physical   # straight DR8 cords, 10 m
    assert bom == {SPLIT: 256, STRAIGHT: 4 + leaf_spine}   # was {SPLIT: 260, STRAIGHT: leaf_spine}
