"""Iteration time of a serving replica (`scheduler`): the forward pass's parts by iteration size, and prompts'."""

from __future__ import annotations

import numpy as np

from archgen.errors import InternalError
from archgen.perf.hw.hardware import Hardware
from archgen.perf.serve import inference as I
from archgen.perf.serve.chunks import busiest_tokens
from archgen.perf.serve.pass_costs import fixed_per_pass, host_floor
from archgen.perf.serve.run import ServingRun

#: Decode jumps of up to this many steps are timed step by step (`few_steps`): numpy 2.4 sums up to 7 terms in
#: order (its pairwise sum starts blocks at 8), the order a Python loop adds them.
FEW_STEPS = 7


class Pass:
    """Iteration time of a replica: the forward pass's parts, evaluated once per block of iteration sizes.

    The pass is an elementwise function of the token count, so a block of `BLOCK` sizes is evaluated the first time
    an iteration of one of them runs, and a run evaluates only the sizes near those it uses: under attention DP the
    sizes go up to `max_num_tokens` x the ranks (262,145 for DeepSeek-R1 at TP32), where a run uses fewer.
    Each size's value is the same float as evaluating every size at once (tests/perf/test_serve_speed.py).
    """

    #: Iteration sizes evaluated together. One `_forward` call over DeepSeek-V3 FP4 with attention DP at TP32 on
    #: GB200 took 0.14 ms for 1 size, 0.25 for 1,024, 0.51 for 4,096, 2.2 for 16,384 (CPU time on this project's
    #: shared machine); a closed loop at the KV capacity uses every size up to its 65,536 decodes and a few beyond.
    BLOCK = 4096
    #: Decode counts whose uneven passes (`hybrid`) are evaluated together, for one iteration's prompt chunks. An
    #: open loop's hybrid iterations run the same chunks beside decode counts that drift by a few; one `_forward`
    #: call over 256 sizes costs about twice one over a single size.
    UNEVEN_BLOCK = 256

    def __init__(self, hw: Hardware, job: I.ServeJob, tp: int, most: int = I.PREFILL_CHUNK):
        self.hw, self.job, self.tp, self.most = hw, job, float(tp), most
        self.fixed = float(fixed_per_pass(job.arch, self.tp, job.attention_dp, job.precision, job.ffn_activation,
                                             job.quantised_attention))
        self.floor = float(host_floor(job, self.tp))  # an eager iteration's least time: its launches' host time
        # decode attention is linear in sequences x context (a bandwidth roofline): seconds per (sequence, token)
        self.dec_unit = job.arch.layers * float(I.attention_core(hw, job, self.tp, tokens=1.0, context=1.0,
                                                                 batch=1.0, prefill=False))
        if job.attention_dp:
            self.dec_unit /= self.tp  # a rank attends its own 1/tp of the sequences
        self._out1 = I.output_time(hw, job.arch, np.ones(1), 1.0 if job.attention_dp else self.tp)[0]
        # by block, as Python floats (the float64 values; a Python float's sum is the same IEEE sum): each size's
        # pass, and its extra logits; None until an iteration of that block runs
        self._body: list[list[float] | None] = [None] * (most // self.BLOCK + 1)
        self._extra: list[list[float] | None] = [None] * (most // self.BLOCK + 1)
        self._prompt: dict[int, float] = {}
        self._uneven: dict[tuple[int, float], float] = {}  # `rest_on`'s passes with an uneven busiest rank
        self._uneven_blocks: set[tuple[int, int, int]] = set()  # `hybrid`'s blocks evaluated: (block, chunked, largest)
        self.ranks = int(I.scheduling_ranks(job, self.tp))
        self._prompts: list[float] | None = None
        # closed-loop runs over these times, by their arguments (`scheduler._closed`): a run is deterministic
        self.closed: dict[tuple, ServingRun] = {}

    def _block(self, i: int) -> tuple[list[float], list[float]]:
        """The `BLOCK` sizes from `i` x `BLOCK`: each size's pass and its extra logits, evaluated once.

        The pass over n tokens without its attention core, with one token's logits, plus the fixed costs; and the
        logits GEMM and sampling of n tokens beyond the one in it (`inference.output_time`); size 0 is an empty pass
        (0) and one logit (no extra).
        """
        body, extra = self._body[i], self._extra[i]
        if body is None or extra is None:
            job = self.job
            n = np.arange(max(i * self.BLOCK, 1), min((i + 1) * self.BLOCK, self.most + 1), dtype=float)
            passes = I._forward(self.hw, job, n, self.tp, context=1.0, batch=0.0, prefill=False, attention=False,
                                sampled=np.ones_like(n)) + self.fixed
            logits = I.output_time(self.hw, job.arch, self._ranks_logits(n), 1.0 if job.attention_dp else self.tp) \
                - self._out1
            if i == 0:
                passes, logits = np.concatenate(([0.0], passes)), np.concatenate(([0.0], logits))
            body = self._body[i] = passes.tolist()
            extra = self._extra[i] = logits.tolist()
        return body, extra

    def _ranks_logits(self, sampled: np.ndarray) -> np.ndarray:
        """The logits the busiest rank computes of `sampled` tokens: all of them, or under attention DP its own share.

        Under attention DP each rank runs its own sequences' logits with the whole LM head (TensorRT-LLM's
        `DecoderModelForCausalLM` builds its `LMHead` without a mapping when `enable_attention_dp`,
        tensorrt_llm/_torch/models/modeling_utils.py at 000a01de), sampled / tp of them and at least one, as the
        offline closed form's step (`inference._forward`); before serve30 the pass took them all on one rank.
        """
        return np.maximum(sampled / self.tp, 1.0) if self.job.attention_dp else sampled

    def rest(self, tokens: int, sampled: int) -> float:
        """The pass over `tokens` tokens without its attention core, with `sampled` logits, and the fixed costs.

        Every rank runs its share of the tokens (tokens / tp under attention DP); `rest_on` times an uneven rank.
        """
        if sampled < 1:
            sampled = 1
        if tokens < 0 or tokens > self.most or sampled > self.most:
            raise InternalError(f"an iteration of {tokens} tokens, {sampled} sampled, beyond the {self.most} timed")
        size = self.BLOCK
        body = self._body[tokens // size]
        if body is None:
            body = self._block(tokens // size)[0]
        return body[tokens % size] + self._extra_of(sampled)

    def _extra_of(self, sampled: int) -> float:
        """The logits of `sampled` tokens beyond the one in each size's pass (`_block`)."""
        extra = self._extra[sampled // self.BLOCK]
        if extra is None:
            extra = self._block(sampled // self.BLOCK)[1]
        return extra[sampled % self.BLOCK]

    def rest_on(self, tokens: int, local: float, sampled: int) -> float:
        """`rest` on a busiest rank that runs `local` of the `tokens` through the attention side (serve30).

        Under attention DP the attention projections, shared experts, dense layers, norms and casts of a rank run its
        own requests' tokens, `local` (`chunks.busiest_tokens`), and the routed experts all `tokens` by EP
        (`inference._forward`'s `local`). Where `local` is no more than the even share this is `rest`; otherwise the
        pass is evaluated once per (tokens, local).
        """
        if not self.job.attention_dp or local * self.tp <= tokens:
            return self.rest(tokens, sampled)
        if tokens > self.most or sampled > self.most:
            raise InternalError(f"an iteration of {tokens} tokens, {sampled} sampled, beyond the {self.most} timed")
        key = (tokens, local)
        body = self._uneven.get(key)
        if body is None:
            body = self._uneven[key] = float(I._forward(self.hw, self.job, float(tokens), self.tp, context=1.0,
                                                        batch=0.0, prefill=False, attention=False, local=float(local),
                                                        sampled=1.0)) + self.fixed
        return body + self._extra_of(max(sampled, 1))

    def hybrid(self, decodes: int, chunked: int, largest: int, sampled: int) -> float:
        """`rest_on` of an iteration of `decodes` decodes and `chunked` prompt tokens, `largest` the longest chunk.

        Its busiest rank runs `chunks.busiest_tokens` of them. Under attention DP, where that rank is uneven, the
        passes of the `UNEVEN_BLOCK` decode counts around `decodes` beside the same chunks are evaluated at once
        (`_uneven_block`): the same floats as one at a time (tests/perf/test_serve_speed.py), for a `_forward` call
        per block instead of one per decode count.
        """
        tokens = decodes + chunked
        local = busiest_tokens(tokens, decodes, largest, self.ranks)
        if self.job.attention_dp and local * self.tp > tokens and (tokens, local) not in self._uneven:
            self._uneven_block(decodes // self.UNEVEN_BLOCK, chunked, largest)
        return self.rest_on(tokens, local, sampled)

    def _uneven_block(self, i: int, chunked: int, largest: int) -> None:
        """`rest_on`'s uneven passes for decode counts of block `i` beside `chunked` prompt tokens (`hybrid`)."""
        if (i, chunked, largest) in self._uneven_blocks:
            return
        self._uneven_blocks.add((i, chunked, largest))
        size = self.UNEVEN_BLOCK
        decodes = np.arange(i * size, min((i + 1) * size, self.most - chunked + 1))
        tokens = decodes + chunked
        local = np.maximum(tokens / self.ranks, decodes / self.ranks + largest)  # `busiest_tokens`, elementwise
        uneven = local * self.tp > tokens
        tokens, local = tokens[uneven], local[uneven]
        if not len(tokens):
            return
        body = I._forward(self.hw, self.job, tokens.astype(float), self.tp, context=1.0, batch=0.0, prefill=False,
                          attention=False, local=local, sampled=np.ones_like(local)) + self.fixed
        self._uneven.update(zip(zip(tokens.tolist(), local.tolist(), strict=True), body.tolist(), strict=True))

    def prompts(self) -> list[float]:
        """`prompt` of every length from 0 to the job's `input_len`, evaluated together on first use.

        What `scheduler._loop` reads (its chunks never pass a prompt's end): the same floats as `prompt`'s, the core
        being elementwise arithmetic in the length (tests/perf/test_serve_speed.py).
        """
        if self._prompts is None:
            n = np.arange(1, self.job.input_len + 1, dtype=float)
            one = I.attention_core(self.hw, self.job, self.tp, tokens=n, context=n, batch=1.0, prefill=True)
            self._prompts = [0.0, *(self.job.arch.layers * np.broadcast_to(one, n.shape)).tolist()]
        return self._prompts

    def prompt(self, length: int) -> float:
        """Attention core of a whole causal prompt of `length` tokens, all layers (0 for an empty one)."""
        if length <= 0:
            return 0.0
        t = self._prompt.get(length)
        if t is None:
            one = I.attention_core(self.hw, self.job, self.tp, tokens=float(length), context=float(length),
                                   batch=1.0, prefill=True)
            t = self._prompt[length] = self.job.arch.layers * float(one)
        return t


def few_steps(rest: float, unit: float, tot: float, b: int, now: float, jump: int,
              due: float, floor: float = 0.0) -> tuple[int, float, float] | None:
    """A decode jump of `scheduler._loop`, timed step by step where it ends within `FEW_STEPS`: (steps, end, time).

    The steps run to the next finish (`jump`) or to the first ending at or after `due`; None when that is beyond
    `FEW_STEPS`. Each step's time is `dts`' element (rest + unit x (tot + b k), at least `floor`: `Pass.floor`), the
    ends are `now` + the running sum as `cumsum` adds, and the time spent is the sum numpy's `sum` gives for so few
    terms, which adds them in order (tests/perf/test_serve_speed.py holds it to numpy's), so the floats are the
    vectorised jump's.
    """
    spent = 0.0
    for k in range(min(jump, FEW_STEPS)):
        dt = rest + unit * (tot + b * k)
        spent += dt if dt > floor else floor
        if k + 1 == jump or now + spent >= due:
            return k + 1, now + spent, spent
    return None
