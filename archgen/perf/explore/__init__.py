"""Exploring the design space: a sweep's points one at a time (`points`) or as arrays (`vectorised`), plan search.

The top layer of `archgen.perf`: it calls `perf.workload`'s estimate for every point or plan it tries.
"""
