"""TensorRT-LLM's attention-DP context balancer: how many iterations a replica holds its admitted prompts back.

Under attention DP (`enable_attention_dp`) with `attention_dp_config: {enable_balance: true, batching_wait_iters: w,
timeout_iters: t}` TensorRT-LLM's PyTorch executor filters every iteration's scheduled context requests through
`PyExecutor._balance_adp_requests` (tensorrt_llm/_torch/pyexecutor/py_executor.py, read in a stored 1.x copy of
117,686 characters that has `batch_wait_timeout_ms` beside it, its commit not named by the store; the same rule
moved later into the scheduler package. The MLPerf v5.1 harness pins TensorRT-LLM's 1.0-mlpinf side branch at
18c0333e, closed/NVIDIA/Makefile.build, not stored here, and writes these three keys, mlcommons/
inference_results_v5.1 at 965182b0, closed/NVIDIA/code/llmlib/config.py `_generate_extra_config_yaml`). The ranks
all-gather how many context and generation requests each scheduled, then:

* every rank has a context request and a free slot (generation requests < `max_batch_size`): the timeout counter
  restarts; if every rank also has generation requests, the contexts are held while the batching counter is below
  w (it counts up), and run when it reaches w (it restarts);
* otherwise the contexts are held and the timeout counter counts up; when it reaches t, or when some rank has no
  generation request, it restarts and the contexts run.

The timeout counter counts every such iteration, those with no context request anywhere too, so under load (every
rank decoding) a lone prompt runs at the next iteration where the counter wraps: every t-th iteration. Which rank
holds a new request: `ExecutorRequestQueue._balance_requests_across_ranks` (executor_request_queue.py at
NVIDIA/TensorRT-LLM 007a7508) gives each new request, longest first, to the rank with the fewest active prompt tokens
(then requests), up to max(ceil(active + new) / ranks, the busiest rank's); with every request of one length, as
the simulated replica has them, that is the rank with the fewest requests, so k waiting prompts lie on min(k, ranks)
ranks and n decodes on every rank once n >= ranks. Those counts are what `gate` reads.
"""

from __future__ import annotations


def gate(waiting_iters: int, batching_iters: int, waiting: int, decodes: int, ranks: int, max_batch_size: int,
         balance: tuple[int, int]) -> tuple[int, bool]:
    """The iterations the balancer holds the admitted prompts from this one on, and which counter counts them.

    Args:
        waiting_iters: The timeout counter (iterations held since it last restarted).
        batching_iters: The batching counter.
        waiting: Admitted prompts not yet finished (each on its own rank, up to `ranks`).
        decodes: Sequences decoding, spread evenly over the ranks.
        ranks: Attention-DP ranks of the replica.
        max_batch_size: Sequences a rank schedules at once.
        balance: (batching_wait_iters, timeout_iters), TensorRT-LLM's `attention_dp_config`.

    Returns:
        (held, batching): the iterations from this one on that run the decodes alone (0: this one runs the prompts),
        each counting the batching counter up (`batching`) or the timeout counter. `held_counters` and
        `run_counters` say where the counters then stand.
    """
    wait, timeout = balance
    if decodes < ranks:  # some rank has no generation request: the contexts run
        return 0, False
    if waiting >= ranks and -(-decodes // ranks) < max_batch_size:  # every rank a context and a free slot
        return max(wait - batching_iters, 0), True
    return max(timeout - 1 - waiting_iters, 0), False


def held_counters(waiting_iters: int, batching_iters: int, steps: int, batching: bool) -> tuple[int, int]:
    """(timeout counter, batching counter) after `steps` held iterations of `gate`'s kind."""
    return (0, batching_iters + steps) if batching else (waiting_iters + steps, batching_iters)


def run_counters(batching_iters: int, batching: bool) -> tuple[int, int]:
    """(timeout counter, batching counter) after the iteration that runs the prompts: both restart that restarted."""
    return 0, 0 if batching else batching_iters


def decode_only(waiting_iters: int, steps: int, decodes: int, ranks: int, timeout: int) -> int:
    """The timeout counter after `steps` iterations with no prompt on any rank (each counts it, wrapping at t)."""
    if decodes < ranks or timeout <= 1:
        return 0
    return (waiting_iters + steps) % timeout


def balance_of(inference) -> tuple[int, int] | None:
    """A workload's `inference.adp_balance` as `ServeJob.adp_balance`: (batching_wait_iters, timeout_iters), or None."""
    b = inference.adp_balance
    return None if b is None else (b.batching_wait_iters, b.timeout_iters)
