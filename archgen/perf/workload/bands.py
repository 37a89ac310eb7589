"""Error bands: the model's measured error on comparable published runs, carried by every estimate it makes.

A published measurement the model is scored on (`scoring.scores`) belongs to one *family* of runs: dense training, MoE
training, offline serving, serving under load (MLPerf's server scenario, a serving benchmark's closed loop), each of
the two for a MoE model, or collectives. Within a family, the metrics that state the same figure share one
*quantity*: a training run's step time, tokens/s, TFLOP/s and MFU are all the step time seen from different sides, as
a collective's busbw and time are; serving has three (throughput, TTFT, TPOT). The band of a (family, quantity) is the
lowest and the highest signed error, (predicted - measured) / measured, over every scored measurement of that
quantity in the family, in the quantity's own direction; a rate's error r is a time's 1 / (1 + r) - 1.

An estimate of value p whose metric's band is [low, high] may then be anywhere in [p / (1 + high), p / (1 + low)]
as far as the published runs can tell: a requirement that p meets but one end of that range does not is *at risk*
(`model.requirements.judge`).

The bands are generated: `python docs/gen_bands.py` scores the case files and writes `perf/workload/band_table.py`
(tests/perf/test_bands.py fails when it is stale). `compute_table` is the computation; `band` the look-up.

The table also counts, per accelerator, how many of each band's measurements were taken on it (`compute_on`): a band
says how many are on the estimated part. Where none is, the model's error was never seen on that part, and what the
part's own figures leave open (its stated efficiency ranges, `perf.workload.efficiency_range`) is not in the band's
errors either: the band then spans both, each end of the estimate's span over those ranges taken with the model's
error in the same direction (`Band.spread`), so a requirement met only at the optimistic end is at risk. A metric no
scored run measured has no band, and states that span alone where the estimate took one of its quantity (an offline
serving job's TPOT and TTFT, `Estimate.latency_spans`): the efficiency ranges' effect, the model's error unbounded.

A serving-under-load latency band (TTFT, TPOT and their percentiles) is kept per *load bin* as well (`load_bin`): a
run's load is its requests served per second per replica over the replica's capacity, measured where its case file
also holds an Offline run of the same setup, else the model's (`perf.serve.run.ServingRun.load`; nothing fitted). An
open loop magnifies a per-iteration error by about 1 / (1 - load), so an open-loop estimate at load L takes every bin
from L to L (1 + h), h the offline family's highest throughput error (`band_families.reached`). A bin holding fewer
than `MIN_BIN` measurements gives no band ("unmeasured at this load"), and no bin borrows another's. Throughput under
load is not binned: a replica that keeps up serves what arrives.

The latency bands are kept per *arrival* too (`ARRIVALS`): an open loop at a Poisson rate (MLPerf's Server scenario,
`scenario: server` with an `arrival_rate`) queues its bursts, where a closed loop at a fixed concurrency
(`scenario: concurrency`) admits a request only when one leaves. A job whose arrival has no measurements in its bin
gets no band, never the other arrival's (newuser33: DeepSeek-R1 at TP32 on an NVL72, concurrency 2,048, read TTFT
555 ms with a band of 9.4-17.6 s taken from Poisson MLPerf rows alone).

A family's bands hold up to the longest context its scored runs were taken at (`CONTEXT`: a request's prompt and its
decode context, each its own longest; a training sequence), and `CONTEXT_MARGIN` past each said to be measured on
shorter runs (a target met at both ends at risk); further, no band ("unmeasured at this context"): attention, whose
cost grows with the context, is a larger share there than in any run the errors come from (`band_families.past`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TypeVar

from archgen.model.requirements import Risk
from archgen.perf.serve.run import whole_replicas
from archgen.perf.workload.band_families import (
    ARRIVALS,
    CONTEXT_MARGIN,
    FAMILIES,
    KINDS,
    ONE_LENGTH,
    QUANTITIES,
    UNSCORED,
    ContextTokens,
    bin_words,
    context_words,
    past,
    reached,
    row_quantity,
    single_keys,
    table_key,
)
from archgen.perf.workload.band_span import Span, maximise, routed, span_factors, span_words, turned
from archgen.perf.workload.band_table import ON, TABLE, VENDOR
from archgen.perf.workload.light_load import Worst, worst
from archgen.units import Q

#: An estimate's value: a quantity, or a float in SI units (a sweep point's).
E = TypeVar("E", Q, float)

#: The fewest measurements a load bin's band is taken from: with fewer, its lowest and highest error are one or two
#: runs' errors, not a spread (a stated rule, not fitted); the bin is then "unmeasured at this load".
MIN_BIN = 3
#: Where the reason a requirement is met beyond every light-load error ends (`Band.beyond_words`): our page, which
#: a customer's words leave out (REQ006's `public`).
BEYOND_DOC = " (docs/perf-model.md, Error bands, Light load)"
#: The least expected coverage (`expected_coverage`) of a band on which a requirement met at both its ends reads
#: "met": below it, "at risk" (`Band.likely`, REQ004). "Likely" is 66-100 % probability in the IPCC's calibrated
#: language (Mastrandrea et al., "Guidance Note for Lead Authors of the IPCC Fifth Assessment Report on Consistent
#: Treatment of Uncertainties", IPCC 2010, Table 1), and 33-66 % "about as likely as not": a band of 3 or 4
#: measurements (50 %, 60 %) is expected to miss as many comparable runs as "about as likely as not" allows, so a
#: target met across it is not likely met. archgen's choice, a stated rule (not fitted, not measured); 5 measurements
#: pass it by 0.7 points and 4 do not, so a verdict on 5 rests on one run; docs/perf-model.md, Error bands.
LIKELY = 0.66


def expected_coverage(n: int) -> float:
    """The expected share of further comparable runs whose error a range of `n` errors holds: (n - 1) / (n + 1).

    The range of n exchangeable values holds a further one with probability (n - 1) / (n + 1) (Wilks,
    "Determination of sample sizes for setting tolerance limits", Ann. Math. Statist. 12(1), 1941, pp. 91-96): 50 %
    for a band of 3 measurements, 98 % for one of 87. 0 where there is no measurement.
    """
    return (n - 1) / (n + 1) if n > 0 else 0.0


@dataclass(frozen=True)
class Band:
    """The measured error of one metric of one family.

    Its lowest and highest signed relative error, its median |error| and how many published measurements they come
    from (none: no published run of the family measured it, and the band is unknown); how many of those were taken on
    the estimated accelerator (`on_accelerator`; None where not asked); and, where none was, the estimate's span over
    the part's stated efficiency ranges as factors of the estimate (`spread`, with `span` in words), which the band
    then spans as well.
    """

    family: str
    metric: str
    count: int
    low: float
    high: float
    median: float
    accelerator: str = ""
    on_accelerator: int | None = None
    spread: tuple[float, float] | None = None
    span: str = ""
    load: float | None = None
    bin: str = ""
    context: ContextTokens | None = None  # the job's, where past its family's longest (`band_families.past`)
    measure: str = ""  # the measure of it furthest past: prompt, sequence or decode (`past`)
    tokens: int = 0  # the job's in that measure
    longest: int = 0  # the family's longest in it, where `tokens` is past it by more than `CONTEXT_MARGIN`
    measured_to: int = 0  # the same, where `tokens` is past it within the margin: a band measured on shorter runs
    arrival: str = ""  # a binned band's arrival (`ARRIVALS`)
    vendor: str = ""  # the estimated part's vendor, where its own measurements all miss beyond the median (`typical`)
    typical: tuple[int, float, float, float] | None = None  # that vendor's (count, low, high, median |error|)
    routing: tuple[float | None, float] | None = None  # an MoE serving rate at the routing's ends, factors (`routed`)
    routed: str = ""  # those ends in words, as `describe` ends with them (`band_span.routed`)
    #: a count rounded up (`replicas_to_keep_up`): the unrounded one, rate / capacity, whose ends `values` rounds up
    whole: float | None = None
    reach: float | None = None  # an open loop's load at its capacity band's low end, where past `load` (`reached`)
    capacity_high: float = 0.0  # the offline family's highest throughput error that puts it there
    delivered: str = ""  # an open loop that keeps up: its throughput's band is min(offered, capacity band), in words
    carried: str = ""  # a band carried from another quantity's, in words (an offline TPOT's, `band_lookup.offline_gap`)
    caveat: str = ""  # why a target met at both ends is still at risk, other than few measurements (`coverage_note`)
    caveat_risk: Risk | None = None  # the caveat in a few words (`risk`): measured on shorter runs; None: no such words
    light: Worst | None = None  # unmeasured at light load: the worst errors measured there (`light_load`, `beyond`)
    one_length: bool = False  # its runs scored at one length, as a simulated run's capacity is (`ONE_LENGTH`)

    @property
    def measured(self) -> bool:
        """Whether published runs of the family measured the metric (else the band is unknown, not zero).

        A load-binned band (`bin`) needs `MIN_BIN` measurements in its bin; with fewer it is unmeasured at this load.
        A job whose context is past the family's longest scored one (`longest`) is unmeasured at its context.
        """
        return not self.longest and self.count >= (MIN_BIN if self.bin else 1)

    @property
    def coverage(self) -> float | None:
        """The band's expected coverage (`expected_coverage` of its measurements); None where it has no band."""
        return expected_coverage(self.count) if self.measured else None

    def coverage_text(self) -> str:
        """The expected coverage in words, as `estimate` and the documents show it ('' where it has no band)."""
        return "" if self.coverage is None else f" (expected coverage {self.coverage:.0%})"

    @property
    def likely(self) -> bool:
        """Whether a target met at both the band's ends is likely met: coverage at least `LIKELY`, and no `caveat`."""
        return self.coverage is not None and self.coverage >= LIKELY and not self.caveat

    def coverage_note(self) -> str:
        """Why a target met across this band is at risk: its expected coverage is under `LIKELY`, or its `caveat`."""
        return self._why()[1] if self.measured else ""

    @property
    def risk(self) -> Risk | None:
        """Why a target met on the estimate is at risk, in a few words (`Outcome.risk`, `_why`); None if likely met."""
        return self._why()[0]

    def _why(self) -> tuple[Risk | None, str]:
        """Why a target met on the estimate is at risk: in a few words (`risk`) and at length, from one branch.

        Unmeasured at this context, at this load or at all (`describe`'s words), else too few runs or the `caveat`
        (`coverage_note`'s; its few words `caveat_risk`); (None, "") where a target met at both ends is likely met.
        """
        if self.longest:
            return Risk.AT_CONTEXT, context_words(FAMILIES[self.family], self.measure, self.tokens, self.longest)
        if not self.measured and self.bin:
            return Risk.AT_LOAD, (
                f"no band: unmeasured at this load; the run's load is {self.load:.2f} of its replica's capacity"
                f"{self._reach()}, {bin_words(self.bin)}, where {self.count or 'no'} published {FAMILIES[self.family]} "
                f"measurement{'s' if self.count > 1 else ''} of {self.metric} {ARRIVALS.get(self.arrival, '')} "
                f"{'were' if self.count > 1 else 'was'} taken, fewer than the {MIN_BIN} a band needs; no other "
                "load's or arrival's band is borrowed (not provided)")
        if not self.measured:
            if why := UNSCORED.get(QUANTITIES[KINDS[self.family]].get(self.metric, ""), ""):
                return Risk.UNBANDED, f"no band: {why}"   # a quantity no family measures: one text for its metrics
            return Risk.UNBANDED, (
                f"no band: no published {FAMILIES[self.family]} measurement of {self.metric} to take it from"
                + (f"; over its stated efficiency ranges the estimate spans {self.span}, the model's error beyond "
                   "that not bounded" if self.span else ""))
        if self.likely:
            return None, ""
        if expected_coverage(self.count) >= LIKELY:
            return self.caveat_risk, self.caveat
        return Risk.FEW_RUNS, (
            f"the band of {self.count} measurement{'s' if self.count != 1 else ''} is expected to hold "
            f"{expected_coverage(self.count):.0%} of comparable runs ((n - 1) / (n + 1)), under the {LIKELY:.0%} a "
            "met target needs (docs/perf-model.md, Error bands)")

    def values(self, estimate: E) -> tuple[E, E] | None:
        """The range the measured value may be in, [p/(1+high), p/(1+low)]; None where no run measured it.

        With a `spread` (s_low, s_high) the ends are [p*s_low/(1+high), p*s_high/(1+low)]: each end of the span over
        the part's stated efficiency ranges taken with the model's error in the same direction.
        """
        if not self.measured:
            return None
        s_low, s_high = self.spread or (1.0, 1.0)
        if self.whole:   # each end the unrounded count's, rounded up (ends of a ceil'd 23 read 21.06 to 32.69)
            at = float(getattr(estimate, "m", estimate))
            return (estimate * (whole_replicas(self.whole * s_low / (1 + self.high)) / at),
                    estimate * (whole_replicas(self.whole * s_high / (1 + self.low)) / at))
        return estimate * s_low / (1 + self.high), estimate * s_high / (1 + self.low)

    def beyond(self, estimate: E) -> tuple[E, E] | None:
        """An unmeasured light-load latency at the worst errors measured at light load (`light`, `light_load.worst`).

        [p / (1 + highest), p / (1 + lowest)]: a requirement the estimate meets at both is met beyond every error
        measured there (`model.at_risk.unbanded`). Not a band (the errors are of other families' and arrivals'
        runs), and None where there are none, too few to likely hold a further run (`LIKELY`), or fewer than a band
        needs (`MIN_BIN`) of the estimate's own family, so that the worst errors are not all another family's.
        """
        if self.light is None or expected_coverage(self.light.runs) < LIKELY or self.light.own < MIN_BIN:
            return None
        return estimate / (1 + self.light.high), estimate / (1 + self.light.low)

    def beyond_words(self) -> str:
        """Why a target met at `beyond`'s ends is met, in words ('' where there are none)."""
        if self.beyond(1.0) is None or self.light is None:
            return ""
        w = self.light
        return (f"unmeasured at this load; met beyond every error measured at light load: on {w.runs} or more runs "
                f"at light load of any serving family and arrival ({w.own} of its own family) the model erred by "
                f"{w.low:+.1%} to {w.high:+.1%} (the worst on {w.lowest}), and the target holds at both"
                + BEYOND_DOC)

    def describe(self) -> str:
        """The band in words ('model error -23.2% to +9.3%, median |error| 7.6%, on 39 dense training ...').

        With the routing's range after it (`routing`), which the band's ends do not take in.
        """
        return self._describe() + self.routed

    def routing_values(self, estimate: E) -> tuple[E | None, E] | None:
        """An MoE serving rate at the published routing skew (None: none bounds it) and at balanced routing (`routing`).

        Not in `values`: the point takes uniform random routing, and the band's errors were measured on runs with
        their own routers (docs/perf-model.md, MoE serving: routing).
        """
        if self.routing is None:
            return None
        low, high = self.routing
        return (None if low is None else estimate * low), estimate * high

    def _describe(self) -> str:
        if self.delivered:
            return self.delivered
        if not self.measured:   # no band: why, at length (`_why`, whose few words are `risk`)
            return self._why()[1]
        side = ("" if self.low <= 0 <= self.high else
                f"; the model {'over' if self.low > 0 else 'under'}-predicted every one of them"
                + ("" if self.carried else   # a carried band's ends are its split's, each side of the estimate
                   f", so the band lies {'below' if self.low > 0 else 'above'} the estimate"))
        return (f"{self.carried}model error {self.low:+.1%} to {self.high:+.1%}, median |error| {self.median:.1%}, on "
                f"{self.count} {FAMILIES[self.family]} measurement{'s' if self.count != 1 else ''}"
                f"{', each ' + ONE_LENGTH if self.one_length else ''}{self._bin()}{self._on()}{side}{self._spread()}"
                f"{self._vendor()}{self._shorter()}")

    def _shorter(self) -> str:
        """Where the job is past the longest context the band's runs were taken at, within `CONTEXT_MARGIN`."""
        return f"; {context_words(FAMILIES[self.family], self.measure, self.tokens, self.measured_to)}" \
            if self.measured_to else ""

    def _bin(self) -> str:
        if not self.bin or self.load is None:
            return ""
        return (f" taken {bin_words(self.bin)} {ARRIVALS.get(self.arrival, '')}, as this run is (load {self.load:.2f} "
                f"of its replica's capacity{self._reach()})")

    def _reach(self) -> str:
        """Where the capacity band's low end puts an open loop's load beyond the model's (`reached`)."""
        if self.reach is None:
            return ""
        offline = FAMILIES[self.family.replace("serving-under-load", "offline-serving")]
        return (f"; up to {self.reach:.2f} at the low end of the capacity's band, which the model over-predicted by up "
                f"to {self.capacity_high:+.1%} on {offline} runs, each {ONE_LENGTH}"
                + (", past capacity, where the queue grows without bound" if self.reach >= 1 else ""))

    def _on(self) -> str:
        if self.on_accelerator is None:
            return ""
        return f", {self.on_accelerator or 'none'} of them on {self.accelerator}"

    def _vendor(self) -> str:
        """Where every measurement on the part's vendor misses by more than the median, so the median is not its."""
        if self.typical is None:
            return ""
        n, low, high, med = self.typical
        return (f"; the {n} of them on {self.vendor}'s parts {'all miss' if n > 1 else 'misses'} by more than that "
                f"median ({low:+.1%}{f' to {high:+.1%}' if n > 1 else ''}, median |error| {med:.1%}), so that median "
                f"is not typical of {self.vendor}'s parts (docs/accuracy.md, Error bands by vendor)")

    def _spread(self) -> str:
        if self.spread is None or not self.span:   # a carried band's spread is its own, said in `carried`
            return ""
        return (f", so the band also spans {self.span} over its stated efficiency ranges, each end taken with the "
                "model's error in the same direction (low end / (1 + highest error), high end / (1 + lowest error))")


