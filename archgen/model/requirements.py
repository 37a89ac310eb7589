"""Requirements with targets (``"<= 132 kW"``, `model.target.Target`), their judgement and the `Requirements` kind."""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Annotated, Literal, Self, TypeVar, get_args

import numpy as np
from pydantic import AfterValidator, BeforeValidator, Field, StringConstraints, WithJsonSchema, model_validator

from archgen import metrics
from archgen.model import field_words, tolerance
from archgen.model.reliability import BorrowedSet
from archgen.model.spec import Document, FieldError, Spec, raise_each
from archgen.model.target import RequirementTarget
from archgen.model.tolerance import Tolerance
from archgen.units import Q

#: Metrics that are a fraction of wall time, so a target above 1 is a mistake.
FRACTIONS = frozenset({"goodput"})

_REQ_ID = r"^[A-Z][A-Z0-9]*(-[A-Z0-9]+)+$"
ReqId = Annotated[str, StringConstraints(pattern=_REQ_ID)]
#: One id or a list of them (`parent: STK-001` or `parent: [STK-001, STK-004]`), each form in the JSON Schema.
ReqIds = Annotated[list[ReqId], BeforeValidator(lambda v: [v] if isinstance(v, str) else v),
                   WithJsonSchema({"anyOf": [{"type": "string", "pattern": _REQ_ID},
                                             {"type": "array", "items": {"type": "string", "pattern": _REQ_ID}}]})]
#: A requirement's level (RFC 2119's keywords, `Requirement.level`), and the levels from the most asked to the least:
#: the order `archgen gap` groups its rows in; `archgen diff` reads a level moved the other way as a loosening.
Level = Literal["shall", "should", "may"]
LEVELS: tuple[Level, ...] = get_args(Level)


def pending_words(method: str) -> str:
    """What still verifies a requirement verified by `method` where archgen's analysis cannot: '' for analysis.

    `Requirement.pending` and `archgen diff`'s status cells (a requirement's state, not the requirement) say it so.
    """
    return "" if method == "analysis" else f"predicted by analysis, to be verified by {method}"


