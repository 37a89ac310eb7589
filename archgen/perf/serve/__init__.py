"""Serving: prefill and decode rooflines, KV-cache capacity, continuous batching under load, MLPerf's latency limits.

Above `perf.hw` and `perf.comm`; beside `perf.train` (neither imports the other).
"""
