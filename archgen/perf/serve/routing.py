"""How many routed token copies the busiest expert-parallel rank of an MoE layer receives in a serving pass.

Every EP rank waits for the slowest at the combine, so a pass's MoE time is its busiest rank's, not the mean
rank's (issue 20): `inference._forward` times the expert GEMMs, the routed rows' element-wise bytes (`ffn.ffn_bytes`)
and, under attention DP, the dispatch and combine all-to-alls at the busiest rank's load. Two loads are known, and
neither is the mean tokens·top_k/ep:

* **Uniform random routing, the expected busiest rank.** Each token picks `top_k` distinct experts of E; a rank
  holds E/ep of them, so the ranks' counts from one token are multivariate hypergeometric: each with mean top_k/ep
  and variance top_k·(1/ep)·(1 - 1/ep)·(E - top_k)/(E - 1), any two correlated -1/(ep - 1) (the counts sum to
  top_k). Summed over N independent tokens, their central limit is a normal vector with that covariance, which is
  the law of Z_i - mean(Z) for ep independent normals Z_i of variance σ²·ep/(ep - 1), σ² = N times the variance
  above. So the busiest rank is expected at mean + σ·√(ep/(ep - 1))·e(ep), with e(n) the expected maximum of n
  independent standard normals (computed here by quadrature: e(2) = 1/√π, e(3) = 3/(2√π)); at ep 2 that is
  mean + σ·√(2/π), the mean of |X - mean| for one rank's normal count X, as it must be. Taking the ranks as
  independent (σ·e(ep), moeserve's first form) understates the excess by the factor √((ep - 1)/ep): 29 % at ep 2,
  6.5 % at ep 8. The normal form is the limit, not a bound: at small N·top_k the counts are right-skewed and a
  seeded simulation of uniform routing lies above it (5-8 % at one token on DeepSeek-R1's routing at EP 8, within
  1 % from 16 tokens on; tests/perf/test_moe_routing.py). Nor is uniform routing a bound on a trained router
  (a router can balance better than random, e.g. expert-choice routing); the one published measurement (below) is
  far more skewed, so it is the optimistic end of what is known, not a floor.
* **Measured, one published ratio.** NVIDIA TensorRT-LLM, "Scaling Expert Parallelism in TensorRT-LLM (Part 1)",
  docs/source/blogs/tech_blog/blog4_Scaling_Expert_Parallelism_in_TensorRT-LLM.md (at 1d263f15a9), Table 1: DeepSeek
  R1 on 32 GB200, EP 32 (8 experts a rank), a machine-translation dataset, iterations 100-200, a mean of 1,024
  routed tokens a rank: imbalance ratio (max - mean)/mean of the routed tokens by rank 1.564 (the average of the
  per-layer, per-iteration ratios; layer 58's is 2.461) without EPLB, 0.109 with EPLB's 32 redundant experts
  (9 slots a rank, EP 32) and 0.115 (8 slots, EP 36). The blog finds the imbalance dataset-sensitive (GSM8K's hot
  layer is 57, not 36) and stable over tens to hundreds of iterations. It is the one published ratio with its
  conditions found here; it is stated beside an estimate of a model with DeepSeek-V3/R1's routing (256 experts,
  top 8) as the pessimistic end, never applied to the point estimate, and at other ep or datasets it is not a
  measurement of the run.
"""

from __future__ import annotations

import dataclasses
import math
from functools import lru_cache

import numpy as np

from archgen.perf.hw.arch import Arch
from archgen.perf.hw.numeric import NUMBER, maximum, minimum

#: TensorRT-LLM's measured imbalance ratio, (max - mean)/mean of the routed tokens by rank, DeepSeek-R1 without
#: EPLB (module docstring: blog4 Table 1, "No EPLB (8 per-rank slots and EP 32)").
TRTLLM_R1_IMBALANCE = 1.564
#: The conditions of `TRTLLM_R1_IMBALANCE`, as a sentence of the estimate's note.
TRTLLM_R1_CONDITIONS = ("TensorRT-LLM measured the busiest rank at 2.564 times the mean on DeepSeek-R1 with EP 32 "
                        "on 32 GB200, 8 experts a rank, a machine-translation dataset, 1,024 routed tokens a rank on "
                        "average, without EPLB (1.109 times with EPLB's 32 redundant experts; NVIDIA/TensorRT-LLM "
                        "blog4 'Scaling Expert Parallelism in TensorRT-LLM', Table 1)")