def band(family_: str, metric: str, table: Mapping[str, Mapping[str, tuple]] | None = None, accelerator: str = "",
         span: Span | None = None, on: Mapping[str, Mapping[str, Mapping[str, int]]] | None = None,
         load: float | None = None, context: ContextTokens | None = None, vendor: str = "", arrival: str = "poisson",
         routing: Span | None = None, simulated: bool = False) -> Band | None:
    """The band of `metric` for a job of `family_`, estimated on `accelerator` (if given).

    None where the metric carries none (memory, concurrency); a band of no measurement (`Band.measured` false) where
    no scored run of the family measured its quantity. Given an accelerator, the band counts the measurements taken
    on it (`on`, default the generated table's); where there is none and `span` is of a metric stating the same
    quantity, the band also spans it (`Band.spread`). A serving-under-load latency's band is its `load` bin's
    (`load_bin`) of its `arrival` (`ARRIVALS`); a bin of fewer than `MIN_BIN` measurements of that arrival gives an
    unmeasured band, never another bin's or arrival's. A `context` past the family's longest (`CONTEXT`, `past`) by
    more than `CONTEXT_MARGIN` gives an unmeasured band too; within it, the band says it was measured on shorter runs,
    and a target met at both its ends is at risk. Where every measurement on the part's `vendor` misses by more than
    the family's median |error| (`VENDOR`, `band_source.compute_vendor`), the band names the vendor's own errors, so
    the median does not read as typical of its parts. An MoE serving estimate's `routing` span (its rate at the
    measured skew, 0 where none bounds it, and balanced) goes to each metric stating its quantity (`Band.routing`),
    beside the band, whatever the band is. A `simulated` run's throughput taking an offline family's band takes its
    runs scored at one length (`row_quantity`), as a capacity's does.
    """
    quantity = QUANTITIES[KINDS[family_]].get(metric)
    if quantity is None:
        return None
    quantity = row_quantity(family_, quantity, simulated)
    got = _band(family_, metric, quantity, table, accelerator, span, on, load, context, vendor, arrival)
    got = replace(got, one_length=quantity == "replica_capacity")
    if got.measured and (over := past(family_, context)) is not None:   # within the margin (`_band`)
        got = replace(got, context=context, measure=over[0], tokens=over[1], measured_to=over[2],
                      caveat_risk=Risk.SHORTER, caveat=context_words(FAMILIES[family_], *over))
    routed_ = routed(family_, metric, routing) if routing is not None else None
    return got if routed_ is None else replace(got, routing=routed_[0], routed=routed_[1])


