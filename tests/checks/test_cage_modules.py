"""CAB012 judges the link tiers a fabric builds, as the cabling counts them, and says where it judges none (review50).

The small cluster (tests/data/clusters/small.py) with `tiers: auto` builds 2 tiers of QM9700 (32 x OSFP cages, 2 x
400G each). Its `spine_core` options are read by nothing: the cabling counts no spine-core module. Before, CAB012
judged them anyway (a single-port 400G DR4 "sharing" a 2 x 400G cage of spines that have no uplinks), and it
reached the line rate through `link_speed`'s assert, catching AssertionError where a tier was missing.
"""

from __future__ import annotations

import pytest

from archgen.pipeline import run
from tests.checks.test_cases import CASES, _dump, _load
from tests.conftest import run_specs
from tests.data.clusters.small import files

UPPER = "    spine_core: [dac-800g-osfp, acc-800g-osfp, mmf-800g-sr8, smf-800g-dr8]"


def _cab012(spec_tree, spine_core: str, tiers: object = "auto") -> tuple[int, list[str]]:
    tree = files(tiers=tiers)
    assert UPPER in tree["clusters/c.yaml"]
    tree["clusters/c.yaml"] = tree["clusters/c.yaml"].replace(UPPER, f"    spine_core: [{spine_core}]")
    result = run([spec_tree(tree)])
    return result.clusters["cluster/c"].fabrics[0].tiers_used, [f.message for f in result.findings if f.id == "CAB012"]


def test_options_of_a_link_tier_the_fabric_does_not_build_are_not_judged(spec_tree) -> None:
    assert _cab012(spec_tree, "smf-400g-dr4") == (2, [])


def test_the_same_options_on_a_built_spine_core_tier_are_judged(spec_tree) -> None:
    """3 tiers: the spines' 2 x 400G uplink cages take one 400G DR4 each, the finding the 2-tier build does not get."""
    tiers, [message] = _cab012(spec_tree, "smf-400g-dr4", tiers=3)
    assert tiers == 3 and message.startswith("spine_core: smf-400g-dr4 (400G, 4 lanes) carries 1 of the 2 400G ports")


def test_a_torus_says_its_ends_are_not_judged(shipped) -> None:
    """The shipped TPU v4 pod's ICI torus: one info finding at the fabric, where before CAB012 passed it over."""
    [finding] = [f for f in shipped.findings if f.id == "CAB012" and f.object == "cluster/tpu-v4-pod/fabric/ici"]
    assert finding.severity == "info" and finding.location is not None
    assert finding.message.startswith("torus fabric 'ici': the modules per cage of its link ends are not judged")


def test_fat_trees_get_no_such_note(shipped) -> None:
    assert not [f for f in shipped.findings if f.id == "CAB012" and f.severity == "info"
                and "fabric 'ici'" not in f.message]


@pytest.mark.parametrize("case", _load(CASES / "CAB012.yml")["cases"], ids=lambda case: case["name"])
def test_the_cases_designs_break_no_other_rule(tmp_path, case: dict) -> None:
    """Each CAB012 case's design is refused by CAB012 alone (cabfix35): its links are ones CAB002 and CAB005 pass.

    A case had a single-mode DR4 module at one end of a link and a copper DAC at the other, which CAB002 refuses
    (one medium at both ends), and another a flat-top module in the Q3400's finned-top cage, which CAB005 refuses:
    they passed only because a case checks its own rule.
    """
    r = run_specs(tmp_path, {path: _dump(text) for path, text in case["files"].items()})
    assert {f.id for f in r.findings if f.severity == "error"} == (set() if case["name"].startswith("pass") else
                                                                  {"CAB012"})
