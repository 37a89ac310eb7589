"""The cluster document: sections that appear when cluster data exists, the run list, the diagrams."""

from __future__ import annotations

import csv
import io
import re

import pytest

from archgen.render import render_all
from tests.conftest import REPO

CLUSTER = "dgx-b200-superpod"


@pytest.fixture(scope="module")
def cluster_out(shipped_run, tmp_path_factory):
    if f"cluster/{CLUSTER}" not in getattr(shipped_run, "clusters", {}):
        pytest.skip(f"the shipped specs have no cluster '{CLUSTER}'")
    out = tmp_path_factory.mktemp("cluster")
    written = render_all(shipped_run, out, target=CLUSTER, formats=("md", "csv", "png"), revision="test")
    return out / CLUSTER, written, shipped_run.clusters[f"cluster/{CLUSTER}"]


def test_cluster_sections_and_diagrams(cluster_out):
    folder, written, _ = cluster_out
    md = (folder / f"{CLUSTER}.md").read_text()
    for heading in ("Architecture and scaling", "Rack design", "Power and cooling", "Network fabrics",
                    "Cabling and optics", "Validation report", "Bill of materials"):
        assert re.search(rf"^##+ [0-9.]+ {heading}$", md, re.M), heading
    assert re.search(r"^## [0-9]+ Performance$", md, re.M)         # the shipped Llama 3.1 70B workloads
    assert "| mfu | 6" in md and " % | \\>= 0.35 | REQ-PERF-001 | met |" in md      # a percentage, as sweeps show it
    names = {p.name for p in written}
    assert {"floor.png", "topology.png", "floor.svg", "topology.svg", "cabling.csv", "bom.csv",
            "perf-llama3-70b-pretrain-b200.png"} <= names


def test_run_list_counts_every_link_once(cluster_out):
    folder, _, analysis = cluster_out
    rows = list(csv.DictReader(io.StringIO((folder / "cabling.csv").read_text())))
    assert sum(int(r["Runs"]) for r in rows) == sum(t.links for t in analysis.cabling.tiers)
    keys = [(r["Fabric"], r["Tier"], r["A rack"], r["A U"], r["Z rack"], r["Z U"], r["Link"], r["Bin (m)"])
            for r in rows]
    assert len(keys) == len(set(keys))


def test_scaling_table_matches_the_analysis(cluster_out):
    folder, _, analysis = cluster_out
    md = (folder / f"{CLUSTER}.md").read_text()
    for fa in analysis.fabrics:
        for t in fa.tiers:
            assert re.search(rf"^\| {fa.fabric.spec.id} \| {t.name} \| {t.switch.id} \| {t.switches * fa.planes:,} \|",
                             md, re.M), (fa.fabric.spec.id, t.name)


@pytest.mark.slow
def test_progress_is_quiet_off_a_terminal(test_run, tmp_path, capfd):
    render_all(test_run, tmp_path, target="nvl72-test", formats=("md",), revision="test")
    assert capfd.readouterr().err == ""
    render_all(test_run, tmp_path, target="nvl72-test", formats=("md",), revision="test", progress=True)


def test_roofline_figure_and_kernel_table_per_workload(cluster_out, shipped_run):
    """Next to each waterfall: a roofline figure and one table row per kernel of the estimate's roofline."""
    folder, written, _ = cluster_out
    md = (folder / f"{CLUSTER}.md").read_text()
    names = {p.name for p in written}
    for path, r in shipped_run.workloads.items():
        if r.workload.cluster != CLUSTER:
            continue
        wid = path.split("/", 1)[1]
        assert {f"roofline-{wid}.png", f"roofline-{wid}.svg"} <= names
        assert md.index(f"](perf-{wid}.svg)") < md.index(f"](roofline-{wid}.svg)")
        after = md.split(f"](roofline-{wid}.svg)", 1)[1]
        table = after.split("*Table: Kernels of", 1)[1].split("\n\n")[1]
        assert len(table.splitlines()) == 2 + len(r.roofline.kernels)
    assert "| forward | attention core |" in md and "| decode | attention core |" in md


def test_growth_table_and_chart_come_from_the_scaling_analysis(cluster_out, shipped_run):
    """The growth table lists every size `analyse.scaling` returns, with its switches, optics and power."""
    from archgen.analyse.scaling import scaling
    folder, written, analysis = cluster_out
    md = (folder / f"{CLUSTER}.md").read_text()
    assert "scaling.png" in {p.name for p in written}
    series = scaling(shipped_run.design, shipped_run.racks, analysis.cluster)
    section = md.split('<a id="growth"></a>', 1)[1].split('<a id="rack-types"></a>', 1)[0]
    for p in series.points:
        tiers = p.switches_by_tier()
        assert re.search(rf"^\| {p.factor} × \| {p.units:,} \| {p.accelerators:,} \| {p.racks:,} \| "
                         rf"{p.tiers['compute']} \| {tiers['leaf']:,} \| {tiers['spine']:,} \| "
                         rf"{tiers.get('core', 0):,} \| {p.transceivers:,} \| "
                         rf"{p.network_power.m_as('kW'):,.1f} \|", section, re.M), p.factor
    assert "fabric oob:" in section                       # the OOB spine pair's overflow is shown, not hidden


def test_the_pipeline_adds_the_growth_series_only_when_asked(shipped_run):
    """`archgen check` does not pay for the scaling analysis; `archgen render` gets one series per cluster."""
    from archgen.pipeline import run
    assert sorted(shipped_run.scaling) == sorted(shipped_run.clusters)
    assert run([REPO / "specs" / "racks"]).scaling == {}