class Requirement(Spec):
    """A numbered requirement with a target on a computed metric."""

    id: ReqId = Field(description="Requirement id, e.g. 'REQ-PWR-001'.")
    statement: str = Field(description="What is required, in words.")
    metric: str = Field(description="Name of the computed metric the target applies to, e.g. 'it_power' "
                                    "(docs/metrics.md lists them by subject).")
    target: RequirementTarget = Field(description="Comparator and limit, e.g. '<= 132 kW'.")
    subject: str = Field("", description=(
        "Object the metric belongs to, e.g. 'rack/gb200-nvl72', or a glob over object paths that applies the "
        "requirement to every object it matches: 'rack/*', 'cluster/*/fabric/compute' ('*' does not cross '/'); "
        "implied inline."))
    level: Level = Field("shall", description=(
        "SHALL: not met or not provided is an error (a failing `diff`/`gap`); SHOULD and MAY: a warning."))
    basis: Literal["sourced", "assumed"] = Field("assumed", description="Whether the target is sourced or assumed.")
    source: str = Field("", description="Where the requirement comes from.")
    verification: Literal["analysis", "test", "inspection", "demonstration"] = Field("analysis", description=(
        "How the requirement is verified, by the four methods of the INCOSE Systems Engineering Handbook and NASA/"
        "SP-2016-6105 Rev2 section 5.3 and Appendix D (analysis, test, inspection, demonstration). archgen verifies "
        "by analysis only: for any other method its status is a prediction, shown as 'met (predicted by analysis, to "
        "be verified by test)', and the test, inspection or demonstration that decides it is recorded outside "
        "archgen."))
    tolerance: Tolerance | None = Field(None, description=(
        "How far beyond the target's limit a value is still accepted (NASA/SP-2016-6105 Rev2 Appendix C.2: a "
        "requirement complete with its tolerances), e.g. '3 kW', or '2 %' of the limit; in K for a limit in degC. "
        "A value past the limit by at most the tolerance (above it for '<=' and '<', below for '>=' and '>', either "
        "side for '==') is 'met (within tolerance)', still marked so in every report; the headroom and margin stay "
        "measured to the limit itself. Unstated: the limit is exact."))

    parent: ReqIds = Field([], description=(
        "The id(s) of what this requirement refines: a stakeholder need or a parent requirement (e.g. 'STK-001', or "
        "a list), for traceability. Shown beside the statement in the compliance matrix, `gap` and `diff` ('(refines "
        "STK-001)') and as `parent` in their JSON; archgen does not judge the parent, which may be written outside "
        "its specs."))

    @property
    def traced(self) -> str:
        """The statement with what it refines, as the compliance matrix and `gap` show it: '... (refines STK-001)'."""
        return f"{self.statement} (refines {', '.join(self.parent)})" if self.parent else self.statement

    @property
    def slack(self) -> Q | None:
        """The tolerance as a distance in the limit's unit (a '%' taken of the limit; K for °C); None without one."""
        return tolerance.slack(self.target, self.tolerance)

    def passes(self, values: Q) -> np.ndarray:
        """Whether each value meets the target or misses it by at most the tolerance: a bool array (`judge`)."""
        return tolerance.passes(self.target, self.slack, values)

    @property
    def pending(self) -> str:
        """What still verifies the requirement where archgen's analysis cannot: '' for `verification: analysis`."""
        return pending_words(self.verification)

    @model_validator(mode="after")
    def _not_its_own_parent(self) -> Self:
        """A requirement that names itself as its parent traces to nothing: a located error."""
        if self.id in self.parent:
            raise FieldError(("parent",), f"requirement {self.id} names itself as its parent; name the stakeholder "
                                          "need or requirement it refines")
        return self

    @model_validator(mode="after")
    def _tolerance_fits(self) -> Self:
        """A tolerance is a non-negative distance of the limit's dimension, or a percentage of a limit not 0 or °C."""
        if self.tolerance is not None and (why := tolerance.problem(self.target, self.tolerance)):
            raise FieldError(("tolerance",), f"requirement {self.id}: {why}")
        return self

    @model_validator(mode="after")
    def _fraction_at_most_one(self) -> Self:
        """A target on a fraction of time (goodput) above 1 can never be met: a located error, not a finding."""
        limit = self.target.limit
        if self.metric in FRACTIONS and limit.dimensionless and limit.to("dimensionless").magnitude > 1:
            raise FieldError(("target",), f"requirement {self.id}: {self.metric} is a fraction of wall time, at most "
                                          f"1, got {limit.to('dimensionless').magnitude:g}; write e.g. '>= 0.9'")
        return self


def metric_problem(req: Requirement, kinds: tuple[str, ...]) -> tuple[str, str] | None:
    """Why `req` cannot be judged on objects of `kinds`, as (field, reason); None where it can.

    Its metric must be one they have (`archgen.metrics`) and its target of the metric's dimension. A requirement's
    own `subject` decides the kind where it names one (`rack/*`, `cluster/c/fabric/f`); one whose kind cannot be
    read is left to REQ002.
    """
    kind = metrics.subject_kind(req.subject) if req.subject else None
    subjects = (kind,) if kind else kinds
    if why := metrics.unknown(req.metric, subjects):
        return "metric", f"requirement {req.id}: {why}"
    if why := metrics.dimension_problem(req.metric, req.target.limit, subjects):
        return "target", f"requirement {req.id}: target '{req.target}' {why}"
    return None


def _of(kinds: tuple[str, ...]) -> AfterValidator:
    """An item validator: the requirement names a metric of `kinds` with a target of its dimension.

    On each item, so that every wrong requirement of a list is reported, not only the first.
    """

    def check(req: Requirement) -> Requirement:
        if problem := metric_problem(req, kinds):
            raise FieldError((problem[0],), problem[1])
        kind = metrics.subject_kind(req.subject) if req.subject else None
        target = req.target.read_as(*metrics.limit_per(req.metric, req.target.limit, (kind,) if kind else kinds))
        return req if target is req.target else req.model_copy(update={"target": target})   # 2.5 USD/h → 2.5 USD

    return AfterValidator(check)


