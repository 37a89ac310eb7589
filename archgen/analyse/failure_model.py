"""A cluster's failure model (`Reliability`): its part classes' rates (`ClassRate`) and failure domains (`Domain`).

What a job on some of its accelerators sees of them: interruptions per day, their 95 % band, detection and repair
times. Built by `analyse.reliability.analyse_reliability` from the cluster's BOM and its rate set; the formulas and
their sources are that module's (docs/reliability.md). Split from it for its size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from archgen.model.reliability import FailureRate
from archgen.perf.train.poisson import poisson_interval
from archgen.units import Q

#: A rate set counted from fewer failures than this is marked "few events" wherever a range spans it (issue 22, the
#: lead's decision). Below 10, Garwood's 95 % interval spans more than a factor of 4 (9 events: 0.46x to 1.90x the
#: counted rate; MPT-7B's 4: 0.27x to 2.56x; 10: 0.48x to 1.84x) and the relative standard error 1 / sqrt(n) is a
#: third or more, so the interval's width more than the fleet's rate places the set's ends. A convention, not a limit
#: derived from data (docs/reliability.md, "Few events").
FEW_EVENTS = 10


def rests_on_few(n: float | None) -> bool:
    """Whether an interval counted from `n` failures rests on few (`FEW_EVENTS`); False where none is counted."""
    return n is not None and n < FEW_EVENTS


#: Classes whose failure takes out one node (the job restarts without it, or on a spare).
NODE_CLASSES = ("accelerator", "host", "nic", "software")
#: Classes whose failure needs a hardware repair of a node (what hot spares stand in for).
HARDWARE_CLASSES = ("accelerator", "host", "nic")
#: Classes whose failure takes a whole node out: a job on any accelerator of the node stops, so a job pays their
#: rate for every node it occupies, not for its share of the node's accelerators (a 1-GPU job on an 8-GPU server).
WHOLE_NODE = ("host", "nic", "software")


@dataclass(frozen=True)
class ClassRate:
    """One part class in a cluster: units, the rate each unit takes, and whether a failure interrupts a job."""

    name: str
    units: int
    rate: FailureRate | None
    interrupts: bool
    parts: tuple[str, ...] = ()
    exposure: float | None = None  # units the rate applies to (accelerators / per_accelerators); None: `units`
    lender: str = ""               # the class whose rate it takes, where the set states none for it (`LENDS`)

    @property
    def per_day(self) -> float:
        """Failures per day of all units of the class (0 without a rate)."""
        units = self.units if self.exposure is None else self.exposure
        return units * self.rate.per_year / 365.25 if self.rate is not None else 0.0

    @property
    def per_unit_year(self) -> float | None:
        """Failures per unit-year as counted here, so that units x this is the class's failures a year.

        A rate counted per server of n accelerators applies per accelerator: a 4-GPU tray takes half an 8-GPU server's.
        """
        return self.per_day * 365.25 / self.units if self.rate is not None and self.units else None

    def per_unit_interval(self) -> tuple[float, float] | None:
        """The 95 % Poisson interval of `per_unit_year` from the count its rate states (None without `events`)."""
        per_unit = self.per_unit_year
        if per_unit is None or self.rate is None or not self.rate.events:
            return None
        lo, hi = poisson_interval(self.rate.events)
        return per_unit * lo, per_unit * hi


@dataclass(frozen=True)
class Domain:
    """A failure domain: what fails, how often in the cluster, and how many accelerators one failure removes."""

    name: str
    causes: str
    per_year: float
    accelerators: int
    repair: Q
    note: str = ""


@dataclass(frozen=True)
class StockLine:
    """The spare-parts stock of one part class (`analyse.spare_parts`): demand over its turnaround, stock to hold."""

    name: str
    units: int
    per_year: float                  # failures a year of every unit of the class, interrupting or not
    turnaround: float | None         # mean replenishment lead time (s), demand-weighted; None: unstated, no failures
    demand: float | None             # expected failures over the turnaround: the pipeline's Poisson mean (Palm)
    stock: int | None                # fewest spares with P(X <= stock) >= the set's `no_stockout`
    no_stockout: float | None        # P(X <= stock): no failed unit waits for a spare, at a random time
    fill_rate: float | None          # P(X <= stock - 1): a failure finds a spare on the shelf (PASTA); None: none fail
    untimed: tuple[str, ...] = ()    # parts of the class with no turnaround (own or the set's)
    assumed_lead: tuple[str, ...] = ()   # parts whose turnaround is assumed (`turnaround_basis`, the default)
    lead_sources: tuple[str, ...] = ()   # where the sourced turnarounds come from (`turnaround_source`)

    @property
    def lead_basis(self) -> str:
        """The turnaround's basis in words: 'assumed' if any part's is, else 'sourced: <where>' (spares23)."""
        if self.turnaround is None:
            return ""
        return "assumed" if self.assumed_lead or not self.lead_sources else f"sourced: {'; '.join(self.lead_sources)}"


@dataclass(frozen=True)
class Reliability:
    """A cluster's failure model: class rates, failure domains, and what its parts lack."""

    cluster: str
    accelerators: int
    nodes: int
    per_node: int
    classes: tuple[ClassRate, ...]
    domains: tuple[Domain, ...]
    site_per_day: float
    rates_id: str
    unrated: tuple[str, ...] = ()
    unrated_units: dict[str, int] = field(default_factory=dict)   # units of each `unrated` entry (left out, REL004)
    assumed: tuple[str, ...] = ()
    metrics: dict[str, Q] = field(default_factory=dict)
    site: tuple[tuple[float, float], ...] = ()  # (events per day, s the hall is down) of each site event
    planned_per_accelerator_day: float = 0.0
    planned_duration: float = 0.0               # s
    planned_per_day: float = 0.0                # cluster-wide windows a day (`scope: cluster`): each stops every job
    borrowed: str = ""                          # the set's scope where the cluster's accelerator lies outside it
    elsewhere: tuple[str, ...] = ()             # the point's sets measured on another accelerator, a few words each
    borrowed_input: tuple[str, ...] = ()        # `elsewhere` and the rates lent by another operator (`analyse.assumed`)
    unstated: str = ""                          # the sets whose source leaves the accelerator model unstated
    spread: tuple[Reliability, ...] = ()        # the model under every set the range spans (docs: Rate sets)
    chain: tuple[str, ...] = ()                 # the set and, through `base`, the sets it takes classes from
    counts: str = ""                            # which interruptions the chain's sources count (`rate_sets.counted`)
    counted_as: str = ""                        # the set's own `counts` ("" unstated): the range groups sets by it
    stock: tuple[StockLine, ...] = ()           # spare-parts stock per part class (`analyse.spare_parts`)
    no_stockout: float = 0.95                   # the probability of no stock-out the stock is sized to
    largest_job: int = 0                        # accelerators of the largest job the spec allows; 0: every one
    largest_why: str = ""                       # what bounds it, in words (`analyse.reliability.largest_job`)

    @property
    def job_size(self) -> int:
        """Accelerators of the cluster's own figures (interruptions, MTTI): its largest job, else all of them."""
        return self.largest_job or self.accelerators

    def _counted(self, name: str = "") -> tuple[float, float, float | None]:
        """(interrupting classes' failures a day, those of the classes that state a count, their effective count).

        The counted classes' rates add; their effective count is (sum r)^2 / sum(r^2 / n) (Welch-Satterthwaite).
        Classes whose rate is one count the source shares between them (`pooled`: Llama 3's switches and cables)
        enter once, with their summed rate and that count: their rates are one estimate, not independent ones.
        `name`: the parts of that class alone (`class_events`).
        """
        hit = [c for c in self.classes if c.interrupts and c.per_day and c.name == (name or c.name)]
        pools: dict[tuple[str, str, int, float], tuple[float, int]] = {}
        for c in hit:   # one pool: its name, count and rate (a set validates that its pooled classes agree)
            n = c.rate.events if c.rate is not None else None
            if c.rate is not None and n:
                key = ("pool", c.rate.pooled, n, c.rate.per_year) if c.rate.pooled else ("class", c.name, n, 0.0)
                pools[key] = (pools.get(key, (0.0, 0))[0] + c.per_day, n)
        counted = list(pools.values())
        known = sum(r for r, _ in counted)
        return (sum(c.per_day for c in hit), known,
                known ** 2 / sum(r ** 2 / n for r, n in counted) if counted else None)

    def interval(self) -> tuple[float, float]:
        """(low, high) factors on the parts' interruption rate: the 95 % Poisson interval of the counted classes.

        Garwood's on their effective count (`events`); classes whose rate states no count are at their point rate.
        """
        total, known, n = self._counted()
        if n is None:
            return 1.0, 1.0
        lo, hi = poisson_interval(n)
        return (total - known + known * lo) / total, (total - known + known * hi) / total

    def events(self) -> float | None:
        """The failures the set's interval rests on: its counted classes' effective count; None if none is counted."""
        return self._counted()[2]

    def class_events(self, name: str) -> float | None:
        """The failures part class `name`'s interval rests on (`events` of its interrupting parts); None if uncounted.

        Its parts that share one rate share its count; parts with rates of their own combine as `events` does.
        """
        return self._counted(name)[2]

    @property
    def few_events(self) -> bool:
        """Whether the interval rests on fewer than `FEW_EVENTS` failures (marked "few events" beside the range)."""
        return rests_on_few(self.events())

    def sharing(self, c: ClassRate) -> tuple[str, ...]:
        """The classes whose rate is the same pooled count as `c`'s (`pooled`), `c` among them; () if not pooled."""
        r = c.rate
        if r is None or not r.pooled:
            return ()
        return tuple(sorted({o.name for o in self.classes if o.rate is not None and o.rate.pooled == r.pooled
                             and o.rate.events == r.events and o.rate.per_year == r.per_year}))

    def lent(self) -> tuple[str, ...]:
        """Interrupting classes whose rate the set borrows from another operator (`FailureRate.operator`), in words."""
        return tuple(dict.fromkeys(f"{c.name} (measured by {c.rate.operator})" for c in self.classes
                                   if c.interrupts and c.per_day and c.rate is not None and c.rate.operator))

    def uncounted(self) -> tuple[str, ...]:
        """Interrupting classes whose rate states no `events`: their uncertainty is in no interval (not provided)."""
        return tuple(sorted({c.name for c in self.classes if c.interrupts and c.per_day and c.rate is not None
                             and not c.rate.events}))

    def band(self, accelerators: int, without: str = "", few: bool = True) -> tuple[float, float]:
        """(low, high) interruptions per day of a job on `accelerators`, over the spread and Poisson intervals.

        `without` leaves one set out of the spread, and the sets that take classes from it through `base` (a
        figure judged against the sets not built from it); `few=False` leaves out the sets counted from fewer than
        `FEW_EVENTS` failures (`few_events`: the held-out comparison without them, docs/reliability.md).
        """
        ends = []
        for r in [r for r in self.spread if without not in (r.chain or (r.rates_id,)) and (few or not r.few_events)] \
                or [self]:
            lo, hi = r.interval()
            parts = r.interrupts_per_day(accelerators) - r.site_per_day
            ends += [parts * lo + r.site_per_day, parts * hi + r.site_per_day]
        return min(ends), max(ends)

    def own_band(self, accelerators: int) -> tuple[float, float]:
        """(low, high) interruptions per day of a job on `accelerators` over this set's own 95 % Poisson interval.

        The counted classes' interval alone (`interval`): the spread over the other published sets (`band`) is not
        in it, and classes whose rate states no `events` (`uncounted`) are taken at their point rate.
        """
        lo, hi = self.interval()
        parts = self.interrupts_per_day(accelerators) - self.site_per_day
        return parts * lo + self.site_per_day, parts * hi + self.site_per_day

    def by_class(self, accelerators: int) -> tuple[tuple[str, float, float | None, float | None, float], ...]:
        """(class, interruptions per day, 95 % low, high, counted share) of a job on `accelerators`, per class.

        As `interrupts_per_day` splits it: a class that takes a whole node (`WHOLE_NODE`) per node the job occupies,
        the others per accelerator; the interval is the class's own count's (Garwood). A class whose rates state no
        count has no interval (None, None: not a zero-width one), and the last item is the share of its figure
        that counted rates carry (1: all, below 1: the rest is in the interval at its point). Site events are the
        row 'site' (no count, no interval).
        """
        if not self.accelerators:
            return ()
        total: dict[str, list[float]] = {}
        for c in self.classes:
            if not c.interrupts or not c.per_day:
                continue
            share = self._share(c, accelerators)
            counted = c.rate is not None and bool(c.rate.events)
            lo, hi = poisson_interval(c.rate.events) if c.rate is not None and counted else (1.0, 1.0)
            row = total.setdefault(c.name, [0.0, 0.0, 0.0, 0.0])
            row[0], row[1], row[2] = row[0] + share, row[1] + share * lo, row[2] + share * hi
            row[3] += share if counted else 0.0
        if self.site_per_day:
            total["site"] = [self.site_per_day] * 3 + [0.0]
        return tuple((name, v[0], *((v[1], v[2]) if v[3] else (None, None)), v[3] / v[0] if v[0] else 0.0)
                     for name, v in sorted(total.items(), key=lambda kv: (-kv[1][0], kv[0])))

    def _share(self, c: ClassRate, accelerators: int) -> float:
        """A class's interruptions per day of a job on `accelerators`: per node it occupies, or per accelerator."""
        if c.name in WHOLE_NODE and self.per_node:
            return c.per_day * self.per_node / self.accelerators * math.ceil(accelerators / self.per_node)
        return c.per_day * accelerators / self.accelerators

    def by_subclass(self, accelerators: int) -> tuple[tuple[str, str, int, float, float, float], ...]:
        """(class, sub-class, count, per day, 95 % low, high) where a class's rate states its `split` (spares23).

        Inside the class, not on top of it: each part's share of the class's interruptions (`_share`, as
        `by_class`) is its count over the class's `events` (Llama 3: HBM3 72 of 268), its interval Garwood's on
        that count alone. A rate with no count gives no sub-class row, so no interval (review37: a class with no
        count has none; the model refuses a `split` without `events`).
        """
        if not self.accelerators:
            return ()
        out = []
        for c in self.classes:
            if c.interrupts and c.per_day and c.rate is not None and c.rate.split and c.rate.events:
                share = self._share(c, accelerators) / c.rate.events
                for sub, n in sorted(c.rate.split.items(), key=lambda kv: (-kv[1], kv[0])):
                    lo, hi = poisson_interval(n)
                    out.append((c.name, sub, n, share * n, share * n * lo, share * n * hi))
        return tuple(out)

    def detection(self) -> float:
        """Mean detection time of a part's interruption (s), weighted by the interrupting classes' rates."""
        hit = [c for c in self.classes if c.interrupts and c.rate is not None and c.per_day]
        total = sum(c.per_day for c in hit)
        return sum(c.per_day * c.rate.detection.m_as("s") for c in hit if c.rate is not None) / total if total else 0.0

    def split(self) -> tuple[float, float]:
        """(interruptions per accelerator-day, per node-day) of the parts.

        Per accelerator: its own failures and its share of the shared parts; per node: the classes that take a whole
        node (`WHOLE_NODE`), per compute node of `per_node` accelerators.
        """
        hit = [c for c in self.classes if c.interrupts]
        node = sum(c.per_day for c in hit if c.name in WHOLE_NODE)
        other = sum(c.per_day for c in hit if c.name not in WHOLE_NODE)
        if not self.accelerators:
            return 0.0, 0.0
        if not self.per_node:
            return (node + other) / self.accelerators, 0.0
        return other / self.accelerators, node * self.per_node / self.accelerators

    def interrupts_per_day(self, accelerators: int) -> float:
        """Interruptions per day of a job on `accelerators` of the cluster.

        Its accelerators' own and their share of the shared parts, every whole node it occupies, the site's events.
        """
        per_acc, per_node = self.split()
        nodes = math.ceil(accelerators / self.per_node) if self.per_node else 0
        return per_acc * accelerators + per_node * nodes + self.site_per_day

    def node_hardware_per_day(self) -> float:
        """Failures per node and day that need a repair (accelerator, host, NIC)."""
        total = sum(c.per_day for c in self.classes if c.name in HARDWARE_CLASSES)
        return total / self.nodes if self.nodes else 0.0

    def node_repair_hours(self) -> float:
        """Mean repair time of a node's hardware failures, weighted by their rates (hours)."""
        hw = [c for c in self.classes if c.name in HARDWARE_CLASSES and c.rate is not None and c.per_day]
        total = sum(c.per_day for c in hw)
        return sum(c.per_day * c.rate.repair.m_as("h") for c in hw if c.rate is not None) / total if total else 0.0
