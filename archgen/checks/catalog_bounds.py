"""CAT013 to CAT015: an accelerator's figures against each other and the shipped catalog's (a typo's trace), idle draws.

Moved out of `checks/catalog.py` for its size; it imports this module, so the two checks register with CAT's others.
Neither bound is a physical law: CAT013 rests on every datasheet read keeping a part's dense peaks ordered by the
width of their data type, CAT014 on the shipped catalog's own largest figures, so it moves with the catalog.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

from archgen.cache import Memo
from archgen.checks.catalog_fields import once
from archgen.checks.registry import Context, Violation, check
from archgen.display import figure
from archgen.model import Accelerator, Switch, System
from archgen.units import Quantity

#: The tensor data types from the narrowest to the widest, those of one width together (bf16 and fp16: Gaudi 3's
#: fp16 tensor peak is below its bf16 one in the catalog, so the two are not compared); fp64 and int8 are left out.
PEAK_ORDER = (("fp4",), ("fp6",), ("fp8",), ("bf16", "fp16"), ("tf32",))


@check("CAT013", "catalog.peak_order", severity="warning")
def peak_order(ctx: Context) -> Iterator[Violation]:
    """An accelerator's dense peak in a narrower data type is at least its peak in the next wider one it states.

    Every accelerator in the shipped catalog keeps fp4 >= fp6 >= fp8 >= bf16 and fp16 >= tf32, as the datasheets
    they come from do: NVIDIA's H100 SXM (nvidia.com/en-us/data-center/h100, as tabulated at archive-lib.hpctech.co.jp
    /gpuproduct/nvidia-h100.html: TF32 989, BF16 1,979, FP8 3,958 TFLOPS, all with sparsity), the B200 (glennklockwood
    .com/garden/processors/B200: dense BF16 2,250, FP8 4,500, FP4 9,000), AMD's MI300X (dense BF16 1,307.4, FP8
    2,614.9 TFLOP/s: alpharomercoma/MI300X-vs-H200 METHODOLOGY.md at 6077fdc) and MI355X (stas00/ml-engineering
    compute/accelerator/README.md: BF16 2,500, FP8 5,000, FP6 and FP4 10,100 dense); Gaudi 3 states FP8 equal to BF16,
    which the rule allows. A narrower type's peak below a wider one's is most likely a slipped digit (600 for 6,000).
    Each data type is compared with the next wider width the part states (bf16 and fp16 are one width).

    Fix: check both figures against the datasheet (dense, not "with sparsity"); if it really says so, keep them and
    waive with the datasheet's words.
    """
    for part in ctx.design.specs.of(Accelerator):
        yield from once("CAT013", _peak_order, part)


def _peak_order(part: Accelerator) -> Iterator[Violation]:
    """CAT013 on one part (`once`)."""
    widths = [[(dt, part.peak[dt]) for dt in width if dt in part.peak] for width in PEAK_ORDER]
    stated = [w for w in widths if w]
    for narrow, wide in zip(stated, stated[1:], strict=False):
        wide_dt, wide_peak = max(wide, key=lambda d: d[1].to_root_units().magnitude)
        top = wide_peak.to_root_units().magnitude
        for dt, peak in narrow:   # equal in other prefixes is equal: 4.1 PFLOPS was below 4,100 TFLOPS by one ulp
            if (mine := peak.to_root_units().magnitude) < top and not math.isclose(mine, top):
                yield Violation(f"part/{part.id}", part.id, ("peak", dt),
                                f"{dt} peak {figure(peak)} is below the {wide_dt} peak, {figure(wide_peak)}: every "
                                f"catalog part and datasheet read gives a narrower data type at least the wider one's "
                                f"dense peak, so one of the two has likely slipped a digit", peak, wide_peak)


#: How many times the shipped catalog's largest figure a part's may be before CAT014 asks about it: a chosen
#: threshold, not a physical law. A generation has raised the catalog's figures by two to four times (H100 to B200:
#: bf16 peak 2.3x, memory bandwidth 2.4x, TDP 1.4x), while a unit or digit slip is 10x or 1,000x.
LEAD_FACTOR = 10


@check("CAT014", "catalog.beyond_catalog", severity="warning")
def beyond_catalog(ctx: Context) -> Iterator[Violation]:
    """An accelerator's figures are within ten times the shipped catalog's largest (a slip is 10x or 1,000x off).

    Judged: memory capacity, memory bandwidth, TDP, scale-up bandwidth and the peak in each data type the catalog
    states. The bound is the catalog's own largest figure (`LEAD_FACTOR` times it, a chosen threshold: a generation
    has raised the largest by two to four times), so it moves with the catalog; a figure far below the catalog's is
    not judged (small accelerators are real). A new part may lead: the finding is a warning, naming the catalog's
    part and the ratio.

    Fix: check the figure and its unit ('1200 TB/s' for '12 TB/s'); if the datasheet really says so, keep it and
    waive with the datasheet's words.
    """
    specs = ctx.design.specs
    largest = _largest(tuple(a for a in specs.of(Accelerator) if a.id in specs.library))
    for part in ctx.design.specs.of(Accelerator):
        yield from once("CAT014", _beyond_catalog, part, largest)


#: A figure CAT014 judges: its key path in an `Accelerator`, and its name in a message.
Figure = tuple[tuple[str, ...], str]


def _figures(part: Accelerator) -> Iterator[tuple[Figure, Quantity]]:
    """The figures of `part` CAT014 judges, where stated."""
    yield (("memory",), "memory capacity"), part.memory
    yield (("memory_bandwidth",), "memory bandwidth"), part.memory_bandwidth
    yield (("tdp",), "TDP"), part.tdp
    if part.scale_up is not None:
        yield (("scale_up", "bandwidth"), "scale-up bandwidth"), part.scale_up.bandwidth
    for dt, peak in sorted(part.peak.items()):
        yield (("peak", dt), f"{dt} peak"), peak


#: `_largest`'s answers by the catalog's parts they were read from (validated once a process, the same objects while
#: the files are unchanged: `validate.VALIDATED`), the parts kept.
_LARGEST = Memo[tuple[tuple[Accelerator, ...], tuple[tuple[Figure, Quantity, str], ...]]](4)


def _largest(parts: tuple[Accelerator, ...]) -> tuple[tuple[Figure, Quantity, str], ...]:
    """The largest value of each figure CAT014 judges among `parts` (the catalog's, by id), with the first holder."""
    key = tuple(map(id, parts))
    known = _LARGEST.get(key)
    if known is not None and all(a is b for a, b in zip(known[0], parts, strict=True)):
        return known[1]
    best: dict[Figure, tuple[Quantity, str]] = {}
    for part in parts:
        for fig, value in _figures(part):
            if fig not in best or value.to_root_units().magnitude > best[fig][0].to_root_units().magnitude:
                best[fig] = (value, part.id)
    return _LARGEST.put(key, (parts, tuple((fig, value, ref) for fig, (value, ref) in best.items())))[1]


def _beyond_catalog(part: Accelerator, largest: tuple[tuple[Figure, Quantity, str], ...]) -> Iterator[Violation]:
    """CAT014 on one part against the catalog's largest figures (`once`)."""
    bounds = {fig: (value, ref) for fig, value, ref in largest}
    for fig, value in _figures(part):
        if fig not in bounds:
            continue
        top, ref = bounds[fig]
        ratio = value.to_root_units().magnitude / top.to_root_units().magnitude
        if ratio > LEAD_FACTOR and not math.isclose(ratio, LEAD_FACTOR):   # 41 TB/s over 4.1: 10.000000000000002
            times = _times(ratio)
            yield Violation(f"part/{part.id}", part.id, fig[0],
                            f"{fig[1]} {figure(value)} is {times} the catalog's largest, {figure(top)} ({ref}): a "
                            f"unit or digit slip? (flagged past {LEAD_FACTOR}x, a chosen bound; a generation has "
                            "raised the catalog's largest by two to four times)", value, top * LEAD_FACTOR)


def _times(ratio: float) -> str:
    """A ratio past `LEAD_FACTOR` in words: '150x' at 100 or more, else '10.1x'.

    With the decimals it takes to read past the bound: '10.002x', not a rounded '10.0x' beside 'flagged past 10x'.
    """
    places = 0 if ratio >= 100 else 1
    while float(f"{ratio:.{places}f}") <= LEAD_FACTOR:
        places += 1
    return f"{ratio:,.{places}f}x"


@check("CAT015", "catalog.idle_draw", severity="warning")
def idle_draw(ctx: Context) -> Iterator[Violation]:
    """An idle draw lies above zero and at most the part's maximum draw (its TDP for an accelerator).

    An accelerator's `idle` readings are at most its `tdp`; a system's or switch's `power.idle` above 0 W and at most
    its `power.max`.

    A part powered on with no job draws something and no more than it may draw at all; an idle figure past the
    maximum is most likely the wrong unit or the wrong column of a table (a whole server's idle for one GPU's). The
    energy cost takes it for every idle hour (`Accelerator.idle`, `Electrical.idle`).

    Fix: check the reading and its unit against its source; if the source really says so, keep it and waive with
    its words.
    """
    specs = ctx.design.specs
    for part in specs.of(Accelerator) + specs.of(System) + specs.of(Switch):
        yield from once("CAT015", _idle_draw, part)


def _idle_draw(part: Accelerator | System | Switch) -> Iterator[Violation]:
    """CAT015 on one part (`once`)."""
    if isinstance(part, Accelerator):
        if part.idle is not None and part.idle[1] > part.tdp:
            yield Violation(f"part/{part.id}", part.id, ("idle",),
                            f"an idle reading of {figure(part.idle[1])} is above the TDP, {figure(part.tdp)}: a part "
                            "draws no more idle than at its most", part.idle[1], part.tdp)
        return
    idle, most = part.power.idle, part.power.max
    if idle is None or (idle.m > 0 and idle <= most):
        return
    why = (": a part powered on draws something" if not idle.m > 0 else
           f" is above the maximum draw, {figure(most)}: a part draws no more idle than at its most")
    yield Violation(f"part/{part.id}", part.id, ("power", "idle"), f"an idle draw of {figure(idle)}{why}", idle, most)
