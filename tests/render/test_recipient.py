"""The deliverables as the partner who receives them reads them (newuser9's review of `make demo`'s out/).

Each test is one finding of that review: a figure that read differently, or barer, in one place than in another.
"""

from __future__ import annotations

import pytest

from archgen.render import fits, performance
from archgen.render.blocks import Para, Table
from tests.render.test_consistency import _tables


def test_a_reliability_range_is_the_band_of_its_metric_not_rows_of_its_own(example):
    """mtti read '85.5 h' with band '—' beside rows 'mtti_low' and 'mtti_high': a bare number and internal names.

    The range over the failure-rate sets is now the Band of mtti and of interruptions_per_day, as the reliability
    section gives it ('14.0 h to 313.7 h'), with a sentence saying what that band is.
    """
    r = example.workloads["workload/llama3-405b-pretrain-gb300"]
    section = performance.section([r])
    rows = {row[0]: row for row in _tables(section)["perf-metrics-llama3-405b-pretrain-gb300"].rows}
    assert not [name for name in rows if name.endswith(("_low", "_high"))]
    m = r.estimate.metrics
    for name in ("mtti", "interruptions_per_day"):
        low, high = (fits.shown(m[f"{name}_{end}"], name) for end in ("low", "high"))
        assert rows[name][2] == f"{low} to {high}", name
    assert rows["mtti"][2] == "14.0 h to 313.7 h"
    text = " ".join(b.text for sub in section.sections for b in sub.blocks if isinstance(b, Para))
    assert "range over the published failure-rate sets" in text


def test_a_cost_range_is_said_to_span_the_hot_spares_not_the_failure_rate_sets(shipped):
    """The merge of the two changes called every `_low`/`_high` band a range over the failure-rate sets.

    The shipped 70B job runs on 512 of the DGX B200 SuperPOD's 1,016 GPUs: its cost range (job_cost_per_hour
    1,188 to 2,358 USD) runs from its own accelerators to those and the idle nodes its goodput counts on as hot
    spares, which is what the document must say of it, apart from goodput's and MTTI's range.
    """
    section = performance.section([shipped.workloads["workload/llama3-70b-pretrain-b200"]])
    paras = [b.text for sub in section.sections for b in sub.blocks if isinstance(b, Para) and "The Band of" in b.text]
    cost = next(t for t in paras if "job_cost_per_hour" in t)
    assert "hot spares its goodput counts on" in cost and "failure-rate sets" not in cost
    rates = next(t for t in paras if "mtti" in t)
    assert "failure-rate sets" in rates and "cost" not in rates


def test_a_management_fabric_reads_as_the_ports_it_takes(example):
    """The OOB fabric's figure box read '0 ports (management)' under '251 links', its text '0 node ports ...; up to
    0 accelerators at this design': its 251 endpoints are switch management ports and BMCs stated as a count.

    The figure now counts every endpoint port its leaves take, and the text names the other endpoints and gives the
    fabric's reach in endpoint ports where no accelerator's node is on it.
    """
    from archgen.render import cluster_diagrams, cluster_fabrics
    a = example.clusters["cluster/gb300-nvl72-su"]
    fig = cluster_diagrams.topology(a)
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    # 251 before the OOB leaves were sized per rack: the 64 power shelves' and 144 more NVLink tray ports (3 each)
    assert "459 ports\n(management)" in texts
    assert "0 ports\n(management)" not in texts
    assert "576 ports\n(compute)" in texts and "288 ports\n(converged)" in texts
    oob = next(fa for fa in a.fabrics if fa.fabric.spec.id == "oob")
    shape = cluster_fabrics._shape(oob)
    assert ("459 other endpoint ports (251 switch management, 64 power shelf and PDU management, 144 node management "
            "(BMC); not counted: the management ports of ") in shape   # PDUs stating none (NET032, newuser82)
    assert cluster_fabrics._reach(oob) == "no accelerator's node on it, up to 3,072 endpoint ports"
    compute = next(fa for fa in a.fabrics if fa.fabric.spec.id == "compute")
    assert "other endpoint" not in cluster_fabrics._shape(compute)
    assert cluster_fabrics._reach(compute) == "up to 10,368 accelerators"


