"""An estimate's error bands by metric (`bands`) and the context a job's bands are read at (`context_of`).

The look-up over `perf.workload.bands.band` for every metric of an estimate; split from `bands.py` for its size.
"""

from __future__ import annotations

from collections.abc import Iterable

from archgen.perf.workload.band_families import KINDS, QUANTITIES, quantity_family
from archgen.perf.workload.bands import Band, Span, band


def bands(family_: str, names: Iterable[str], accelerator: str = "", span: Span | None = None,
          load: float | None = None, context: int | None = None, vendor: str = "", arrival: str = "poisson",
          spans: Iterable[Span] = (), capacity: bool = False, routing: Span | None = None) -> dict[str, Band]:
    """The band of each of `names` that has one (`band`): on `accelerator` of `vendor`, its `span`, `load`, arrival.

    `spans` are further spans (a serving job's TPOT and TTFT): a metric takes the first of them that states its
    quantity, else `span`. A `capacity` run's throughput takes the offline family's band (`quantity_family`). An MoE
    serving estimate's `routing` span goes to each metric stating its quantity (`Band.routing`).
    """
    quantities, more = QUANTITIES[KINDS[family_]], tuple(spans)

    def own(name: str) -> Span | None:
        return next((s for s in more if quantities.get(s[0]) == quantities.get(name)), span)
    return {name: b for name in names if (b := band(quantity_family(family_, name, capacity), name,
                                                    accelerator=accelerator, span=own(name), load=load,
                                                    context=context, vendor=vendor, arrival=arrival,
                                                    routing=routing)) is not None}


def context_of(job: object) -> int | None:
    """A workload's or a case's context: a serving request's input + output tokens, a training sequence (else None)."""
    inf, training = getattr(job, "inference", None), getattr(job, "training", None)
    return inf.input_len + inf.output_len if inf is not None else training.seq_len if training is not None else None

