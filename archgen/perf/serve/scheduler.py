"""Serving under load: an iteration-level simulation of continuous batching with chunked prefill.

One replica runs iterations (forward passes) back to back, as vLLM's V1 scheduler and TensorRT-LLM's PyTorch
executor do. Each iteration has a budget of the job's `max_num_tokens` tokens (TensorRT-LLM's `max_num_tokens`, 8,192 by
default, `BuildConfig.max_num_tokens`; vLLM's `max_num_batched_tokens` under chunked prefill, 8,192 for its API
server on a GPU of 70 GB or more, `vllm/engine/arg_utils.py`). The running requests' decodes come first, one token
each; what is left of the budget goes to prompts in arrival order, the prompt being prefilled first, then waiting
requests as the KV cache admits them (a request holds `lengths.reserved_context` tokens of KV cache
from admission, so at most `max_batch` run at once). A prompt longer than what is left is cut into chunks; its
first token comes from the logits of its last chunk, at the end of that iteration. Under `prefill: separate` (vLLM
0.x without chunked prefill, `vllm/core/scheduler.py` `_schedule_default`: "Don't schedule decodes if prefills are
scheduled") waiting prompts run whole, as many as the budget holds, in an iteration of their own; the decodes wait.

The iteration time is the kernel model's forward pass (`inference._forward`) over every token of the iteration:
the GEMMs run with M = decodes + prefill tokens, the decode attention reads each running sequence's KV cache at its
current context, each chunk's causal attention covers its tokens against the prompt so far (A(s + c) - A(s) of a
causal prompt of s + c tokens; under attention DP on the busiest rank, `chunks.busiest_rank`), and the fixed cost per
kernel is paid once per iteration (the Vidur / Sarathi-Serve
model of a hybrid batch; Agrawal et al., "Vidur", MLSys 2024; "Taming Throughput-Latency Tradeoff in LLM Inference
with Sarathi-Serve", OSDI 2024).

Load, as serving benchmarks apply it:

* closed loop (`concurrency`): N requests in flight, each replaced when it finishes (genai-perf / AIPerf
  `--concurrency N`, `trtllm-bench --concurrency N`). The first N start together; the statistics are over the
  steady state, the rounds of N after the one that replaces them and before the last, which runs as the replica
  drains (`measure.closed_measured`), and tokens/s = N · out / mean request latency (Little's law).
* open loop (`arrival_rate`): Poisson arrivals at a rate per replica, from a seeded generator (MLPerf Inference's
  Server scenario: loadgen issues queries at Poisson intervals, `loadgen/issue_query_controller.cc`), measured in
  its steady state (`simulate`: the arrivals span `OPEN_SPANS` request latencies, the first and the last left
  out); tokens/s = arrival rate x output_len when the replica keeps up (flow conservation), else the output
  tokens it makes in that window / its length (`measure.measure`). Under a harness batcher (`job.batcher`,
  `perf.serve.batcher`) the queries reach the replica in groups; TTFT still counts from each one's arrival.

Under attention DP a job may state TensorRT-LLM's context balancer (`adp_balance`): admitted prompts are then held
back iterations, the decodes running alone, as its executor holds them (`perf.serve.adp_balance`).

Per request: TTFT = first token - arrival (queueing, admission and the prefill's iterations), TPOT = (finish -
first token) / (out - 1), as genai-perf and MLPerf's loadgen define them. Results: mean, p50 and p99 of each.
Decode-only stretches are jumped in one vectorised step (the steps until the next finish or arrival), so a run
costs about one Python iteration per prefill chunk and per finish, not per token. Not modelled: host-side
scheduling, tokenisation and detokenisation per request (TensorRT-LLM's overlap scheduler hides the per-iteration
part; no source found states a per-request cost), preemption (admission reserves the KV a request needs), CUDA-graph
padding unless the job states its sizes (`graph_padding`), varying request lengths (every request has `input_len`
+ `output_len` tokens, so a workload that states `output_len_cv` is refused for a simulated run,
`model.engine.spread_problem`).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import replace

import numpy as np

from archgen.errors import InternalError
from archgen.perf.hw.hardware import Hardware
from archgen.perf.serve import inference as I
from archgen.perf.serve.adp_balance import decode_only, gate, held_counters, run_counters
from archgen.perf.serve.batcher import open_arrivals
from archgen.perf.serve.chunks import busiest_rank, busiest_tokens, largest_chunk, prompt_budget, prompt_work
from archgen.perf.serve.graph_padding import largest as largest_padded
from archgen.perf.serve.graph_padding import padded
from archgen.perf.serve.iteration import FEW_STEPS as FEW_STEPS
from archgen.perf.serve.iteration import Pass as _Pass
from archgen.perf.serve.iteration import few_steps as _few_steps
from archgen.perf.serve.measure import Trace, measure
from archgen.perf.serve.run import ServingRun, overrun

#: Tokens per iteration by default (TensorRT-LLM max_num_tokens, vLLM max_num_batched_tokens); a job may state its own.
MAX_NUM_TOKENS = I.PREFILL_CHUNK
#: Requests simulated in an open loop (at least), and replacement requests simulated per slot in a closed loop (of
#: the five, the middle three are measured: `measure.closed_measured`).
OPEN_REQUESTS = 400
CLOSED_ROUNDS = 5
#: An open loop's arrivals span at least this many mean request latencies (the first and the last are left out of
#: the statistics: ramp-up from an empty replica, drain after the last arrival), within `OPEN_MAX` requests.
OPEN_SPANS = 10
OPEN_MAX = 20000


def simulate(hw: Hardware, job: I.ServeJob, tp: int, *, max_batch: int, concurrency: int | None = None,
             arrival_rate: float | None = None, requests: int | None = None, seed: int = 0,
             max_num_tokens: int | None = None, replicas: int = 1, timing: _Pass | None = None,
             offline: I.InferenceEstimate | None = None) -> ServingRun:
    """Run one replica under a closed loop of `concurrency` requests or Poisson arrivals at `arrival_rate` per second.

    An open loop is measured in its steady state: unless `requests` fixes the run's length, the arrivals are
    extended (more seeded intervals, scaled anew to the rate: a new run, not a continuation; docs/perf-model.md)
    until they span `OPEN_SPANS` mean request latencies, and the statistics are over the requests that arrive at
    least one mean latency after the first arrival and before the last, when the requests in flight neither ramp up
    from an empty replica nor drain after the last arrival (a benchmark's run is long against one request: MLPerf
    v4.1's Llama 2 70B Server runs state a `min_duration` of 2,400 s against mean latencies of 36-45 s,
    tests/perf/data/serving-under-load.yaml).

    Args:
        hw: Hardware.
        job: Model, request shape (every request `input_len` + `output_len` tokens) and serving switches.
        tp: Accelerators of the replica.
        max_batch: Requests the KV cache admits at once (`inference.estimate_inference(...).max_batch`).
        concurrency: Closed loop: requests kept in flight.
        arrival_rate: Open loop: requests per second arriving at this replica.
        requests: Requests to simulate (default: `CLOSED_ROUNDS` replacements per slot, or as many as the open
            loop's steady state needs, at least `OPEN_REQUESTS`); a stated number is measured whole.
        seed: Seed of the arrival process (an open loop is deterministic for a seed).
        max_num_tokens: Token budget of an iteration (default the job's `max_num_tokens`).
        replicas: Replicas a harness batcher (`job.batcher`) hands its groups to in turn.
        timing: The iteration times of this `hw`, `job` and `tp` another run has evaluated (`iteration.Pass`, its
            sizes up to the budget of every rank or `max_batch`), shared; default evaluated afresh.
        offline: The closed form at `max_batch` where the caller has it (an open loop's capacity check); else evaluated.

    Returns:
        The run's latency statistics and throughput.
    """
    if (concurrency is None) == (arrival_rate is None):
        raise InternalError("give exactly one of concurrency and arrival_rate")
    if max_batch < 1:
        raise InternalError("no sequence fits in the KV cache")
    if max_num_tokens is None:
        max_num_tokens = job.max_num_tokens
    most = _most(job, tp, max_num_tokens, int(max_batch))
    p = timing if timing is not None and timing.most >= most else _Pass(hw, job, tp, most)
    if concurrency is not None:
        return _closed(p, job, concurrency, int(max_batch), max_num_tokens, requests)
    assert arrival_rate is not None, "exactly one of the two is given (checked above)"
    n_req = requests or OPEN_REQUESTS
    # a rate above the offline closed form's at the KV capacity may outrun the replica: its capacity is then the
    # closed loop at that capacity (a queue that never empties keeps `max_batch` in flight), and a rate above it
    # never settles, however long the run (`run.overrun`)
    if offline is None or float(offline.batch) != int(max_batch):  # the caller's, where it is at max_batch
        offline = I.estimate_inference(hw, job, tp, int(max_batch))
    capacity = float(offline.tokens_per_second_replica) / job.output_len
    if not requests and arrival_rate > capacity:
        full = _closed(p, job, int(max_batch), int(max_batch), max_num_tokens)
        if arrival_rate > full.tokens_per_second / job.output_len:
            return overrun(full, arrival_rate, job.output_len)
    while True:
        arrivals, handed = open_arrivals(arrival_rate, n_req, seed, job.batcher, replicas)
        t = _loop(p, job, arrivals, int(max_batch), None, max_num_tokens, handed)
        span = float(arrivals[-1])
        # the latency the run settles to: its last third's (the first requests find the replica empty)
        latency = float(np.mean((t.finish - arrivals)[arrivals >= span * 2.0 / 3.0]))
        if requests or span >= OPEN_SPANS * latency or n_req >= OPEN_MAX:
            break
        n_req = min(OPEN_MAX, int(np.ceil(1.2 * OPEN_SPANS * latency * arrival_rate)))
    notes: tuple[str, ...] = ()
    warm = 0.0 if requests else latency
    if warm and span < OPEN_SPANS * latency:
        notes = (f"{n_req} simulated requests span {span / latency:.3g} mean latencies, fewer than the "
                 f"{OPEN_SPANS} a steady state needs: the statistics include the ramp-up",)
    return measure(job, t, None, arrival_rate, int(max_batch), notes, warm)


def _most(job: I.ServeJob, tp: int, max_num_tokens: int, max_batch: int) -> int:
    """The iteration sizes a run's timing covers: every rank's budget, the requests it admits, a padded decode step."""
    ranks = int(I.scheduling_ranks(job, tp))
    return max(max_num_tokens * ranks, max_batch, largest_padded(job.graph_sizes, ranks, job.max_batch_size)) + 1


def _closed(p: _Pass, job: I.ServeJob, concurrency: int, cap: int, max_num_tokens: int,
            requests: int | None = None) -> ServingRun:
    """A closed loop of `concurrency` requests (`requests` in all, default `CLOSED_ROUNDS` replacements per slot).

    Run once per `p` and arguments: an estimate's open loop above capacity and its load run are the same loop.
    """
    key = (job, concurrency, cap, max_num_tokens, requests)
    if key not in p.closed:
        arrivals = np.full(requests or concurrency * (CLOSED_ROUNDS + 1), np.inf)
        arrivals[:concurrency] = 0.0
        p.closed[key] = measure(job, _loop(p, job, arrivals, cap, concurrency, max_num_tokens), concurrency, None,
                                cap, (), 0.0)
    return p.closed[key]


def _loop(p: _Pass, job: I.ServeJob, arrivals: np.ndarray, cap: int, concurrency: int | None,
          max_num_tokens: int, handed: np.ndarray | None = None) -> Trace:
    """The iteration-level simulation (module docstring); a closed loop's later arrivals are set as slots free.

    Requests reach the replica at `handed` (default their arrivals: no harness batcher), in order (Poisson arrivals,
    a batcher's groups, a closed loop's releases as slots free), so admission finds the arrived ones by bisection;
    TTFT counts from `arrivals`.
    The requests in the replica are always consecutive ones: `lo` to `hi` decoding, `hi` to `nxt` admitted with
    their prompt not finished. Prompts are admitted and finish in arrival order, and every decoding sequence takes
    each decode step from its first token on, `output_len - 1` in all, so they end in that order too: a sequence's
    KV cache and steps left follow from the decode steps taken since it started (`joined`), and an iteration costs
    a few scalar operations, not a pass over every sequence.
    """
    ready = arrivals if handed is None else handed
    known = ready[np.isfinite(ready)]  # a closed loop's later requests are released as slots free
    if np.any(known[1:] < known[:-1]):
        raise InternalError("requests must reach the replica in order (admission takes them so)")
    inp, last = job.input_len, job.output_len - 1
    ranks = int(I.scheduling_ranks(job, p.tp))
    separate = job.prefill == "separate"
    if separate and inp > max_num_tokens:
        raise InternalError("prefill 'separate' runs each prompt whole: input_len must be at most max_num_tokens")
    n_req = len(arrivals)
    # Python lists in the loop (an element costs less than a numpy scalar's read or a slice's write), arrays after
    at, first, finish = ready.tolist(), [np.nan] * n_req, [np.nan] * n_req
    # an iteration's prompt work is a pure function of (admitted prompts waiting, the head's tokens done, budget
    # left after the decodes), found once per distinct one: more waiting than the budget reaches (`whole_max`), or
    # more budget than the waiting prompts need, gives the same work
    work: dict[tuple[int, int, int, int], tuple[int, int, float, int, int]] = {}
    # (and more waiting than the ranks, which hold one each: `chunks.prompt_budget`)
    whole_max = max(ranks * max_num_tokens // inp + 2, ranks)
    dec_rest: dict[int, float] = {}  # a decode step's pass without attention, by batch (`Pass.rest(b, b)`)
    hybrid: dict[tuple[int, int, int, int], float] = {}  # a hybrid iteration's (`Pass.rest_on`), by its tokens
    # `prompts`: every length in one go
    rest_of, unit, prompt, floor = p.rest, p.dec_unit, p.prompts().__getitem__, p.floor   # floor: `Pass.floor`
    now, it, released = 0.0, 0, (n_req if concurrency is None else concurrency)
    lo = hi = nxt = 0  # decoding: lo..hi-1; prompt not finished: hi..nxt-1; not yet admitted: nxt..
    prefilled = 0  # tokens of the prompt being prefilled (request `hi`)
    steps = 0  # decode steps taken so far
    joined = [0] * n_req  # `steps` when each sequence started decoding (never decreasing; Python ints: an
    # iteration reads one or a few, where a numpy scalar costs more than the arithmetic)
    joined_sum = 0  # over the decoding sequences
    max_running, busy_time, running_time = 0, 0.0, 0.0
    # TensorRT-LLM's attention-DP balancer (`adp_balance`): its timeout and batching counters
    balance = job.adp_balance if ranks > 1 else None
    waiting_iters = batching_iters = 0
    prompt_time = 0.0  # of `busy_time`: the prompts' share of each iteration (their tokens' and their attention)
    while nxt < n_req or lo < nxt:
        # admit what has arrived and fits: the requests reach the replica in order (`ready` never decreases), so
        # those up to the first not yet arrived, within the released ones and the cap
        end = released if released < lo + cap else lo + cap   # `min`, without the call (each iteration)
        if nxt < end and at[nxt] <= now:
            nxt = bisect_right(at, now, nxt, end)
        if lo == nxt:  # idle until the next arrival
            now = max(now, at[nxt])
            continue
        b = hi - lo
        # tokens in the decoding sequences' KV caches: each its prompt, its first token and the steps since
        tot = float(b * (inp + 1 + steps) - joined_sum)
        held, batching = 0, False
        if balance is not None and hi < nxt:  # the balancer may hold the admitted prompts back
            held, batching = gate(waiting_iters, batching_iters, nxt - hi, b, ranks, job.max_batch_size, balance)
        if hi == nxt or held:  # decode only: jump to the next finish or arrival (or the prompts' release)
            jump = last - (steps - joined[lo])  # the first sequence has the fewest steps left
            if held and held < jump:
                jump = held
            due = at[nxt] if nxt < released and b < cap else np.inf  # an arrival can join before then
            rest = dec_rest.get(b)
            if rest is None:  # the pass over the batch a CUDA graph pads it to (`graph_padding`; b where none)
                n_pad = padded(b, ranks, job.graph_sizes, job.max_batch_size)
                rest = dec_rest[b] = rest_of(n_pad, n_pad)
            taken = _few_steps(rest, unit, tot, b, now, jump, due, floor)
            if taken is not None:
                jump, now, spent = taken
            else:
                dts = np.maximum(rest + unit * (tot + b * np.arange(jump)), floor)  # each step's time
                ends = now + dts.cumsum()
                if due < np.inf:
                    jump = min(jump, int(ends.searchsorted(due, side="left")) + 1)
                now = float(ends[jump - 1])
                spent = float(dts[:jump].sum())
            it += jump
            running_time += b * spent
            busy_time += spent
            steps += jump
            if balance is not None:
                if held:
                    waiting_iters, batching_iters = held_counters(waiting_iters, batching_iters, jump, batching)
                else:
                    waiting_iters = decode_only(waiting_iters, jump, b, ranks, balance[1])
        else:  # one iteration with prompts: hybrid (every decode, then chunks) or prompts alone (`separate`)
            waiting = nxt - hi if nxt - hi < whole_max else whole_max   # `min`s written out here and below
            if separate:
                key = (waiting, prefilled, 0, inp)
            else:  # and a rank runs no more of a prompt than its own budget leaves (`chunks.prompt_budget`)
                if ranks > 1:
                    rank_cap, left = min(max_num_tokens - b // ranks, inp), prompt_budget(waiting, max_num_tokens,
                                                                                          b, ranks)
                else:  # `prompt_budget` of one rank, without the call
                    rank_cap, left = inp, max_num_tokens - b
                need = waiting * inp - prefilled
                key = (waiting, prefilled, left if left < need else need, rank_cap)
            got = work.get(key)
            if got is None:  # `done`: the first prompts, finished
                n, fin, sec, head = prompt_work(prompt, waiting, prefilled, inp, max_num_tokens, b, separate, ranks)
                # the chunks' attention on the busiest rank: each rank runs its own under attention DP; and the
                # largest chunk, which one rank's attention-side GEMMs run whole, at most the rank's budget
                got = work[key] = (n, fin, busiest_rank(prompt, sec, prefilled, n, inp, ranks, key[3]), head,
                                   largest_chunk(prefilled, n, inp, key[3]) if n and ranks > 1 else 0)
            chunked, done, prompts, prefilled, largest = got  # (one rank: `largest` 0, which it does not read)
            stepping = 0 if separate else b  # under `separate` the decodes wait for the prompts' iteration
            n_tok = stepping + chunked
            # on the busiest rank: its decodes' share and the largest chunk (`chunks.busiest_tokens`); a pure
            # function of these four, kept (a run repeats them: 3 in 4 of the DeepSeek-R1 B200 server run's)
            rest = hybrid.get((stepping, chunked, largest, done))
            if rest is None:
                rest = hybrid[(stepping, chunked, largest, done)] = p.hybrid(stepping, chunked, largest,
                                                                             stepping + done)
            # the sum in the order it always had: rest, the decodes' attention (none under `separate`), the prompts'
            dt = (rest + unit * tot if stepping else rest) + prompts
            dt = dt if dt > floor else floor
            prompt_time += rest * (n_tok - stepping) / n_tok + prompts
            now += dt
            it += 1
            busy_time += dt
            running_time += b * dt
            steps += bool(stepping)
            if balance is not None:
                waiting_iters, batching_iters = run_counters(batching_iters, batching)
            first[hi:hi + done] = [now] * done
            joined[hi:hi + done] = [steps] * done
            joined_sum += done * steps
            hi += done
        if nxt - lo > max_running:
            max_running = nxt - lo
        if lo == hi or steps - joined[lo] < last:  # none decoding, or none ended
            continue
        gone = bisect_right(joined, steps - last, lo, hi) - lo  # those with no step left
        joined_sum -= sum(joined[lo:lo + gone])
        finish[lo:lo + gone] = [now] * gone
        lo += gone
        if concurrency is not None:  # each client sends its next request at once
            more = min(gone, n_req - released)
            arrivals[released:released + more] = now
            at[released:released + more] = [now] * more  # `ready` is `arrivals` in a closed loop
            released += more
    return Trace(arrivals, np.array(first, dtype=float), np.array(finish, dtype=float), it, max_running,
                  running_time / busy_time if busy_time else 0.0, busy_time, prompt_time)


def iteration_time(hw: Hardware, job: I.ServeJob, tp: int, running: int, prompt_tokens: int) -> float:
    """One hybrid iteration as `simulate` times it (seconds).

    `running` decodes at the mean context (input + output/2) and `prompt_tokens` of whole prompts of `input_len`. For
    checking the step at a state read off a serving log (requests in flight by Little's law, prompt tokens per
    step from the arrival rate) against the log's TPOT.
    """
    p = _Pass(hw, job, tp, running + prompt_tokens + 1)
    prompts = prompt_tokens / job.input_len
    context = job.input_len + job.output_len / 2.0
    ranks = int(I.scheduling_ranks(job, tp))
    attention = busiest_rank(p.prompt, prompts * p.prompt(job.input_len), 0, prompt_tokens, job.input_len, ranks)
    local = busiest_tokens(running + prompt_tokens, running, min(prompt_tokens, job.input_len), ranks)
    return max(p.rest_on(running + prompt_tokens, local, running + int(round(prompts))) + p.dec_unit * running
               * context + attention, p.floor)


def estimate_serving(hw: Hardware, job: I.ServeJob, tp: int, batch: int | None, arrival_rate: float | None = None,
                     seed: int = 0, replicas: int = 1, load: bool = True
                     ) -> tuple[I.InferenceEstimate, ServingRun | None]:
    """A replica's estimate in its scenario: the offline closed form, or a simulated run under load.

    `concurrency` (batch = N) runs the closed loop; `server` with an `arrival_rate` (requests per second at this
    replica) the open loop, with up to `batch` (default: as many as the KV cache holds) in flight. TTFT, TPOT and
    tokens/s are then the run's means, and memory holds the KV cache of the requests admitted at once (N beyond
    the KV capacity wait in the queue; an open loop's pool, `batch` or the capacity, is reserved whole, and is its
    `batch`; the run's `mean_running` says how many were decoding). Otherwise (offline, or server with no arrival
    rate) the closed form alone, and no run. A run's `load` is the requests per second it serves over the replica's
    capacity, a closed loop that keeps as many in flight as it admits (`run.ServingRun.load`); `load=False` leaves
    it unset (NaN) and that run out, for a caller that reads only the estimate's figures (the sensitivities).
    """
    closed = job.scenario == "concurrency"
    if not closed and not (job.scenario == "server" and arrival_rate):
        return I.estimate_inference(hw, job, tp, batch), None
    if job.output_len_cv is not None:
        raise InternalError("a simulated run gives every request one length: output_len_cv is refused for it "
                            "(model.engine.spread_problem)")
    kv = int(float(I.estimate_inference(hw, job, tp, None).max_batch))
    cap = kv if batch is None else min(kv, int(batch))
    est = I.estimate_inference(hw, job, tp, max(cap, 1))
    if cap < 1 or not bool(est.fits):
        return I.estimate_inference(hw, job, tp, batch), None
    if closed:
        assert batch is not None, "the concurrency scenario states its batch (model.workload)"
    # both runs time the same iterations: one evaluation of each size (`iteration.Pass`) serves them
    timing = _Pass(hw, job, int(tp), _most(job, int(tp), job.max_num_tokens, kv))
    run = simulate(hw, job, int(tp), max_batch=cap, concurrency=int(batch) if closed and batch is not None else None,
                   arrival_rate=None if closed else arrival_rate, seed=seed, replicas=replicas, timing=timing,
                   offline=est)
    # the load: requests served per second over the replica's capacity, a simulated closed loop that keeps as many
    # in flight as it admits (an open loop's cap; a closed loop's `batch` is its load, so the KV cache's capacity)
    admit = kv if closed else cap
    if load:  # a closed loop of `admit` is the run itself (the same arguments) when it holds as many as it admits
        full = run if closed and batch == admit else full_run(hw, job, int(tp), admit, replicas, timing, kv, cap)
        assert full is not None, "the requests admitted fit (cap >= 1 and est.fits, above)"
        served = run.tokens_per_second if closed or arrival_rate is None else float(arrival_rate) * job.output_len
        run = replace(run, load=served / full.tokens_per_second, capacity=full.tokens_per_second / job.output_len)
    est = replace(est, ttft=run.ttft.mean, tpot=run.tpot.mean, tokens_per_second_replica=run.tokens_per_second,
                  tokens_per_second_per_gpu=run.tokens_per_second / float(tp),
                  batch=float(batch) if closed and batch is not None else float(cap))
    return est, run


def full_run(hw: Hardware, job: I.ServeJob, tp: int, admit: int | None, replicas: int = 1,
             timing: _Pass | None = None, kv: int | None = None, fits: int = 0) -> ServingRun | None:
    """The replica full, its tokens/s the capacity: a closed loop of `admit` (None: KV capacity); None if none fit.

    `kv` (the KV capacity, `estimate_inference(..., None).max_batch`) and `fits` (a batch known to fit) where the
    caller has them (`estimate_serving`); by default evaluated.
    """
    if kv is None:
        kv = int(float(I.estimate_inference(hw, job, tp, None).max_batch))
    admit = min(kv, admit or kv)
    if admit < 1 or (admit != fits and not bool(I.estimate_inference(hw, job, tp, admit).fits)):
        return None
    return simulate(hw, job, tp, max_batch=admit, concurrency=admit, replicas=replicas, timing=timing)
