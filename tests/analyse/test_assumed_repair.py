"""A training job's restart, goodput and spares name the assumed repair times they rest on.

The input that showed it (newuser69, a reliability engineer signing off a 16,384-GPU GB200 job): goodput 0.535,
of whose 112.6 min restart about 100 min was the wait for a repair (hardware share x MTTR x the chance that no spare
is free), rests on the default set's 24 h GPU and host repair and 8 h NIC repair. Llama 3's Table 5 gives counts and
no repair time, and the set's sources say "(repair time assumed)", but the document's table read "sourced" for those
classes and REQ005 named the failure rates and storage only. The one measured repair time in the catalog is
StepFun's fault trace (InfiniteHBD-Trace, mean fault_start to fault_end: 155.4 h a GPU, 155.8 h a server, 178.2 h
a NIC), which states `repair_basis: sourced`.
"""

from __future__ import annotations

import dataclasses

import yaml

from archgen.analyse.assumed import repair_words
from archgen.model.reliability import FailureRate
from archgen.render.blocks import Table
from archgen.render.operations import reliability_section
from tests.conftest import REPO

JOB = "workload/llama3-405b-pretrain-gb200"
REPAIRS = ("accelerator repair time 24 h (assumed)", "host repair time 24 h (assumed)",
           "nic repair time 8 h (assumed)")


def test_the_figures_a_repair_wait_enters_name_the_assumed_repair_times(shipped):
    assumed = shipped.operations.assumed[JOB]
    for metric in ("goodput", "restart_time", "spares", "goodput_tokens_per_second", "cost_per_token"):
        assert all(r in assumed[metric] for r in REPAIRS), metric
    for metric in ("checkpoint_write_time", "checkpoint_interval"):   # the write and Daly's interval: no repair
        assert not any("repair" in x for x in assumed.get(metric, ())), metric
    cluster = shipped.operations.assumed["cluster/gb200-nvl72-su"]
    assert all(r in cluster["goodput"] for r in REPAIRS)
    assert not any("repair" in x for x in cluster["mtti"])   # the MTTI is the rates alone


def test_a_measured_repair_time_is_no_assumed_input(shipped):
    rel = shipped.operations.reliability["cluster/gb200-nvl72-su"]
    measured = tuple(dataclasses.replace(c, rate=c.rate.model_copy(update={"repair_basis": "sourced"}))
                     if c.rate is not None else c for c in rel.classes)
    assert repair_words(rel) == REPAIRS
    assert repair_words(dataclasses.replace(rel, classes=measured)) == ()


def test_the_only_measured_repair_times_are_stepfuns():
    text = (REPO / "specs/catalog/reliability/stepfun-nvidia-2024.yaml").read_text(encoding="utf-8")
    doc = next(d for d in yaml.safe_load_all(text) if d and d.get("classes"))
    rates = {k: FailureRate.model_validate(v) for k, v in doc["classes"].items()}
    assert {k for k, r in rates.items() if r.repair_basis == "sourced"} == {"accelerator", "host", "nic", "software"}
    assert rates["accelerator"].repair.m_as("h") == 155.4
    field = yaml.safe_load((REPO / "specs/catalog/reliability/field-h100-2024.yaml").read_text(encoding="utf-8"))
    assert all(FailureRate.model_validate(v).repair_basis == "assumed" for v in field["classes"].values())


def test_the_document_says_the_repair_is_assumed_beside_a_sourced_rate(shipped):
    section = reliability_section(shipped, shipped.clusters["cluster/gb200-nvl72-su"])
    (table,) = [b for b in section.blocks if isinstance(b, Table) and b.id == "failure-rates"]
    basis = {r[0]: r[4] for r in table.rows}
    assert basis["accelerator"].startswith("sourced;") and basis["accelerator"].endswith("; repair 24 h assumed")
    assert basis["nic"].endswith("; repair 8 h assumed")
    assert "repair" not in basis["switch"]   # a switch stops the job; its repair waits for no node


def test_the_document_says_a_spare_parts_stock_is_not_provided_without_a_turnaround(shipped):
    """The reliability engineer asked for a spares stock per part; the shipped sets state no turnaround (issue 22)."""
    from archgen.render.blocks import Para
    from archgen.render.spare_parts import NO_STOCK

    section = reliability_section(shipped, shipped.clusters["cluster/gb200-nvl72-su"])
    assert NO_STOCK in [b.text for b in section.blocks if isinstance(b, Para)]
    assert NO_STOCK.startswith("Spare-parts stock: not provided")
