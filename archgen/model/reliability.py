"""Failure data: a part's failure rate and repair time, the `FailureRates` kind, site events and checkpointing.

A failure rate is an annual failure rate (`afr`, failures per unit-year, written as a fraction or in %) or a FIT
rate (`fit`, failures per 10^9 unit-hours); one converts to the other by the 8,766 hours of a year. Every rate
carries its `basis` (sourced or assumed) and `source`, as every catalog figure does. `archgen.analyse.reliability` turns
them into interruptions per day, MTTI and goodput (docs/reliability.md).
"""

from typing import Annotated, Literal, Self

from pydantic import Field, field_validator, model_validator

from archgen.display import figure
from archgen.model.field_types import PositiveFraction, Share
from archgen.model.part_classes import PART_CLASSES, lead_errors, split_count_errors, split_errors
from archgen.model.spec import Document, FieldError, Ref, Spec, raise_each
from archgen.units import Q_, Dim, Duration, DurationOrZero, Q

#: The shipped `FailureRates` set a cluster uses unless it names another.
DEFAULT_RATES = "field-h100-2024"


class BorrowedSet(str):
    """An input a figure rests on that is a rate set measured on another accelerator, in its words.

    Made by `analyse.rate_sets.borrowed_inputs` ("'field-h100-2024' failure rates (measured on h100-sxm5-80gb; tpu-v4
    borrows them)"), among a figure's assumed inputs (`analyse.operations.Operations.assumed`). Its type says what it
    is, so that a requirement judged on it names it whatever its verdict (`model.requirements.on_assumed`), where that
    read how its words end.
    """

    __slots__ = ()


#: A checkpoint interval: 0 s is read, then refused below 1 s with its own message (`Checkpointing`), so the spec
#: reference's example is one it takes (newuser103: DurationOrZero's '0 us' was shown for it).
Interval = Annotated[Q, Dim("s", ge=0, le=3.2e9, label="a time", example="3 h")]

#: Hours in a year (365.25 days), the conversion between AFR and FIT.
HOURS_PER_YEAR = 8766.0

#: Why a rate counted from no failures is refused: its 95 % interval runs from 0 to -ln(0.025) = 3.69 failures over
#: the units' time observed (Garwood 1936, the chi-square form at 2n + 2 = 2 degrees of freedom), and a set states no
#: such time, so archgen could only show the rate as exact (0, no interval) or its count as not stated.
ZERO_COUNT = ("a rate counted from 0 failures is not 0 with no uncertainty: its 95 % interval reaches 3.69 failures "
              "over the unit-years observed (Garwood), which a rate set does not state; give the rate at that upper "
              "end (3.69 / unit-years) with `basis: assumed` and the exposure in `source`, or leave `events` out")