class Status(StrEnum):
    """Whether a requirement is met: the one vocabulary of `check`, documents, `diff`, `gap`, `sweep`, `estimate`."""

    MET = "met"
    AT_RISK = "at risk"  # met, but not at one end of the model's error band or the failure-rate range (a warning)
    NOT_MET = "not met"
    NOT_PROVIDED = "not provided"  # no value to judge: no such object or metric, another dimension, or not judged
    NOT_APPLICABLE = "not applicable"  # a glob matched an object whose kind cannot have the metric (`checks.judgement`)


#: The statuses that pass: a requirement at risk is met by the estimate (a warning, not a failure).
PASSING = frozenset({Status.MET, Status.AT_RISK})


#: How a count names the requirements met on a figure resting on assumed inputs (`status_counts`).
MET_ASSUMED = "met on assumed inputs"


def status_counts(judged: Iterable[tuple[Status, bool]]) -> dict[str, int]:
    """How many of `judged` (each a status, and whether it rests on assumed inputs) have each status, in `Status` order.

    The one count of documents, `gap`'s summary line and its JSON: those met on assumed inputs apart (`MET_ASSUMED`),
    after the plain "met" (newuser106: "5 requirement(s): 1 met, ..." where the one met read "met (on assumed inputs:
    ...)" in the matrix).
    """
    pairs = list(judged)
    counts = {s.value: sum(1 for st, _ in pairs if st is s) for s in Status}
    assumed = sum(1 for st, on in pairs if st is Status.MET and on)
    return {Status.MET.value: counts.pop(Status.MET.value) - assumed, MET_ASSUMED: assumed, **counts}


class Risk(StrEnum):
    """Why a requirement the estimate meets is at risk, set by the rule that puts it there (`Outcome.risk`).

    Its value says it in a few words, as the performance table's status does (`render.compliance.risk_words`); the
    note the same rule writes says it at length (`Outcome.note`, the compliance matrix's Reason). `model.at_risk`'s
    rules set it from the band (`perf.workload.bands.Band.risk`), whose words they write beside it.
    """

    UNBANDED = "no band"  # no published run of the figure's family measured it (`Band.describe`)
    AT_LOAD = "no band at this load"  # too few of its load bin's (`Band.bin`)
    AT_CONTEXT = "no band at this context"  # past the family's longest context beyond the margin (`Band.longest`)
    UNMEASURED = "no band of this figure"  # a figure the model gives no band at all (`at_risk.unmeasured`)
    SHORTER = "band measured on shorter runs"  # past the longest context within the margin (`Band.caveat`)
    FEW_RUNS = "band of too few runs"  # expected coverage under `bands.LIKELY` (`Band.coverage_note`)


def miss_severity(level: str) -> Literal["error", "warning"]:
    """How severe a requirement not met, or not provided, is at its level: an error for SHALL, else a warning.

    The one rule by level: `check`'s REQ001 and REQ002 (a metric withheld or resting on an unknown input) and
    PERF001 report at this severity, and `fails` is what `diff` and `gap` fail on, so a SHOULD that `check` warns
    about never makes `diff` or `gap` exit 1.
    """
    return "error" if level == "shall" else "warning"


def fails(level: str, status: Status) -> bool:
    """Whether a requirement's status fails a report: not met or not provided, at a level whose miss is an error.

    Not applicable never fails: a glob subject matched an object that cannot have the metric (nu64fix).
    """
    return status not in PASSING and status is not Status.NOT_APPLICABLE and miss_severity(level) == "error"


class Judged:
    """A requirement with the value it was judged on: its headroom and margin (`Outcome`, `gap.GapRow`)."""

    requirement: Requirement
    value: Q | None

    @property
    def headroom(self) -> Q | None:
        """Signed distance to the limit in the limit's unit, positive inside the target (`Target.headroom`)."""
        return None if self.value is None else self.requirement.target.headroom(self.value)

    @property
    def margin(self) -> float | None:
        """Headroom relative to the limit (`Target.margin`); None where not provided or not defined."""
        return None if self.value is None else self.requirement.target.margin(self.value)


