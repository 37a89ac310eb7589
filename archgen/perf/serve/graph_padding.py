"""CUDA-graph padding of a decode-only iteration: the batch TensorRT-LLM's graph runs, dummy requests added.

With `cuda_graph_config: {batch_sizes: [...], enable_padding: true}` (the MLPerf v5.1 DeepSeek-R1 Server runs:
`cuda_graph_batch_sizes` [128, 256, 384, 512], GB200 [1, 2, 4, ..., 512], `cuda_graph_padding_enabled` True,
mlcommons/inference_results_v5.1 at 965182b0, closed/NVIDIA/configs/*/Server/deepseek-r1.py) TensorRT-LLM's PyTorch
executor runs a generation-only iteration as a captured graph and pads its batch with dummy generation requests
(`CUDAGraphRunner._get_padded_batch`, tensorrt_llm/_torch/pyexecutor/cuda_graph_runner.py at NVIDIA/TensorRT-LLM
7b437aaa): under attention DP, where every rank's iteration is generation-only, each rank pads to the smallest
captured size at or above the largest rank's batch (`_round_up_batch_size`), none past `max_batch_size` and none
where that batch is above the largest captured size (then the iteration runs eagerly, unpadded); without attention
DP the one batch is padded so. The dummies run the whole pass (GEMMs, routed experts, logits) over a context of one
KV block, so the simulated decode-only step (`scheduler._loop`) times its pass over the padded tokens and its
attention over the real sequences' contexts. An iteration with a prompt is not generation-only and runs unpadded.
"""

from __future__ import annotations

from bisect import bisect_left


def padded(decodes: int, ranks: int, sizes: tuple[int, ...] | None, max_batch_size: int) -> int:
    """The tokens of a decode-only iteration of `decodes` sequences over `ranks` ranks, as its graph runs them.

    Args:
        decodes: Sequences decoding, spread evenly over the ranks (the busiest holds ceil(decodes / ranks)).
        ranks: Ranks that each run their own batch (the attention-DP ranks, or 1).
        sizes: The captured batch sizes (ascending), or None where the job pads none.
        max_batch_size: Sequences a rank schedules at once: no rank pads past it.

    Returns:
        ranks x the padded batch of a rank, or `decodes` where the iteration is not padded.
    """
    if not sizes or decodes <= 0:
        return decodes
    busiest = -(-decodes // ranks)
    i = bisect_left(sizes, busiest)
    if i == len(sizes) or sizes[i] > max_batch_size:
        return decodes
    return ranks * sizes[i]


def largest(sizes: tuple[int, ...] | None, ranks: int, max_batch_size: int) -> int:
    """The most tokens a padded decode-only iteration runs (0 where the job pads none): what its timing must cover."""
    usable = [s for s in sizes or () if s <= max_batch_size]
    return ranks * max(usable) if usable else 0