class FailureRate(Spec):
    """How often one unit of a part fails and how long it takes to bring it back."""

    afr: Share | None = Field(default=None, description="Annual failure rate: failures per unit-year, as a fraction "
                                      "(0.05) or a percentage ('5 %'), from 0 to 100 %.")
    fit: float | None = Field(None, ge=0, le=1e9, description="Failures per 10^9 unit-hours (FIT), instead of `afr`.")
    repair: DurationOrZero = Field(default_factory=lambda: Q_(24, "h"), description=(
        "Time to repair or replace a failed unit and return it to service, e.g. '24 h' (default 24 h)."))
    repair_basis: Literal["sourced", "assumed"] = Field("assumed", description=(
        "Whether `repair` was measured (the `source` then says where: StepFun's fault trace gives its mean time from "
        "fault to return) or assumed (the default: the sources of most sets give a rate and no repair time). A "
        "training job's restart, goodput and spares rest on the repair time of its node's hardware; where it is "
        "assumed, they name it among their assumed inputs (REQ005) and the document says so beside the rate."))
    interrupts: bool = Field(True, description="Whether a failure of this part interrupts a job running on it.")
    turnaround: Duration | None = Field(None, description=(
        "Time to get a replacement for a failed unit onto the site (an RMA or resupply lead time), e.g. '14 d': the "
        "spare-parts stock is sized to the failures expected over it (docs/reliability.md, Spare-parts stock). Left "
        "out: the set's `turnaround`, else the stock is not provided."))
    turnaround_basis: Literal["sourced", "assumed"] = Field("assumed", description=(
        "Whether `turnaround` was measured or published (`turnaround_source` then says where: a vendor's RMA terms, "
        "a fleet's records) or assumed (the default: no public RMA time of an AI part was found). The spare-parts "
        "stock shows it beside the turnaround."))
    turnaround_source: str = Field("", max_length=300, description=(
        "Where a sourced `turnaround` comes from (document, clause, table), or why assumed. Required with "
        "`turnaround_basis: sourced`."))
    split: dict[str, int] = Field(default_factory=dict, description=(
        "The class's counted failures by component, as the source splits them (`accelerator`: gpu, hbm, sram, gsp, "
        "nvlink, sdc, thermal), summing to `events`, e.g. Llama 3's {gpu: 148, hbm: 72, sram: 19, gsp: 17, sdc: 6, "
        "thermal: 6}: the class's rate is unchanged; the interruptions-by-class table shows each part's share "
        "with its own Poisson interval. Left out: the class is not split."))
    per_accelerators: int | None = Field(default=None, gt=0, le=1024, description=(
        "The source measured this rate per group of this many accelerators (8: per 8-GPU server); archgen then "
        "applies it per accelerator (rate / this), whatever a node holds. Left out: per unit of the class."))
    detection: DurationOrZero = Field(default_factory=lambda: Q_(0, "min"), description=(
        "Mean time from the failure until the job is found stopped, on top of `checkpoint.restart` (a hang waits "
        "for a collective timeout), e.g. '10 min' (default 0)."))
    events: int | None = Field(default=None, ge=0, le=10**9, description=(
        "The failures the rate was counted from, for its Poisson confidence interval (left out: none shown). At "
        "least 1: a count of 0 is refused, as its interval needs the unit-years observed, which a set does not state."))
    pooled: str | None = Field(None, min_length=1, max_length=64, description=(
        "Name of one count that several classes of the set share, where the source counts them together (Llama 3's "
        "35 'Network Switch/Cable' interruptions, which its optics and copper cables share; its switches take a "
        "switch's own rate, `operator`): each such class states "
        "that count as `events` and the one rate per unit it gives, and a design's Poisson interval counts it once "
        "for their sum, not once per class. Left out: the class's `events` are its own."))
    operator: str = Field("", max_length=300, description=(
        "Where this class's rate was measured, where that is not the set's own fleet: a rate the set borrows from "
        "another operator's published figure for a class its own source does not break out (Llama 3's set takes "
        "its switch rate from Alibaba Cloud's ToRs). The document names it beside the rate, and a figure resting on "
        "it names it among its assumed inputs. Left out: the set's own `operator`."))
    basis: Literal["sourced", "assumed"] = Field(description="Whether the rate is sourced or assumed.")
    source: str = Field(min_length=3, description="Where the rate comes from (document, table), or why assumed.")

    @model_validator(mode="after")
    def _one_rate(self) -> Self:
        errors = []
        if (self.afr is None) == (self.fit is None):
            errors.append(FieldError(("afr",), "give exactly one of 'afr' (failures per unit-year) or 'fit' "
                                               "(failures per 10^9 unit-hours)"))
        if self.afr is not None and not 0 <= self.afr <= 1:
            errors.append(FieldError(("afr",), f"an annual failure rate is between 0 and 100 %, got "
                                               f"{self.afr * 100:g} %" + ("; a part failing more than once a year "
                                               "per unit is written with 'fit'" if self.afr > 1 else "")))
        errors += [FieldError((name,), f"{name} of {figure(getattr(self, name))} is longer than a year: a part that "
                                       "long out of service is written off, not repaired; write e.g. '24 h'")
                   for name in ("repair", "detection") if getattr(self, name) > Q_(1, "year")]
        if self.events == 0:   # review35: taken as "no events stated", the rate read as exact or its count as missing
            errors.append(FieldError(("events",), ZERO_COUNT))
        if self.turnaround is not None and self.turnaround > Q_(1, "year"):
            errors.append(FieldError(("turnaround",), f"a replenishment turnaround of {figure(self.turnaround)} is "
                                                      "longer than a year: a stock for it would hold a year's "
                                                      "failures; write the RMA or resupply time, e.g. '14 d'"))
        errors += lead_errors(self.turnaround, self.turnaround_basis, self.turnaround_source)
        errors += split_count_errors(self.split, self.events)
        raise_each(errors, type(self).__name__)
        return self

    @property
    def per_year(self) -> float:
        """Failures per unit-year."""
        return self.afr if self.afr is not None else (self.fit or 0.0) * HOURS_PER_YEAR / 1e9  # one is set (validated)

    @property
    def rate(self) -> Q:
        """Failures per unit and day, as a quantity (1/day)."""
        return Q_(self.per_year / 365.25, "1/day")


