"""A requirement's state in a run and how it changed between two (`compare.diff.compare`'s requirement rows).

Each requirement of a run judged by (object, id) as `archgen check` judges it (`requirement_states`), and those
whose status, target, level, metric or waiver differ between BASE and HEAD (`requirement_changes`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from archgen.checks.judgement import even_share_risks, outcome, workload_bands
from archgen.display import target_text
from archgen.metrics import lookup
from archgen.model import tolerance
from archgen.model.requirements import LEVELS, PASSING, Outcome, Status, fails
from archgen.model.target import Target
from archgen.pipeline import Run
from archgen.units import Q


@dataclass(frozen=True)
class RequirementState:
    """Whether one requirement of one object is met in a run (`judge`), and the waiver of its finding if any."""

    object: str
    requirement: str
    statement: str
    metric: str
    target: str
    level: str
    status: Status
    value: Q | None = None
    waived: str = ""
    verification: str = "analysis"   # what verifies it (`Requirement.verification`); archgen's own is analysis
    parent: tuple[str, ...] = ()     # what it refines (`Requirement.parent`)
    tolerated: bool = False          # met only within its `tolerance` (`Outcome.tolerated`)
    bound: Target | None = None      # the target as judged (`Requirement.target`): which way a new one moved
    tolerance: str = ""              # its tolerance in words (`tolerance.text`), "" without one


@dataclass(frozen=True)
class RequirementChange:
    """A requirement whose status, definition or waiver differs between BASE and HEAD (None: absent there).

    A target, level, metric or verification method edited with the status unchanged (a weight limit raised from
    1,400 to 9,000 kg, met on both sides) read "No differences" with ✅, and a miss newly waived "0 requirement(s)
    newly failing" (newuser32's trial): a reviewer of the comment never saw the requirement move.
    """

    base: RequirementState | None
    head: RequirementState | None

    @property
    def key(self) -> tuple[str, str]:
        """(object, requirement id)."""
        return (self.state.object, self.state.requirement)

    @property
    def state(self) -> RequirementState:
        """HEAD's state, or BASE's where HEAD no longer has the requirement."""
        s = self.head or self.base
        assert s is not None, "a requirement change has at least one side"
        return s

    @property
    def failing(self) -> bool:
        """HEAD fails the requirement (unwaived) and BASE did not, or did not have it.

        Failing is `model.requirements.fails`: a SHALL not met or not provided; a SHOULD or MAY missed is a change
        to read, as `check` reports it as a warning, not a failure.
        """
        return (self.head is not None and fails(self.head.level, self.head.status) and not self.head.waived
                and (self.base is None or not fails(self.base.level, self.base.status)))

    @property
    def missed(self) -> bool:
        """HEAD misses a SHOULD or MAY (unwaived: not met or not provided) that BASE did not miss, or did not have.

        Listed, exit 0, as `check` warns of it (`failing` is a SHALL's miss). Counted on its own, as the summary's
        "1 newly missed (SHOULD/MAY)": a row ✅ met → ❌ not met read "0 requirement(s) newly failing, 0 newly met"
        (newuser101's trial: a cluster grown past the hall's 2 MW SHOULD).
        """
        return (_misses(self.head) and self.head is not None and not fails(self.head.level, self.head.status)
                and not _misses(self.base))

    def newly(self, status: str) -> bool:
        """HEAD's status is `status` ("met", "at risk") and BASE's was not, or BASE lacked the requirement."""
        return self.head is not None and self.head.status == status and _status(self.base) != status

    @property
    def at_risk(self) -> bool:
        """HEAD is at risk where BASE met the requirement, lacked it or found it not applicable: a step down, or new.

        Not where BASE missed it (not met or not provided): that step is up, counted as `from_miss` (review61: the
        summary read "1 newly at risk" for a SHALL ❌ not met → ⚠️ at risk, an improvement, as if it were worse).
        """
        return self.newly("at risk") and not self.from_miss

    @property
    def from_miss(self) -> bool:
        """HEAD is at risk where BASE did not meet or provide the requirement: better, not a pass to wave through."""
        return self.newly("at risk") and _status(self.base) in (Status.NOT_MET, Status.NOT_PROVIDED)

    @property
    def redefined(self) -> bool:
        """Both sides have the requirement, with another target, level, metric, verification method or parent in HEAD.

        A verification method edited (a SHALL that a test at acceptance decides made `analysis`) changes what
        closes the requirement, so a review must see it as it sees a target moved.
        """
        return self.base is not None and self.head is not None and _definition(self.base) != _definition(self.head)

    @property
    def tightened(self) -> bool | None:
        """True where HEAD's redefinition asks more, False where it asks less; None where not redefined so, or mixed.

        More is a bound moved against the value (`<= 150 kW` → `<= 145 kW`, `>= 800 Gb/s` → `>= 1.6 Tb/s`, `<=` →
        `<`) or a level raised (MAY → SHOULD → SHALL); less the reverse. A metric or verification method changed,
        or a bound and a level moved opposite ways, is only "redefined": no single word says it (newuser86's trial:
        a partner read "1 redefined" for a rack budget cut from 150 to 145 kW).
        """
        if not self.redefined or self.base is None or self.head is None or self.base.metric != self.head.metric \
                or self.base.verification != self.head.verification:
            return None
        moves = {_tighter(self.base.bound, self.head.bound),   # a level moved up LEVELS (towards shall) tightens
                 LEVELS.index(self.base.level) - LEVELS.index(self.head.level)} - {0}
        signs = {m > 0 for m in moves if m is not None}
        return None if None in moves or len(signs) != 1 else signs.pop()

    @property
    def newly_waived(self) -> bool:
        """HEAD misses the requirement under a waiver, where BASE met it, lacked it or missed it unwaived."""
        return (self.head is not None and self.head.status != "met" and bool(self.head.waived)
                and (self.base is None or self.base.status == "met" or not self.base.waived))


def requirement_changes(base: Run, head: Run, alias: Callable[[str], str] = str) -> tuple[RequirementChange, ...]:
    """The requirements whose status, definition or waiver differs between `base` and `head`, by id, then object.

    `alias`: HEAD's object path as BASE names it (`compare.pairs.renamer`: `diff --pair`).
    """
    before = requirement_states(base)
    after = {(alias(o), r): replace(s, object=alias(o)) for (o, r), s in requirement_states(head).items()}
    return tuple(RequirementChange(before.get(k), after.get(k))
                 for k in sorted(set(before) | set(after), key=lambda k: (k[1], k[0]))
                 if _status(before.get(k)) != _status(after.get(k)) or _as_judged(before[k]) != _as_judged(after[k]))


def requirement_states(run: Run) -> dict[tuple[str, str], RequirementState]:
    """Every requirement of a run by (object, id), judged as `archgen check` judges it (REQ001, PERF001)."""
    failed = {(f.object, f.requirement): f for f in run.findings if f.id in ("REQ001", "PERF001") and f.requirement}
    states: dict[tuple[str, str], RequirementState] = {}
    bands, risks = workload_bands(run.workloads), even_share_risks(run.clusters)
    for b in run.design.requirements:
        obj = b.subject or b.pattern  # a glob that matches no object stands for itself, as in REQ002
        judged = outcome(b, run.metrics, run.design, run.operations.withheld, bands, run.operations.unsettled,
                         run.operations.assumed, risks)
        states[(obj, b.req.id)] = _state(obj, judged, failed)
    for j in run.requirements:   # a workload's own, as `judge_all` judged them: not provided where not estimated
        if j.workload:
            states[(j.bound.subject, j.outcome.requirement.id)] = _state(j.bound.subject, j.outcome, failed)
    return states


def _state(obj: str, o: Outcome, failed: dict) -> RequirementState:
    finding = failed.get((obj, o.requirement.id))
    req = o.requirement
    # the target as `check` words it (`display.target_text`: '>= 600,000 tokens/s', '>= 35 %'), not pint's '1/s',
    # with its tolerance, so that a tolerance edited is a requirement redefined
    allowed = tolerance.text(req.tolerance)
    target = target_text(req.target, lookup(obj, req.metric)) + allowed
    return RequirementState(obj, req.id, req.statement, req.metric, target,
                            req.level, o.status, o.value,
                            finding.waived if finding else "", req.verification, tuple(req.parent), o.tolerated,
                            req.target, allowed)


#: Bounds from above and from below (`Target.op`); `==` is neither.
_UPPER, _LOWER = ("<=", "<"), (">=", ">")


def _tighter(base: Target | None, head: Target | None) -> int | None:
    """1 where `head` admits fewer values than `base`, -1 where more, 0 where the same; None where incomparable."""
    if base is None or head is None or base == head:
        return 0
    for side, sign in ((_UPPER, 1), (_LOWER, -1)):
        if base.op in side and head.op in side and head.limit.is_compatible_with(base.limit):
            step = (head.limit.to(base.limit.units).magnitude - base.limit.magnitude) * -sign
            strict = (head.op in ("<", ">")) - (base.op in ("<", ">"))   # the same limit, now excluded
            return (step > 0) - (step < 0) or strict
    return None


def _misses(state: RequirementState | None) -> bool:
    """The state misses its requirement, at any level, unwaived: not met or not provided."""
    return state is not None and not state.waived and state.status not in PASSING \
        and state.status is not Status.NOT_APPLICABLE


def _status(state: RequirementState | None) -> str:
    return "absent" if state is None else state.status


def _definition(state: RequirementState) -> tuple:
    """What a requirement asks: its target by the limit it is read as, its tolerance, level, metric, verification.

    And its parent. The limit as read (`Target.key`): ``<= 400 EUR/month`` on a cost per year is ``<= 4800 EUR``,
    not a redefinition (cost41).
    """
    asked = (state.bound.key, state.tolerance) if state.bound is not None else state.target
    return (asked, state.level, state.metric, state.verification, state.parent)


def _as_judged(state: RequirementState) -> tuple:
    """What a requirement change is listed for besides its status: its definition and whether a waiver covers it."""
    return (*_definition(state), bool(state.waived))
