"""CAB013's count (`analyse.port_numbers.ports_past`) against the port map's own numbering (review54).

The guard counts each switch's links from the cabling's runs, not from the port map's rows; these tests hold the two
to one account: every switch the map numbers a port "(past the down ports)" on is one the guard names, with the
same ports, and a fabric sized by the model has none.
"""

from __future__ import annotations

import re

import pytest

from archgen.analyse.port_numbers import ports_past
from archgen.analyse.portmap import port_map
from archgen.pipeline import run
from tests.data.clusters.small import files


def _past_in_map(c) -> dict[str, str]:
    """{switch: its ports the port map marks past its down or up ports}, joined as the map writes them."""
    out: dict[str, list[str]] = {}
    for row in port_map(c).rows:
        for end in (row.a, row.b):
            for part in end.port.split(", "):
                m = re.fullmatch(r"(.+) \(past the (down|up) ports\)", part)
                if m:
                    out.setdefault(end.device, []).append(m.group(1))
    return {k: ", ".join(v) for k, v in out.items()}


@pytest.mark.parametrize("count", [1, 2])
def test_the_guard_names_what_the_map_numbers_past_the_ports(spec_tree, count) -> None:
    """A fixed leaf count under the 16 leaves the 64 node ports need (NET018) puts the ports past the last leaf's 4
    down ports: the map marks them, and the guard names that leaf, its links and the first port past them."""
    tree = files(racks=1, sus=2, switch="sw8", tiers=2, rail=False)
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace("leaf: {rack: net}", f"leaf: {{rack: net, count: {count}}}")
    c = run([spec_tree(tree)]).clusters["cluster/c"]
    past = ports_past(c)
    in_map = _past_in_map(c)
    assert [p.switch for p in past] == list(in_map) == [f"f-leaf-{count:02d}"]
    [p] = past
    assert (p.up, p.ports, p.links) == (False, 4, 64 - 4 * (count - 1))
    assert p.past == f"5-{p.links}" and in_map[p.switch].startswith("5")


@pytest.mark.parametrize(("over", "planes", "rail"), [("1:1", 1, True), ("3:1", 2, True), ("2:1", 1, False)])
def test_a_fabric_the_model_sizes_has_none(spec_tree, over, planes, rail) -> None:
    c = run([spec_tree(files(racks=2, sus=3, switch="sw8", tiers=3, planes=planes, rail=rail, over=over))]) \
        .clusters["cluster/c"]
    assert ports_past(c) == [] and _past_in_map(c) == {}
