"""The cluster document: sections that appear when cluster data exists, the run list, the diagrams."""

from __future__ import annotations

import csv
import io
import re

import pytest

from archgen.analyse.scaling import scaling as grow
from archgen.render import render_all
from tests.conftest import REPO, shared_diagrams
from tests.render.golden_util import table_caption

CLUSTER = "dgx-b200-superpod"


@pytest.fixture(scope="module")
def cluster_out(shipped_run, tmp_path_factory):
    if f"cluster/{CLUSTER}" not in getattr(shipped_run, "clusters", {}):
        pytest.skip(f"the shipped specs have no cluster '{CLUSTER}'")
    out = tmp_path_factory.mktemp("cluster")
    with shared_diagrams():  # SVG as `every_document` drew it where it ran first in this process
        written = render_all(shipped_run, out, target=CLUSTER, formats=("md", "csv", "png"), revision="test")
    return out / CLUSTER, written, shipped_run.clusters[f"cluster/{CLUSTER}"]


def test_cluster_sections_and_diagrams(cluster_out):
    folder, written, _ = cluster_out
    md = (folder / f"{CLUSTER}.md").read_text(encoding="utf-8")
    for heading in ("Architecture and scaling", "Rack design", "Power and cooling", "Network fabrics",
                    "Cabling and optics", "Validation report", "Bill of materials"):
        assert re.search(rf"^##+ [0-9.]+ {heading}$", md, re.M), heading
    assert re.search(r"^## [0-9]+ Performance$", md, re.M)         # the shipped Llama 3.1 70B workloads
    assert re.search(r"\| mfu \| \d+\.\d+ % \|", md) and " % | \\>= 35 % | REQ-PERF-001 | met" in md
    names = {p.name for p in written}
    assert {"floor.png", "topology.png", "floor.svg", "topology.svg", "cabling.csv", "bom.csv",
            "perf-llama3-70b-pretrain-b200.png"} <= names


def test_run_list_counts_every_link_once(cluster_out):
    folder, _, analysis = cluster_out
    rows = list(csv.DictReader(io.StringIO((folder / "cabling.csv").read_text(encoding="utf-8"))))
    assert sum(int(r["Links"]) for r in rows) == sum(t.links for t in analysis.cabling.tiers)
    laid_out = {(t.fabric, t.tier) for t in analysis.cabling.runs}   # cables: as the BOM counts them (deliv2)
    assert sum(int(r["Cables"]) for r in rows) == sum(t.physical for t in analysis.cabling.tiers
                                                       if (t.fabric, t.tier) in laid_out)
    keys = [(r["Fabric"], r["Tier"], r["A rack"], r["A U"], r["Z rack"], r["Z U"], r["Link"], r["Bin (m)"])
            for r in rows]
    assert len(keys) == len(set(keys))


def test_scaling_table_matches_the_analysis(cluster_out):
    folder, _, analysis = cluster_out
    md = (folder / f"{CLUSTER}.md").read_text(encoding="utf-8")
    for fa in analysis.fabrics:
        for t in fa.tiers:
            assert re.search(rf"^\| {fa.fabric.spec.id} \| {t.name} \| {t.switch.id} \| {t.switches * fa.planes:,} \|",
                             md, re.M), (fa.fabric.spec.id, t.name)


@pytest.mark.slow
def test_progress_is_quiet_off_a_terminal(test_run, tmp_path, capfd, drawn_once):
    render_all(test_run, tmp_path, target="nvl72-test", formats=("md",), revision="test")
    assert capfd.readouterr().err == ""
    render_all(test_run, tmp_path, target="nvl72-test", formats=("md",), revision="test", progress=True)


def test_roofline_figure_and_kernel_table_per_workload(cluster_out, shipped_run):
    """Next to each waterfall: a roofline figure and one table row per kernel of the estimate's roofline."""
    folder, written, _ = cluster_out
    md = (folder / f"{CLUSTER}.md").read_text(encoding="utf-8")
    names = {p.name for p in written}
    for path, r in shipped_run.workloads.items():
        if r.workload.cluster != CLUSTER:
            continue
        wid = path.split("/", 1)[1]
        assert {f"roofline-{wid}.png", f"roofline-{wid}.svg"} <= names
        assert md.index(f"](perf-{wid}.svg)") < md.index(f"](roofline-{wid}.svg)")
        after = md.split(f"](roofline-{wid}.svg)", 1)[1]
        table = after.split(table_caption(after, "Kernels of"), 1)[1].split("\n\n")[1]
        assert len(table.splitlines()) == 2 + len(r.roofline.kernels)
    assert "| forward | attention core |" in md and "| decode | attention core |" in md


