"""The data-centre table's heaviest floor load says when it is a lower bound (review47).

The GB200 SU's "Heaviest rack floor load | 2,114 kg/m²" is the NVL72 rack's, whose weight leaves out the cables and
transceivers in its ports and the coolant in its loop (and, since weight36, its enclosure, whose empty weight is not
provided: 1,880 kg/m² now): the rack's own document reads "at least 1,880 kg/m²" and the
requirements on it are not provided (REQ002), but the hall's table, the one a facility partner designs the slab
from, printed it as the figure to carry.
"""

from __future__ import annotations


def test_the_heaviest_floor_load_reads_at_least_where_the_weight_leaves_parts_out(shipped):
    from archgen.render.cluster import cluster_scope
    from archgen.render.datacentre import datacentre
    a = shipped.clusters["cluster/gb200-nvl72-su"]
    scope, _ = cluster_scope(shipped, a, "r", "2026-01-01")
    needs = dict(next(b for b in datacentre(scope, a).blocks if getattr(b, "id", "") == "dc-needs").rows)
    rack = shipped.racks["rack/gb200-nvl72"].space
    assert rack.lower_bound and round(rack.floor_load.m_as("kg/m**2")) == 1880
    assert needs["Heaviest rack floor load"] == ("at least 1,880 kg/m² (gb200-nvl72, a lower bound: its weight "
                                                 "leaves out what Rack design names; 1,857 kg/m² of it unconfirmed)")
