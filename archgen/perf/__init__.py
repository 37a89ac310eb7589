"""Analytic performance model: roofline kernels, α-β collectives, LLM training and inference, memory fit.

Subpackages, bottom up (an import-linter `layers` contract): `hw` (one accelerator: plain SI numbers taken once from
the specs, the transformer's shape, kernels, quantisation, memory), `comm` (collectives as NCCL runs them), `train`
and `serve` (neither imports the other), `workload` (a workload estimated on hardware or a cluster) and `explore`
(sweeps and plan search); `api` is what the commands call. The model reads no file: `archgen.scoring` scores it
against validation cases. Inside the model every number is a float (or numpy array) in SI units (s, B, B/s, FLOP,
FLOP/s); pint quantities are used only at the boundaries, in `hw.hardware` and `workload.estimate`.
"""
