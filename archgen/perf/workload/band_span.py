"""A metric's direction and an estimate's span, as an error band takes them (`perf.workload.bands`).

Whether a larger value of a metric is better (`maximise`) decides which way a band's errors are read, and a band of
rate errors seen as a time's is `turned`. Where no measurement was taken on the estimated part, a band also spans the
estimate's range over the part's stated efficiency ranges (`Span`): `span_factors` gives that range as factors of a
metric's estimate, `span_words` says it, and `routed` does both for an MoE serving estimate's routing span.
Split from `bands.py` for its size (STYLE.md 12); no behaviour moved.
"""

from __future__ import annotations

from archgen import metrics
from archgen.display import significant
from archgen.metric import RENAMED
from archgen.perf.workload.band_families import KINDS, QUANTITIES, SPANS_AS
from archgen.units import Q_

#: Workload metrics that rise as the step time falls though neither direction is better: a training job's load-swing
#: frequency, 1 / step time (`swing_note.swing_metrics`), and its dataset read bandwidth, tokens/s times stated inputs
#: (`analyse.storage_demand`). Their band is the step time's, turned, as a rate's is.
PER_TIME = ("swing_frequency", "dataset_read_bandwidth")


def maximise(metric: str) -> bool:
    """Whether the workload `metric` is read as a rate: the side a band is taken from.

    A larger value better as the metrics registry declares it, or one of `PER_TIME` (the inverse of a time with no
    better direction).
    """
    if metric in PER_TIME:
        return True
    m = metrics.find("workload", RENAMED.get(metric, (metric,))[0])   # a case's tflops_per_gpu: model_flops_per_gpu
    return bool(m and m.maximise)


def turned(low: float, high: float) -> tuple[float, float]:
    """A band of relative errors seen from the other side (a rate's band as a time's, and back)."""
    return 1 / (1 + high) - 1, 1 / (1 + low) - 1


#: An estimate's span over the part's stated efficiency ranges: (the metric it was taken of, its point, low, high).
Span = tuple[str, float, float, float]


def routed(family_: str, metric: str, routing: Span) -> tuple[tuple[float | None, float], str] | None:
    """The routing span as factors of `metric`'s estimate, and in words as a band's `describe` ends with them.

    None where `metric` does not state the span's quantity.
    """
    name, point, lo, hi = routing
    factors = span_factors(family_, metric, routing if lo > 0 else (name, point, hi, hi))
    if factors is None:
        return None
    ends: tuple[float | None, float] = factors
    if lo > 0:
        said = span_words(routing)
    else:   # no published skew bounds the slower end
        scale, unit = _shown(metrics.find("workload", name))
        said = (f"{_title(name)} (not bounded below, {significant(hi * scale)}{unit} balanced, around "
                f"{significant(point * scale)}{unit})")
        ends = (None, factors[1])
    return ends, (f"; routing: {said}, {'from the published routing skew' if lo > 0 else 'up'} to perfectly balanced "
                  "routing around the point's uniform random routing, not in the band's ends (docs/perf-model.md, MoE "
                  "serving routing)")


def span_words(span: Span) -> str:
    """A span in words: 'the time per output token (21.3 ms to 30.1 ms around 24.7 ms)'."""
    name, point, lo, hi = span
    scale, unit = _shown(metrics.find("workload", name))
    low, high, at = (significant(x * scale) for x in (lo, hi, point))
    return f"{_title(name)} ({low}{unit} to {high}{unit} around {at}{unit})"


def _title(name: str) -> str:
    """A metric's title in a sentence: 'the time per output token'."""
    m = metrics.find("workload", name)
    return f"the {name if m is None else m.said}"


def _shown(m: metrics.Metric | None) -> tuple[float, str]:
    """The factor from a metric's SI value to the unit it is shown in, and that unit: a busbw's span in GB/s."""
    if m is None or not m.dimension:
        return 1.0, ""
    if m.rate_unit():   # a rate shown as what it counts: tokens/s, not 1/s (newuser93)
        return float(Q_(1.0, m.dimension).m_as(m.unit)), f" {m.rate_unit()}"
    if not m.unit or m.unit == m.dimension or m.unit == "percent":
        return 1.0, f" {m.dimension}"
    return float(Q_(1.0, m.dimension).m_as(m.unit)), f" {m.unit}"


def same_span(family_: str, name: str, metric: str) -> bool:
    """Whether a span of metric `name` stands for `metric`'s: they state one quantity, or one spans as the other's."""
    quantities = QUANTITIES[KINDS[family_]]
    spans = [SPANS_AS.get(q, q) if q is not None else None for q in (quantities.get(name), quantities.get(metric))]
    return spans[0] == spans[1]


def span_factors(family_: str, metric: str, span: Span) -> tuple[float, float] | None:
    """`span` as factors of `metric`'s estimate, (low, high), where `metric` states the quantity `span` is of."""
    name, point, lo, hi = span
    if not same_span(family_, name, metric) or point <= 0 or lo <= 0:
        return None
    return (lo / point, hi / point) if maximise(metric) == maximise(name) else (point / hi, point / lo)
