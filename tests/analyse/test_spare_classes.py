"""Part classes a reliability engineer expects, and a sourced turnaround (spares23, issue 22).

- Sub-classes inside a class (`FailureRate.split`): Llama 3's Table 5 (Dubey et al., arXiv 2407.21783) splits its 268
  GPU-attributed interruptions into faulty GPU 148 (NVLink included), HBM3 72, SRAM 19, GPU system processor 17, SDC
  6 and thermal interface 6 (the counts: tests/data/reliability/llama3-sources.yaml). The accelerator's rate and
  total stay as they were; each part's share is its count over 268, its interval Garwood's on its own count.
- NVLink switch trays (`scale_up_switch`) are a class of their own; no set states a rate for them, so the set's
  switch rate (Alibaba HPN's ToR rate, 0.051 % a month x 12) stands in and the document says so.
- `turnaround_basis` / `turnaround_source` beside the stock: an assumed turnaround reads "assumed".
"""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from archgen.model.reliability import FailureRate, FailureRates
from archgen.perf.train.poisson import poisson_interval
from tests.analyse.test_spare_parts import RATES, SOURCES, _run

TABLE5 = SOURCES["measured"]["by_component"]
DAYS = SOURCES["measured"]["days"]
JOB_GPUS = SOURCES["measured"]["gpus"]


def test_hbm_is_its_own_row_inside_the_accelerator(tmp_path):
    """The 16,384-GPU job over 54 days reads Table 5's counts per part; the accelerator's total is unchanged."""
    r = _run(tmp_path)
    rel = r.operations.reliability["cluster/llama3-16k"]
    gpu = {name: per_day for name, per_day, _, _ in rel.by_class(JOB_GPUS)}["accelerator"]
    assert gpu * DAYS == pytest.approx(268, rel=0.002)   # 267.9 (spares22), unchanged
    parts = {sub: (n, per_day, lo, hi) for name, sub, n, per_day, lo, hi in rel.by_subclass(JOB_GPUS)}
    expected = {"gpu": TABLE5["faulty_gpu"], "hbm": TABLE5["hbm3"], "sram": TABLE5["gpu_sram"],
                "gsp": TABLE5["gpu_system_processor"], "sdc": TABLE5["sdc"], "thermal": TABLE5["gpu_thermal"]}
    assert {sub: n for sub, (n, *_) in parts.items()} == expected
    assert sum(per_day for _, per_day, _, _ in parts.values()) == pytest.approx(gpu, rel=1e-12)
    n, hbm, lo, hi = parts["hbm"]
    assert hbm * DAYS == pytest.approx(72, rel=0.002)            # 72 HBM3 interruptions in 54 days
    assert hbm == pytest.approx(gpu * 72 / 268, rel=1e-12)
    g_lo, g_hi = poisson_interval(72)                              # Garwood on 72: 56.3 to 90.7
    assert (lo * DAYS, hi * DAYS) == pytest.approx((72 * g_lo, 72 * g_hi), rel=0.002)
    assert 56.0 < lo * DAYS < 56.7 and 90.3 < hi * DAYS < 91.1


def test_the_by_class_table_shows_the_parts_under_their_class(tmp_path):
    from archgen.render.blocks import Table
    from archgen.render.operations import reliability_section

    r = _run(tmp_path)
    section = reliability_section(r, r.clusters["cluster/llama3-16k"])
    rows = next(b for b in section.blocks if isinstance(b, Table) and b.id == "interruptions-by-class").rows
    names = [row[0] for row in rows]
    at = names.index("accelerator")
    assert names[at + 1:at + 7] == ["accelerator: gpu", "accelerator: hbm", "accelerator: sram", "accelerator: gsp",
                                    "accelerator: sdc", "accelerator: thermal"]
    assert rows[at + 2][5] == "inside accelerator: 72 of its 268 counted failures"


@pytest.mark.parametrize(("split", "events", "message"), [
    ({"gpu": 148, "hbm": 72}, 268, "the split counts 220 failures and the class states 268 `events`"),
    ({"hbm": 72}, None, "the split counts 72 failures and the class states no `events`"),
])
def test_a_split_sums_to_the_class_count(split, events, message):
    with pytest.raises(ValidationError, match=message):
        FailureRate(afr=0.1, events=events, split=split, basis="sourced", source="test")


