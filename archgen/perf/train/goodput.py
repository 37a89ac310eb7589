"""The closed forms of checkpointing and goodput: one code path for the REL stage and sweeps (docs/reliability.md).

- Young (1974): the first-order optimum checkpoint interval sqrt(2 delta M).
- Daly (2006), eq. 37: the higher-order optimum; Daly's expected wall time gives the effective training time ratio.
- Hot spares: a job that loses a node waits for a repair only when every spare is in repair; nodes in repair are
  Poisson (M/M/inf: `perf.train.poisson`), and the wait is the residual repair time of the first of them to come
  back. A job's cost range charges the fewest idle nodes that hold its goodput within `SPARE_ROUNDING`.
- Asynchronous and in-memory checkpoints charge only their blocking copy to host memory; the background write
  widens the work a failure loses by its length.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace

from archgen.model.reliability import Checkpointing
from archgen.perf.comm.placement import job_domain
from archgen.perf.train.poisson import (  # noqa: F401 (re-exported: the Poisson sums lived here)
    gamma_p,
    log_poisson_cdf,
    log_poisson_pmf,
    poisson_interval,
    poisson_tail,
)

#: Default goodput a job's hot spares are sized to hold (`checkpoint.goodput_target` left out): `check` and sweeps.
DEFAULT_GOODPUT_TARGET = 0.9
#: Goodput below this is no progress at all (a second of training in eleven days): reported as 0.
NO_PROGRESS = 1e-6
#: Half the last digit goodput is shown with (three: the metric registry's `goodput`): a cost range charges the fewest
#: idle nodes with which goodput stays within it of goodput with all of them (`JobGoodput.spares_counted`).
SPARE_ROUNDING = 5e-4


def young(delta: float, mtti: float) -> float:
    """Young (1974): the first-order optimum checkpoint interval sqrt(2 delta M) (same unit as the inputs)."""
    return math.sqrt(2 * delta * mtti)


def daly(delta: float, mtti: float) -> float:
    """Daly (2006), eq. 37: the higher-order optimum checkpoint interval; M where delta >= 2M."""
    if delta >= 2 * mtti:
        return mtti
    x = delta / (2 * mtti)
    return math.sqrt(2 * delta * mtti) * (1 + math.sqrt(x) / 3 + x / 9) - delta


def ettr(interval: float, delta: float, restart: float, mtti: float) -> float:
    """Daly (2006): solve time over expected wall time, tau / (M e^(R/M) (e^((tau + delta)/M) - 1)).

    Every interruption costs the restart R and the work since the last checkpoint; every checkpoint costs delta.
    """
    if mtti == math.inf:
        return interval / (interval + delta) if interval + delta > 0 else 1.0
    if interval <= 0:
        return 0.0
    exponent = max(restart, 0.0) / mtti, (interval + delta) / mtti
    if exponent[0] + exponent[1] > 700:  # the job never gets a checkpoint in: no progress
        return 0.0
    value = interval / (mtti * math.exp(exponent[0]) * math.expm1(exponent[1]))
    return value if value >= NO_PROGRESS else 0.0


def exhausted(mean: float, spares: int) -> float:
    """P(X = s | X <= s), X ~ Poisson(mean): the chance that every one of s spares is in repair while a job runs."""
    if spares <= 0:
        return 1.0
    if mean <= 0:
        return 0.0
    return math.exp(min(0.0, log_poisson_pmf(mean, spares) - log_poisson_cdf(mean, spares)))


def spare_wait(hw_share: float, repair: float, in_repair: float, spares: int) -> float:
    """Mean wait for a repair per interruption (s).

    A hardware share of interruptions finds every spare in repair with probability P(X = s | X <= s) (the job runs
    only while X <= s), and then waits for the first of the s + 1 nodes in repair to return: with exponential
    repair times their residual is the full mean each, so the wait is `repair` / (s + 1).
    """
    return hw_share * repair * exhausted(in_repair, spares) / (max(spares, 0) + 1)


@dataclass(frozen=True)
class Failures:
    """A cluster's failure figures as a job on part of it needs them for goodput (docs/reliability.md)."""

    per_accelerator_day: float  # interruptions per accelerator and day from parts (the job's share of each class)
    site: tuple[tuple[float, float], ...]  # (events per day, s the hall is down) of each site event
    per_node: int               # accelerators per node
    nodes: int                  # nodes of the cluster
    node_hw_per_day: float      # failures per node and day that need a repair
    repair: float               # s, mean repair time of those
    write_bandwidth: float      # B/s, checkpoint storage (0: no `storage:` given)
    read_bandwidth: float       # B/s
    nic_per_node: float         # B/s, a node's storage NICs (converged or compute without them)
    detection: float = 0.0      # s, mean time to detect a part's failure, over the interrupting classes
    host_link: float = 0.0      # B/s, one accelerator's achieved copy rate to host memory (0: not given)
    domain_nodes: int = 1       # nodes of one scale-up domain: a job's spares come from inside its domains
    planned_per_accelerator_day: float = 0.0  # planned interruptions per accelerator and day
    planned_duration: float = 0.0             # s, the job stands still per planned interruption
    per_node_day: float = 0.0   # interruptions per node and day of classes that take a whole node (host, NIC,
    #                             software): a job pays them for every node it occupies, however few GPUs it uses
    #: Accelerators of the job in each scale-up domain, as its workload states them (`placement.per_domain`, its idle
    #: trays spread evenly over its domains); 0: its ranks fill whole domains in order, the last one keeps the idle
    #: trays. Read through `comm.placement.job_domain`, as the performance model's `Hardware.job_domain` is.
    per_domain: int = 0
    fixed_wiring: bool = False  # a torus without OCSes: no idle node can take a failed one's place (no spares)
    planned_per_day: float = 0.0  # cluster-wide planned windows a day: each stops every job once, whatever its size


