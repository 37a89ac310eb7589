"""The performance table's status names why a requirement is at risk, short, as the compliance matrix's Reason does.

newuser104: a TPOT limit met where no band was measured at the run's load read "at risk (on assumed inputs: gb200
vector_peak ...)" in the performance table, as if the assumed inputs were the cause; the reason was only in the Band
paragraph under the table and in the matrix's Reason column (servetidy42).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from archgen.model.requirements import UNBANDED, UNMEASURED, Requirement, judge, thin, unbanded
from archgen.perf.workload.bands import band
from archgen.render.blocks import Column, Table
from archgen.render.compliance import risk_words, status_cell
from archgen.units import Q_

REQ = Requirement(id="REQ-TPOT-1", statement="TPOT", metric="tpot", target="<= 100 ms")
MET = judge(REQ, Q_(40, "ms"))
LOAD = band("serving-under-load", "tpot", load=0.1)


def test_no_band_at_this_load_is_said_before_the_assumed_inputs():
    assert LOAD is not None and not LOAD.measured
    o = replace(unbanded(MET, LOAD.describe()), assumed=("gb200 vector_peak (unconfirmed)",))
    assert o.shown == "at risk (on assumed inputs: gb200 vector_peak (unconfirmed))"   # check's words, as before
    cell = status_cell(o, why=True)
    assert cell == "at risk (no band at this load; on assumed inputs: gb200 vector_peak (unconfirmed))"
    assert cell.public.startswith("at risk (no band at this load; on assumed inputs: ")
    assert status_cell(o) == o.shown   # the compliance matrix, whose Reason column says it at length


@pytest.mark.parametrize(("outcome", "words"), [
    (judge(REQ, Q_(40, "ms"), band=(Q_(30, "ms"), Q_(120, "ms"))), "an end of its band misses the target"),
    (unbanded(MET, "no band: unmeasured at this context; the job's ..."), "no band at this context"),
    (unbanded(MET, "no band: no published offline serving measurement of ttft to take it from"), "no band"),
    (thin(MET, f"{UNMEASURED}: why"), "no band of this figure"),
    (thin(MET, "the band of 3 measurements is expected to hold 50% ..."), "band of too few runs"),
    (thin(MET, "measured on shorter runs: the job's 10,085 tokens ..."), "band measured on shorter runs"),
    (MET, ""),
])
def test_each_reason_in_a_few_words(outcome, words):
    assert risk_words(outcome) == words
    assert status_cell(outcome, why=True) == (f"{outcome.status.value} ({words})" if words else outcome.shown)


def test_the_unbanded_note_is_the_one_read():
    assert unbanded(MET, "x").note.startswith(UNBANDED)


def test_a_qualified_status_keeps_its_style():
    table = Table("t", "t", (Column("Status"),), (("at risk (no band at this load)",), ("met (within tolerance)",)),
                  status_column=0)
    assert [table.row_status(i) for i in range(2)] == ["warn", "pass"]
