"""Spare-parts stock, a job's interruptions by part class, and the MTTI's confidence interval in `check` (issue 22).

Stock: the replacements on order at a random time are Poisson with mean (failures a year) x (turnaround) (Palm's
theorem; Sherbrooke, METRIC, Operations Research 16(1), 1968); the stock is the fewest s with P(X <= s) >= the set's
`no_stockout`, the fill rate P(X <= s - 1). The Poisson sums here are written out term by term, independently of
`archgen.perf.train.poisson`. By class: Llama 3's Table 5 (Dubey et al., arXiv 2407.21783; the counts are in
tests/data/reliability/llama3-sources.yaml).
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from archgen.errors import InternalError
from archgen.model.requirements import Status
from archgen.perf.train.poisson import poisson_quantile
from archgen.pipeline import run

DATA = Path(__file__).parents[1] / "data" / "reliability"
SOURCES = YAML(typ="safe", pure=True).load((DATA / "llama3-sources.yaml").read_text(encoding="utf-8"))
RACK = Path(__file__).parents[2] / "specs" / "racks" / "dgx-h100-4.yaml"
JOB = "workload/llama3-405b-16k"


def _cdf(mean: float, k: int) -> float:
    """P(X <= k), X ~ Poisson(mean), summed term by term (mean small enough for plain floats)."""
    return sum(math.exp(-mean + i * math.log(mean) - math.lgamma(i + 1)) for i in range(k + 1)) if k >= 0 else 0.0


def _run(tmp_path: Path, *files: str):
    tree = tmp_path / "llama3"
    shutil.copytree(DATA / "llama3", tree)
    shutil.copy(RACK, tree / "rack.yaml")
    for i, text in enumerate(files):
        (tree / f"extra{i}.yaml").write_text(text, encoding="utf-8")
    if any("kind: FailureRates" in f for f in files):
        cluster = tree / "cluster.yaml"
        cluster.write_text(cluster.read_text(encoding="utf-8").replace(
            "facility: hall-air", "facility: hall-air\nfailure_rates: with-turnaround"), encoding="utf-8")
    return run([tree])


RATES = """kind: FailureRates
id: with-turnaround
name: Llama 3 rates with an RMA turnaround
base: field-h100-2024
turnaround: 14 d
no_stockout: {level}
classes:
  nic: {{afr: 0.002890, events: 7, repair: 8 h, turnaround: 3 d, basis: sourced, source: "Llama 3 Table 5, per NIC"}}
