"""One accelerator: hardware, the transformer's shape, kernel rooflines, quantisation, memory per accelerator.

The bottom layer of `archgen.perf`: it imports no other part of the model.
"""