class Planned(Spec):
    """Planned interruptions (maintenance, upgrades): taken after a checkpoint, so they lose no work."""

    per_year: float = Field(ge=0, le=10_000, description=(
        "Planned interruptions per unit-year of `per_accelerators`; with `scope: cluster`, windows a year of the "
        "whole cluster (12 for a monthly window)."))
    per_accelerators: int = Field(8, gt=0, le=1024, description=(
        "Accelerators the rate is counted per (default 8); not with `scope: cluster`."))
    scope: Literal["node", "cluster"] = Field("node", description=(
        "What one planned interruption stops: `node` (default), the nodes it falls on, so a job pays it per node "
        "it occupies; `cluster`, a window that stops every job at once, so a job of any size pays each window "
        "once (its share of wall time and one restart)."))
    duration: DurationOrZero = Field(default_factory=lambda: Q_(0, "min"), description=(
        "How long the job stands still per planned interruption beyond its restart, e.g. '30 min'."))
    events: int | None = Field(None, ge=0, le=10**9, description="Planned interruptions the rate was counted from.")
    basis: Literal["sourced", "assumed"] = Field(description="Whether the rate is sourced or assumed.")
    source: str = Field(min_length=3, description="Where the rate comes from.")

    @model_validator(mode="after")
    def _one_scope(self) -> Self:
        if self.scope == "cluster" and "per_accelerators" in self.model_fields_set:
            raise FieldError(("per_accelerators",), (
                f"a cluster-wide window (scope: cluster) is counted per cluster, not per {self.per_accelerators} "
                "accelerators: give `per_year` as the windows a year of the whole cluster and leave "
                "`per_accelerators` out, or drop `scope: cluster` for a rate per node"))
        return self


#: What a rate set's source, or a measured figure, counts as failures (`FailureRates.counts`): every interruption of
#: a job, the infrastructure's failures only, some of them only, or not said.
Counted = Literal["all", "infrastructure", "part", "unknown"]


