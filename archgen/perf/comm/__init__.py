"""Communication: collectives on the cluster's topology as NCCL runs them (its tuning model, algorithms, a torus).

Above `perf.hw`; below training and serving.
"""
