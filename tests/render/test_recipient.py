"""The deliverables as the partner who receives them reads them (newuser9's review of `make demo`'s out/).

Each test is one finding of that review: a figure that read differently, or barer, in one place than in another.
"""

from __future__ import annotations

from archgen.render import performance
from archgen.render.blocks import Para
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
        low, high = (performance._shown(m[f"{name}_{end}"], name) for end in ("low", "high"))
        assert rows[name][2] == f"{low} to {high}", name
    assert rows["mtti"][2] == "14.0 h to 313.7 h"
    text = " ".join(b.text for sub in section.sections for b in sub.blocks if isinstance(b, Para))
    assert "range over the published failure-rate sets" in text

