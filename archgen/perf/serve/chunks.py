"""An iteration's prompt work under chunked or separate prefill (`scheduler`): which prompts, and their sums."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache


def prompt_chunks(queue: Sequence[int], head: int, inp: int, budget: int, decodes: int, separate: bool,
                  ranks: int = 1) -> list[tuple]:
    """An iteration's prompt work, (request, offset, tokens), in arrival order.

    Chunks within what the `decodes` leave of the `budget`, the first from its offset `head`; under `separate` whole
    prompts within the budget. Under attention DP each of the replica's `ranks` has a budget of its own
    (`inference.RANK_LIMITS`): the replica's is ranks x budget, shared as `inference._forward` times the pass (every
    rank takes 1/ranks of the tokens), within what the ranks that hold the prompts leave (`prompt_budget`).
    """
    if separate:
        return [(r, 0, inp) for r in queue[:ranks * (budget // inp)]]
    budget = prompt_budget(len(queue), budget, decodes, ranks)
    chunks: list[tuple[int, int, int]] = []
    off = head
    for r in queue:
        if budget <= 0:
            break
        c = min(inp - off, budget)
        chunks.append((r, off, c))
        budget -= c
        off = 0
    return chunks


def prompt_work(prompt: Callable[[int], float], waiting: int, head: int, inp: int, budget: int, decodes: int,
                 separate: bool, ranks: int = 1) -> tuple[int, int, float, int]:
    """What `prompt_chunks`' chunks for the `waiting` admitted prompts add up to, without listing them.

    (tokens, prompts finished, attention core seconds, tokens done of the prompt then at the head), where
    `prompt(length)` is the attention core of a causal prompt of `length` tokens. The chunks are a part of the head
    prompt from `head`, whole prompts and a part of the next, so the sums follow from their counts. The seconds are
    added chunk by chunk in arrival order, as `sum` over `prompt_chunks`' list adds them, so the result is the same
    float (tests/perf/test_scheduler.py compares the two); an iteration then costs a few operations, not one per chunk.
    """
    if separate:  # whole prompts within the budget; the head prompt is never part done
        whole = min(waiting, ranks * (budget // inp))
        return whole * inp, whole, _repeated(0.0, prompt(inp), whole), 0
    left = prompt_budget(waiting, budget, decodes, ranks)
    if left <= 0:
        return 0, 0, 0.0, head
    tokens = min(inp - head, left)
    seconds = prompt(head + tokens) - prompt(head)
    if head + tokens < inp:  # the budget ends inside the head prompt
        return tokens, 0, seconds, head + tokens
    left -= tokens
    whole = min(waiting - 1, left // inp)
    seconds = _repeated(seconds, prompt(inp), whole)
    tokens, left = tokens + whole * inp, left - whole * inp
    if left > 0 and whole + 1 < waiting:  # a part of the next prompt, from its start
        return tokens + left, whole + 1, seconds + prompt(left), left
    return tokens, whole + 1, seconds, 0


def prompt_budget(waiting: int, budget: int, decodes: int, ranks: int = 1) -> int:
    """The prompt tokens an iteration takes: what the decodes leave of the ranks' budgets that hold `waiting` prompts.

    One rank: `budget` - `decodes`. Under attention DP each rank schedules its own requests within its own `budget`
    (`inference.RANK_LIMITS`), and each new prompt goes to the rank with the fewest requests
    (`ExecutorRequestQueue._balance_requests_across_ranks`, NVIDIA/TensorRT-LLM 007a7508; `adp_balance`), so
    `waiting` prompts lie on min(waiting, ranks) ranks, each with `decodes` // ranks decodes: those ranks' budgets
    are what the prompts can take, at most the replica's ranks x `budget` - `decodes` (serve31). Before, the replica's
    whole budget was the prompts' however few waited: a lone 1,024-token prompt ran in one pass of a rank whose
    max_num_tokens was 256, where TensorRT-LLM chunks it over four (serve30's doubt).
    """
    if ranks <= 1:
        return budget - decodes
    return min(ranks * budget - decodes, min(waiting, ranks) * (budget - decodes // ranks))


@lru_cache(maxsize=1 << 16)
def _repeated(total: float, value: float, times: int) -> float:
    """`total` + `value` added `times` times one at a time (a float sum's rounding, as `sum` over a list gives).

    Cached: a run's iterations repeat the same few sums (DeepSeek-R1 at TP32 on GB200, 2,048 in flight: 3,061
    distinct of 39,000, adding 7.8 million times), and the result is a pure function of the three.
    """
    for _ in range(times):
        total += value
    return total


def busiest_rank(prompt: Callable[[int], float], seconds: float, head: int, tokens: int, inp: int,
                 ranks: int = 1, cap: int | None = None) -> float:
    """The attention seconds of an iteration's prompt chunks on its busiest rank (serve29).

    `seconds` is their sum (`prompt_work`) over `tokens` tokens, the first chunk from offset `head` of its prompt.
    One rank runs them all; under attention DP each of the `ranks` runs its own requests' attention at once, so the
    busiest runs `seconds` / ranks, as the offline prefill pass divides it (`inference._forward`, tokens / tp a rank)
    and the decode attention is (`iteration.Pass.dec_unit`), and at least the largest chunk, which one rank holds
    whole, of at most `cap` tokens (the rank's own budget, `prompt_budget`: where the simulated iteration runs a
    longer chunk, the prompts it stands for run in chunks of the ranks' budgets at once). Before serve29 the
    iteration added every chunk's attention as if one rank ran them (review42: DeepSeek-R1 at tp 32 read a 0.158
    GPU s prefill a request where prefill-only passes take 0.079).
    """
    if ranks <= 1 or tokens <= 0:
        return seconds
    cap = inp if cap is None else cap
    first = min(inp - head, tokens)  # the head prompt's chunk
    largest = prompt(head + min(first, cap)) - prompt(head)
    rest = tokens - first
    if rest > 0:  # whole prompts after it, or a part of the next one
        largest = max(largest, prompt(min(rest, inp, cap)))
    return max(seconds / ranks, largest)


def largest_chunk(head: int, tokens: int, inp: int, cap: int | None = None) -> int:
    """The longest of an iteration's prompt chunks: `tokens` tokens, the first from offset `head` of its prompt.

    At most `cap` tokens where given: what one rank's budget runs of a prompt (`busiest_rank`).
    """
    first = min(inp - head, tokens)  # the head prompt's chunk
    rest = tokens - first
    longest = max(first, min(rest, inp)) if rest > 0 else first
    return longest if cap is None else min(longest, cap)


def busiest_tokens(tokens: int, decodes: int, largest: int, ranks: int = 1) -> float:
    """The tokens an iteration's busiest rank runs through its attention-side GEMMs (serve30).

    Under attention DP each of the `ranks` runs its own requests (`inference.RANK_LIMITS`): its share of the
    `decodes` and its prompts' chunks, so the rank holding the `largest` chunk runs decodes / ranks + largest of the
    `tokens`, and a full iteration at least tokens / ranks, as the offline prefill pass spreads them
    (`inference._forward`). One rank runs every token.
    """
    if ranks <= 1:
        return float(tokens)
    return max(tokens / ranks, decodes / ranks + largest)