"""


@pytest.mark.parametrize(("mean", "level", "expected"), [(2.0, 0.95, 5), (2.0, 0.9, 4), (0.1, 0.95, 1), (0.0, 0.95, 0),
                                                         (104.18, 0.95, 121), (2.0, 0.5, 2), (0.5, 0.5, 0),
                                                         (2.0, 0.999, 8), (0.0, 0.999, 0)])
def test_the_stock_is_the_poisson_quantile(mean, level, expected):
    """P(X <= 4 | 2) = 0.947 < 0.95 <= P(X <= 5) = 0.983; P(X <= 3 | 2) = 0.857 < 0.9 <= 0.947.

    The median: P(X <= 1 | 2) = 0.406 < 0.5 <= P(X <= 2) = 0.677, and P(X = 0 | 0.5) = e^-0.5 = 0.607 >= 0.5 (no
    stock); at 0.999, P(X <= 7 | 2) = 0.99890 < 0.999 <= P(X <= 8) = 0.99976. No demand: no stock at any level.
    """
    s = poisson_quantile(mean, level)
    assert s == expected
    if mean:
        assert _cdf(mean, s) >= level > _cdf(mean, s - 1)


def test_stock_from_a_stated_turnaround(tmp_path):
    """Demand = units x rate x turnaround; the stock meets the stated no-stock-out probability and no fewer does."""
    r = _run(tmp_path, RATES.format(level=0.99))
    c = r.metrics["cluster/llama3-16k"]
    rel = r.operations.reliability["cluster/llama3-16k"]
    lines = {line.name: line for line in rel.stock}
    gpus = rel.accelerators   # 24,576: the stand-in's 48 pods of 512 (llama3-sources.yaml: cluster_gpus)
    assert gpus == SOURCES["measured"]["cluster_gpus"]
    demand = gpus * 0.1106 * 14 / 365.25   # Table 5's 268 GPU interruptions over 2,422.3 GPU-years; 14 d
    assert c["spare_demand.accelerator"].m == pytest.approx(demand, rel=1e-9)   # 104.18
    s = int(c["spare_stock.accelerator"].m)
    assert s == 129   # 121 at the default 0.95 (test_the_stock_is_the_poisson_quantile)
    assert _cdf(demand, s) >= 0.99 > _cdf(demand, s - 1)
    assert lines["accelerator"].no_stockout == pytest.approx(_cdf(demand, s), rel=1e-9)
    assert lines["accelerator"].fill_rate == pytest.approx(_cdf(demand, s - 1), rel=1e-9)
    assert lines["accelerator"].turnaround == pytest.approx(14 * 86400)
    # the NIC class states its own 3 days, over every NIC the systems hold (management ones too: one stock)
    nics = sum(line.units for line in rel.stock if line.name == "nic")
    assert c["spare_demand.nic"].m == pytest.approx(nics * 0.002890 * 3 / 365.25, rel=1e-9)
    assert "spare_stock.software" not in c   # a software interruption replaces no part


def test_no_turnaround_no_stock(tmp_path):
    """The shipped sets state no turnaround: the stock is not provided, and a requirement on it says why."""
    req = ("kind: Requirements\nid: r\nrequirements:\n  - {id: REQ-SP, statement: GPU stock within the budget, "
           "subject: cluster/llama3-16k, metric: spare_stock.accelerator, target: '<= 200', level: should}\n")
    r = _run(tmp_path, req)
    assert "spare_stock.accelerator" not in r.metrics["cluster/llama3-16k"]
    j = next(j for j in r.requirements if j.bound.req.id == "REQ-SP")
    assert j.outcome.status is Status.NOT_PROVIDED
    assert "no replenishment turnaround is stated" in j.outcome.note


def test_a_requirement_on_the_stock_is_judged(tmp_path):
    """The GPU stock a 99 % no-stock-out level needs over 14 days is met against a budget above it, missed below."""
    req = ("kind: Requirements\nid: r\nrequirements:\n"
           "  - {id: REQ-OK, statement: budget, subject: cluster/llama3-16k, metric: spare_stock.accelerator, "
           "target: '<= 200', level: should}\n"
           "  - {id: REQ-NO, statement: budget, subject: cluster/llama3-16k, metric: spare_stock.accelerator, "
           "target: '<= 100', level: should}\n")
    r = _run(tmp_path, RATES.format(level=0.99), req)
    status = {j.bound.req.id: j.outcome.status for j in r.requirements}
    assert status["REQ-OK"] is Status.MET
    assert status["REQ-NO"] is Status.NOT_MET


def test_a_jobs_interruptions_by_class_against_llama3_table5(tmp_path):
    """The 16,384-GPU job by class against Table 5's counts over its 54 days.

    Table 5: 466 interruptions, 47 planned, 419 unplanned: 8.63 and 7.76 a day. GPU-attributed 268 (faulty GPU 148,
    HBM3 72, SRAM 19, system processor 17, SDC 6, thermal 6), host 46, software 63, NIC 7, network switch/cable 35.
    The set's rates come from these counts, so this is the consistency of the split, not an independent check; the
    stand-in's DGX H100 holds 10 data NICs where Meta's servers counted 8 (7 x 10 / 8 = 8.75), and its network is
    the stand-in's own (switches at Alibaba HPN's rate).
    """
    m = SOURCES["measured"]
    by = m["by_component"]
    days = m["days"]
    assert m["interruptions_total"] / days == pytest.approx(8.63, abs=0.005)
    assert m["interruptions_unplanned"] / days == pytest.approx(7.76, abs=0.005)
    table5 = {"accelerator": by["faulty_gpu"] + by["hbm3"] + by["gpu_sram"] + by["gpu_system_processor"] + by["sdc"]
              + by["gpu_thermal"],
              "host": by["host_maintenance"] + by["ssd"] + by["psu"] + by["chassis"] + by["io_board"] + by["cpu"]
              + by["system_memory"],
              "software": by["software_bug"] + by["nccl_watchdog"] + by["dependency"], "nic": by["nic"],
              "network": by["network_switch_cable"]}
    assert table5 == {"accelerator": 268, "host": 46, "software": 63, "nic": 7, "network": 35}
    assert sum(table5.values()) == m["interruptions_unplanned"]
    w = _run(tmp_path).metrics[JOB]
    got = {k.removeprefix("interruptions_per_day.").removesuffix("_low").removesuffix("_high"): None
           for k in w if k.startswith("interruptions_per_day.")}
    assert set(got) == {"accelerator", "host", "software", "nic", "switch", "transceiver"}

    def per(name: str, end: str = "") -> float:
        return w[f"interruptions_per_day.{name}{end}"].m_as("1/day")

    assert per("accelerator") * days == pytest.approx(16384 * 0.1106 * days / 365.25, rel=1e-9)   # 267.9
    assert per("accelerator") * days == pytest.approx(268, rel=0.001)
    assert per("host") * days == pytest.approx(46, rel=0.001)
    assert per("software") * days == pytest.approx(63, rel=0.001)
    assert per("nic") * days == pytest.approx(7 * 10 / 8, rel=0.001)
    assert (per("switch") + per("transceiver")) * days == pytest.approx(35, rel=0.05)
    for name in ("accelerator", "host", "software", "nic"):   # Table 5's own rate inside each class's interval
        assert per(name, "_low") < table5[name] / days < per(name, "_high")
    # HPN's switch rate states no count: no interval (before: a zero-width one, the point at both ends)
    assert not {"interruptions_per_day.switch_low", "interruptions_per_day.switch_high"} & set(w)
    # the classes add to the job's interruptions (no site events in the stand-in's hall)
    assert sum(per(n) for n in got) == pytest.approx(w["interruptions_per_day"].m_as("1/day"), rel=1e-9)


def test_mtti_confidence_interval_in_check(tmp_path):
    """A requirement met at the point but not at the CI's pessimistic end is at risk, and REQ004 gives the CI.

    The job's MTTI is 3.07 h, its 95 % interval from field-h100-2024's own counts 2.79 h to 3.39 h.
    """
    req = ("kind: Requirements\nid: r\nrequirements:\n"
           f"  - {{id: REQ-CI, statement: MTTI, subject: {JOB}, metric: mtti, target: '>= 3 h', level: should}}\n"
           f"  - {{id: REQ-SET, statement: MTTI, subject: {JOB}, metric: mtti, target: '>= 2.5 h', level: should}}\n")
    r = _run(tmp_path, req)
    w = r.metrics[JOB]
    assert w["mtti_ci_low"].m_as("h") < 3 < w["mtti"].m_as("h") < w["mtti_ci_high"].m_as("h")
    assert w["mtti_ci_low"].m_as("h") == pytest.approx(24 / w["interruptions_per_day_ci_high"].m_as("1/day"))
    status = {j.bound.req.id: j.outcome.status for j in r.requirements}
    assert status["REQ-CI"] is Status.AT_RISK and status["REQ-SET"] is Status.AT_RISK
    found = {f.requirement: f.message for f in r.findings if f.id == "REQ004"}
    assert "95 % confidence interval from the 'field-h100-2024' set's own counts is 2.8 h to 3.4 h" in found["REQ-CI"]
    assert "misses it too" in found["REQ-CI"]
    assert "meets it at both ends: the risk is the spread between the rate sets" in found["REQ-SET"]


def test_a_requirement_on_one_class_is_judged_across_its_own_count(tmp_path):
    """GPU interruptions 4.96 a day, 95 % 4.38 to 5.59 from Table 5's 268: `<= 5.2` is at risk, and says over what."""
    req = ("kind: Requirements\nid: r\nrequirements:\n"
           f"  - {{id: REQ-GPU, statement: GPU interruptions, subject: {JOB}, metric: interruptions_per_day.accelerator, "
           "target: '<= 5.2 interruptions/day', level: should}\n")
    r = _run(tmp_path, req)
    (j,) = [j for j in r.requirements if j.bound.req.id == "REQ-GPU"]
    assert j.outcome.status is Status.AT_RISK
    (msg,) = [f.message for f in r.findings if f.id == "REQ004" and f.requirement == "REQ-GPU"]
    assert "95 % Poisson interval of the part class's own count" in msg
    assert "published failure-rate sets" not in msg