def test_switches_of_a_model_some_in_racks_and_some_not_count_once_in_it_power(tmp_path):
    """At 4 x the GB300 SU, 2 of its 50 Q3400s stand in no rack; IT power added all 50 again on top of the racks.

    The growth series' 4 x size read IT power 5,064.1 kW against a typical 4,896.1 kW that rests on the same maximum
    draws: the 48 Q3400s in racks (168 kW) were counted twice. Only the line of those placed in no rack is added.
    """
    import shutil

    from archgen.pipeline import run
    from tests.conftest import REPO
    src = REPO / "examples" / "gb300-nvl72-su"
    for sub in ("clusters", "racks", "requirements"):
        shutil.copytree(src / sub, tmp_path / sub)
    spec = tmp_path / "clusters" / "gb300-nvl72-su.yaml"
    text = spec.read_text(encoding="utf-8")
    spec.write_text(text.replace("  - {unit: su, count: 1}", "  - {unit: su, count: 4}")
                    .replace("expect: {accelerators: 576, nodes: 144, racks: 11}", ""), encoding="utf-8")
    a = run([tmp_path]).clusters["cluster/gb300-nvl72-su"]
    unplaced = [line for line in a.cabling.bom if line.note == "not placed in a rack"]
    assert [(line.part, line.quantity) for line in unplaced] == [("q3400", 2)]
    m = a.metrics
    assert abs(m["it_power"] - m["it_power_typical"]).m_as("W") < 1e-6  # no part here has a typical figure below max
    # 4,896.1 kW and 5,037.0 kW before each SU's storage leaves stood in its own rack and the spines stopped sharing
    # the rail leaves' slots (tests/analyse/test_leaf_placement.py): fewer optical runs across the rows
    # 4,894.2 kW and 5,035.0 kW (loss 140.8 kW) before the GB300 tray's figure came to the busbar (6 -> 5.74 kW):
    # 32 racks x 18 trays x 0.26 kW = 149.8 kW less at the busbar, / 0.97 = 154.4 kW less at the feeds
    # 4,744.5 kW before the trays' BMC ports took management leaf ports (deliv2: one more SN2201, 98 W); 4,744.6 and
    # 4,880.7 kW before the OOB leaves were sized per rack: 64 for the 4 SUs (2 in each NVL72 rack), not 21 pooled,
    # 86 more uplinks, 172 more 100G SR4 modules x 3.5 W = +0.6 kW
    assert round((m["it_power"] - m["shelf_loss"]).m_as("kW"), 1) == 4745.2
    assert round(m["it_power"].m_as("kW"), 1) == 4881.3                # at the feeds: the shelves' 136.1 kW loss too
    # (5,035.2 kW and 140.9 kW before rackfix, when the shelves carried the AC SN2201s too)


