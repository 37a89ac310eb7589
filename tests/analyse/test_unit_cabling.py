"""A cluster laid out as units (a compute rack and a network rack each) is cabled as racks are (unitcab).

nu78fix found that the SITE00x case fixture, two SUs of a DGX H100 rack and a leaf rack with `tiers: 1`, got no cable
run at all: a rail-optimized fabric gives each SU a leaf of its own (full-SU provisioning, `analyse.fabric._group`),
one tier joins no two leaves, so the fabric is unbuildable (NET003) and counted, not wired. The pass cases then
passed with nothing to judge. With `tiers: auto` the fixture gets a spine and every link a run.

Expected figures: a DGX H100 has 8 ConnectX-7 compute ports at 400 Gb/s in 4 twin-port OSFP cages (NVIDIA DGX H100/H200
User Guide, Introduction, hardware overview, https://docs.nvidia.com/dgx/dgxh100-user-guide/introduction-to-dgxh100.html;
specs/catalog/systems/dgx-h100.yaml), so 2 SUs x 4 systems x 8 = 64 access links, one run each. Every
access run goes from an SU's compute rack to its own network rack beside it in the row, over the trays:
2 x tray_drop + rack_pitch + slack = 2 x 1.5 + 0.6 + 2 (the default slack) = 5.6 m (`analyse.cabling.tray_run`).
"""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import case_files, run_specs

ACCESS_LINKS = 2 * 4 * 8
RUN_M = 2 * 1.5 + 0.6 + 2.0


def _runs(tmp_path, files):
    r = run_specs(tmp_path, files)
    (a,) = r.clusters.values()
    return a, {t.tier: t for t in a.cabling.runs}, r.findings


@pytest.mark.parametrize(("check", "case"), [("SITE001", "pass_one_hall"), ("SITE002", "pass_one_hall"),
                                             ("SITE003", "pass_one_hall")])
def test_site_pass_fixtures_are_cabled(tmp_path, check, case) -> None:
    """The site cases' one-hall fixture: every access link has a run inside its SU, none passes for want of runs."""
    a, runs, findings = _runs(tmp_path, case_files(check, case))
    access = runs["access"]
    assert int(access.weight.sum()) == ACCESS_LINKS
    names = [i.name for i in a.cluster.instances]
    a_su = [names[i].split("/")[0] for i in access.a_rack]
    b_su = [names[i].split("/")[0] for i in access.b_rack]
    assert a_su == b_su                                   # each SU's nodes land on its own leaf
    assert access.length.tolist() == pytest.approx([RUN_M] * ACCESS_LINKS)
    assert "leaf_spine" in runs
    assert not [f for f in findings if f.id in ("NET001", "NET003", "CAB007")]


def test_one_tier_of_two_units_is_refused_not_silently_uncabled(tmp_path) -> None:
    """The same fixture with `tiers: 1`: no runs, but NET003 (error) names the unit and CAB007 the uncabled links."""
    files = case_files("SITE001", "pass_one_hall")
    files["specs.yaml"] = files["specs.yaml"].replace("tiers: auto", "tiers: 1")
    a, runs, findings = _runs(tmp_path, files)
    assert runs == {}
    net003 = [f for f in findings if f.id == "NET003"]
    assert [str(f.severity) for f in net003] == ["error"]
    assert "each instance of unit 'su' takes leaves of its own" in net003[0].message
    cab007 = [f.message for f in findings if f.id == "CAB007"]
    assert cab007 and f"{ACCESS_LINKS} link(s)" in cab007[0] and "cannot be built as specified (NET003)" in cab007[0]


def test_same_racks_laid_out_by_rack_take_one_leaf(tmp_path) -> None:
    """Without units no SU takes a leaf of its own: the 64 ports fit one 64-port QM9700 and one tier is cabled."""
    files = case_files("SITE001", "pass_one_hall")
    files["specs.yaml"] = files["specs.yaml"].replace("tiers: auto", "tiers: 1").replace(
        "- {unit: su, count: 2}", "- {rack: c4, count: 1}\n- {rack: net, count: 1}\n- {rack: c4, count: 1}\n"
        "- {rack: net, count: 1}")
    a, runs, findings = _runs(tmp_path, files)
    assert int(runs["access"].weight.sum()) == ACCESS_LINKS
    assert np.unique(runs["access"].b_rack).size == 1     # one leaf, in the first network rack
    assert not [f for f in findings if f.id in ("NET003", "CAB007")]
