"""Copper between switch tiers that a pair's links cannot fill is unbuildable as mapped, and says so (CAB008).

newuser26's storage leaf-spine tier (SN5610 at 200G, 2 links per leaf-spine pair on 800G DACs that carry 4 x 200G):
the port map put leaf-01 cage 33 lanes 1-2 to spine-01 and lanes 3-4 to spine-02, two straight DACs in one cage.
"""

from __future__ import annotations

from tests.conftest import case_files, run_specs

SPLITTER = """kind: Link
id: dac-800g-split-2x400g
name: 800G twin-port OSFP to 2 x 400G OSFP passive copper splitter (MCP7Y00 class)
vendor: NVIDIA
source: "NVIDIA MCP7Y00-Nxxx 800Gb/s Twin-port 2x400G OSFP to 2x400G OSFP Passive DAC Splitter Product Specifications: https://docs.nvidia.com/networking/display/MCP7Y00NXXX800pub"
media: dac
rate: 800 Gbit/s
reach: 3 m
power_per_end: 0.1 W
lanes: 8
links_per_cable: 2
"""


def _run(tmp_path, files):
    return run_specs(tmp_path, files)


def test_one_link_per_pair_on_a_dac_of_two_names_the_tier_and_pairs(tmp_path):
    run = _run(tmp_path, case_files("CAB008", "fail_one_link_per_pair_on_a_two_link_dac"))
    fa = run.clusters["cluster/c"].fabrics[0]
    leaves, spines = fa.tier_at("leaf").switches, fa.tier_at("spine").switches
    per_pair = fa.tier_at("leaf").up // spines            # 32 uplinks over 32 spines: 1 link, 800G / 400G = 2 per DAC
    [f] = [f for f in run.findings if f.id == "CAB008"]
    assert (leaves, spines, per_pair) == (4, 32, 1)
    assert f.message.startswith(f"leaf_spine: {leaves * spines} of {leaves * spines} switch pairs on dac-800g-osfp "
                                "hold a number of links (in brackets) that is not a multiple of the 2 one assembly "
                                "carries: compute-leaf-01 to compute-spine-01 (1),")


def test_a_splitter_part_is_counted_by_its_legs_with_no_finding(tmp_path):
    files = case_files("CAB008", "fail_one_link_per_pair_on_a_two_link_dac")
    key = next(k for k in files if k.startswith("clusters"))
    files[key] = files[key].replace("leaf_spine: [dac-800g-osfp]", "leaf_spine: [dac-800g-split-2x400g]")
    files["links/split.yaml"] = SPLITTER
    run = _run(tmp_path, files)
    [t] = [t for t in run.clusters["cluster/c"].cabling.tiers if t.tier == "leaf_spine"]
    assert [o.label for o in t.options] == ["dac-800g-split-2x400g"]
    assert not [f for f in run.findings if f.id == "CAB008"]