def test_growth_table_and_chart_come_from_the_scaling_analysis(cluster_out, shipped_run):
    """The growth table lists every size `analyse.scaling` returns, with its switches, optics and power."""
    from archgen.analyse.scaling import scaling
    folder, written, analysis = cluster_out
    md = (folder / f"{CLUSTER}.md").read_text(encoding="utf-8")
    assert "scaling.png" in {p.name for p in written}
    series = scaling(shipped_run.design, shipped_run.racks, analysis.cluster)
    section = md.split('<a id="growth"></a>', 1)[1].split('<a id="rack-types"></a>', 1)[0]
    for p in series.points:
        tiers = p.switches_by_tier()
        # a size whose tiers include one with no link media (the storage and in-band fabrics' third tier from 8 x)
        # has no total of transceivers or network power: not provided, never summed without them (newuser105)
        optics = (rf"{p.transceivers:,} \| {p.network_power.m_as('kW'):,.1f}(?: \([^)]*unconfirmed\))?" if not p.no_media else
                  "not provided \\| not provided")
        assert re.search(rf"^\| {p.factor} × \| {p.units:,} \| {p.accelerators:,} \| {p.racks:,} \| "
                         rf"{p.tiers['compute']} \| {tiers['leaf']:,} \| {tiers['spine']:,} \| "
                         rf"{tiers.get('core', 0):,} \| {optics} \|", section, re.M), p.factor
    assert any(p.no_media for p in series.points) and not series.points[0].no_media
    assert "fabric oob:" in section                       # the OOB spine pair's overflow is shown, not hidden
    kept = "Kept as written at every size, not multiplied with the layout"
    named = "; ".join(series.kept).replace("`", "\\`")   # Markdown escapes the backticks
    assert f"{kept} (the spec does not say whether they grow with it): {named}." in section
    bom = md.split('<a id="bom-by-size"></a>', 1)[1].split("*Table", 1)[0]
    assert "fabric storage: 32 extra endpoint ports (\\`endpoints.extra\\`)" in bom


def test_the_pipeline_adds_the_growth_series_only_when_asked(shipped_run):
    """`archgen check` does not pay for the scaling analysis; `archgen render` gets one series per cluster."""
    from archgen.pipeline import run
    assert sorted(shipped_run.scaling) == sorted(shipped_run.clusters)
    assert run([REPO / "specs" / "racks"]).scaling == {}


@pytest.mark.parametrize(("target", "grown"), [("dgx-h100-4", []), ("gb200-nvl72-su", ["cluster/gb200-nvl72-su"])])
def test_render_of_one_target_grows_only_its_cluster(target, grown, tmp_path, monkeypatch):
    """`archgen render --target` computes the growth series of the cluster it renders (what `analyse.scaling` gives
    for it), and none for a rack: the other clusters' series cost more than the rest of the run."""
    from archgen.commands import render as command
    seen = []
    monkeypatch.setattr(command, "render_all", lambda result, *a, **k: seen.append(result) or [])
    command.render([REPO / "specs"], target, tmp_path / "out", "md")
    assert sorted(seen[0].scaling) == grown
    if grown:
        assert seen[0].scaling[grown[0]] == grow(seen[0].design, seen[0].racks, seen[0].clusters[grown[0]].cluster)


