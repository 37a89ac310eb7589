"""The plan search's branch and bound (`plan.search_plan`): the bounds, the memory fit and the evaluation loop.

`Bounds` holds, per layout row, the least compute + optimizer time over the attention kernels (`raw`) and the same
over the kernels under which the row fits (`bound`, infinite where it fits under none). Each bound is one
`estimate_training` call per kernel with the job's own switches (`layout_times.shared_estimate`: the same bits, each
layer's times and each distinct DP collective worked out once), so it is also the whole estimate of the plan whose
switches those are (under the stack profiles archgen ships, the one with every overlap the stack runs): `Search`
reads those plans' step times and fits from the bound's call instead of evaluating them again.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from archgen.perf.hw.hardware import Hardware
from archgen.perf.train.job import Job
from archgen.perf.train.layout_rules import ep_overlap_refused
from archgen.perf.train.layout_times import SLACK, compute_floor, layout_of, shared_estimate
from archgen.perf.train.pipeline_split import PipelineOptions
from archgen.perf.train.ranks import busiest_memory
from archgen.perf.train.refused import moe_tp_refused

#: Job switches a plan search varies (fields of `job.Job`); sequence parallelism is a `Layout` field.
JOB_SWITCHES = ("attention", "overlap_tp_comm", "overlap_p2p_comm", "overlap_grad_reduce", "overlap_param_gather",
                "overlap_ep_comm")
#: Layouts in the first block of the bound-and-evaluate loop (each next block twice the last).
BLOCK = 256
#: Rows whose bounds `Search.run` sets first, least `Bounds.low` first (each next time at least twice as many).
FIRST = 16 * BLOCK
#: Rows a plan is evaluated on per `estimate_training` call (`Search._times`, `layout_times.shared_estimate`).
ROWS = 16_384


@dataclass
class Bounds:
    """Bounds of the rows of `lay` (`raw`, `bound`), and each kernel's step time and fit from the same calls."""

    hw: Hardware
    job: Job
    lay: dict[str, np.ndarray]
    kernels: list[str]
    sp: bool                    # the sequence-parallel setting of least memory and time
    pipeline: PipelineOptions
    bound: np.ndarray = field(init=False)
    raw: np.ndarray = field(init=False)
    low: np.ndarray = field(init=False)   # a bound of `raw` without the estimate (`lower`)
    done: np.ndarray = field(init=False)  # rows whose `raw` and `bound` are set
    memo: dict[str, tuple[Job, np.ndarray, np.ndarray, np.ndarray]] = field(init=False)  # step, fits, known

    def __post_init__(self) -> None:
        n = len(self.lay["tp"])
        self.bound, self.raw, self.low, self.done = np.full(n, np.inf), np.full(n, np.inf), np.full(n, -np.inf), \
            np.zeros(n, dtype=bool)
        self.memo = {k: (replace(self.job, attention=k), np.full(n, np.nan), np.zeros(n, dtype=bool),
                         np.zeros(n, dtype=bool)) for k in self.kernels}

    def extend(self, more: dict[str, np.ndarray]) -> np.ndarray:
        """Append the rows `more` (unbounded) and return their row numbers."""
        n, k = len(self.lay["tp"]), len(more["tp"])
        self.lay = {key: np.concatenate([v, more[key]]) for key, v in self.lay.items()}
        self.bound, self.raw = (np.concatenate([b, np.full(k, np.inf)]) for b in (self.bound, self.raw))
        self.low = np.concatenate([self.low, np.full(k, -np.inf)])
        self.done = np.concatenate([self.done, np.zeros(k, dtype=bool)])
        self.memo = {name: (job, np.concatenate([s, np.full(k, np.nan)]), np.concatenate([f, np.zeros(k, bool)]),
                            np.concatenate([d, np.zeros(k, bool)])) for name, (job, s, f, d) in self.memo.items()}
        return np.arange(n, n + k)

    def set(self, rows: np.ndarray) -> None:
        """Set `raw[rows]` and `bound[rows]`: the least compute + optimizer time over the attention kernels.

        `bound` is infinite where the row fits under none of them.
        """
        if len(rows) == 0:
            return
        sub = {k: v[rows] for k, v in self.lay.items()}
        low, fit = np.full(len(rows), np.inf), np.full(len(rows), np.inf)
        for attention in self.kernels:
            job, steps, fits, known = self.memo[attention]
            est = shared_estimate(self.hw, job, sub, np.full(len(rows), self.sp), self.pipeline)
            t = np.broadcast_to(est.compute + est.optimizer, (len(rows),))
            ok = np.broadcast_to(est.fits, (len(rows),))
            steps[rows], fits[rows], known[rows] = np.broadcast_to(est.step_time, (len(rows),)), ok, True
            low = np.minimum(low, t)
            fit = np.where(ok, np.minimum(fit, t), fit)
        self.raw[rows], self.bound[rows], self.done[rows] = low, fit, True

    def lower(self, rows: np.ndarray) -> None:
        """Set `low[rows]`: at most `raw` (so `bound`) from the layer times alone (`layout_times.compute_floor`).

        The least over the kernels, less `SLACK` for rounding; where it is not a number, minus infinity (bounded first).
        """
        if len(rows) == 0:
            return
        sub = {k: v[rows] for k, v in self.lay.items()}
        low = np.full(len(rows), np.inf)
        for job, *_ in self.memo.values():
            low = np.minimum(low, compute_floor(self.hw, job, sub, np.full(len(rows), self.sp), self.pipeline))
        self.low[rows] = np.where(np.isnan(low), -np.inf, low * (1.0 - SLACK))

    def fit(self, rows: np.ndarray) -> np.ndarray:
        """Whether each of `rows` fits under some kernel: `estimate_training`'s `fits`, from the memory alone."""
        fit = np.zeros(len(rows), dtype=bool)
        for attention in sorted(self.kernels, key=lambda k: k != "flash"):  # flash first: it needs the least memory
            todo = np.flatnonzero(~fit)
            if len(todo) == 0:
                break
            sub = {k: v[rows[todo]] for k, v in self.lay.items()}
            mem = busiest_memory(self.memo[attention][0], layout_of(sub, np.full(len(todo), self.sp), self.pipeline))
            fit[todo] = np.broadcast_to(mem.fits(self.hw.hbm_capacity, self.hw.host_capacity, self.hw.fit_waste),
                                        (len(todo),))
        return fit


