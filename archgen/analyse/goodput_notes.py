"""What a training job's goodput leaves unsettled or not provided, and why, in words (REL003, REL008, REL009).

The reasons stated beside a job's figures (`still_withheld`), the figures that take another value at the other end of
an assumed blocking time (`unsettled`), and the cluster's share of its largest job's (`cluster_unsettled`); the job
itself is `archgen.analyse.goodput`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from archgen.analyse.goodput_range import BLOCKING_SPANNED, REPAIR_SPANNED, RESTORE_SPANNED
from archgen.display import decimals, duration, near_one
from archgen.model.unsettled import ALSO, OTHER_END, VALUE_END
from archgen.units import Q

if TYPE_CHECKING:
    from archgen.analyse.goodput import Goodput


#: Why an asynchronous or in-memory checkpoint's blocking time is not provided where the nodes give no host link.
BLOCKING_UNKNOWN = ("the nodes give no `host_memory.link`, so the checkpoint's copy to host memory has no rate; "
                    "goodput charges the whole write instead, an upper bound (REL008)")
#: Why a training job has no `spares` (nor their power and space): no number of them holds its goodput target.
NO_SPARES = ("no number of hot spares holds the goodput target {target:g}: the failure rate and checkpoint cost alone "
             "leave goodput below it (REL003)")
#: Where no number of spares holds the target at a job's stated checkpoint interval: what would, at Daly's optimum.
AT_OPTIMUM = "; at Daly's optimum interval ({optimum}), {n} would"


def spare_interval(g: Goodput) -> str:
    """The interval a job's `spares` are sized at, in words: its stated checkpoint interval, else Daly's optimum.

    newuser92: with a stated 30-minute interval `spares` was the count that holds the target at Daly's 7 s optimum,
    a claim the job as configured did not meet (goodput 0.850 against 0.9, "spares = 448", no REL003).
    """
    return (f"at the job's stated checkpoint interval ({duration(g.interval)})" if g.interval_stated
            else f"at Daly's optimum interval ({duration(g.interval)})")


def no_spares(g: Goodput) -> str:
    """Why a job has no `spares`: no number of them holds its target at its interval; at a stated one, what would.

    At a stated interval, the spares that hold the target at Daly's optimum where some do, else that none do there
    either: the interval is then what to change, not the spares.
    """
    if not g.interval_stated:
        return NO_SPARES.format(target=g.target)
    at = spare_interval(g)
    if g.spares_at_optimum is not None:
        return (f"no number of hot spares holds the goodput target {g.target:g} {at}"
                + AT_OPTIMUM.format(optimum=duration(g.optimum), n=g.spares_at_optimum) + " (REL003)")
    return (f"no number of hot spares holds the goodput target {g.target:g} {at}, nor at Daly's optimum "
            f"({duration(g.optimum)}): the failure rate and checkpoint cost alone leave goodput below it (REL003)")


#: Why a job on a torus without OCSes has no spares: fixed wiring cannot swap one in.
FIXED_WIRING = ("a torus wired without OCSes takes no hot spare: an idle node elsewhere is not cabled into the failed "
                "one's place, so every hardware failure waits for its repair (a spare would be a whole re-cabled "
                "slice, not modelled)")
#: Why a training job's restart time is not provided where the spare model is outside its validity (REL009).
SPARES_OVERRUN = ("{m:.3g} of the job's nodes are in repair on average, more than the {s} its hot spares stand in "
                  "for at once: the spare model (M/M/inf) is outside its validity and its wait for a repair is no "
                  "figure to stand behind (REL009)")
#: Why a figure is unsettled where the checkpoint's blocking time is assumed (REL008): what its two ends are, each
#: named by its number (`model.unsettled.VALUE_END`: the figure's, `OTHER_END`: the other end's).
BLOCKING_ENDS = (f"{VALUE_END} with training stopped for the whole checkpoint write, {OTHER_END} with no stop at "
                 "all; the nodes give no `host_memory.link`, so the copy to host memory that stops training has no "
                 "rate (REL008)")
#: Why a figure is unsettled where every hardware failure waits for its repair (no hot spare): its two ends.
REPAIR_ENDS = (f"{VALUE_END} with every hardware failure waiting the rate set's repair time, {OTHER_END} with a "
               "failed node replaced at once; the job leaves no idle node to stand in, and how long a repair takes "
               "is no design input (the shipped sets assume it, but for StepFun's measured means)")

#: Why a figure is unsettled where which load a restore runs is not settled (`Goodput.replicas`): its two ends. review42
#: judged a restore time met on the one copy read while the default load reads more; storage29 ranged goodput over both.
RESTORE_ENDS = (f"{VALUE_END} with a restore reading the checkpoint once (a fully parallel load: Megatron's "
                f"`--ckpt-fully-parallel-load`, NeMo 2's `ckpt_parallel_load`), {OTHER_END} with each data-parallel "
                "replica reading its weights (`checkpoint_restore_read`, Megatron's default load); which one the job "
                "runs is not stated (`checkpoint.parallel_load`) and its stack's default is not settled")


def beyond_rates(why: str, g: Goodput | None, metric: str) -> list[str]:
    """What the range of a job's `metric` spans beyond the failure figures, in words: blocking time, repair wait, read.

    `why`: the reason its goodput is unsettled (`BLOCKING_ENDS`, `REPAIR_ENDS` or `RESTORE_ENDS`; '' where it is
    not); the repair wait wherever the job has no hot spare (`Goodput.swapped`), and what a restore reads wherever
    that is unsettled (`Goodput.replicas`), for every figure but its interruptions and MTTI.
    """
    job = g if metric not in ("mtti", "interruptions_per_day") else None
    waits, reads = job is not None and job.swapped is not None, job is not None and job.replicas is not None
    out: list[str] = [BLOCKING_SPANNED] * (why == BLOCKING_ENDS)
    return out + [REPAIR_SPANNED] * (waits or why == REPAIR_ENDS) + [RESTORE_SPANNED] * (reads or why == RESTORE_ENDS)


def unsettled(figures: dict[str, Q], other: dict[str, Q], why: str = BLOCKING_ENDS) -> dict[str, tuple[Q, str]]:
    """The figures that take another value at the other end of an unknown input, with why.

    The blocking time (`unblocked_metrics`, `BLOCKING_ENDS`) or the repair time of a job with no hot spare
    (`swapped_metrics`, `REPAIR_ENDS`).
    """
    return {name: (q, why) for name, q in other.items()
            if name in figures and q != figures[name] and not name.endswith(("_low", "_high"))}


def still_withheld(g: Goodput) -> list[tuple[tuple[str, ...], str]]:
    """The figures of a job with a goodput that are not provided all the same, with why.

    The blocking time where it is assumed (REL008: the whole write charged in its place), and the spares where no
    number of them holds the goodput target (REL003), rather than "the job has no spares", and the restart time where
    more nodes are in repair than the job has spares (REL009: its wait for a repair is outside the spare model).
    """
    out: list[tuple[tuple[str, ...], str]] = []
    if g.blocking_assumed:
        out.append((("checkpoint_blocking_time",), BLOCKING_UNKNOWN))
    spares = tuple(f"{n}{end}" for n in ("spares", "spare_power", "spare_space") for end in ("", "_low", "_high"))
    if g.spares_overrun:
        out.append((("restart_time", "restart_time_low", "restart_time_high"),
                    SPARES_OVERRUN.format(m=g.in_repair, s=g.spare_slots)))
    if g.fixed_wiring:
        out.append((spares, FIXED_WIRING))
    elif g.spares_needed is None:
        out.append((spares, no_spares(g)))
    return out


def cluster_unsettled(job: dict[str, tuple[Q | None, str]], used: Q | None,
                      share: float = 1.0) -> dict[str, tuple[Q | None, str]]:
    """A cluster's unsettled figures from those of its largest training job (`unsettled`), whose goodput it takes.

    `used` is the cluster's cost per used accelerator-hour, over the goodput for the cost per goodput hour; `share`,
    the cluster's accelerators over the job's, for the cost per goodput hour of the job's own accelerators.
    """
    out: dict[str, tuple[Q | None, str]] = {}
    for end in ("", ALSO):   # a second input's end too (`model.unsettled.joined`, ends41)
        out |= {k + end: job[k + end] for k in ("goodput", "checkpoint_interval") if k + end in job}
        goodput, why = out.get("goodput" + end, (None, ""))
        if goodput is not None and used is not None and goodput.m > 0:
            out["tco_per_goodput_accelerator_hour" + end] = (used / goodput.m, why)
            out["tco_per_job_goodput_accelerator_hour" + end] = (used * share / goodput.m, why)
    return out


#: How a cluster's goodput job is chosen: the cluster's `goodput`, and its cost per goodput hour, are that job's.
LARGEST_RULE = ("the training job on the most accelerators; of several on as many, the one with the lowest goodput "
                "(the highest cost per goodput hour), then the first by id")


def largest_job(jobs: list[tuple[int, float, str]]) -> tuple[tuple[int, float, str], str]:
    """The job whose goodput a cluster takes (`LARGEST_RULE`) of `jobs`, (accelerators, goodput, path); and in words.

    newuser85: two 512-GPU jobs on the MI355X cluster tied, and the larger path was taken without a word. The words
    name the job, the rule and the jobs it tied with: "llama3-405b-pretrain-mi355x's, the training job on the most
    accelerators (512), tied with llama3-70b-pretrain-mi355x (goodput 0.8266): of jobs on as many, the lowest goodput
    is taken, then the first by id".
    """
    chosen = min(jobs, key=lambda j: (-j[0], j[1], j[2]))
    tied = [j for j in sorted(jobs, key=lambda j: j[2]) if j[0] == chosen[0] and j[2] != chosen[2]]
    ties = "" if not tied else (", tied with " + ", ".join(f"{p.partition('/')[2]} (goodput {g:.4f})"
                                                         for _, g, p in tied)
                                + ": of jobs on as many, the lowest goodput is taken, then the first by id")
    return chosen, f"{chosen[2].partition('/')[2]}'s, the training job on the most accelerators ({chosen[0]:,}){ties}"


def interval_words(g: Goodput, run: float | None) -> tuple[str, bool]:
    """REL005's words for a job's checkpoint interval far from Daly's optimum, and whether it outlasts the run.

    What the interval costs (goodput at it and at the optimum), and, where it is longer than the run takes to train
    (`run`, s; None: no token budget), that no checkpoint is written before the run ends (newuser92: 60 days on a
    21-day run read "checkpoint interval 8.64×10⁴ min, Daly's optimum 0.118 min", an info).
    """
    cost, longer = interval_cost(g, run)
    return f"checkpoint interval {duration(g.interval)}, Daly's optimum {duration(g.optimum)}: {cost}", longer


def interval_cost(g: Goodput, run: float | None) -> tuple[str, bool]:
    """What a job's checkpoint interval costs (`interval_words` without the two times), and whether it outlasts the run.

    REL003 says it where it already names the stated interval and Daly's optimum (`said_by_spares`).
    """
    at, best = (near_one(x) for x in g.curve([g.interval, g.optimum]))   # 0.9996 is not 1.000
    words = (f"goodput {at if isinstance(at, str) else decimals(at, 3)} at the interval, "
             f"{best if isinstance(best, str) else decimals(best, 3)} at the optimum")
    longer = run is not None and g.interval >= run
    if run is not None and longer:
        words += (f"; the interval is longer than the run ({duration(run)} to train at the estimate), so it writes no "
                  "checkpoint before it ends and any interruption restarts it from the beginning")
    return words, longer


def far_from_optimum(g: Goodput) -> bool:
    """Whether a job's checkpoint interval lies outside a factor of two of Daly's optimum (REL005)."""
    return bool(g.optimum) and not 0.5 <= g.interval / g.optimum <= 2


def said_by_spares(g: Goodput) -> bool:
    """Whether REL003 compares the job's stated interval with Daly's optimum (`no_spares` at a stated interval).

    Then it says what the interval costs as well (`interval_cost`), and REL005 does not say it a second time (rel36:
    the Llama 3 fixture at a stated 30 min read "no number of hot spares holds the goodput target 0.9 at the job's
    stated checkpoint interval (30 min); at Daly's optimum interval (4.15 min), 10 would" and, beside it, "checkpoint
    interval 30 min, Daly's optimum 4.15 min: goodput 0.864 at the interval, 0.919 at the optimum").
    """
    return not g.fixed_wiring and g.spares_needed is None and g.interval_stated and far_from_optimum(g)