class FailureRates(Document):
    """Failure rates per part class, in one place: the rates every part without its own `reliability` takes."""

    kind: Literal["FailureRates"] = "FailureRates"
    classes: dict[str, FailureRate] = Field(description="Rate per part class: " + "; ".join(
        f"`{k}`: {v}" for k, v in PART_CLASSES.items()) + ".")
    planned: Planned | None = Field(None, description="Planned interruptions of a job (left out: none).")
    accelerators: list[str] = Field(default_factory=list, description=(
        "Scope: catalog ids of the accelerators the rates were measured on; a cluster on another accelerator is "
        "told it borrows them. Left out: not tied to one."))
    accelerator_vendor: str = Field("", description=(
        "Scope where the source names no accelerator model (`accelerators` left out): the vendor of the accelerators "
        "the rates were measured on, e.g. 'NVIDIA'; a cluster on another vendor's accelerator is told it borrows "
        "them. Left out with `accelerators`: not tied to one."))
    compute_capability_max: float | None = Field(None, ge=1, le=100, description=(
        "Scope with `accelerator_vendor: NVIDIA` where the source names no model but its dates rule out a generation: "
        "the newest NVIDIA compute capability the measured GPUs can have (a trace begun before a generation shipped, "
        "e.g. 9.0 for one begun in March 2024, before Blackwell), so that a design on a newer generation is told it "
        "borrows the rates. Left out: any generation of the vendor."))
    family: str = Field("", max_length=40, description=(
        "Scope: the part family of the fleet the rates were measured on, e.g. 'GPU'; a cluster whose accelerator "
        "states another `family` (a TPU) is told that another family's rates stand in for its own. Left out: not "
        "compared (a set of switches alone)."))
    operator: str = Field("", description="Scope: whose fleet and which period, e.g. 'Meta, Llama 3 405B run, 2024'.")
    counts: Counted | None = Field(None, description=(
        "Scope: which interruptions the source counts as failures, in the words a measured figure's are judged by "
        "(the held-out figures' `causes`): `all` (every unplanned interruption of a job, its own code's included), "
        "`infrastructure` (the infrastructure's failures only: hardware, network, storage, host; a failure of the "
        "job's code is not counted), `part` (some of them only: one class or component, e.g. GPU failures or the "
        "network) or `unknown` (the source does not say). The document states it beside the figures built from the "
        "set, since a measured MTTF counting other causes is not the same figure. Left out: the document says it is "
        "not stated."))
    counts_note: str = Field("", max_length=400, description=(
        "The source's own account of what it counts, in words, e.g. 'unplanned interruptions of one job, every "
        "cause: hardware, network, software bugs, host maintenance'; shown after `counts`."))
    source: str | list[str] = Field("", description="Where the set as a whole comes from.")
    notes: str = Field("", description="Assumptions and limits of the set.")
    turnaround: Duration | None = Field(None, description=(
        "Replenishment (RMA or resupply) lead time of every class that states none of its own `turnaround`, e.g. "
        "'14 d'. Left out (and no class's own): the spare-parts stock is not provided, never sized to a default."))
    turnaround_basis: Literal["sourced", "assumed"] = Field("assumed", description=(
        "Whether the set's `turnaround` was measured or published (`turnaround_source` says where) or assumed (the "
        "default); shown beside the stock."))
    turnaround_source: str = Field("", max_length=300, description=(
        "Where a sourced `turnaround` comes from, or why assumed. Required with `turnaround_basis: sourced`."))
    no_stockout: PositiveFraction = Field(0.95, description=(
        "Probability of no stock-out the spare-parts stock is sized to: that no failed unit waits for a spare at a "
        "random time (Sherbrooke's availability of the item, P(X <= s)), e.g. 0.99 (default 0.95, stated beside "
        "the stock); below 1, which no finite stock reaches."))
    base: Ref | None = Field(None, description=(
        "Scope: id of the `FailureRates` set that the classes (and planned interruptions) this set leaves out come "
        "from, e.g. a network-only set names the set for accelerators, hosts and software. Left out: a class this "
        "set does not give has no rate (REL004)."))

    @field_validator("turnaround")
    @classmethod
    def _within_a_year(cls, value: Q | None) -> Q | None:
        if value is not None and value > Q_(1, "year"):
            raise ValueError(f"a replenishment turnaround of {figure(value)} is longer than a year: a stock for it "
                             "would hold a year's failures; write the RMA or resupply time, e.g. '14 d'")
        return value

    @field_validator("no_stockout")
    @classmethod
    def _below_one(cls, value: float) -> float:
        if value >= 1:
            raise ValueError(f"a no-stock-out probability of {value:g} asks for a stock that never runs out, which no "
                             "finite stock holds (P(X <= s) < 1 for every s, X Poisson); write the level the stock is "
                             "sized to, e.g. 0.99 or 0.999")
        return value

    @field_validator("classes")
    @classmethod
    def _known(cls, value: dict[str, FailureRate]) -> dict[str, FailureRate]:
        raise_each([FieldError((name,), f"unknown part class '{name}' (known: {', '.join(PART_CLASSES)})")
                    for name in value if name not in PART_CLASSES]
                   + [e for name, r in value.items() if name in PART_CLASSES
                      for e in split_errors(name, r.split)], cls.__name__)
        return value

    @model_validator(mode="after")
    def _one_count_per_pool(self) -> Self:
        pools: dict[str, list[tuple[str, FailureRate]]] = {}
        for name, rate in self.classes.items():
            if rate.pooled is not None:
                pools.setdefault(rate.pooled, []).append((name, rate))
        errors = []
        for pool, members in pools.items():
            names = ", ".join(n for n, _ in members)
            shared = f"the count '{pool}' ({names})"
            if any(not r.events for _, r in members):
                errors += [FieldError(("classes", n, "events"), f"class '{n}' shares {shared}: state that count as "
                                                               "`events`") for n, r in members if not r.events]
            elif len({r.events for _, r in members}) > 1 or len({r.per_year for _, r in members}) > 1:
                errors.append(FieldError(("classes", members[0][0], "pooled"), (
                    f"the classes sharing {shared} state different `events` or rates; one count over their summed "
                    "units gives one rate per unit and one number of events: give each the same")))
        raise_each(errors, type(self).__name__)
        return self

    @model_validator(mode="after")
    def _lead_basis(self) -> Self:
        raise_each(lead_errors(self.turnaround, self.turnaround_basis, self.turnaround_source), type(self).__name__)
        return self

    @model_validator(mode="after")
    def _not_own_base(self) -> Self:
        if self.base is not None and self.base == self.id:
            raise FieldError(("base",), f"a set cannot take its missing classes from itself ('{self.base}'); "
                                        "name another FailureRates set, or leave `base` out")
        if self.compute_capability_max is not None and (self.accelerators or not self.accelerator_vendor):
            raise FieldError(("compute_capability_max",), "`compute_capability_max` scopes a set whose source names "
                                                          "only the vendor: give `accelerator_vendor` and leave "
                                                          "`accelerators` out (a named accelerator is its own scope)")
        return self


