"""Training: the stack profiles, the job and its parallel layout, pipeline split, step time, layout search, goodput.

Above `perf.hw` and `perf.comm`; beside `perf.serve` (neither imports the other).
"""
