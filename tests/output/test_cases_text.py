"""The `archgen estimate --cases` table (`output.cases.case_results_text`): each column as wide as its longest entry."""

from __future__ import annotations

from archgen.output.cases import case_results_text
from archgen.output.estimate import show_value
from archgen.scoring.scores import CaseResult


def test_the_value_columns_line_up_past_a_long_metric_name():
    """`tokens_per_second` (17 characters) once pushed its row's values right of the others' (a 15-wide column).

    The measured values are a shared case file's (data/validation-modern.yaml: nemo2604 tokens_per_second 143,400,
    mlperf-t51 step_time 405.5 ms); the predictions are placeholders: only the layout is under test.
    """
    rows = [CaseResult("a", "step_time", "s", 0.4055, 0.4088, "ok", "test"),
            CaseResult("b", "tokens_per_second", "1/s", 143_400.0, 186_100.0, "ok", "test")]
    header, *body = case_results_text(rows).splitlines()[:3]
    for col in ("measured", "predicted"):
        end = header.index(col) + len(col)
        for r, line in zip(rows, body, strict=True):
            shown = show_value(getattr(r, col), r.unit, r.metric)
            assert line[end - len(shown):end] == shown, (col, header, line)  # right-aligned under its heading
    assert {line.index(r.metric) for r, line in zip(rows, body, strict=True)} == {header.index("metric")}