def test_an_oob_run_is_as_long_as_its_ends_stand_apart(example):
    """251 OOB cat6a runs read 'not placed ... length as the BOM counts it (in the leaf's rack)', ordered 1.0 m.

    The 6 OOB leaves stand in racks nvl72-01..03; the management ports of the switches in the su-ib and su-eth racks
    and of racks 04-08 cannot be 1 m away. A switch's management port now stands where the switch does and its run
    is measured; a port the spec states only as a count (the 144 tray BMCs) is not placed and takes the floor's
    longest run, and says so. The document's excerpt shows the note and the first cable of each kind. Since deliv2 the
    trays' BMC ports are stated per node (`endpoints.node_management`) and stand at their trays, so every run is
    measured from where its ends stand.
    """
    from archgen.analyse.cabling import floor_span
    from archgen.analyse.other_ports import rack_xy
    from archgen.analyse.portmap import port_map
    from archgen.render import wiring
    a = example.clusters["cluster/gb300-nvl72-su"]
    rows = [r for r in port_map(a).rows if r.fabric == "oob" and r.tier == "access"]
    assert len(rows) == 459      # 251 before the power shelves' and the NVLink trays' 2nd and 3rd ports (test above)
    placed = [r for r in rows if r.a.rack != "not placed"]
    unplaced = [r for r in rows if r.a.rack == "not placed"]
    assert (len(placed), len(unplaced)) == (459, 0)
    assert all(r.a.port.startswith("mgmt") and "measured from where it stands" in r.note for r in placed)
    assert sum("node's management (BMC) port" in r.note for r in placed) == 144
    far = [r for r in placed if r.a.rack != r.b.rack]
    assert far and all(r.ordered > 1.0 for r in far)
    assert {r.a.rack for r in placed} >= {"su01/gb300-su-ib-01", "su01/gb300-su-eth-01", "su01/gb300-nvl72-08"}
    span = floor_span(a.cluster, *rack_xy(a.cluster))
    assert all(r.length == span and "floor's longest run" in r.note for r in unplaced)
    assert "leaf's rack" not in " ".join(r.note for r in rows)
    table = next(b for sub in wiring.section(a, port_map(a)).sections for b in sub.blocks
                 if isinstance(b, Table) and b.id == "portmap-excerpt")
    assert table.columns[-1].title == "Note"
    assert not any("floor's longest run" in row[-1] for row in table.rows)   # deliv2: every BMC run measured


def test_the_bom_total_power_is_the_it_power(example, shipped):
    """The BOM's part lines added up to 1,231.8 kW against an IT power of 1,220.0 kW.

    The 11.8 kW were the trays' node-end transceivers (smf-800g-dr4-rhs 9.2 kW, mmf-400g-sr4 2.6 kW), already in
    gb300-compute-tray's 6 kW (power_includes_optics). Their lines now say so and leave them out of Total power, and
    a sentence under the table gives the sum against IT power, in every shipped cluster.
    """
    from archgen.render.cluster_bom import reconciled
    for a in (example.clusters["cluster/gb300-nvl72-su"], *shipped.clusters.values()):
        lines = a.cabling.bom
        parts = sum(line.total_power.m_as("kW") for line in lines if line.kind != "Rack" and line.total_power)
        # the lines are the parts' own draw; IT power is at the feeds, the power shelves' loss added
        assert parts == pytest.approx((a.metrics["it_power"] - a.metrics["shelf_loss"]).m_as("kW")), a.cluster.path
        assert reconciled(a).endswith(f"the cluster's IT power ({a.metrics['it_power'].m_as('kW'):,.1f} kW).")
    lines = {line.part: line for line in example.clusters["cluster/gb300-nvl72-su"].cabling.bom}
    for part, n in (("smf-800g-dr4-rhs", 576), ("mmf-400g-sr4", 288)):
        assert lines[part].in_parent == n and lines[part].total_power.m_as("kW") == 0
        assert "those at node ends draw inside gb300-compute-tray's maximum" in lines[part].note