@dataclass(frozen=True)
class Outcome(Judged):
    """A requirement judged against a value (`judge`)."""

    requirement: Requirement
    value: Q | None
    status: Status
    note: str = ""  # why no value was provided
    band: tuple[Q, Q] | None = None  # where the value may lie by the model's measured error (perf.workload.bands)
    assumed: tuple[str, ...] = ()  # met on a figure that rests on these assumed inputs (`on_assumed`)
    tolerated: bool = False  # met only by the requirement's `tolerance`: the value is past the limit itself
    beyond: tuple[Q, Q] | None = None  # met with no band: the value at the worst light-load errors (`unbanded`)
    risk: Risk | None = None  # why at risk, where a rule of `model.at_risk` says it short; None: no such reason

    @property
    def shown(self) -> str:
        """The status as reports print it: "met (on assumed inputs: ...)" where it passes on assumed inputs.

        The inputs grouped by field where parts share one (`field_words.grouped_inputs`), in every output alike.

        A requirement verified otherwise than by analysis says what verifies it, "met (predicted by analysis, to be
        verified by test)", whatever its status but not provided (there is no prediction to qualify).
        """
        return self._status(self.assumed)

    @property
    def public_shown(self) -> str:
        """`shown` as a customer reads it: an assumed input's field in words ("sn2201 maximum power (unconfirmed)")."""
        return self._status(tuple(map(field_words.assumed_said, self.assumed)))

    def _status(self, assumed: tuple[str, ...]) -> str:
        notes = ["within tolerance"] if self.tolerated else []
        notes += [self.requirement.pending] if self.requirement.pending and self.value is not None else []
        notes += [f"on assumed inputs: {field_words.grouped_inputs(assumed)}"] if assumed else []
        return self.status.value + (f" ({'; '.join(notes)})" if notes else "")

    @property
    def met(self) -> bool | None:
        """True when met (at risk included: the estimate meets it), False when not, None when nothing to judge.

        Nothing to judge: not provided, or not applicable (the metric is not one the object's kind can have).
        """
        return None if self.status in (Status.NOT_PROVIDED, Status.NOT_APPLICABLE) else self.status in PASSING

    @property
    def pessimistic(self) -> Q | None:
        """The end of the band that the target judges worst (None without a band)."""
        if self.band is None or self.value is None:
            return None
        return min(self.band, key=lambda v: self.requirement.target.headroom(v).magnitude)

    @property
    def end_misses(self) -> bool:
        """Whether the band's pessimistic end misses the target (at risk by it: not `thin`'s or `unbanded`'s)."""
        p = self.pessimistic
        return p is not None and judge(self.requirement, p).status is Status.NOT_MET


#: A metric's value: a quantity, or a float in SI units (a sweep point's metrics).
V = TypeVar("V")


def spread(metrics: Mapping[str, V], metric: str) -> tuple[V, V] | None:
    """A metric's range where it is given beside it as `<metric>_low` and `<metric>_high`; None where it has none.

    A reliability figure's range over the rate sets (docs/reliability.md): quantities, or SI floats (a sweep point).
    """
    low, high = metrics.get(f"{metric}_low"), metrics.get(f"{metric}_high")
    return (low, high) if low is not None and high is not None else None


def judge(requirement: Requirement, value: Q | None, note: str = "", band: tuple[Q, Q] | None = None) -> Outcome:
    """Whether `value` meets `requirement`: the one judgement every command makes.

    No value (`note` says why), or one of another dimension than the target, is not provided. `band` is the range
    the value may be in by the model's measured error on comparable published runs (`perf.workload.bands`), or a
    reliability figure's range over the failure-rate sets (`spread`); a value that meets the target where one end of
    its band does not is at risk.
    """
    if value is None:
        return Outcome(requirement, None, Status.NOT_PROVIDED, note)
    limit = requirement.target.limit
    if not value.is_compatible_with(limit):
        return Outcome(requirement, None, Status.NOT_PROVIDED, note or f"target {requirement.target} does not have "
                       f"the dimension of {requirement.metric} ({value.dimensionality})")
    met, *ends = (bool(requirement.passes(v)) for v in (value, *(band or ())))
    tolerated = met and not requirement.target.met_by(value)
    return Outcome(requirement, value, status_of(met, ends), band=band, tolerated=tolerated)


