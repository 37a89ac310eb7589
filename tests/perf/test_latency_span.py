"""An offline serving job's TPOT and TTFT state their span over the part's stated efficiency ranges (newuser46).

Before: Rubin's tpot (24.66 ms, a part stating no efficiency) read "no band: no published offline serving measurement
of tpot to take it from", a bare point, while its tokens/s spanned the assumed GEMM, HBM, flash and scale-up ranges.
No published run measured an offline TPOT, so no model-error band exists; the estimate now states the span over those
ranges alone (`Estimate.latency_spans`, `bands.Band.describe`), the model's error beyond it not bounded. The shipped
GB200 serving job (REQ-PERF-030, tpot <= 100 ms) reads it too: its gemm_range, hbm and flash ranges are the catalog's.
Since offband38 the TPOT carries the tokens/s band by Little's law (tests/perf/test_offline_tpot_band.py); the TTFT
keeps the span alone.
"""

from __future__ import annotations

import pytest

from archgen.perf.workload.band_families import QUANTITIES

PATH = "workload/llama3-70b-serve-gb200"


def test_an_offline_latency_states_its_span_over_the_ranges(shipped):
    est = shipped.workloads[PATH].estimate
    spans = {name: (point, lo, hi) for name, point, lo, hi in est.latency_spans}
    assert set(spans) == {"tpot", "ttft"}
    for name, (point, lo, hi) in spans.items():
        assert point == pytest.approx(est.metrics[name].m_as("s"))
        assert lo <= point <= hi and lo < hi
        b = est.bands[name]
        if name == "tpot":   # the tokens/s band, by Little's law (offband38)
            assert b.measured and b.carried
            continue
        assert not b.measured and b.values(point) is None   # still no band: no run bounds the model's error
        words = b.describe()
        assert words.startswith(f"no band: no published offline serving measurement of {name} to take it from; "
                                "over its stated efficiency ranges the estimate spans the ")
        assert f"{lo * 1e3:.4g} ms to {hi * 1e3:.4g} ms around {point * 1e3:.4g} ms" in words


def test_each_latency_takes_its_own_quantity_s_span(shipped):
    est = shipped.workloads[PATH].estimate
    assert est.span is not None and est.span[0] == "tokens_per_second_per_gpu"
    inference = QUANTITIES["inference"]
    for name, *_ in est.latency_spans:
        assert inference[name] != inference[est.span[0]]   # the tokens/s span never stands for a latency's
    assert "TPOT" not in est.bands["tokens_per_second"].describe()