def test_bisection_is_stated_with_its_convention_and_the_injection(cluster_out):
    """Issue 11, item 11: the B200 compute fabric is non-blocking (1:1), yet its bisection per accelerator (200 Gb/s)
    is half its injection (400 Gb/s) by the cut-in-halves convention; printed alone it read as a 2:1 taper."""
    folder, _, analysis = cluster_out
    md = (folder / f"{CLUSTER}.md").read_text(encoding="utf-8")
    compute = next(fa for fa in analysis.fabrics if fa.fabric.spec.id == "compute")
    assert max(compute.oversubscription.values()) <= 1.0                 # non-blocking (0.996:1 with the UFM ports)
    bis = compute.metrics["bisection_per_accelerator"].m_as("Gbit/s")
    inj = compute.metrics["injection_per_accelerator"].m_as("Gbit/s")
    assert bis == pytest.approx(inj / 2)                      # min(E·s/2, ...) over all E endpoints: docs/clusters.md
    stated = (f"bisection {bis:,.0f} Gb/s per accelerator (one direction, over all accelerators; 100 % of full "
              f"bisection, which is half the injection of {inj:,.0f} Gb/s per accelerator)")
    assert f"| Fabric compute | 2 tier(s), 1 plane(s), {stated}, oversubscription as used 1.00:1 |" in md
    assert re.search(rf"^\| compute \| compute \(east-west\) \|.*\| {inj:,.0f} \| {bis:,.0f} \| 100 % \| 1.00 \|",
                     md, re.M)
    assert "is half its injection (full bisection, 100 %), not a 2:1 taper" in md


def test_floor_plan_in_metres_with_aisles_and_one_colour_per_rack_type(shipped_run):
    """Issue 11, item 8: the floor plan was a grid of positions. It is drawn in metres from the floor spec (B200
    SuperPOD: 9 racks at 0.6 m pitch = 5.40 m along a row, 5 rows at 3.6 m pitch with 1.2 m deep racks = 15.60 m),
    with the aisles (row pitch - rack depth = 2.40 m) alternating cold and hot, and each rack type keeps its colour
    in every cluster of the render."""
    from archgen.render.cluster_diagrams import floor_plan, rack_colours

    colours = rack_colours(r.spec.id for r in shipped_run.design.racks)
    fig = floor_plan(shipped_run.clusters[f"cluster/{CLUSTER}"], colours)
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert "5.40 m: 9 racks at 0.60 m" in texts and "15.60 m: 5 rows at 3.60 m" in texts
    assert texts.count("cold aisle, 2.40 m") == 2 and texts.count("hot aisle, 2.40 m") == 2
    assert ax.get_title(loc="left") == f"{CLUSTER}: 38 racks in 5 rows, 5.4 m × 15.6 m"
    legend = {t.get_text().split(" (")[0]: h.get_facecolor() for t, h in
              zip(ax.get_legend().get_texts(), ax.get_legend().legend_handles, strict=True)}
    from matplotlib.colors import to_rgba
    assert all(legend[t] == to_rgba(colours[t]) for t in legend)
    other = floor_plan(shipped_run.clusters["cluster/gb200-nvl72-su"], colours)
    for t, h in zip(other.axes[0].get_legend().get_texts(), other.axes[0].get_legend().legend_handles, strict=True):
        assert h.get_facecolor() == to_rgba(colours[t.get_text().split(" (")[0]])


def test_network_power_rows_add_up_to_the_clusters(cluster_out):
    """The SuperPOD's rows of network power by fabric summed to 113.6 kW where its summary read 'network 117.6 kW':
    the 26 SN2201 and 3 SN4600C placed in racks beyond what the fabrics derive (NET017) are in the cluster's network
    power and in no fabric's. They have a row of their own, and the rows add up to the summary's figure."""
    folder, _, analysis = cluster_out
    md = (folder / f"{CLUSTER}.md").read_text(encoding="utf-8")
    table = md.split(table_caption(md, "Network power by fabric (switches and optics)*"), 1)[1].split("\n\n")[1]
    rows = [line.split(" | ") for line in table.splitlines()[2:]]
    assert rows[-1][0] == "| switches placed beyond the fabrics (NET017)"
    total = sum(float(r[1].split(" (")[0].replace(",", "")) for r in rows)   # a figure's unconfirmed share may follow
    network = re.search(r"of which network ([\d,.]+) kW", md)[1]
    assert f"{total:,.1f}" == network == fmt_kw(analysis.metrics["network_power"])
    assert f"The rows add up to the cluster's network power, {network} kW, of which optics " in md


def fmt_kw(value) -> str:
    return f"{value.m_as('kW'):,.1f}"
