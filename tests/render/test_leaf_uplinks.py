"""A partly filled leaf keeps a full leaf's uplinks, and the fabric section says so (review47's open item 5).

The tier split derives a leaf's up ports from its switch's port split at the fabric's oversubscription
(`analyse.tiers.split`: u = ⌊k / (1 + o)⌋), not from the ports a leaf holds, so the sizing cables every leaf as a
full one. The GB300 SU's storage-inband leaves (SN5610, 256 x 200G at 1:1: 128 down, 128 up) hold the 288 tray
ports filled in order, 128 + 128 + 32: the third keeps 128 uplinks for 32 ports, 0.25:1, and the document said
nothing of it.
"""

from __future__ import annotations

import pytest

from archgen.pipeline import run
from archgen.render.cluster_fabrics import uplink_note
from tests.conftest import REPO


@pytest.fixture(scope="module")
def su():
    return run([REPO / "examples" / "gb300-nvl72-su"]).clusters["cluster/gb300-nvl72-su"]


def _fabric(cluster, fid: str):
    return next(fa for fa in cluster.fabrics if fa.fabric.spec.id == fid)


def test_a_partly_filled_leaf_is_said_to_keep_a_full_leafs_uplinks(su) -> None:
    fa = _fabric(su, "storage-inband")
    leaf = fa.tier_at("leaf")
    assert (leaf.switches, leaf.down, leaf.up, fa.links["access"], leaf.up_used) == (3, 128, 128, 288, 384)
    assert fa.leaf_endpoints() == [128, 128, 32]
    note = uplink_note(fa)
    assert note is not None
    assert "uplinks are provisioned for a full leaf" in note
    assert "2 of them hold 128 access ports each and the last 32" in note
    assert "it runs 32 ports on 128 uplinks (0.25:1), 96 more than its ports need" in note   # 32 x 200G / 128 x 200G


def test_full_leaves_need_no_note(su) -> None:
    """The compute fabric's 8 rail leaves each hold 72 of 72 down ports: nothing to say."""
    assert uplink_note(_fabric(su, "compute")) is None


def test_the_fullest_leaf_is_the_most_ports_used_per_switch(su) -> None:
    """`leaf.max_ports_used_per_switch` is the first storage leaf's 128 access ports + 128 uplinks = 256, not the even
    spread (288 + 384) / 3 = 224, which no leaf uses (spine31)."""
    fa = _fabric(su, "storage-inband")
    assert fa.metrics["leaf.max_ports_used_per_switch"].m == 128 + 128
    assert fa.metrics["spine.max_ports_used_per_switch"].m == 384 // 2       # 2 spines take the uplinks evenly
