"""A 3-tier fat tree over one pod builds cores no path uses, and says so (NET027).

newuser26's trial at `speed: 400 Gb/s`: 128 leaves under 144 spine down ports are one pod, yet `tiers: 3` built 144
cores, 20,736 spine-core links and 10,368 transceivers (504 kW + 259 kW) with no finding. In one pod every spine
links every leaf, so no path climbs to a core (the bisection already drops the core cut for one pod).
"""

from __future__ import annotations

import shutil

from tests.conftest import REPO, run_specs

EXAMPLE = REPO / "examples" / "gb300-nvl72-su"


def _example(tmp_path, tiers: str):
    shutil.copytree(EXAMPLE, tmp_path / "ex")
    path = tmp_path / "ex" / "clusters" / "gb300-nvl72-su.yaml"
    text = path.read_text(encoding="utf-8").replace("    tiers: 2\n", f"    tiers: {tiers}\n", 1).replace(
        "      leaf_spine: [smf-1.6t-2xdr4]\n",
        "      leaf_spine: [smf-1.6t-2xdr4]\n      spine_core: [smf-1.6t-2xdr4]\n" if tiers == "3" else
        "      leaf_spine: [smf-1.6t-2xdr4]\n", 1)
    path.write_text(text, encoding="utf-8")
    return run_specs(tmp_path, {}, folder="ex")


def test_three_tiers_over_one_pod_name_the_idle_cores_their_links_and_power(tmp_path):
    run = _example(tmp_path, "3")
    fa = run.clusters["cluster/gb300-nvl72-su"].fabrics[0]
    assert (fa.tiers_used, fa.pods) == (3, 1)
    [f] = [f for f in run.findings if f.id == "NET027"]
    q3400, module = run.specs.get("q3400"), run.specs.get("smf-1.6t-2xdr4")
    spines, cores = fa.tier_at("spine"), fa.tier_at("core")
    links = spines.switches * spines.up                       # every spine up port to a core: 8 x 72 = 576
    modules = links * 2 // 2                                  # a twin-port module per 2 links, at both ends
    switch_kw = (q3400.power.max * cores.switches).to("kW").magnitude
    optics_kw = (module.power_per_end * modules).to("kW").magnitude
    assert (links, cores.switches, switch_kw, optics_kw) == (576, 4, 14.0, 14.4)   # 2 spines a core (topo36; 8 before)
    assert (f"the core tier carries no traffic: {cores.switches} x q3400 ({switch_kw:.1f} kW), {links} spine-core "
            f"links with {modules} transceivers ({optics_kw:.1f} kW), {switch_kw + optics_kw:.1f} kW of IT power in "
            "all; `tiers: 2`") in f.message
    assert f.location is not None and f.severity == "warning"


def test_two_tiers_over_the_same_leaves_have_no_finding(tmp_path):
    run = _example(tmp_path, "2")
    assert not [f for f in run.findings if f.id == "NET027"]