def test_the_document_shows_the_stock_and_the_split(tmp_path):
    """The reliability section's stock table (at the set's level) and the by-class table, summing to the job's."""
    from archgen.render.blocks import Table
    from archgen.render.operations import reliability_section

    r = _run(tmp_path, RATES.format(level=0.95))
    section = reliability_section(r, r.clusters["cluster/llama3-16k"])
    tables = {b.id: b for b in section.blocks if isinstance(b, Table)}
    stock = {row[0]: row for row in tables["spare-stock"].rows}
    assert "95 % chance of no stock-out" in tables["spare-stock"].caption
    assert stock["accelerator"][6] == 121 and stock["accelerator"][5] == pytest.approx(104.185, abs=0.001)
    assert stock["accelerator"][4] == "assumed"   # spares23: the set's 14 d states no `turnaround_basis`
    assert stock["nic"][3].m_as("day") == pytest.approx(3)
    split = tables["interruptions-by-class"]
    assert [row[0] for row in split.rows][0] == "accelerator"
    rows = {row[0]: row for row in split.rows}
    assert rows["switch"][2:4] == (None, None) and rows["switch"][5] == "no count stated: its uncertainty is not provided"
    assert rows["accelerator"][2] < rows["accelerator"][1] < rows["accelerator"][3] and rows["accelerator"][5] == ""
    assert sum(row[1] for row in split.rows if ":" not in row[0]) == pytest.approx(   # a class's parts: inside it
        r.metrics["cluster/llama3-16k"]["interruptions_per_day"].m_as("1/day"), rel=1e-9)


