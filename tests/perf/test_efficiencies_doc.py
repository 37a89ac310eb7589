"""docs/efficiencies.md is current, and a GEMM efficiency without a measurement is a stated range (issue 20, part 3).

A part lists a data type's GEMM efficiency as unconfirmed when no measurement of it on that part (or its die) exists;
such a figure must come with `efficiency.gemm_range`, so that the estimate shows what it spans
(perf/workload/efficiency_range.py) instead of presenting an assumption as a measurement.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import docs_script

ROOT = Path(__file__).resolve().parents[2]


def _generator():
    return docs_script("gen_efficiencies")


def test_efficiencies_page_is_current(accelerators):
    gen = _generator()
    assert gen.PAGE.read_text(encoding="utf-8") == gen.page(accelerators), "stale: run python docs/gen_efficiencies.py"


def test_every_unconfirmed_gemm_efficiency_is_a_stated_range(accelerators):
    for acc in accelerators.values():
        for dt in acc.efficiency.gemm:
            if acc.is_unconfirmed(f"efficiency.gemm.{dt}"):
                assert dt in acc.efficiency.gemm_range, (acc.id, dt)


def test_page_marks_ranges_and_defaults(accelerators):
    text = _generator().page(accelerators)
    mi350x = text[text.index("### mi350x"):text.index("### mi355x")]
    assert "| gemm.fp4 | 0.552 |  | cited |" in mi350x
    assert "| gemm.bf16 | 0.598 | 0.598 to 0.622 | stated range, unconfirmed |" in mi350x
    assert "| vector | 0.926 |  | default |" in mi350x