def test_a_rate_reads_as_what_it_counts_everywhere(example):
    """Perf tables, estimate text and sweep targets read '330,000 1/s', '0.28 1/d', '>= 600000 1/s'.

    Each rate in the metric registry names what it counts (`Metric.counts`), and every output that shows the metric
    takes its unit from there: 'tokens/s', 'interruptions/day'.
    """
    from archgen import metrics
    from archgen.display import metric_value, target_text
    from archgen.model.target import Target
    from archgen.units import Q_
    rates = [m for m in metrics.REGISTRY if m.unit.startswith("1/")]
    assert rates and all(m.rate_unit() for m in rates), [m.name for m in rates if not m.rate_unit()]
    tps = metrics.find("workload", "tokens_per_second")
    assert metric_value(tps, Q_(330_000, "1/s")) == "330,000 tokens/s"
    ipd = metrics.find("workload", "interruptions_per_day")
    assert metric_value(ipd, Q_(0.28, "1/day")) == "0.28 interruptions/day"
    assert target_text(Target.parse(">= 600000 1/s"), tps) == ">= 600,000 tokens/s"
    assert target_text(Target.parse("<= 0.45 s"), metrics.find("workload", "ttft_p99")) == "<= 0.45 s"
    # MFU's target read '>= 0.35' beside the estimate '55.51 % (34.46 % to 64.86 %)' (newuser31): a fraction is
    # shown as the metric is, in percent; one written in percent stays so
    mfu = metrics.find("workload", "mfu")
    assert metric_value(mfu, Q_(0.5551, "")) == "55.51 %"
    assert target_text(Target.parse(">= 0.35"), mfu) == ">= 35 %"
    assert target_text(Target.parse(">= 35 %"), mfu) == ">= 35 %"
    r = example.workloads["workload/llama3-405b-pretrain-gb300"]
    text = " ".join(str(c) for t in _tables(performance.section([r])).values() for row in t.rows for c in row)
    assert "tokens/s" in text and "interruptions/day" in text
    assert not any(u in text for u in (" 1/s", " 1/d", " 1/day"))


def test_cost_totals_are_whole_currency_units(example):
    """'Energy per year 1,148,617.06', 'Space per year 264,000.00': cents on assumed prices.

    The totals now read in whole units (1,148,617); only the rates per accelerator-hour, a few units each, keep
    cents, in a table of their own, so every format of the document rounds alike (one column, one rule).
    """
    from archgen.render import operations
    a = example.clusters["cluster/gb300-nvl72-su"]
    tables = _tables(operations.cost_section(example, a))
    summary = dict(tables["cost-summary"].text())
    # 1,148,617 before the power shelves' loss counted in the average load (at the rack feeds)
    # 1,181,788 before the SN2201s came off the shelves' busbar (power.external, no shelf loss on them)
    # 1,181,742 before the GB300 tray's figure came to the busbar (6 -> 5.74 kW; the average load is at the feeds)
    # 1,145,404 before the OOB leaves were sized per rack (16, not 6: 40 more 100G SR4 modules, 0.14 kW)
    # "Energy per year" now says it is an upper bound where a part's maximum draw stands in for its typical (newuser64)
    energy = next(v for k, v in summary.items() if k.startswith("Energy per year"))
    assert energy == "1,145,537" and summary["Space per year"] == "264,000"
    assert all("." not in v for v in summary.values())
    hourly = tables["cost-hourly"].text()
    assert [row[0] for row in hourly][0] == "TCO per accelerator-hour (owned)"   # (item, amount, range): nu41cost


def test_a_units_racks_are_counted_once_per_type(example):
    """Building blocks read '4 x gb300-nvl72, 2 x gb300-su-ib, 1 x gb300-su-eth, 4 x gb300-nvl72'.

    The unit's rack list as the spec writes it, in floor order, named one type twice; the table now counts each
    rack type once, in the order it first stands (the floor plan shows where each rack is).
    """
    from archgen.render import cluster
    tables = _tables(cluster.architecture(example.clusters["cluster/gb300-nvl72-su"]))
    assert tables["units"].rows == (("su", 1, "8 × gb300-nvl72, 2 × gb300-su-ib, 1 × gb300-su-eth"),)


def test_the_floor_plan_of_one_row_reads_in_the_singular_and_clear_of_the_ticks(example):
    """floor.svg read '1.20 m: 1 rows at 3.60 m', rotated across the x tick '-2'.

    One row has no row pitch to state; the x axis has no ticks left of the floor's edge, where that label stands.
    """
    from archgen.render import cluster_diagrams
    fig = cluster_diagrams.floor_plan(example.clusters["cluster/gb300-nvl72-su"])
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert "1.20 m: 1 row" in texts and not any("1 rows" in t for t in texts)
    assert "racks in 1 row," in ax.get_title(loc="left")
    assert min(ax.get_xticks()) >= 0


