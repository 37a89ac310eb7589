"""`gap` shows a rate in what its metric counts, as `check` and the documents do (newuser95).

A partner's serving SLA, `tokens_per_second_per_gpu >= 300 tokens/s` over `workload/*`, read in the gap table
`>= 300 1/s | 869.1 1/s | +189.7 % (+569.1 1/s)`, where `check` says `target >= 300 tokens/s` and the documents
`869.1 tokens/s`. The target, value, margin and deviation now name tokens; other units keep their stated form.
"""

from __future__ import annotations

from archgen.compare.gap import GapRow
from archgen.model.requirements import Requirement
from archgen.output.gap import deviation_text, margin_text, shown, target_cell
from archgen.units import Q_

TPUT = Requirement(id="P-TPUT", statement="s", metric="tokens_per_second_per_gpu", target=">= 300 tokens/s")
MFU = Requirement(id="P-MFU", statement="s", metric="mfu", target=">= 0.35")
TTFT = Requirement(id="P-TTFT", statement="s", metric="ttft_p99", target="<= 2 s")


def test_a_rate_reads_in_tokens():
    row = GapRow(TPUT, "workload/w", "met", Q_(869.1, "1/s"), reference=Q_(320.0, "1/s"))
    assert target_cell(row) == ">= 300 tokens/s"                  # before: >= 300 1/s
    assert shown(row) == "869.1 tokens/s"                         # before: 869.1 1/s
    assert margin_text(row) == "+189.7 % (+569.1 tokens/s)"       # before: (+569.1 1/s)
    assert shown(row, reference=True) == "320 tokens/s"
    assert deviation_text(row).startswith("+549.1 tokens/s")


def test_other_units_keep_their_stated_form():
    """A bare fraction stays as written beside its value in the same unit (not `>= 35 %` beside `0.56`)."""
    mfu = GapRow(MFU, "workload/w", "met", Q_(0.5636, ""))
    assert (target_cell(mfu), shown(mfu)) == (">= 0.35", "0.56")
    ttft = GapRow(TTFT, "workload/w", "met", Q_(0.24, "s"))
    assert (target_cell(ttft), shown(ttft), margin_text(ttft)) == ("<= 2 s", "0.24 s", "+88.0 % (+1.76 s)")
