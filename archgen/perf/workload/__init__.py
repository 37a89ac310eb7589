"""A workload estimated: the entry point (`estimate`) on hardware or a cluster, its error bands, roofline, sensitivity.

Also what follows from an estimate (`derived`: a sweep point's metrics, cost per token, the does-not-fit rule) and the
pipeline's performance stage (`results`). Above `perf.train` and `perf.serve`.
"""