def test_a_nodes_port_speed_is_the_one_its_fabric_runs(example):
    """The per-node port map read bluefield-3 'Port speed 400' while the storage fabric runs those ports at 200 Gb/s.

    The table now names the fabric that takes the ports and gives the speed it runs them at, the NIC's rating beside.
    """
    from archgen.render import cluster, cluster_fabrics
    from archgen.render.common import Scope  # noqa: F401 (the section needs a scope: the example's own)
    a = example.clusters["cluster/gb300-nvl72-su"]
    scope, _ = cluster.cluster_scope(example, a, None, None)
    table = _tables(cluster_fabrics.fabrics(scope, a))["port-map"]
    titles = [c.title for c in table.columns]
    rows = {row[2]: dict(zip(titles, row, strict=True)) for row in table.rows}
    storage = rows["storage"]
    assert storage["NIC"] == "bluefield-3" and storage["Fabric"] == "storage-inband"
    assert storage["Speed the fabric runs"].m_as("Gbit/s") == 200
    assert storage["NIC port rating"].m_as("Gbit/s") == 400
    assert rows["compute"]["Speed the fabric runs"].m_as("Gbit/s") == 800
    assert storage["NIC ports per node"] == 2 and storage["Ports cabled per node"] == 2


def test_the_port_map_tells_the_nics_ports_from_those_cabled(shipped_run):
    """The GB200 SU's per-node port map read 'Ports per node 4' for the two BlueField-3 (2 ports each) while the
    storage fabric states ports_per_node 2, and its port map and storage section cable 2 per tray (newuser31)."""
    from archgen.render import cluster, cluster_fabrics
    a = shipped_run.clusters["cluster/gb200-nvl72-su"]
    scope, _ = cluster.cluster_scope(shipped_run, a, None, None)
    table = _tables(cluster_fabrics.fabrics(scope, a))["port-map"]
    titles = [c.title for c in table.columns]
    rows = {row[2]: dict(zip(titles, row, strict=True)) for row in table.rows}
    fabric = next(f for f in a.fabrics if f.fabric.spec.id == "storage-inband")
    nic = shipped_run.design.specs.get("bluefield-3")
    assert rows["storage"]["NIC ports per node"] == 2 * nic.ports.count == 4
    assert rows["storage"]["Ports cabled per node"] == fabric.fabric.spec.ports_per_node == 2
    assert rows["compute"]["NIC ports per node"] == rows["compute"]["Ports cabled per node"] == 4


def test_every_abbreviation_the_documents_use_is_in_the_glossary():
    """The glossary lacked TCO, PUE, MFU, MTTI, DAC, XDR, OSFP, RHS/IHS, SU, NIC, DPU, HBM, OOB, BMC, busbw, TGP.

    Each of those (and MPO, UFM) that a golden document uses is now a glossary term.
    """
    import re

    from archgen.render.glossary import GLOSSARY
    from tests.render.conftest import GOLDEN
    terms = {t for term, _ in GLOSSARY for t in term.split(" / ")}
    candidates = ("TCO", "PUE", "MFU", "MTTI", "DAC", "XDR", "OSFP", "RHS", "IHS", "SU", "NIC", "DPU", "HBM", "OOB",
                  "BMC", "busbw", "TGP", "MPO", "UFM")
    text = " ".join(p.read_text(encoding="utf-8")
                    for p in sorted(GOLDEN.glob("*/*.md")))
    used = [t for t in candidates if re.search(rf"\b{t}\b", text)]
    assert len(used) > 10
    assert [t for t in used if t not in terms] == []
