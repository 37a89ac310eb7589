"""A front end's ports out of the cluster (`reserved[].north_south`) give its north-south bandwidth and ratio.

Input: the passing case of NET024 (two racks of four DGX H100 and a converged 200G storage / in-band fabric on
their storage NICs) with 4 border-leaf ports to the site core. Formula: bandwidth = north-south ports x the fabric's line rate (4 x 200 Gb/s = 800 Gb/s); oversubscription =
the node ports over them, at the same rate (the fabric's node ports / 4). Without the key neither metric is given, and
NET024 says the front end's way out is not provided (info).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from archgen.pipeline import run
from tests.conftest import REPO, write_tree

CASES = REPO / "tests" / "checks" / "cases" / "NET024.yml"


def _case(name: str) -> dict[str, str]:
    data = YAML(typ="safe").load(CASES.read_text(encoding="utf-8"))
    return next(c["files"] for c in data["cases"] if c["name"] == name)


def test_north_south_ports_give_bandwidth_and_ratio(tmp_path: Path) -> None:
    r = run([REPO / "specs", write_tree(tmp_path, _case("pass_management_and_converged_front_end"))], select=("NET",))
    m = r.metrics["cluster/c/fabric/storage"]
    node_ports = r.clusters["cluster/c"].fabrics[1].node_ports
    assert m["north_south_bandwidth"].to("Gbit/s").m == 4 * 200
    assert m["north_south_oversubscription"].m == node_ports / 4
    assert not [f for f in r.findings if f.id == "NET024" and f.object.startswith("cluster/c/")]


def test_front_end_without_them_says_so(tmp_path: Path) -> None:
    files = _case("fail_converged_front_end_without_north_south_ports")
    r = run([REPO / "specs", write_tree(tmp_path, files)], select=("NET",))
    assert "north_south_bandwidth" not in r.metrics["cluster/c/fabric/storage"]
    found = [f for f in r.findings if f.id == "NET024" and f.object.startswith("cluster/c/")]
    assert [(f.object, f.severity) for f in found] == [("cluster/c/fabric/storage/north-south", "info")]


def test_cabling_says_the_north_south_far_end_is_not_placed(tmp_path: Path) -> None:
    """newuser82's leftover 4: the 4 north-south ports' run is the floor's longest, assumed, with the core unplaced.

    Floor of the case: 2 racks at 600 mm pitch in one row, tray drop 1.5 m and archgen's default slack:
    2 x 1.5 m + 0.6 m (the racks' span) + slack, the length `analyse.cabling.floor_span` gives.
    """
    from archgen.render.cabling import cabling

    r = run([REPO / "specs", write_tree(tmp_path, _case("pass_management_and_converged_front_end"))], select=("NET",))
    a = r.clusters["cluster/c"]
    text = " ".join(str(b) for b in cabling(a).blocks)
    [run_] = [t for t in a.cabling.runs if t.fabric == "storage" and t.tier == "access"]
    span = float(run_.length[run_.a_rack < 0].max())
    assert "fabric storage, 4 north-south link(s) to the site core, its position not stated" in text
    assert f"{span:.1f} m each" in text
    slack = a.cluster.spec.floor.slack.m_as("m")
    assert span == pytest.approx(2 * 1.5 + 0.6 + slack)
