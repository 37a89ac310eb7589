"""Open-loop arrivals at one replica, as a benchmark harness hands them over.

Without a batcher, the queries reach the replica one at a time at Poisson intervals (MLPerf's loadgen issues Server
queries so; archgen splits the rate evenly over the replicas). With one, the harness gathers the queries of the
whole system and hands them over in groups, each group whole to the next replica in turn, as AMD's MLPerf
Inference v4.1 Llama 2 70B harness does (mlcommons/inference_results_v4.1 at a2f5d66d,
closed/AMD/code/llama2-70b-99.9/VllmFp8/sync_sut.py: `batch_samples_loop` sends the gathered queries when
`gpu_batch_size` (96) have gathered or `batcher_threshold` (0.3 s) has passed since the previous group left, checking
at each query and after each `batcher_threshold` without one; `send_samples` puts the group on
`self.servers[self.next_device_id()]`, round robin over the data-parallel replicas). A query's TTFT still counts from
its arrival at the harness.

The seeded intervals are scaled so that the n arrivals come at the stated rate on average: (n - 1) intervals span
(n - 1) / rate seconds. Unscaled, the 400 arrivals of seed 0 (the fewest a run simulates) span 12.8 % longer than
that, so every light-load run was served at 0.887 of the stated rate (40 requests/s read 35.5, and tokens/s 11 %
low); a benchmark's run holds that rate over its whole length (MLPerf's loadgen: `min_duration` 600 s and more at the
stated `target_qps`), where a 400-arrival sample of a Poisson process does not.
"""

from __future__ import annotations

import numpy as np


def open_arrivals(rate: float, n: int, seed: int, batcher: tuple[int, float] | None = None,
                  replicas: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Arrival and hand-over times (seconds, from the first arrival) of the requests one replica receives.

    Args:
        rate: Requests per second at this replica (the system's rate over `replicas`).
        n: Requests the replica receives (about `n` under a batcher: whole groups).
        seed: Seed of the Poisson process.
        batcher: (group size, timeout in seconds) of a harness batcher, or None.
        replicas: Replicas the batcher hands groups to in turn.

    Returns:
        (arrivals, handed): without a batcher the same Poisson times twice.
    """
    rng = np.random.default_rng(seed)
    if batcher is None:
        t = _at_rate(rng.exponential(1.0 / rate, n), rate)
        return t, t.copy()
    size, timeout = batcher
    system = _at_rate(rng.exponential(1.0 / (rate * replicas), n * replicas), rate * replicas)
    mine = hand_over(system, size, timeout)[::replicas]  # round robin: this replica's groups
    arrivals = [a for _, group in mine for a in group]
    handed = [t for t, group in mine for _ in group]
    return np.asarray(arrivals), np.asarray(handed)


def _at_rate(gaps: np.ndarray, rate: float) -> np.ndarray:
    """Arrival times from the first of Poisson `gaps`, scaled so that their mean rate is `rate` (module docstring)."""
    t = np.cumsum(gaps) - gaps[0]
    if len(t) > 1 and t[-1] > 0:
        t *= (len(t) - 1) / (rate * t[-1])
    return t


def hand_over(system: np.ndarray, size: int, timeout: float) -> list[tuple[float, list[float]]]:
    """The groups a harness batcher forms from the system's arrival times: (time it leaves, its arrivals).

    As `batch_samples_loop` runs: the first query starts the clock; after each query, or after `timeout` without
    one, a group leaves if `size` have gathered or `timeout` has passed since the previous group left.
    """
    groups: list[tuple[float, list[float]]] = []
    now = stamp = float(system[0])
    queue, i = [now], 1
    while i < len(system) or queue:
        if queue and (len(queue) >= size or now - stamp >= timeout):
            groups.append((now, queue[:size]))
            queue, stamp = queue[size:], now
            continue
        if i < len(system) and system[i] <= now + timeout:  # the next query arrives within the wait
            now = float(system[i])
            queue.append(now)
            i += 1
        else:  # the wait times out: check again
            now += timeout
    return groups


def batcher_of(inference) -> tuple[int, float] | None:
    """A workload's `inference.batcher` as `ServeJob.batcher`: (group size, timeout in seconds), or None."""
    b = inference.batcher
    return None if b is None else (b.size, float(b.timeout.m_as("s")))


def replica_rate(arrival_rate, replicas: int) -> float | None:
    """Requests per second at one replica: a workload's `arrival_rate` (a quantity or None) split over its replicas."""
    return arrival_rate.m_as("1/s") / replicas if arrival_rate is not None else None