def test_a_class_figure_names_only_its_own_assumed_rate(tmp_path):
    """REQ005: one class's interruptions rest on its own rate (the optics' pooled rate is `assumed`; the GPUs' is
    sourced), the confidence interval on every rate the MTTI rests on."""
    req = ("kind: Requirements\nid: r\nrequirements:\n"
           f"  - {{id: REQ-OPT, statement: optics, subject: {JOB}, metric: interruptions_per_day.transceiver, "
           "target: '<= 10 interruptions/day', level: should}\n"
           f"  - {{id: REQ-GPU, statement: GPUs, subject: {JOB}, metric: interruptions_per_day.accelerator, "
           "target: '<= 10 interruptions/day', level: should}\n"
           f"  - {{id: REQ-CIL, statement: MTTI CI, subject: {JOB}, metric: mtti_ci_low, target: '>= 1 h', "
           "level: should}\n")
    r = _run(tmp_path, req)
    assumed = {j.bound.req.id: j.outcome.assumed for j in r.requirements}
    assert assumed["REQ-OPT"] == ("transceiver failure rate",)
    assert not assumed["REQ-GPU"]
    mtti = next(j.outcome.assumed for j in r.requirements if j.bound.req.id == "REQ-CIL")
    assert "transceiver failure rate" in mtti


def test_a_turnaround_longer_than_a_year_is_refused_at_its_field():
    from pydantic import ValidationError

    from archgen.model.reliability import FailureRate

    with pytest.raises(ValidationError, match="replenishment turnaround of 400 days "):
        FailureRate(afr=0.1, turnaround="400 d", basis="assumed", source="test")
    assert FailureRate(afr=0.1, turnaround="14 d", basis="assumed", source="test").turnaround.m_as("day") == 14
    from archgen.model.reliability import FailureRates

    with pytest.raises(ValidationError, match="replenishment turnaround of 2 years "):
        FailureRates(id="x", name="x", turnaround="2 year", classes={})


def test_a_stock_that_never_runs_out_is_refused():
    """P(X <= s) < 1 for every finite s: a `no_stockout` of 1 has no answer, and is refused at its field.

    Before, the bisection returned wherever the CDF's sum rounded to 1.0 (68 for a demand of 0.5, 17 for 1).
    """
    from pydantic import ValidationError

    from archgen.model.reliability import FailureRates

    with pytest.raises(ValidationError, match="no-stock-out probability of 1 asks for a stock that never runs out"):
        FailureRates(id="x", name="x", turnaround="14 d", no_stockout=1.0, classes={})
    assert FailureRates(id="x", name="x", no_stockout=0.999, classes={}).no_stockout == 0.999
    for level in (0.0, 1.0):
        with pytest.raises(InternalError, match="above 0 and below 1"):
            poisson_quantile(0.5, level)


def test_a_class_rated_at_no_failures_has_no_fill_rate():
    """No failures: the stock is 0 and never runs out, but no failure waits or finds a spare, so no fill rate."""
    from archgen.analyse.spare_parts import stock_lines

    entry = {"name": "cdu", "units": 4, "failures": 0.0, "pipeline": 0.0, "untimed": set()}
    (line,) = stock_lines([entry], 0.95)
    assert (line.stock, line.no_stockout, line.fill_rate, line.turnaround) == (0, 1.0, None, None)
    (line,) = stock_lines([entry | {"failures": 2.0, "pipeline": 2.0 * 14 / 365.25}], 0.95)
    assert line.stock == 1 and line.fill_rate == pytest.approx(math.exp(-2.0 * 14 / 365.25))


def test_a_no_stockout_below_one_never_reads_as_one():
    """review39: a class with little demand (a switch tray's 1e-4 failures over its turnaround) holds no spare and has
    no stock-out with P = exp(-1e-4) = 0.99990, which three decimals showed as 1.000, certain; it reads 0.999900. A
    class rated at no failures is 1 exactly and keeps 1.0."""
    from types import SimpleNamespace

    from archgen.analyse.failure_model import StockLine
    from archgen.render.spare_parts import stock_blocks

    demand = 1e-4
    lines = (StockLine("switch", 4, 0.01, 86400.0, demand, 0, math.exp(-demand), 0.0),
             StockLine("cdu", 2, 0.0, None, 0.0, 0, 1.0, None))
    [table, _] = stock_blocks(SimpleNamespace(stock=lines, no_stockout=0.95))
    rows = {row[0]: row for row in table.rows}
    assert rows["switch"][7:9] == ("0.999900", 0.0) and rows["cdu"][7:9] == (1.0, None)