@dataclass(frozen=True)
class JobGoodput:
    """A training job's checkpoint costs, interruptions and goodput (all times in s, bandwidths in B/s)."""

    nodes: int
    per_day: float               # interruptions per day (parts and site; planned ones apart)
    mtti: float
    write_bandwidth: float
    read_bandwidth: float
    write_time: float            # the whole checkpoint write
    blocking: float              # what a checkpoint stops training for (the write, or the copy to host memory)
    restore_time: float
    interval: float              # used
    optimum: float               # Daly's, at the blocking time (the background write's length where longer)
    restart: float               # per interruption, before any wait for a repair
    wait: float                  # mean wait for a repair per interruption with the spares available
    goodput: float
    spares_needed: int | None    # to hold the target at `interval`; None where no number of spares does
    spares_available: int
    target: float
    notes: tuple[str, ...] = ()
    blocking_assumed: bool = False  # asynchronous or in-memory without a host link: the whole write taken to block
    in_repair: float = 0.0       # the job's mean nodes in repair, M/M/inf: nodes x hardware rate x repair time
    fixed_wiring: bool = False   # no spare can stand in (`Failures.fixed_wiring`): every repair is waited for
    #: The fewest of the `spares_available` with which goodput stays within `SPARE_ROUNDING` of goodput with all of
    #: them (the idle trays in the job's own scale-up domains always among them): what its cost range charges.
    spares_counted: int = 0
    #: The whole idle scale-up domains among `spares_needed` (0 where a spare is any idle node): each brings its own
    #: scale-up switch trays, which `spare_power` and `spare_space` count beside its nodes.
    spare_domains: int = 0
    #: How many failed nodes its idle nodes stand in for at once: each idle node, or, where a scale-up domain spans
    #: several nodes, each whole idle domain once (a failed tray of a full domain takes a whole domain's place) and
    #: each idle tray of the job's own domains once; -1: `spares_available`.
    stands_in: int = -1
    #: The share of wall time its planned interruptions take (`Failures.planned_per_accelerator_day` per node it
    #: occupies, `Failures.planned_per_day` once whatever its size): goodput is Daly's ETTR x (1 - planned).
    planned: float = 0.0
    #: `spares_needed` is sized at the job's stated `checkpoint.interval` (else at Daly's optimum, the interval used).
    interval_stated: bool = False
    #: Where no number of spares holds the target at the stated interval: the spares that would at Daly's optimum
    #: (None where none would there either, or where the interval is Daly's).
    spares_at_optimum: int | None = None

    @property
    def spare_slots(self) -> int:
        """The failed nodes the job's hot spares stand in for at once (`stands_in`, else one per idle node)."""
        return self.spares_available if self.stands_in < 0 else self.stands_in

    @property
    def spares_overrun(self) -> bool:
        """The spare model is outside its validity: more of the job's nodes are in repair on average than it has spares.

        With no spare the wait is the failed node's own repair and no count of nodes in repair enters; with spares,
        the M/M/inf count is a small correction only while they outnumber the nodes in repair (docs/reliability.md).
        A whole idle scale-up domain stands in for one failed tray: 4 idle NVL72 racks (72 trays) hold 4 of the
        job's 20 trays in repair, not 72 (newuser92: the restart was given, with no REL009).
        """
        return self.spares_available > 0 and self.in_repair > self.spare_slots


