"""Analytic performance model: roofline kernels, α-β collectives, LLM training and inference, memory fit.

Layers, bottom up: `hardware` (plain SI numbers taken once from the specs), `kernels`, `collectives`, `memory`,
`training`, `inference`, then `search` and `sensitivity` on top, `estimate` and `cluster` (a workload on a
cluster), and `cases` for scoring validation cases.
Inside the model every number is a float (or numpy array) in SI units (s, B, B/s, FLOP, FLOP/s); pint quantities
are used only at the boundaries, in `hardware` and `estimate`.
"""
