"""Rows copied from Megatron-Bridge's performance tables say what their `source` quotes (issue 20 part 8).

Each row of tests/perf/data/bridge-26.04.yaml, bridge-26.04-qwen3-30b.yaml and bridge-26.04.01.yaml that quotes a
table line (NVIDIA-NeMo/Megatron-Bridge docs/performance-summary-archive.md at 067f987df: GPUs, GBS, MBS, seq, TP PP
CP VP EP, tokens/s/GPU) must state the same layout, and its measured tokens/s must be the table's figure times the
GPUs. A copying slip would otherwise be scored as a model error. Rows quoting something else (the skills cards'
A/B step times) are skipped.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from archgen.scoring.case_checks import virtual_stages
from archgen.scoring.cases import read_cases

DATA = Path(__file__).parent / "data"
FILES = ("bridge-26.04.yaml", "bridge-26.04-qwen3-30b.yaml", "bridge-26.04.01.yaml")
#: The quoted layout: "TP2 PP8 CP1 VP4 EP32" (VP and EP may be absent or "VP n/a").
LAYOUT = re.compile(r"TP(\d+) PP(\d+) CP(\d+)(?: VP(\d+| n/a))?(?: EP(\d+))?")


def _number(pattern: str, text: str) -> int:
    """The integer after `pattern` in `text` (thousands commas allowed)."""
    found = re.search(pattern, text)
    assert found, f"{pattern!r} not in {text!r}"
    return int(found.group(1).replace(",", ""))


def _table_rows():
    """(file, case) for every row that quotes a performance-table line."""
    for name in FILES:
        cases, _ = read_cases(DATA / name)
        for case in cases:
            if "tokens/s/GPU" in case.source and LAYOUT.search(case.source):
                yield pytest.param(case, id=case.id)


ROWS = list(_table_rows())


def test_every_file_has_table_rows():
    """The three files hold the rows this test reads (4 + 4 + 14 of them)."""
    assert len(ROWS) == 22


@pytest.mark.parametrize("case", ROWS)
def test_row_states_what_its_source_quotes(case):
    """GPUs, batch, micro-batch, sequence, TP/PP/CP/VP/EP and tokens/s as the quoted table line gives them."""
    src, t = case.source, case.training
    gpus = _number(r"(\d+) GPUs", src)
    tp, pp, cp, vp, ep = LAYOUT.search(src).groups()
    assert case.system.count == gpus
    assert t.global_batch == _number(r"GBS ([\d,]+)", src)
    assert t.micro_batch == _number(r"MBS (\d+)", src)
    assert t.seq_len == _number(r"seq ([\d,]+)", src)
    assert (t.tp, t.pp, t.cp) == (int(tp), int(pp), int(cp))
    assert t.tp * t.pp * t.cp * t.dp == gpus, "dp is what the GPUs leave"
    assert virtual_stages(t) == (1 if vp in (None, " n/a") else int(vp))
    assert t.ep == (1 if ep is None else int(ep))
    (m,) = case.measured
    assert m.metric == "tokens_per_second"
    assert m.value == _number(r"([\d,]+) tokens/s/GPU", src) * gpus