def _bandwidths(f: Failures, cp: Checkpointing, nodes: int) -> tuple[float, float]:
    """(write, read) bandwidth of a job's checkpoints: storage capped by its NICs, or its NICs to peer memory."""
    links = f.nic_per_node * nodes
    if cp.in_memory:
        return links, links
    if f.write_bandwidth <= 0:
        return 0.0, 0.0
    if links <= 0:
        return f.write_bandwidth, f.read_bandwidth
    return min(f.write_bandwidth, links), min(f.read_bandwidth, links)


def job_goodput(f: Failures, cp: Checkpointing, size: float, gpus: int, target: float,
                restore_bytes: float | None = None) -> JobGoodput | None:
    """Goodput of a training job on `gpus` accelerators; None without anywhere to write its checkpoint.

    A restore reads `restore_bytes` (what the stack's load reads: `point_goodput.restore_read`), else the
    `size` checkpoint once.
    """
    per_node = max(f.per_node, 1)
    nodes = math.ceil(gpus / per_node)
    write_bw, read_bw = _bandwidths(f, cp, nodes)
    if write_bw <= 0 or read_bw <= 0:
        return None
    notes: list[str] = []
    parts = f.per_accelerator_day * gpus + f.per_node_day * nodes
    site = sum(n for n, _ in f.site)
    per_day = parts + site
    mtti = 86400 / per_day if per_day > 0 else math.inf
    write, restore = size / write_bw, (size if restore_bytes is None else restore_bytes) / read_bw
    blocking = write
    assumed = (cp.asynchronous or cp.in_memory) and f.host_link <= 0
    if assumed:
        notes.append("the nodes give no `host_memory.link`: the checkpoint write is charged in full")
    elif cp.asynchronous or cp.in_memory:
        blocking = min(write, size / gpus / f.host_link)
    background = write - blocking  # a failure in it loses the checkpoint being written: its length, on average
    optimum = max(daly(blocking, mtti), background) if mtti != math.inf else math.inf
    interval = cp.interval.m_as("s") if cp.interval is not None else optimum
    if interval < background:
        notes.append("the interval is raised to the background write's length (one write at a time)")
        interval = background
    down = sum(n * d for n, d in f.site)
    restart = (cp.restart.m_as("s") + restore + background
               + ((f.detection * parts + down) / per_day if per_day > 0 else 0.0))
    hw = f.node_hw_per_day * nodes
    hw_share = hw / per_day if per_day > 0 else 0.0
    dn = max(f.domain_nodes, 1)
    domains, inside, whole, packed = _idle(f, gpus)
    lam_mu = f.node_hw_per_day * f.repair / 86400       # nodes in repair per node

    def wait(spares: int) -> float:
        if dn == 1:
            return spare_wait(hw_share, f.repair, nodes * lam_mu, spares)
        whole_gone = hw_share * f.repair * exhausted(domains * dn * lam_mu, spares)
        if packed and inside:   # full domains keep no idle tray; the last one keeps them all
            part = nodes - (domains - 1) * dn
            return whole_gone * ((nodes - part) / nodes / (spares + 1) + part / nodes
                                 * exhausted(min(dn, nodes) * lam_mu, inside) / (inside + spares + 1))
        per = inside // domains   # spare trays a domain keeps; failing that, a whole idle domain
        return whole_gone * exhausted(min(dn, nodes) * lam_mu, per) / (per + spares + 1)

    occupied = nodes * per_node  # planned maintenance takes whole nodes, as their failures do; a window, all of them
    stops = f.planned_per_accelerator_day * occupied + f.planned_per_day
    planned = stops * (cp.restart.m_as("s") + restore + f.planned_duration) / 86400

    def value(tau: float, spares: int) -> float:
        g = ettr(tau, blocking, restart + wait(spares), mtti) if tau != math.inf else 1.0
        return max(0.0, g * (1 - planned))

    def fewest(tau: float) -> int | None:
        """The fewest spares (whole idle domains where a domain spans several nodes) that hold the target at `tau`."""
        if f.fixed_wiring or value(tau, 1 << 62) < target:
            return None
        lo, hi = -1, 1
        while value(tau, hi) < target:  # value grows with spares: double, then bisect
            lo, hi = hi, hi * 2
        return _fewest(lambda k: value(tau, k) >= target, lo, hi)

    available = whole
    unit = dn  # a spare is a node, or inside scale-up domains of several nodes a whole idle domain
    needed = fewest(interval)   # at the interval the job runs at: its stated one, else Daly's (spares35)
    at_daly = fewest(optimum) if needed is None and cp.interval is not None else None
    reached = value(interval, available)
    counted = _fewest(lambda k: value(interval, k) >= reached - SPARE_ROUNDING, -1, available)
    return JobGoodput(nodes, per_day, mtti, write_bw, read_bw, write, blocking, restore, _finite(interval),
                      _finite(optimum), restart, wait(available), reached,
                      needed * unit + inside if needed is not None else None, spare_nodes(f, gpus), target,
                      tuple(notes), assumed, nodes * lam_mu, f.fixed_wiring, counted * unit + inside,
                      needed if needed is not None and unit > 1 else 0, whole + inside if dn > 1 else -1, planned,
                      cp.interval is not None, at_daly * unit + inside if at_daly is not None else None)


