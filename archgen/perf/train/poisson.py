"""Poisson sums that do not underflow, and Garwood's exact Poisson interval (docs/reliability.md, Hot spares).

The spare model's nodes in repair are Poisson (`archgen.perf.train.goodput.exhausted`), and a rate counted from n
events has Garwood's interval (`archgen.analyse.reliability`); both were in `perf.train.goodput`, which re-exports
them.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from archgen.errors import InternalError


def _log_phi(z: float) -> float:
    """Log of the standard normal CDF, stable far into the lower tail."""
    if z > -30:
        return math.log(0.5 * math.erfc(-z / math.sqrt(2)))
    return -z * z / 2 - math.log(-z) - 0.5 * math.log(2 * math.pi)


def log_poisson_pmf(mean: float, k: int) -> float:
    """Log P(X = k), X ~ Poisson(mean)."""
    if mean <= 0:
        return 0.0 if k == 0 else -math.inf
    return k * math.log(mean) - mean - math.lgamma(k + 1)


def _log_sum(mean: float, lo: int, hi: float) -> float:
    """Log of the sum of P(X = i) for lo <= i <= hi, X ~ Poisson(mean), summed in log space."""
    if hi < lo:
        return -math.inf
    i = np.arange(lo + 1, hi + 1, dtype=float)
    logs = log_poisson_pmf(mean, lo) + np.concatenate(([0.0], np.cumsum(math.log(mean) - np.log(i))))
    top = float(logs.max())
    return top + math.log(float(np.exp(logs - top).sum()))


def log_poisson_cdf(mean: float, k: float) -> float:
    """Log P(X <= k), X ~ Poisson(mean), in log space: no underflow at any mean, O(sqrt(mean)) terms.

    Only the terms within 40 standard deviations of the mean (or of k below it, where they fall geometrically)
    add to the sum at double precision; beyond a mean of 10^7 the normal approximation with continuity correction
    is used.
    """
    if k < 0:
        return -math.inf
    if mean <= 0:
        return 0.0
    if mean > 1e7:
        return min(0.0, _log_phi((k + 0.5 - mean) / math.sqrt(mean)))
    width = 40 * math.sqrt(mean) + 40
    return min(0.0, _log_sum(mean, max(0, int(min(k, mean) - width)), min(k, int(mean + width))))


def poisson_tail(mean: float, k: int) -> float:
    """P(X > k) for X ~ Poisson(mean): summed directly above the mean, so that a tiny tail keeps its digits."""
    if mean <= 0 or k < 0:
        return 0.0 if mean <= 0 else 1.0
    if k < mean or mean > 1e7:
        return -math.expm1(log_poisson_cdf(mean, k))
    return math.exp(_log_sum(mean, k + 1, int(max(k + 1, mean) + 40 * math.sqrt(mean) + 40)))


def gamma_p(a: float, x: float) -> float:
    """The regularised lower incomplete gamma function P(a, x) = P(Gamma(a, 1) <= x), for a > 0.

    Series below x = a + 1, Lentz's continued fraction for Q = 1 - P above (Numerical Recipes 3rd ed., 6.2). For a
    whole a, P(a, x) = P(X >= a | X ~ Poisson(x)): the identity behind Garwood's interval.
    """
    if x <= 0:
        return 0.0
    lead = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        while term > total * 1e-17:
            n += 1
            term *= x / n
            total += term
        return min(1.0, math.exp(lead + math.log(total)))
    b, c, d = x + 1 - a, 1e300, 1 / (x + 1 - a)
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = 1 / (d if abs(d) > 1e-300 else 1e-300)
        c = b + an / c
        c = c if abs(c) > 1e-300 else 1e-300
        h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return max(0.0, 1 - math.exp(lead + math.log(h)))


@functools.lru_cache(maxsize=4096)
def poisson_interval(count: float, level: float = 0.95) -> tuple[float, float]:
    """(low, high) factors on a rate counted from `count` events: Garwood's exact Poisson interval.

    low = G⁻¹(tail; n) and high = G⁻¹(1 - tail; n + 1), G the gamma distribution (Garwood 1936; the chi-square form
    χ²(2n)/2, χ²(2n + 2)/2), solved by bisection on `gamma_p`. For a whole count this is the Poisson-CDF definition
    (P(X >= n | low) = P(X <= n | high) = tail); the gamma form also holds for an effective count that is not whole
    (`analyse.reliability` pools classes by Welch-Satterthwaite), where the Poisson CDF would truncate it. No
    events: no interval (1, 1). Kept per (count, level): up to 200 bisection steps each (about 110: the
    steps stop once the ends are adjacent doubles, where the rest could change nothing), and every `pipeline.run` of a
    design asks again for the same counts (a fifth of a check-case run's time).
    """
    if count <= 0:
        return 1.0, 1.0
    tail = (1 - level) / 2

    def solve(a: float, want: float) -> float:  # the x at which P(a, x) = want (P rises with x)
        lo, hi = 0.0, a + 20 * math.sqrt(a) + 20
        below, above = want > 0, False  # known: P(a, lo) < want (P(a, 0) = 0), P(a, hi) >= want
        for _ in range(100):
            mid = (lo + hi) / 2
            if mid == lo and below or mid == hi and above:
                break   # lo and hi adjacent: every later step would test the same end and keep both (issue 25)
            if gamma_p(a, mid) < want:
                lo, below = mid, True
            else:
                hi, above = mid, True
        return (lo + hi) / 2

    return solve(count, tail) / count, solve(count + 1, 1 - tail) / count


def poisson_quantile(mean: float, level: float) -> int:
    """The fewest s with P(X <= s) >= `level`, X ~ Poisson(mean): a base stock's level (docs/reliability.md).

    Bisection on `log_poisson_cdf` (no underflow at any mean); 0 where the mean is 0. `level` lies in (0, 1): at 1 no
    finite s holds (the sum only rounds to 1 somewhere in the tail), so it is refused rather than answered.
    """
    if not 0 < level < 1:
        raise InternalError(f"a Poisson quantile's level is above 0 and below 1, not {level:g}")
    if mean <= 0:
        return 0
    target = math.log(level)
    lo, hi = -1, int(mean + 40 * math.sqrt(mean) + 40)   # P(X <= lo) < level <= P(X <= hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if log_poisson_cdf(mean, mid) >= target:
            hi = mid
        else:
            lo = mid
    return hi
