"""A scale-up domain's size and switch hops are metrics, so a requirement can judge them (newuser83).

A scale-up architect comparing a UALink pod (up to 1,024 accelerators through UALink switches, UALink 200G 1.0
specification, April 2025) with a rack of Ethernet scale-up (Broadcom Tomahawk Ultra, 2025) writes requirements
such as "a domain of at least 72 accelerators" and "at most one switch hop". Such a requirement was refused at
validation ("unknown metric 'scale_up.size': no cluster metric is named like it"): the domain's size and hops were
figures of the spec and of the estimate only. `scale_up.size` is the spec's `size` (over all its racks), `scale_up.switch_hops` the switches
a send between two accelerators of one domain crosses at most: one inside a rack's switch trays (NVIDIA GB200 NVL72:
every GPU links to each of the 9 NVLink switch trays), two over several racks (own rack's switch, trunk, the other
rack's: NVIDIA Multi-Node NVLink Tuning Guide, "The 36x2 Configuration"; `analyse.scale_up_racks`), none in a
mesh or torus (direct links).
"""

from __future__ import annotations

from archgen.commands.gap import gap
from tests.analyse.test_scale_up_racks import _text
from tests.conftest import SPECS, run_specs

REQUIREMENTS = """\
kind: Requirements
id: shape
requirements:
  - {id: R-SIZE, statement: A domain of at least 72 accelerators, subject: "cluster/*", metric: scale_up.size,
     target: ">= 72"}
  - {id: R-HOPS, statement: One switch hop inside a domain, subject: "cluster/*", metric: scale_up.switch_hops,
     target: "<= 1"}
"""


def _metrics(run, cluster: str) -> tuple[float, float]:
    got = run.metrics[f"cluster/{cluster}"]
    return got["scale_up.size"].m, got["scale_up.switch_hops"].m


def test_an_nvl72_rack_is_a_domain_of_72_one_hop_and_meets_both(tmp_path) -> None:
    reqs = tmp_path / "reqs"
    reqs.mkdir()
    (reqs / "shape.yaml").write_text(REQUIREMENTS, encoding="utf-8")
    report = gap([SPECS / "clusters" / "gb200-nvl72-su.yaml"], [reqs])
    assert {r.requirement.id: r.status for r in report.rows} == {"R-SIZE": "met", "R-HOPS": "met"}


def test_an_nvl36x2_is_a_domain_of_72_over_two_racks_two_hops(tmp_path) -> None:
    run = run_specs(tmp_path, {"c.yaml": _text()})
    assert _metrics(run, "pod") == (72, 2)


def test_the_shipped_designs_give_each_shape(shipped) -> None:
    """DGX B200 (8, NVSwitch on the board), NVL72 (72), MI355X (an Infinity Fabric mesh of 8)."""
    assert _metrics(shipped, "dgx-b200-superpod") == (8, 1)
    assert _metrics(shipped, "gb200-nvl72-su") == (72, 1)
    assert _metrics(shipped, "mi355x-th5") == (8, 0)