def _fewest(holds: Callable[[int], bool], lo: int, hi: int) -> int:
    """The fewest spares k in (lo, hi] for which `holds(k)`, by bisection: `holds` grows with k and holds at hi."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if holds(mid) else (mid, hi)
    return hi


def _idle(f: Failures, gpus: int) -> tuple[int, int, int, bool]:
    """(domains a job of `gpus` runs on, idle nodes in them, whole idle domains (else idle nodes), packed or not).

    Packed: its idle trays are all in its last domain. Its accelerators per domain are `comm.placement.job_domain`'s,
    the share the performance model places its groups on: a stated `per_domain` spreads the idle trays evenly over
    the domains it runs on; left out, the ranks fill whole domains in order and the last one keeps them.
    """
    per_node, dn = max(f.per_node, 1), max(f.domain_nodes, 1)
    nodes = math.ceil(gpus / per_node)
    held = job_domain(dn * per_node, gpus, f.per_domain)
    domains = math.ceil(nodes / (math.ceil(held / per_node) if held else dn))
    if f.fixed_wiring:   # an idle node elsewhere is not wired into the failed one's place
        return domains, 0, 0, not held
    whole = max(f.nodes // dn - domains, 0) if dn > 1 else max(f.nodes - nodes, 0)
    return domains, domains * dn - nodes, whole, not held


@functools.lru_cache(maxsize=4096)
def spare_nodes(f: Failures, gpus: int) -> int:
    """The idle nodes a job on `gpus` accelerators counts as hot spares (`JobGoodput.spares_available`).

    Its scale-up domains' idle trays and every node of the whole idle domains (domains of several nodes), else every
    idle node of the cluster: the one count `job_goodput` reports and a sweep point's cost range charges
    (`perf.workload.derived.point_metrics`), kept per count as `point_goodput._goodputs` are.
    """
    _, inside, whole, _ = _idle(f, gpus)
    return whole * max(f.domain_nodes, 1) + inside


def spares_charged(job: JobGoodput, ends: Iterable[JobGoodput]) -> int:
    """The idle nodes a job's cost range charges as hot spares (`check`, and a sweep point: `point_goodput`).

    The fewest with which its goodput, at its value and at every end of its range (`ends`), stays within
    `SPARE_ROUNDING` of its goodput with every idle node: the most `JobGoodput.spares_counted` of them.
    """
    return max((job.spares_counted, *(e.spares_counted for e in ends)))


def _finite(x: float) -> float:
    """0 for an infinite time (no interruption: no interval), else the time."""
    return x if x != math.inf else 0.0


def with_unblocked(ends: tuple[Failures, ...], blocking_assumed: bool) -> tuple[Failures, ...]:
    """The failure figures a goodput's range spans, with the blocking time's two ends where it is assumed.

    `ends` and, where the blocking time is assumed, each of them again with no blocking at all (an infinite host
    link), the other end of what the unknown copy rate allows (REL008); `check` and sweeps span the same.
    """
    return ends + tuple(freed(x, blocking=True) for x in ends) if blocking_assumed else ends


def waits_for_repair(job: JobGoodput) -> bool:
    """Whether every hardware failure of the job waits for its repair: no idle node can stand in (no hot spare).

    Its goodput then rests on the rate sets' repair times, which no source but StepFun's trace measures (the
    others' are assumed: `specs/catalog/reliability/`), and on whether the operator restarts without the failed
    node or swaps one in from stock at once; none of that is a design input (docs/reliability.md, Hot spares).
    """
    return job.spares_available == 0 and job.wait > 0


def with_swapped(ends: tuple[Failures, ...], waits: bool) -> tuple[Failures, ...]:
    """The failure figures a goodput's range spans, with no wait for a repair where every failure waits for one.

    `ends` and, where the job has no hot spare (`waits_for_repair`), each of them again with repair time 0: a failed
    node replaced at once, the other end of what the unstated repair time allows (goodput_high's end); `check` and
    sweeps span the same.
    """
    return ends + tuple(freed(x, repair=True) for x in ends) if waits else ends


def freed(f: Failures, blocking: bool = False, repair: bool = False) -> Failures:
    """`f` with no blocking at all (infinite host link) if `blocking`, with no wait for a repair (repair 0) if `repair`.

    The other ends of what a goodput does not know, one rule for `check` (`analyse.goodput.goodput`), a sweep point
    (`free_end`) and a range's ends (`with_unblocked`, `with_swapped`).
    """
    return replace(f, host_link=math.inf if blocking else f.host_link, repair=0.0 if repair else f.repair)


def free_end(job: JobGoodput, f: Failures, cp: Checkpointing, size: float, gpus: int, target: float,
             blocking: bool = True, repair: bool = True, restore_bytes: float | None = None) -> JobGoodput | None:
    """`job` (on `f`) freed of its assumed blocking (REL008) if `blocking`, of its wait for a repair if `repair`.

    Each only where it applies (`blocking_assumed`, `waits_for_repair`): None where neither does.
    """
    unblock, swap = blocking and job.blocking_assumed, repair and waits_for_repair(job)
    return job_goodput(freed(f, unblock, swap), cp, size, gpus, target, restore_bytes) if unblock or swap else None


def range_ends(job: JobGoodput | None, ends: tuple[Failures, ...], cp: Checkpointing, size: float, gpus: int,
               target: float, restore_bytes: float | None = None) -> list[JobGoodput]:
    """The job at each end of its goodput's range: `job_goodput` on `ends`, those with a goodput, in order.

    `ends` (the rate sets and Poisson intervals) and, where `job` assumes its blocking time or waits for every
    repair, each again at the other end of that (`with_unblocked`, `with_swapped`); `job` None spans `ends` alone.
    The one range for `check` (`analyse.goodput.goodput`) and a sweep point (`point_goodput._goodputs`).
    """
    spread = with_swapped(with_unblocked(ends, job is not None and job.blocking_assumed),
                          job is not None and waits_for_repair(job))
    return [e for e in (job_goodput(x, cp, size, gpus, target, restore_bytes) for x in spread) if e is not None]
