"""The checkpoint and spare closed forms goodput is built of (`perf.train.goodput` puts them together).

- Young (1974): the first-order optimum checkpoint interval sqrt(2 delta M).
- Daly (2006), eq. 37: the higher-order optimum; Daly's expected wall time gives the effective training time ratio.
- Hot spares: nodes in repair are Poisson (M/M/inf: `perf.train.poisson`); a job waits for a repair only when every
  spare is in repair, for the residual repair time of the first of them to come back.

Split from goodput.py (review25), which had reached 397 of the 400 lines a module may hold.
"""

from __future__ import annotations

import math

from archgen.perf.train.poisson import log_poisson_cdf, log_poisson_pmf

#: Goodput below this is no progress at all (a second of training in eleven days): reported as 0.
NO_PROGRESS = 1e-6


def young(delta: float, mtti: float) -> float:
    """Young (1974): the first-order optimum checkpoint interval sqrt(2 delta M) (same unit as the inputs)."""
    return math.sqrt(2 * delta * mtti)


def daly(delta: float, mtti: float) -> float:
    """Daly (2006), eq. 37: the higher-order optimum checkpoint interval; M where delta >= 2M."""
    if delta >= 2 * mtti:
        return mtti
    x = delta / (2 * mtti)
    return math.sqrt(2 * delta * mtti) * (1 + math.sqrt(x) / 3 + x / 9) - delta


def ettr(interval: float, delta: float, restart: float, mtti: float) -> float:
    """Daly (2006): solve time over expected wall time, tau / (M e^(R/M) (e^((tau + delta)/M) - 1)).

    Every interruption costs the restart R and the work since the last checkpoint; every checkpoint costs delta.
    """
    if mtti == math.inf:
        return interval / (interval + delta) if interval + delta > 0 else 1.0
    if interval <= 0:
        return 0.0
    exponent = max(restart, 0.0) / mtti, (interval + delta) / mtti
    if exponent[0] + exponent[1] > 700:  # the job never gets a checkpoint in: no progress
        return 0.0
    value = interval / (mtti * math.exp(exponent[0]) * math.expm1(exponent[1]))
    return value if value >= NO_PROGRESS else 0.0


def exhausted(mean: float, spares: int) -> float:
    """P(X = s | X <= s), X ~ Poisson(mean): the chance that every one of s spares is in repair while a job runs."""
    if spares <= 0:
        return 1.0
    if mean <= 0:
        return 0.0
    return math.exp(min(0.0, log_poisson_pmf(mean, spares) - log_poisson_cdf(mean, spares)))


def spare_wait(hw_share: float, repair: float, in_repair: float, spares: int) -> float:
    """Mean wait for a repair per interruption (s).

    A hardware share of interruptions finds every spare in repair with probability P(X = s | X <= s) (the job runs
    only while X <= s), and then waits for the first of the s + 1 nodes in repair to return: with exponential
    repair times their residual is the full mean each, so the wait is `repair` / (s + 1).
    """
    return hw_share * repair * exhausted(in_repair, spares) / (max(spares, 0) + 1)