def _band(family_: str, metric: str, quantity: str, table: Mapping[str, Mapping[str, tuple]] | None,
          accelerator: str, span: Span | None, on: Mapping[str, Mapping[str, Mapping[str, int]]] | None,
          load: float | None, context: ContextTokens | None, vendor: str, arrival: str) -> Band:
    """`band` of a metric that carries one (`quantity`), before its routing."""
    if (over := past(family_, context)) is not None and over[1] > over[2] * (1 + CONTEXT_MARGIN):
        return Band(family_, metric, 0, math.nan, math.nan, math.nan, context=context, measure=over[0],
                    tokens=over[1], longest=over[2])
    rows = TABLE if table is None else table
    capacity = rows.get(family_.replace("serving-under-load", "offline-serving"), {}).get("replica_capacity")
    reach = reached(family_, quantity, load, arrival, capacity[2] if capacity else 0.0)
    key = table_key(family_, quantity, load, arrival, reach)
    bin_ = key.split("@")[1] if "@" in key else ""
    at, arrival = (load, arrival) if bin_ else (None, "")
    reach = reach if bin_ and capacity and reach != load else None
    cap_high = capacity[2] if reach is not None and capacity else 0.0
    row = rows.get(family_, {}).get(key)
    if row is None or (bin_ and row[0] < MIN_BIN):   # unmeasured: the span alone, where it is of this quantity
        light = worst(quantity, family_, rows) if bin_ == "light" else None
        if light is not None and maximise(metric) != maximise(quantity):   # a user's decode rate: TPOT's, turned
            low, high = turned(light.low, light.high)
            light = light._replace(low=low, high=high)
        return Band(family_, metric, row[0] if row else 0, math.nan, math.nan, math.nan, load=at, bin=bin_,
                    arrival=arrival, span=span_words(span) if span and span_factors(family_, metric, span) else "",
                    reach=reach, capacity_high=cap_high, light=light)
    count, low, high, median = row
    if maximise(metric) != maximise(quantity):
        low, high = turned(low, high)
    if not accelerator:
        return Band(family_, metric, count, low, high, median, load=at, bin=bin_, arrival=arrival, reach=reach,
                    capacity_high=cap_high)
    by_key = (ON if on is None else on).get(family_, {})
    n = sum(by_key.get(k, {}).get(accelerator, 0) for k in single_keys(key))
    spread = span_factors(family_, metric, span) if n == 0 and span is not None else None
    what = span_words(span) if spread is not None and span is not None else ""
    mine = VENDOR.get(family_, {}).get(key, {}).get(vendor)
    typical = None
    if mine is not None and mine[4]:
        v_low, v_high = turned(mine[1], mine[2]) if maximise(metric) != maximise(quantity) else mine[1:3]
        typical = (mine[0], v_low, v_high, mine[3])
    return Band(family_, metric, count, low, high, median, accelerator, n, spread, what, at, bin_,
                arrival=arrival, vendor=vendor if typical else "", typical=typical, reach=reach, capacity_high=cap_high)
