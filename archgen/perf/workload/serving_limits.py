"""What bounds a serving replica: its engine's cap on the batch, else the KV cache, and why a replica does not fit.

`serving_estimate` takes these (split from it for its size); a validation case's `unfit_reason` is `serving_misfit`.
"""

from __future__ import annotations

from archgen.perf.hw.hardware import Hardware
from archgen.perf.serve.inference import BATCH_SIZE_SOURCE, TOKEN_BUDGET_SOURCE, InferenceEstimate

#: What bounds a serving job's batch left to its limits where the engine's does not (`Estimate.batch_bound`).
KV_BOUND = "the KV cache: the sequences whose cache fits in HBM after the weights"


def engine_cap(max_num_tokens: int, max_batch_size: int, ranks: int, source: str = BATCH_SIZE_SOURCE
               ) -> tuple[int, str]:
    """The most sequences a replica runs at once by its engine's limits, and which limit it is, in words.

    Each of its `ranks` scheduling ranks (tp under attention DP, else 1) runs at most `max_batch_size` sequences and
    decodes at most `max_num_tokens`, one token each (`inference.TOKEN_BUDGET_SOURCE`; `source`: where the batch
    size comes from, `engine_defaults.batch_size_of`).
    """
    per = f" x {ranks} attention-DP ranks" if ranks > 1 else ""
    if max_batch_size < max_num_tokens:
        return max_batch_size * ranks, (f"the engine's max_batch_size ({max_batch_size:,}{per}) runs at once: "
                                        f"{source}")
    return max_num_tokens * ranks, (f"an iteration of {max_num_tokens * ranks:,} tokens decodes (max_num_tokens "
                                    f"{max_num_tokens:,}{per}): {TOKEN_BUDGET_SOURCE}")


def serving_misfit(e: InferenceEstimate, hw: Hardware) -> str:
    """Why a replica's estimate `e` does not fit (`Estimate.misfit`, PERF002; a validation case's `unfit_reason`)."""
    if float(e.batch) < 1:
        left = float(e.kv_space)
        return (f"no sequence fits; one needs {float(e.kv_per_sequence_per_gpu) / 1e9:.2f} GB of KV cache per "
                f"accelerator, and {e.kv_words} (weights {float(e.weights_per_gpu) / 1e9:.1f} GB) leaves "
                + (f"{left / 1e9:.2f} GB" if left > 0 else "nothing"))
    return (f"weights {float(e.weights_per_gpu) / 1e9:.1f} GB and KV cache of {float(e.batch):g} sequences "
            f"need {float(e.memory_per_gpu) / 1e9:.1f} GB per accelerator, {hw.hbm_capacity / 1e9:.1f} GB available")