def status_of(met: bool, ends: Iterable[bool] = ()) -> Status:
    """The status of a value that meets its target or not (`met`), where each end of its band does or not (`ends`).

    The one "at risk" rule (REQ004): a value that meets the target where one end of its band does not is at risk; met
    at the value and at every end, met; not met at the value, not met whatever its band. `judge` applies it to one
    value, a batched sweep to many (`perf.workload.derived.judge_values`).
    """
    return Status.NOT_MET if not met else Status.MET if all(ends) else Status.AT_RISK


def on_assumed(o: Outcome, assumed: Mapping[str, tuple[str, ...]] | None) -> Outcome:
    """`o` with the assumed inputs (`basis: assumed`) its metric rests on (`Operations.assumed`, by metric).

    The status is unchanged. Met or at risk names them all (REQ005, REQ004); not met the rate sets measured on another
    accelerator (`BorrowedSet`: newuser103's TPU v4 `mtti >= 24 h` read plainly "not met" on GPU fleets' rates).
    """
    inputs = tuple(x for x in (assumed or {}).get(o.requirement.metric, ())
                   if o.status in PASSING or (o.status is Status.NOT_MET and isinstance(x, BorrowedSet)))
    return replace(o, assumed=inputs) if inputs else o


def judge_each(requirement: Requirement, values: Q) -> list[bool] | None:
    """`judge` on many values at once (a quantity whose magnitude is an array: the points of a batched sweep).

    Whether each value meets the requirement (`Outcome.met` of `judge` on it, value by value); None where the
    values do not have the target's dimension (each not provided).
    """
    if not values.is_compatible_with(requirement.target.limit):
        return None
    return requirement.passes(values).tolist()


def _distinct_ids(reqs: list[Requirement]) -> list[Requirement]:
    """A list of requirements in which every id names one requirement (reports, diffs and sweeps key on it)."""
    first: dict[str, int] = {}
    errors = []
    for i, req in enumerate(reqs):
        if req.id in first:
            errors.append(FieldError((i, "id"), f"requirement id '{req.id}' is used twice (items {first[req.id]} and "
                                                f"{i}); give each requirement its own id"))
        first.setdefault(req.id, i)
    raise_each(errors, "requirements")
    return reqs


#: The requirements of a rack, of a cluster (on it or, by `subject`, its fabrics) and of a `Requirements` document.
RackRequirements = Annotated[list[Annotated[Requirement, _of(("rack",))]], AfterValidator(_distinct_ids)]
ClusterRequirements = Annotated[list[Annotated[Requirement, _of(("cluster",))]], AfterValidator(_distinct_ids)]
AnyRequirements = Annotated[list[Annotated[Requirement, _of(("rack", "cluster", "fabric", "workload"))]],
                            AfterValidator(_distinct_ids)]
#: The requirements of a workload, and of a sweep (whose points also have power, energy and accelerators).
WorkloadRequirements = Annotated[list[Annotated[Requirement, _of(("workload",))]], AfterValidator(_distinct_ids)]
SweepRequirements = Annotated[list[Annotated[Requirement, _of(("workload", "point"))]], AfterValidator(_distinct_ids)]


class Requirements(Document):
    """A set of requirements applying to racks, clusters or workloads."""

    kind: Literal["Requirements"] = "Requirements"
    revision: str = Field("", description=(
        "The released revision of these requirements, e.g. 'B': a partner's proposal names the one it answers "
        "(`document.answers`), and `archgen gap` reports a proposal that answers another; `diff` lists it changed."))
    requirements: AnyRequirements = Field(description="The requirements.")
