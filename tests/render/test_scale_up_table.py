"""The cluster document names its scale-up interconnect and shape (newuser22's finding).

Before: the scale-up table of the MI355X cluster document (specs/clusters/mi355x-th5.yaml, `technology:
infinity-fabric`, `topology: mesh`) gave only counts (domains, links, switch ports, aggregate bandwidth); the stated
technology and shape appeared nowhere in the document, so a partner read an NVLink-style domain into it (the
glossary defines NVLink and no other scale-up interconnect).
"""

from __future__ import annotations

import re

from archgen.render import render_all
from archgen.render.scale_up import TECHNOLOGY, TOPOLOGY
from tests.conftest import shared_diagrams
from tests.render.golden_util import table_caption


def _scale_up_table(md: str) -> dict[str, str]:
    block = md.split(table_caption(md, "Scale-up domain*"), 1)[1].split("\n\n", 2)[1]
    return dict(re.findall(r"^\| ([^|]+?) \| (.+?) \|$", block, re.M))


def _md(run, tmp_path, target: str) -> str:
    with shared_diagrams():
        render_all(run, tmp_path, target=target, formats=("md",), revision="test", progress=False)
    return (tmp_path / target / f"{target}.md").read_text(encoding="utf-8")


def test_the_amd_cluster_says_infinity_fabric_mesh(shipped_run, tmp_path) -> None:
    rows = _scale_up_table(_md(shipped_run, tmp_path, "mi355x-th5"))
    assert rows["Technology"] == TECHNOLOGY["infinity-fabric"] == "Infinity Fabric (AMD xGMI)"
    assert rows["Topology"] == TOPOLOGY["mesh"] and "no switch" in rows["Topology"]
    assert rows["Links per domain (peer to peer)"] == "28"  # 8 x 7 / 2: every pair of an 8-GPU mesh, once


def test_the_nvlink_cluster_says_nvlink_switched(shipped_run, tmp_path) -> None:
    rows = _scale_up_table(_md(shipped_run, tmp_path, "gb200-nvl72-su"))
    assert rows["Technology"] == "NVLink" and rows["Topology"].startswith("switched")


def test_every_stated_technology_and_topology_has_words() -> None:
    from archgen.model.cluster import ScaleUp
    for field, words in (("technology", TECHNOLOGY), ("topology", TOPOLOGY)):
        # every technology a domain may state has words (`TECHNOLOGY` also words the switch-only ones, catalog2)
        assert set(ScaleUp.model_fields[field].annotation.__args__) <= set(words), field
