"""REQ: requirements with targets on computed metrics."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from archgen.checks.registry import Context, Violation, check
from archgen.errors import did_you_mean


@check("REQ001", "requirements.met")
def requirement_met(ctx: Context) -> Iterator[Violation]:
    """A requirement's target is met by the computed metric.

    Fix: change the design until the metric meets the target, or revise the requirement with its owner.
    """
    for b in ctx.design.requirements:
        value = ctx.metrics.get(b.subject, {}).get(b.req.metric)
        if value is None or not value.is_compatible_with(b.req.target.limit):
            continue
        if not b.req.target.met_by(value):
            shown = value.to(b.req.target.limit.units) if not b.req.target.limit.dimensionless else value
            yield Violation(b.subject, b.owner, b.path + ("target",),
                            f"{b.req.id} ({b.req.statement}): {b.req.metric} = {shown:.4g~P}, target {b.req.target}",
                            value, b.req.target.limit, b.req.id, "error" if b.req.level == "shall" else "warning")


@check("REQ002", "requirements.metric")
def requirement_metric(ctx: Context) -> Iterator[Violation]:
    """A requirement names a subject and a metric that exist, with a target of the metric's dimension.

    Fix: use a metric listed for the subject (`archgen check --format json` shows them), and a target in its units.
    """
    for b in ctx.design.requirements:
        metrics = ctx.metrics.get(b.subject)
        if metrics is None:
            yield Violation(b.subject or b.owner, b.owner, b.path + ("subject",),
                            f"{b.req.id}: unknown subject '{b.subject}'{_suggest(b.subject, ctx.metrics)}")
        elif b.req.metric not in metrics:
            yield Violation(b.subject, b.owner, b.path + ("metric",),
                            f"{b.req.id}: {b.subject} has no metric '{b.req.metric}'{_suggest(b.req.metric, metrics)} "
                            f"(known: {', '.join(sorted(metrics))})")
        elif not metrics[b.req.metric].is_compatible_with(b.req.target.limit):
            yield Violation(b.subject, b.owner, b.path + ("target",),
                            f"{b.req.id}: target {b.req.target} does not have the dimension of {b.req.metric} "
                            f"({metrics[b.req.metric].dimensionality})")


def _suggest(name: str, known: Iterable[str]) -> str:
    return did_you_mean(name, known, cutoff=0.7, lead="; ")
