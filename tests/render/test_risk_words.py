"""The performance table's status names why a requirement is at risk, short, as the compliance matrix's Reason does.

newuser104: a TPOT limit met where no band was measured at the run's load read "at risk (on assumed inputs: gb200
vector_peak ...)" in the performance table, as if the assumed inputs were the cause; the reason was only in the Band
paragraph under the table and in the matrix's Reason column (servetidy42).

riskfields43 (issue 19): `risk_words` read those words back out of the note's prefixes; it now reads the outcome's
`risk`, which the rule that writes the note sets from the band (`Band.risk`). `said` below is the old reading of the
note, kept as the statement of what the note says: every band the model makes, through every rule, must give a
`risk` whose words are the note's.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from archgen.metrics import find
from archgen.model.at_risk import UNBANDED, UNMEASURED, thin, unbanded, unmeasured
from archgen.model.requirements import Outcome, Requirement, Risk, Status, judge
from archgen.perf.workload.band_families import ARRIVALS, KINDS, QUANTITIES, SHORTER, ContextTokens
from archgen.perf.workload.band_lookup import offline_gap
from archgen.perf.workload.band_table import CONTEXT
from archgen.perf.workload.band_verdict import verdict
from archgen.perf.workload.bands import Band, band
from archgen.render.blocks import Column, Table
from archgen.render.compliance import risk_words, status_cell
from archgen.units import Q_

REQ = Requirement(id="REQ-TPOT-1", statement="TPOT", metric="tpot", target="<= 100 ms")
MET = judge(REQ, Q_(40, "ms"))
LOAD = band("serving-under-load", "tpot", load=0.1)


def said(note: str) -> str:
    """What a note says of why a requirement is at risk, read from its words (how `risk_words` read it before)."""
    why = note.removeprefix(f"{UNBANDED}: ")
    if note.startswith(UNBANDED):   # the band's `describe`: "no band: unmeasured at this load; ..."
        return next((f"no band at this {w}" for w in ("load", "context")
                     if why.startswith(f"no band: unmeasured at this {w}")), "no band")
    return ("no band of this figure" if why.startswith(UNMEASURED) else f"band {SHORTER}" if why.startswith(SHORTER)
            else "band of too few runs" if why.startswith("the band of ") else "")   # `Band.coverage_note`


def on_band(o: Outcome, b: Band) -> Outcome:
    """`o` judged on `b` as `check` and `estimate` judge it (`band_verdict.verdict`, which both call)."""
    return verdict(o, b, None)


def every_band() -> list[Band]:
    """The bands the model gives: each family's metrics at each load, arrival and context past its longest run,
    and an offline TPOT carried from tokens/s with and without the KV cache's capacity as its batch."""
    out: list[Band] = []
    for family, kind in KINDS.items():
        longest = CONTEXT.get(family)
        for metric in QUANTITIES[kind]:
            for load in (None, 0.1, 0.6, 0.95):
                for arrival in ARRIVALS:
                    for context in {None, ContextTokens(*(n + 1 if n else 0 for n in longest)),
                                    ContextTokens(*(int(n * 1.2) for n in longest))} if longest else {None}:
                        b = band(family, metric, load=load, arrival=arrival, context=context)
                        out += [b] if b is not None else []
    for context in (None, ContextTokens(*(n + 1 for n in CONTEXT["offline-serving"]))):
        got = {m: band("offline-serving", m, context=context) for m in ("tokens_per_second", "tpot")}
        out += [b for kv in (False, True) for b in offline_gap(got, 0.3, 0.05, 64, kv).values()]
    return [b for b in out if b is not None]


def test_no_band_at_this_load_is_said_before_the_assumed_inputs():
    assert LOAD is not None and not LOAD.measured and LOAD.risk is Risk.AT_LOAD
    o = replace(on_band(MET, LOAD), assumed=("gb200 vector_peak (unconfirmed)",))
    assert o.shown == "at risk (on assumed inputs: gb200 vector_peak (unconfirmed))"   # check's words, as before
    cell = status_cell(o, why=True)
    assert cell == "at risk (no band at this load; on assumed inputs: gb200 vector_peak (unconfirmed))"
    assert cell.public.startswith("at risk (no band at this load; on assumed inputs: ")
    assert status_cell(o) == o.shown   # the compliance matrix, whose Reason column says it at length


def _band(family: str, metric: str, **at) -> Band:
    b = band(family, metric, **at)
    assert b is not None
    return b


@pytest.mark.parametrize(("outcome", "words"), [
    (judge(REQ, Q_(40, "ms"), band=(Q_(30, "ms"), Q_(120, "ms"))), "an end of its band misses the target"),
    (on_band(MET, _band("serving-under-load", "tpot", load=0.95, context=ContextTokens(30_000, 30_000))), "no band at this context"),
    (on_band(MET, _band("offline-serving", "ttft")), "no band"),
    (unmeasured(MET, find("workload", "memory_headroom")), "no band of this figure"),
    (on_band(MET, replace(_band("dense-training", "step_time"), count=3)), "band of too few runs"),
    (on_band(MET, _band("serving-under-load", "tpot", load=0.95, context=ContextTokens(10_000, 10_500))), "band measured on shorter runs"),
    (thin(MET, "a bisection cut over the even share ..."), ""),   # a reason said at length only
    (MET, ""),
])
def test_each_reason_in_a_few_words(outcome, words):
    assert risk_words(outcome) == words
    assert status_cell(outcome, why=True) == (f"{outcome.status.value} ({words})" if words else outcome.shown)
    assert said(outcome.note) == (words if outcome.risk else "")   # the note says what the field says


def test_every_band_s_risk_says_what_its_note_says():
    """Whatever band the model makes, the reason it gives as a field (`Band.risk`, through `unbanded` or `thin`)
    reads as the note the same rule writes: a field that drifted from its words fails here, for each reason."""
    seen = set()
    for b in every_band():
        o = on_band(MET, b)
        assert risk_words(o) == said(o.note), (b.family, b.metric, b.load, b.context, o.note[:120])
        assert (o.status is Status.AT_RISK) is (b.risk is not None or bool(b.caveat and not b.likely)), o.note[:120]
        seen.add(b.risk)
    assert seen == set(Risk) - {Risk.UNMEASURED} | {None}   # each reason a band gives, and none
    assert {b.risk for b in every_band() if b.caveat and not b.likely} >= {Risk.SHORTER, None}   # and the KV cache's


def test_the_unmeasured_rule_s_field_is_its_note_s():
    o = unmeasured(MET, find("workload", "exposed_communication_share"))
    assert o.risk is Risk.UNMEASURED and o.note.startswith(UNMEASURED) and said(o.note) == Risk.UNMEASURED.value


def test_the_unbanded_note_is_the_one_read():
    assert unbanded(MET, "x").note.startswith(UNBANDED)


def test_a_qualified_status_keeps_its_style():
    table = Table("t", "t", (Column("Status"),), (("at risk (no band at this load)",), ("met (within tolerance)",)),
                  status_column=0)
    assert [table.row_status(i) for i in range(2)] == ["warn", "pass"]
