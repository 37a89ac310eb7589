"""A simulated run's percentiles are loadgen's: the sorted values' element at floor(n x p) (nu68fix, newuser68).

mlcommons/inference loadgen/results.cc at 7ad9af18733e34e2599dee5c155a780329e3b3ac, `ProcessTokenLatencies`:
`std::sort(first_token_latencies)`, then `lp.sample_latency = first_token_latencies[sample_count * lp.percentile]`
(a size_t index: the floor), and the same for the times per output token. Before, `Stats.of` took numpy's default,
linear interpolation at (n - 1) x p, which is never above loadgen's.
"""

from __future__ import annotations

import numpy as np
import pytest

from archgen.perf.serve.run import Stats


def test_p99_of_100_values_is_the_largest_as_loadgen_reads_it():
    values = np.arange(1.0, 101.0)[::-1]   # 100 requests, 1 to 100 s, unsorted
    s = Stats.of(values)
    assert s.p99 == 100.0          # sorted[floor(100 x 0.99)] = sorted[99]; numpy's linear: 99.01
    assert s.p50 == 51.0           # sorted[50]; numpy's: 50.5
    assert s.mean == pytest.approx(50.5)
    assert float(np.percentile(values, 99)) == pytest.approx(99.01)


@pytest.mark.parametrize("n", [1, 7, 99, 100, 101, 1000, 4321])
def test_the_index_is_floor_n_p_and_never_below_numpys(n):
    rng = np.random.default_rng(n)
    values = rng.exponential(1.0, n)
    ordered = np.sort(values)
    s = Stats.of(values)
    assert s.p99 == ordered[min(n - 1, int(n * 0.99))] and s.p50 == ordered[min(n - 1, int(n * 0.5))]
    assert s.p99 >= float(np.percentile(values, 99)) and s.p50 >= float(np.percentile(values, 50))
