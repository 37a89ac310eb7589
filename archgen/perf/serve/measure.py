"""A simulated serving run's statistics: what `scheduler._loop` leaves, measured as serving benchmarks measure it.

A closed loop is measured over its steady state, the rounds of `concurrency` between the ramp and the drain
(`closed_measured`), tokens/s = N · out / mean request latency (Little's law); an open loop over its steady-state
window, tokens/s = arrival rate x output_len when the replica keeps up (flow conservation), else the output tokens it
makes in that window / its length.
TTFT = first token - arrival, TPOT = (finish - first token) / (out - 1), as genai-perf and MLPerf's loadgen define them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from archgen.perf.serve import inference as I
from archgen.perf.serve.run import BUSY_NOISE, ServingRun, Stats, tokens_made

#: Unmodelled term named in every result: host-side cost per request (tokenisation, detokenisation, HTTP, queues).
UNMODELLED = ("per-request host cost (tokenisation, HTTP, detokenisation) is not modelled: no source states it; "
              "short-prompt TTFT reads low by it")


@dataclass
class Trace:
    """What `scheduler._loop` leaves: per-request arrival, first-token and finish times, and the run's counters."""

    arrivals: np.ndarray
    first: np.ndarray
    finish: np.ndarray
    iterations: int
    max_running: int
    mean_running: float
    busy: float
    prompt_busy: float


def closed_measured(concurrency: int, n_req: int) -> np.ndarray:
    """The requests a closed loop of `concurrency` (N) is measured over, of its `n_req`: those of its steady state.

    Its requests finish in the order they start (`scheduler._loop`) and each finish releases the next, so they run
    in rounds of N. The first N start together, and the round that replaces them still runs in their step (a ramp);
    the last N are released as the loop stops replacing, so while they run the replica drains (one fewer in flight
    with every finish) and they finish sooner than the steady state lets them. Both are left out, as an open loop
    leaves out its first and last latency: Llama 2 70B NVFP4 on a B200 at its 2,048 sequences serves 43.4 requests/s
    (N over the mean latency) in the ramp round, 44.7, 46.2 and 45.9 in the next three, 62.3 in the last; Llama 3.1
    8B at 2,738, 171.5, then 170.5, then 194.3 (tests/perf/test_closed_loop_drain.py). A run too short
    for that (a stated number of requests under 4 N) is measured over every replacement.
    """
    if n_req >= 4 * concurrency:
        return np.arange(2 * concurrency, n_req - concurrency)
    return np.arange(concurrency, n_req)


def measure(job: I.ServeJob, t: Trace, concurrency: int | None, arrival_rate: float | None, cap: int,
            notes: tuple[str, ...], warm: float) -> ServingRun:
    """The run's statistics, over a closed loop's steady state (`closed_measured`) or an open loop's measured window.

    An open loop's window: requests arriving from `warm` after the first arrival to `warm` before the last, and the
    output tokens made from `warm` after the first arrival to the last (the whole run when `warm` is 0). Its tokens/s
    is the arrival rate x output_len unless those tokens fall under 90 % of it (the replica is then overrun).
    """
    out = job.output_len
    n_req = len(t.arrivals)
    arrivals, first, finish = t.arrivals, t.first, t.finish
    start, end = float(arrivals[0]) + warm, float(arrivals[-1])
    if concurrency is not None:
        measured = closed_measured(concurrency, n_req)
    elif warm and end - warm > start:
        measured = np.flatnonzero((arrivals >= start) & (arrivals <= end - warm))
    else:
        measured = np.arange(n_req)
    ttft = first[measured] - arrivals[measured]
    tpot = (finish[measured] - first[measured]) / (out - 1) if out > 1 else np.zeros(len(measured))
    latency = finish[measured] - arrivals[measured]
    notes = (UNMODELLED, *notes)
    stable, running = True, t.mean_running
    if concurrency is not None:
        tps = concurrency * out / float(np.mean(latency))
        if concurrency > cap:
            notes += (f"{concurrency} requests in flight, the replica admits {cap} (its KV cache, at most "
                      "max_num_tokens): the rest wait in the queue",)
    else:
        offered = (n_req - 1) / float(arrivals[-1] - arrivals[0])
        # requests per second the replica serves: output tokens made in the measured window over its length, or
        # requests over the whole run, its drain included, without a window
        served = tokens_made(first, finish, out, start, end) / out / (end - start) if warm and end > start \
            else n_req / float(np.nanmax(finish) - arrivals[0])
        # an open loop outrunning the replica: requests complete markedly slower than they arrive
        if served < 0.9 * offered:
            stable = False
            tps = served * out
            notes += (f"arrivals ({arrival_rate:.4g}/s) outrun the replica: the queue grows for the whole run, so "
                      f"TTFT depends on the run's length ({n_req} requests)",)
        else:  # a replica that keeps up finishes requests as they arrive (flow conservation), and holds, by
            # Little's law, the arrival rate x the mean request latency in flight (queued, prefilling or decoding)
            tps = offered * out
            running = offered * float(np.mean(latency))
    busy = t.busy / float(np.nanmax(finish) - arrivals[0]) if t.busy else 0.0
    if busy > 1.0 - BUSY_NOISE:  # the iterations' summed times against the clock they advanced: float noise
        busy = 1.0
    return ServingRun(Stats.of(ttft), Stats.of(tpot), tps, len(measured), t.iterations, t.max_running,
                      running, stable, notes, min(busy, 1.0), t.prompt_busy / t.busy if t.busy else 0.0)