class Search:
    """The branch-and-bound loop.

    Blocks of rows in bound order, each evaluated under every plan while its bound is below the best step found.
    """

    def __init__(self, bounds: Bounds, plans: list, exhaustive: bool) -> None:
        self.bounds, self.plans, self.exhaustive = bounds, plans, exhaustive
        # the plans, a run of equal jobs per call; the kernel whose bound calls evaluated the plan of `bounds.sp`
        self.calls: list[tuple[dict[str, object], list[bool], str | None]] = []
        for combo, sp in plans:
            if self.calls and self.calls[-1][0] == combo:
                self.calls[-1][1].append(sp)
            else:
                k = str(combo["attention"])
                same = k in bounds.memo and bounds.memo[k][0] == with_switches(bounds.job, combo)
                self.calls.append((combo, [sp], k if same else None))
        self.best: tuple[int, dict[str, object], bool] | None = None
        self.best_t, self.evaluated = np.inf, 0

    def run(self, rows: np.ndarray) -> None:
        """Evaluate the fitting `rows` whose bound is below the best step, least bound first.

        Rows not bounded yet (`Bounds.done`) are bounded least `Bounds.low` first, only as far as a block could hold
        them: every one left has a bound of at least `cut`, the least `low` among them, so while the best step found
        is at most `cut`, or the next block lies among the rows of bound below `cut`, the blocks and the rows they
        evaluate are those of bounding every row first (planspeed39: that took half of the search).
        """
        b = self.bounds
        lazy = rows[~b.done[rows]]
        if self.exhaustive:
            b.set(lazy)
            lazy = lazy[:0]
        lazy = lazy[np.argsort(b.low[lazy], kind="stable")]
        taken, cut, order, below = 0, -np.inf, self._order(rows), 0
        start, size = 0, max(len(order), 1) if self.exhaustive else BLOCK
        while True:
            if taken < len(lazy) and self.best_t > cut and (start + size > below or start >= len(order)):
                want = int(np.searchsorted(b.low[lazy], self.best_t)) if np.isfinite(self.best_t) else 2 * taken
                b.set(np.sort(lazy[taken:(taken := min(len(lazy), max(want, FIRST, taken + 1)))]))
                cut = b.low[lazy[taken]] if taken < len(lazy) else np.inf
                order = self._order(rows)
                below = int(np.searchsorted(b.bound[order], cut))  # the rows of bound below `cut`
                continue
            if start >= len(order):
                break
            block = order[start:start + size]
            start, size = start + size, 2 * size  # blocks double: few calls, the first ones set the bound
            block = block if self.exhaustive else block[b.bound[block] < self.best_t]
            if len(block) == 0:
                break
            self._block(block)

    def _order(self, rows: np.ndarray) -> np.ndarray:
        """The bounded rows of `rows` that fit, least bound first (in the order of `rows` on ties)."""
        bound = self.bounds.bound
        rows = rows[self.bounds.done[rows] & np.isfinite(bound[rows])]
        return rows[np.argsort(bound[rows], kind="stable")]

    def _block(self, block: np.ndarray) -> None:
        """Every plan on the rows `block`, in plan order."""
        n, b = len(block), self.bounds
        sub = {k: v[block] for k, v in b.lay.items()}
        for combo, sps, kernel in self.calls:  # one call per job: its sequence-parallel settings side by side
            done: dict[bool, tuple[np.ndarray, np.ndarray]] = {}
            if kernel is not None and b.sp in sps and b.memo[kernel][3][block].all():
                done[b.sp] = (b.memo[kernel][1][block], b.memo[kernel][2][block])  # the bound's own call
            todo = [sp for sp in sps if sp not in done]
            if todo:
                done |= self._times(with_switches(b.job, combo), sub, todo)
            for sp in sps:
                step, ok = done[sp]
                self.evaluated += n
                if combo["overlap_ep_comm"]:  # the layouts Megatron-core refuses with it (`ep_overlap_problems`)
                    vpp, full = ep_overlap_refused(sub["ep"], sub["pp"], sub["interleave"], sub["recompute"])
                    ok = ok & ~vpp & ~full
                if not sp:  # MoE at tp > 1 needs sequence parallelism (`refused.moe_tp_refused`)
                    ok = ok & ~moe_tp_refused(b.job.arch.experts, sub["tp"], sp)
                if combo["attention"] == "materialized":  # CP runs on Transformer Engine's attention only
                    ok = ok & (sub["cp"] == 1)  # (`layout_rules.layout_problems`, `refused.CP_NEEDS_TE_ATTENTION`)
                t = np.where(ok, step, np.inf)
                i = int(np.argmin(t))
                if t[i] < self.best_t:
                    self.best_t, self.best = float(t[i]), (int(block[i]), combo, sp)

    def _times(self, job: Job, sub: dict[str, np.ndarray],
               todo: list[bool]) -> dict[bool, tuple[np.ndarray, np.ndarray]]:
        """Step time and fit of the rows `sub` under `job` at each sequence-parallel setting of `todo`.

        Evaluated `ROWS` rows at a time, the same bits as one call over all of them (a row's figures do not depend
        on the rows evaluated with it: `tests/perf/test_plan.py`, chunks of 500): the exhaustive search of Mixtral
        8x7B on 64 H100 (110,000 rows) took 5.5-5.9 CPU-s in calls over every row, 4.4-4.7 in chunks of `ROWS`.
        A pruned search's blocks (256 rows, each next one twice the last) mostly fit in one chunk.
        """
        n, b = len(sub["tp"]), self.bounds
        step, fits = np.empty((len(todo), n)), np.empty((len(todo), n), dtype=bool)
        for start in range(0, n, ROWS):
            part = {k: v[start:start + ROWS] for k, v in sub.items()}
            m = len(part["tp"])
            est = shared_estimate(b.hw, job, {k: np.tile(v, len(todo)) for k, v in part.items()},
                                  np.repeat(todo, m), b.pipeline)
            step[:, start:start + m] = np.broadcast_to(est.step_time, (m * len(todo),)).reshape(len(todo), m)
            fits[:, start:start + m] = np.broadcast_to(est.fits, (m * len(todo),)).reshape(len(todo), m)
        return {sp: (step[j], fits[j]) for j, sp in enumerate(todo)}


def with_switches(job: Job, combo: dict[str, object]) -> Job:
    """`job` under a plan's switches (every one of `JOB_SWITCHES`: the attention kernel and the overlaps)."""
    assert set(combo) == set(JOB_SWITCHES), f"a plan sets every job switch, got {sorted(combo)}"
    return replace(job, attention=str(combo["attention"]), overlap_tp_comm=bool(combo["overlap_tp_comm"]),
                   overlap_p2p_comm=bool(combo["overlap_p2p_comm"]),
                   overlap_grad_reduce=bool(combo["overlap_grad_reduce"]),
                   overlap_param_gather=bool(combo["overlap_param_gather"]),
                   overlap_ep_comm=bool(combo["overlap_ep_comm"]))
