"""The rules that put a requirement the estimate meets at risk (REQ004) for why its figure may not hold.

No published run bounds the model's error on it (`unbanded`), too few to likely hold a further run do (`thin`), or the
model gives the figure no band at all (`unmeasured`). Each writes its reason at length in the outcome's note and, where
it has one, in a few words as a field (`Outcome.risk`: `requirements.Risk`), so that no reader parses the note back.
Split from `model.requirements` for its size.
"""

from dataclasses import replace

from archgen import metrics
from archgen.model.requirements import Outcome, Risk, Status, judge
from archgen.units import Q

#: Why a requirement met on an estimated figure with no measured error band is at risk, not met (REQ004; issue 20
#: part 7, the lead's decision): the model's error there is unbounded by any published run, so the estimate meeting
#: the target says nothing of the system doing so.
UNBANDED = "no published measurement of this family, load or context to bound the model's error"


def unbanded(o: Outcome, why: str, beyond: tuple[Q, Q] | None = None, beyond_why: str = "",
             risk: Risk | None = Risk.UNBANDED) -> Outcome:
    """`o`, judged met on an estimated figure whose error band no scored run measured (`why` says which), at risk.

    The figure carries a band (a performance estimate, `perf.workload.bands`), but no published run of its family,
    load bin or context measured it, so nothing bounds the model's error: a requirement the estimate meets is at risk
    with that reason (`UNBANDED`), never a plain pass. One not met, or not provided, is left as it is. `beyond` is the
    value at the worst errors ever measured where it is (a latency at light load on any serving family,
    `perf.workload.bands.Band.beyond`): a requirement met at both its ends stays met, saying so (`beyond_why`).
    `risk` is `why` in a few words (`Band.risk`: no band at this load, at this context, or at all).
    """
    if o.status is not Status.MET:
        return o
    if beyond is not None and all(judge(o.requirement, v).status is Status.MET for v in beyond):
        return replace(o, note=beyond_why, beyond=beyond)
    return replace(o, status=Status.AT_RISK, note=f"{UNBANDED}: {why}", risk=risk)


def thin(o: Outcome, why: str, risk: Risk | None = None) -> Outcome:
    """`o`, met across a band too few measurements are expected to hold a further run in (`why` says so), at risk.

    `why` is the band's `coverage_note` (`perf.workload.bands.Band.coverage_note`): empty where its expected coverage,
    (n - 1) / (n + 1), is at least `bands.LIKELY`, and `o` is then left as it is, as one not met or not provided is.
    Any other reason the figure may not hold does as well (a bisection cut over the even share, NET034). `risk` is
    `why` in a few words where it has them (`Band.risk`), else None.
    """
    if o.status is not Status.MET or not why:
        return o
    return replace(o, status=Status.AT_RISK, note=why, risk=risk)


#: Why a requirement met on a figure of the model that carries no error band at all is at risk (`unmeasured`).
UNMEASURED = "no published run measures the model's error on this figure"


def unmeasured(o: Outcome, metric: metrics.Metric | None) -> Outcome:
    """`o`, met on a figure the model estimates with no error band (`Metric.unmeasured` says why), at risk (REQ004).

    `unbanded`'s rule where the figure has no band (a serving job's memory: `band_families.QUANTITIES` lists no
    quantity for it): a requirement the estimate meets is at risk with that reason; one not met or not provided, or
    on a figure that is arithmetic on stated inputs (no `unmeasured`), is left as it is.
    `perf.workload.band_verdict.verdict` (for `check` and `estimate` alike) calls it where the estimate has neither a
    band nor a range (`spread`) of it.
    """
    if metric is None or not metric.unmeasured:
        return o
    return thin(o, f"{UNMEASURED}: {metric.unmeasured}", Risk.UNMEASURED)