#: The routing shape (experts, top_k) the published ratio was measured on: DeepSeek-V3/R1's.
MEASURED_ROUTING = (256, 8)


def serving_arch(arch: Arch, redundant_experts: int) -> Arch:
    """`arch` with its routed experts counted as the slots a replica holds: experts + `redundant_experts` copies.

    Redundant copies (DeepSeek-V3's prefill deploys 32, arXiv 2412.19437 section 3.4.1; SGLang's
    --ep-num-redundant-experts; TensorRT-LLM's num_slots) occupy memory on their ranks and split the tokens of the
    experts they copy, so a rank holds (E + R)/ep slots and uniform routing spreads over E + R of them: the weights
    (`inference.weights_per_gpu`), the busiest rank's load and the grouped GEMM's experts all read the slots. The
    router's gate is counted at E + R columns too (DeepSeek-V3, 32 copies: 13 M parameters of 671 B, negligible).
    Which experts EPLB copies (by measured load) is not modelled: copies are taken as spread like the experts.
    """
    return dataclasses.replace(arch, experts=arch.experts + redundant_experts) if redundant_experts else arch


@lru_cache(maxsize=64)
def expected_max_normal(n: int) -> float:
    """E[max of n independent standard normals]: the integral of x·n·φ(x)·Φ(x)^(n-1), by the trapezoid rule."""
    if n <= 1:
        return 0.0
    x = np.linspace(-12.0, 12.0, 48001)
    cdf = 0.5 * (1.0 + np.array([math.erf(v / math.sqrt(2.0)) for v in x]))
    pdf = np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)
    y = x * n * pdf * cdf ** (n - 1)
    return float(np.sum((y[1:] + y[:-1]) * 0.5 * np.diff(x)))


def busiest_rank_load(tokens, top_k: int, experts: int, ep: int, imbalance: float | None = None):
    """Routed token copies the busiest of `ep` ranks receives from `tokens` tokens (array allowed).

    Args:
        tokens: Tokens entering the MoE layer (the replica's in the pass).
        top_k: Experts each token is routed to.
        experts: Routed experts of the layer, split evenly over the ranks.
        ep: Expert-parallel ranks.
        imbalance: A stated (max - mean)/mean ratio; None for uniform random routing's expected maximum.

    Returns:
        At least the mean tokens·top_k/ep, at most what every token sending all the copies it can to one rank
        gives (tokens·min(top_k, experts/ep)).
    """
    mean = tokens * top_k / ep
    if ep <= 1:
        return mean
    cap = tokens * min(float(top_k), experts / ep)
    if imbalance is not None:
        return np.minimum(mean * (1.0 + imbalance), cap)
    p = 1.0 / ep
    var = tokens * top_k * p * (1.0 - p) * (experts - top_k) / max(experts - 1, 1)
    # the counts sum to tokens·top_k: their normal limit is Z_i - mean(Z), each Z of variance var·ep/(ep - 1)
    spread = var * ep / (ep - 1)
    if isinstance(spread, NUMBER) and spread >= 0.0:  # a pass's number: the same correctly rounded root, as a float
        return minimum(mean + expected_max_normal(ep) * math.sqrt(spread), cap)  # (numpy's on scalars: issue 25)
    return np.minimum(mean + expected_max_normal(ep) * np.sqrt(spread), cap)


def load_factor(tokens, top_k: int, experts: int, ep: int, imbalance: float | None = None):
    """The busiest rank's routed load over the mean rank's (1 where nothing is routed or ep is 1)."""
    if isinstance(tokens, NUMBER):  # one pass's tokens: the same quotient, a float (a 0-d array made what it
        # entered arrays: a serving pass's all-to-all sizes and byte counts; issue 25)
        return busiest_rank_load(tokens, top_k, experts, ep, imbalance) / maximum(tokens * top_k / ep, 1e-30) \
            if tokens > 0 else 1.0
    mean = np.maximum(tokens * top_k / ep, 1e-30)
    return np.where(tokens > 0, busiest_rank_load(tokens, top_k, experts, ep, imbalance) / mean, 1.0)


def has_measured_ratio(experts: int, top_k: int) -> bool:
    """Whether the published imbalance ratio was measured on this routing shape (DeepSeek-V3/R1's)."""
    return (experts, top_k) == MEASURED_ROUTING
