"""REQ007: a money target written per a time of the other kind than its metric's (a year's cost per hour, and back).

Moved out of `checks/requirements.py` for its size; it imports this module, so the check registers with REQ's others.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.checks.registry import Context, Violation, check
from archgen.display import metric_value
from archgen.metric import Metric
from archgen.metrics import REGISTRY, lookup
from archgen.money import invoiced
from archgen.units import Q_


@check("REQ007", "requirements.time_base", severity="warning")
def money_target_time_base(ctx: Context) -> Iterator[Violation]:
    """A money target written per a time is per its metric's kind of time: a cost per year per a month or longer.

    A target on a cost per year may be written per month (``<= 400 EUR/month`` is read as 4,800 EUR) and one on a cost
    per accelerator-hour per minute (``<= 0.05 USD/min``, 3 USD): each is read as the amount for the metric's own time
    (`Metric.as_limit`), and shown beside the limit as written. The line between the two kinds is an invoice's
    (`money.invoiced`): an amount per a month or longer is a bill's, one per less a price's. Written across it, the
    target is read the same way, but most likely names the wrong metric: ``<= 2.5 USD/h`` on `tco_per_year` is
    21,915 USD a year, which no cluster meets (a cost per accelerator-hour was meant: `tco_per_accelerator_hour`);
    ``<= 20000000 USD/year`` on `tco_per_accelerator_hour` is 2,281.542 USD an hour, which every cluster meets (a
    cluster's year was meant: `tco_per_year`). One warning where the requirement is written, however many objects its
    subject matches.

    Fix: name the metric meant, or write the limit per the metric's own time (``<= 21915 USD/year``).
    """
    stated = {(b.owner, b.path): b for b in ctx.design.requirements + ctx.design.workload_requirements}
    for b in stated.values():
        target, m = b.req.target, lookup(b.subject, b.req.metric)
        if m is None or not m.money or not m.per or target.written is None or invoiced(target.written) == m.amount:
            continue
        written = f"'{target.op} {target.as_written}'"
        per = (Q_(1, target.limit.units) / Q_(1, target.written.units)).units   # hour: 'USD/h' on a cost per year
        own, other = _time(m), _meant(m)
        shown = metric_value(m, target.limit) + ("" if m.money_rate else f" {_a(own)} {own}")   # '2,281.542 USD/h'
        read = f"is written per {per:D} and read as {shown}"
        fix = f"if {shown} was meant, write the limit per {own}"
        meant = f"if a cost per {_time(other)} was meant, the metric is {{}}; {fix}" if other else fix
        yield Violation(b.pattern or b.subject, b.owner, b.path + ("target",),
                        f"{b.req.id} ({b.req.statement}): target {written} on {m.name}, a cost per {own}, {read}; "
                        + meant.format(other.name if other else ""), requirement=b.req.id,
                        public=f"{b.req.id} ({b.req.statement}): target {written} on {m.said} {read}; "
                        + meant.format(other.said if other else ""))


def _meant(m: Metric) -> Metric | None:
    """The cost of the other kind of time a target on `m` most likely meant: `tco_per_year`'s per accelerator-hour.

    The first metric of its object that is money per a time of the other kind and whose name begins with the same
    word; None where there is none (`energy_cost_per_year`, a job's `job_cost_per_hour`).
    """
    head = m.name.split("_")[0]
    return next((o for o in REGISTRY if o.subject == m.subject and o.money and o.per and o.amount != m.amount
                 and o.name.split("_")[0] == head), None)


def _time(m: Metric) -> str:
    """The time `m` is a cost per, as words say it: 'year', 'hour'."""
    return f"{Q_(1, m.per).units:D}"


def _a(noun: str) -> str:
    """The indefinite article before `noun`: 'an' before 'hour', 'a' before 'year'."""
    return "an" if noun[0] in "aeiouh" else "a"