class SiteEvent(Spec):
    """A facility event that stops every job in the hall (utility outage, cooling plant trip)."""

    name: str = Field(min_length=1, description="What happens, e.g. 'utility power loss beyond UPS ride-through'.")
    per_year: float = Field(ge=0, le=10_000, description="Events per year.")
    duration: DurationOrZero = Field(default_factory=lambda: Q_(0, "h"),
                                     description="How long the hall is down per event, e.g. '2 h'.")
    basis: Literal["sourced", "assumed"] = Field(description="Whether the rate is sourced or assumed.")
    source: str = Field(min_length=3, description="Where the rate comes from.")

    @model_validator(mode="after")
    def _within_a_year(self) -> Self:
        if self.per_year * self.duration > Q_(1, "year"):
            raise FieldError(("duration",), f"{self.per_year:g} events a year of {figure(self.duration)} each keep the "
                                            "hall down longer than a year")
        return self


class Checkpointing(Spec):
    """How a training job checkpoints and restarts (docs/reliability.md)."""

    bytes_per_parameter: float = Field(14, gt=0, le=64, description=(
        "Checkpoint bytes per model parameter: default 14 = BF16 weights (2) + FP32 master weights (4) + two FP32 "
        "Adam moments (8), what a mixed-precision Adam checkpoint holds."))
    interval: Interval | None = Field(None, description=(
        "Time between checkpoints, at least 1 s; default: Daly's optimum."))
    restart: DurationOrZero = Field(default_factory=lambda: Q_(10, "min"), description=(
        "Time from an interruption to training again, before reading the checkpoint: detection, rescheduling, "
        "process start (default 10 min, assumed; Daly's examples use 10 min)."))
    asynchronous: bool = Field(False, description=(
        "Checkpoints are written in the background: the job pauses only to copy its state to host memory over "
        "the nodes' `host_memory.link`; a failure during the write loses that checkpoint."))
    in_memory: bool = Field(False, description=(
        "Checkpoints go to peer nodes' host memory over the storage (else compute) NICs and restart reads them "
        "from there (Gemini, SOSP 2023); blocking like `asynchronous`. No `storage:` needed."))
    tokens: float | None = Field(None, gt=0, le=1e18, description="Token budget of the run, e.g. 15.6e12, for the "
                                                                  "time to train.")
    goodput_target: Share | None = Field(None, description=(
        "Goodput the job must hold; hot spares are sized to it (default 0.9). At most 1."))
    keep: int | None = Field(None, ge=1, le=10_000, description=(
        "Checkpoints the storage holds at once, the one being written counted (a retention policy: the last n "
        "kept), e.g. 3: `checkpoint_storage_needed` is n x the checkpoint and REL001 judges it (and "
        "`dataset.size`) against `storage.capacity`. Left out: `checkpoint_storage_needed` is not provided and "
        "REL001 judges a single checkpoint, a lower bound."))
    parallel_load: bool | None = Field(None, description=(
        "Whether a restore reads each byte once (Megatron's `--ckpt-fully-parallel-load`, NeMo 2's "
        "`ckpt_parallel_load`): true, the checkpoint once; false, each data-parallel replica its weights "
        "(`checkpoint_restore_read`), and goodput counts that. Left out: the stack's where known (megatron-core-2024, "
        "NeMo 24.x: on), else goodput's range spans both (docs/reliability.md, \"What a restore reads\")."))

    @model_validator(mode="after")
    def _target(self) -> Self:
        if self.interval is not None and self.interval < Q_(1, "s"):
            raise FieldError(("interval",), f"a checkpoint interval of {self.interval:~P} checkpoints without "
                                            "training in between; give at least 1 s, or leave it out for Daly's "
                                            "optimum interval")
        if self.goodput_target is not None and not 0 < self.goodput_target <= 1:
            raise FieldError(("goodput_target",), f"goodput is a fraction of wall time, above 0 and at most 1, got "
                                                  f"{self.goodput_target:g}; write e.g. 0.9")
        return self
