"""How many scale-up domains (or EP ranks) one token's routed copies reach, with or without group-limited routing.

The per-node deduplicated dispatch (`ep_dedup`: DeepEP, HybridEP) sends a token once to each other domain that holds
one of its `top_k` experts; `ep_exposure.expert_comm` sizes its all-to-all by that count. Under uniform routing over
all E experts spread evenly over D domains a domain misses a token's k copies with probability (1 - 1/D)^k (the
copies counted as independent, as the dispatch always has: the experts are in fact distinct), so the token reaches
D·(1 - (1 - 1/D)^k) domains, (D - 1)·(1 - (1 - 1/D)^k) of them other than its sender's.

Group-limited routing (Megatron-core `moe_router_num_groups` / `moe_router_group_topk`, `group_limited_topk` in
megatron/core/transformer/moe/moe_utils.py; DeepSeek-V3's config.json `n_group` 8, `topk_group` 4, arXiv 2412.19437
§2.1.2 "node-limited routing ... each token will be sent to at most M nodes" and §3.2.2 M = 4) splits the experts
into G equal groups of consecutive experts (`scores.view(num_tokens, num_groups, -1)`), picks M of them per token
and takes the top k experts inside them. Read here as: the M groups uniform among the G, the k copies uniform over
the chosen groups' M·E/G experts (independent, as above). Megatron-core places experts on EP ranks in order (rank r
holds experts r·E/ep onwards) and domains hold consecutive EP ranks, so domain d holds the d-th 1/D of the expert
range. A domain d that holds a fraction f_g of group g misses the token with probability E_S[(1 - Σ_{g∈S} f_g / M)^k]
over the chosen set S (`_miss`, exact over S: fully held groups counted hypergeometrically, the at most two cut at
the domain's edges enumerated). The sender is any domain alike, so the others hit are (D - 1)/D of all hit. With
G = D (groups are the nodes, DeepSeek-V3 at EP 64 over 8 nodes) a token reaches at most M domains: other domains
7·(4/8)·(1 - (3/4)^8) = 3.15 at G 8, M 4, k 8, where uniform routing gives 7·(1 - (7/8)^8) = 4.59.
A real router's choice is not uniform (groups rank by their best experts' scores, so a chosen group rarely gets no
copy: the count is then nearer M·(D - 1)/D); that reading is stated, not fitted.
"""

from __future__ import annotations

import math
from functools import cache

import numpy as np

from archgen.perf.hw.numeric import maximum


def domains_hit(top_k, domains, groups: int = 0, group_topk: int = 0):
    """Expected domains (or ranks) of `domains` that hold one of a token's `top_k` experts, its sender's included.

    `groups`, `group_topk`: the model's group-limited routing (0: none, every expert a candidate); `domains` may be
    an array, at least 1. Under group-limited routing the domains are counted whole (rounded to the nearest; each
    holds a whole share of the expert range); without it a fractional count enters the closed form as it is.
    """
    if not groups or group_topk >= groups:  # uniform over all experts: the closed form
        d = maximum(domains, 1.0)
        return d * (1.0 - (1.0 - 1.0 / d) ** top_k)
    d = np.maximum(np.rint(np.asarray(domains, dtype=float)), 1.0)
    values, inverse = np.unique(d, return_inverse=True)
    hit = np.array([_hit(int(top_k), int(v), int(groups), int(group_topk)) for v in values])
    out = hit[inverse].reshape(d.shape)
    return float(out) if out.ndim == 0 else out


def remote_domains(top_k, domains, groups: int = 0, group_topk: int = 0):
    """Expected domains other than the sender's that a token's copies reach (the deduplicated dispatch's count)."""
    d = maximum(domains, 1.0)
    return domains_hit(top_k, domains, groups, group_topk) * (d - 1.0) / d


@cache
def _hit(k: int, d: int, g: int, m: int) -> float:
    """Σ over the d domains of the chance one of a token's k copies lands there (groups g, m of them chosen)."""
    return sum(1.0 - _miss(k, g, m, _shares(d, g, i)) for i in range(d))


def _shares(d: int, g: int, i: int) -> tuple[int, tuple[float, ...]]:
    """(groups wholly in domain i, the shares of the groups it holds only part of), of d domains and g groups."""
    lo, hi = i * g / d, (i + 1) * g / d  # domain i's span of the expert range, in groups
    whole = max(0, math.floor(hi) - math.ceil(lo))
    parts = [min(hi, j + 1) - max(lo, j) for j in range(math.floor(lo), math.ceil(hi))]
    return whole, tuple(p for p in parts if 0.0 < p < 1.0)


def _miss(k: int, g: int, m: int, held: tuple[int, tuple[float, ...]]) -> float:
    """E_S[(1 - Σ_{g∈S} f_g / m)^k] over the m of g groups chosen uniformly (`held` from `_shares`)."""
    whole, parts = held
    rest = g - whole - len(parts)
    total = 0.0
    for mask in range(1 << len(parts)):
        chosen = [p for b, p in enumerate(parts) if mask >> b & 1]
        for j in range(min(whole, m - len(chosen)) + 1):
            ways = math.comb(whole, j) * math.comb(rest, m - len(chosen) - j)
            if ways:
                total += ways * (1.0 - (j + sum(chosen)) / m) ** k
    return total / math.comb(g, m)
