"""What a simulated serving run reports (perf.serve.scheduler), and the report of one that cannot keep up.

An estimate's breakdown of a simulated run's replica time per request is `run_breakdown`'s (moved from
`perf.workload.serving_estimate` for its size).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from archgen.units import Q_, Q

#: A busy fraction this close to 1 is 1: a run never idle sums its iterations' times to its clock's last reading
#: within float rounding (a closed loop of DeepSeek-V3 on GB200 at concurrency 256 read 1.033e-14 ms idle a request).
BUSY_NOISE = 1e-9


@dataclass(frozen=True)
class Stats:
    """Mean, median and 99th percentile of a per-request latency (seconds)."""

    mean: float
    p50: float
    p99: float

    @classmethod
    def of(cls, values: np.ndarray) -> Stats:
        """The statistics of `values`, each percentile p the sorted values' element at floor(n x p), as loadgen does.

        MLPerf's loadgen sorts a run's first-token latencies and times per output token and reads each percentile p
        as `latencies[sample_count * p]` (a size_t index, so the floor): mlcommons/inference loadgen/results.cc,
        `PerformanceSummary::ProcessTokenLatencies` (and `ProcessLatencies` for whole-query latencies) at commit
        7ad9af18733e34e2599dee5c155a780329e3b3ac. numpy's default, which this used before nu68fix, interpolates
        linearly at (n - 1) x p, never above it: of 100 requests loadgen's p99 is the slowest, numpy's 1 % of the way
        from the second slowest to it.
        """
        ordered = np.sort(np.asarray(values, dtype=float))
        n = len(ordered)
        return cls(float(np.mean(ordered)), float(ordered[min(n - 1, int(n * 0.5))]),
                   float(ordered[min(n - 1, int(n * 0.99))]))


@dataclass(frozen=True)
class ServingRun:
    """What a simulated serving run reports.

    Attributes:
        ttft: Time to first token over the measured requests.
        tpot: Time per output token after the first, per request.
        tokens_per_second: Output tokens per second of the replica.
        requests: Requests measured.
        iterations: Forward passes run.
        max_running: The most requests in flight at once (capped by the KV cache).
        mean_running: Requests in flight: a stable open loop's arrival rate x mean latency (Little's law), else the
            time-weighted mean of the requests decoding over the busy time.
        stable: False when an open loop's arrivals outrun the replica (the queue grows for the whole run).
        notes: What the run could not honour or does not model.
        busy: Fraction of the run (first arrival to last finish) the replica spends in iterations.
        prompt_share: Fraction of that busy time spent on prompts: each iteration's pass split by its tokens
            (prompt chunks against decodes, the Vidur / Sarathi-Serve view of a hybrid batch), plus the prompts'
            own attention.
        load: Requests per second the replica serves (an open loop's arrival rate, a closed loop's completions)
            over its capacity: a simulated closed loop that keeps as many requests in flight as the replica admits
            (an open loop's `max_batch`, a closed loop's KV-cache capacity), the capacity `scheduler.simulate`
            judges an open loop's overrun by; above 1 the arrivals outrun it. Set by `scheduler.estimate_serving`;
            it picks a latency band's load bin (`perf.workload.band_families.load_bin`).
        capacity: Requests per second that full closed loop completes: the rate above which an open loop's queue
            grows without bound (`load` is the served rate over it). Set with `load`; NaN where it is not.
    """

    ttft: Stats
    tpot: Stats
    tokens_per_second: float
    requests: int
    iterations: int
    max_running: int
    mean_running: float
    stable: bool = True
    notes: tuple[str, ...] = field(default=())
    busy: float = 1.0
    prompt_share: float = 0.0
    load: float = math.nan
    capacity: float = math.nan


#: What `replicas_to_keep_up` is and is not, in words: the estimate's convention for it.
KEEP_UP = ("the fewest replicas whose capacity (replica_capacity: a simulated closed loop holding as many requests as "
           "a replica admits) covers the arrival rate, ceil(arrival_rate / replica_capacity): below it the queue grows "
           "without bound. A lower bound for a latency limit, not the count that meets one: near capacity the queue "
           "stretches TTFT p99 (at load {load:.2f} this run's replicas read {p99}), and the replicas that meet a "
           "p99 target are not searched here; a sweep over `replicas` at this arrival_rate finds them "
           "(docs/perf-model.md, Sizing replicas to a rate)")


def capacity_metrics(run: ServingRun, arrival_rate: Q | None) -> dict[str, Q]:
    """A simulated run's `replica_capacity`, and under an arrival rate (an open loop) `replicas_to_keep_up`.

    `replica_capacity` is `run.capacity` (requests/s); `replicas_to_keep_up` is ceil(arrival_rate / it): flow
    conservation, a queue served slower than it fills grows without bound (MLPerf's loadgen judges such a Server run
    INVALID). Empty where the run's capacity was not simulated (`load=False`).
    """
    if not math.isfinite(run.capacity) or run.capacity <= 0:
        return {}
    out = {"replica_capacity": Q_(run.capacity, "1/s")}
    if arrival_rate is not None:
        out["replicas_to_keep_up"] = Q_(whole_replicas(arrival_rate.m_as("1/s") / run.capacity), "")
    return out


def whole_replicas(count: float) -> float:
    """`count` replicas rounded up to whole ones, a rate's float noise (1e-9 of one) taken off: 3.0000000001 is 3.

    `replicas_to_keep_up` and its band's ends (`perf.workload.bands.Band.whole`), each from the unrounded count.
    """
    return float(math.ceil(count - 1e-9))


def overrun(full: ServingRun, rate: float, out: int) -> ServingRun:
    """An open loop whose arrivals outrun the replica's capacity, `full` (the closed loop at the KV capacity).

    The replica completes requests at its capacity and the queue grows by the difference for as long as the run
    lasts: a request arriving t seconds in waits about t (rate / capacity - 1) seconds more than one that finds the
    queue empty. So tokens/s and TPOT are the saturated replica's and TTFT is unbounded (infinite: it grows with the
    run's length). MLPerf's loadgen judges such a Server run INVALID (TTFT p99 over its limit), not slow.
    """
    cap = full.tokens_per_second / out
    ttft = Stats(math.inf, math.inf, math.inf)
    note = (f"does not keep up: arrivals {rate:.4g}/s per replica, capacity {cap:.4g}/s (the replica full, "
            f"{full.max_running} in flight): tokens/s are the capacity's, the queue grows by {rate - cap:.3g} "
            f"requests/s and a request arriving t s into the run waits about {rate / cap - 1:.2g} t s more, so TTFT "
            "is unbounded (it grows with the run's length); MLPerf judges such a Server run INVALID, not slow")
    return replace(full, ttft=ttft, stable=False, notes=(*full.notes, note))


def tokens_made(first: np.ndarray, finish: np.ndarray, out: int, start: float, end: float) -> float:
    """Output tokens the requests make within [start, end]: the first at `first`, the other out - 1 evenly to `finish`.

    Counting tokens, not finished requests, keeps the requests in flight at the window's edges from biasing the
    rate: a window of ten latencies that counts finishes misses up to one latency's worth of them (-7.8 % at
    20 requests/s per replica of Llama 3.1 70B on a DGX B200, 2,048 + 128 tokens).
    """
    made = float(np.sum((first >= start) & (first <= end)))
    if out > 1:
        inside = np.clip(np.minimum(finish, end) - np.maximum(first, start), 0.0, None)
        length = finish - first
        made += (out - 1) * float(np.sum(np.divide(inside, length, out=np.zeros_like(inside), where=length > 0)))
    return made


def run_breakdown(run: ServingRun, output_len: int, tokens_per_second: float) -> dict[str, Q]:
    """A simulated run's replica time per request, output_len / tokens/s per replica, split as the run spent it.

    The iterations' time goes to prompts or decodes by the run's `prompt_share`, and what the replica spends waiting
    for arrivals (an open loop below its capacity) is `idle_per_request`. The closed form's split (decode = out x
    TPOT / batch) would divide by the admission cap under an arrival rate: newuser19's Llama 3.1 70B FP8 TP 8 at 20
    requests/s per replica read 30.67 ms + 0.593 ms, 4,094 tokens/s per replica where the run served 2,361.
    """
    per = output_len / tokens_per_second
    parts = {"prefill_per_request": per * run.busy * run.prompt_share,
             "decode_per_request": per * run.busy * (1.0 - run.prompt_share)}
    if run.busy < 1.0:
        parts["idle_per_request"] = per * (1.0 - run.busy)
    return {k: Q_(v, "s") for k, v in parts.items()}