def test_a_split_names_the_class_sub_classes():
    with pytest.raises(ValidationError, match="unknown sub-class 'dimm' of 'accelerator'"):
        FailureRates(id="x", name="x", classes={"accelerator": FailureRate(
            afr=0.1, events=3, split={"hbm": 2, "dimm": 1}, basis="sourced", source="test")})
    with pytest.raises(ValidationError, match="unknown sub-class 'hbm' of 'host'"):
        FailureRates(id="x", name="x", classes={"host": FailureRate(
            afr=0.1, events=3, split={"hbm": 3}, basis="sourced", source="test")})


def test_a_turnaround_reads_assumed_unless_sourced(tmp_path):
    r = _run(tmp_path, RATES.format(level=0.95))
    lines = {line.name: line for line in r.operations.reliability["cluster/llama3-16k"].stock}
    assert lines["accelerator"].lead_basis == "assumed"
    sourced = RATES.replace("turnaround: 14 d\n", "turnaround: 14 d\nturnaround_basis: sourced\n"
                            "turnaround_source: \"a vendor's RMA terms, clause 4\"\n")
    r = _run(tmp_path / "sourced", sourced.format(level=0.95))
    lines = {line.name: line for line in r.operations.reliability["cluster/llama3-16k"].stock}
    assert lines["accelerator"].lead_basis == "sourced: a vendor's RMA terms, clause 4"
    assert lines["nic"].lead_basis == "assumed"   # its own 3 d states no basis: assumed, whatever the set's


def test_a_sourced_turnaround_names_its_source():
    with pytest.raises(ValidationError, match="names no `turnaround_source`"):
        FailureRate(afr=0.1, turnaround="14 d", turnaround_basis="sourced", basis="assumed", source="test")
    with pytest.raises(ValidationError, match="with no `turnaround`"):
        FailureRates(id="x", name="x", turnaround_basis="sourced", turnaround_source="RMA terms", classes={})


def test_nvlink_switch_trays_read_their_own_row(shipped):
    """The GB200 SU's 8 NVL72 racks of 9 NVLink switch trays: 72 trays at the switch rate, lent; nothing moves."""
    rel = shipped.operations.reliability["cluster/gb200-nvl72-su"]
    by = {c.name: c for c in rel.classes}
    trays = by["scale_up_switch"]
    assert trays.units == 72 and trays.parts == ("nvlink5-switch-tray",) and trays.lender == "switch"
    assert trays.rate is not None and trays.rate.per_year == pytest.approx(0.00612)   # HPN: 0.051 % x 12
    assert "nvlink5-switch-tray" not in by["switch"].parts
    assert "scale_up_switch" in rel.assumed
    domain = next(d for d in rel.domains if d.name == "scale-up domain")
    assert domain.per_year == pytest.approx(72 * 0.00612)


def test_a_stock_on_an_assumed_turnaround_names_it(tmp_path):
    """REQ005: a requirement on a stock sized to an assumed turnaround names it; a sourced one does not."""
    req = ("kind: Requirements\nid: r\nrequirements:\n  - {id: REQ-SP, statement: GPU stock within the budget, "
           "subject: cluster/llama3-16k, metric: spare_stock.accelerator, target: '<= 200', level: should}\n")
    r = _run(tmp_path, RATES.format(level=0.95), req)
    [j] = [j for j in r.requirements if j.bound.req.id == "REQ-SP"]
    assert "accelerator turnaround 14 d (assumed)" in j.outcome.assumed
    sourced = RATES.replace("turnaround: 14 d\n", "turnaround: 14 d\nturnaround_basis: sourced\n"
                            "turnaround_source: \"a vendor's RMA terms, clause 4\"\n")
    r = _run(tmp_path / "sourced", sourced.format(level=0.95), req)
    [j] = [j for j in r.requirements if j.bound.req.id == "REQ-SP"]
    assert not any("turnaround" in x for x in j.outcome.assumed)
