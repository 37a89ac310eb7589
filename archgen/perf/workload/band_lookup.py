"""An estimate's error bands by metric (`bands`) and the context a job's bands are read at (`context_of`).

The look-up over `perf.workload.bands.band` for every metric of an estimate; split from `bands.py` for its size.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from archgen.display import significant
from archgen.perf.workload.band_families import KINDS, QUANTITIES, quantity_family
from archgen.perf.workload.band_span import Span
from archgen.perf.workload.bands import Band, band


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



#: The throughput metrics of an open loop that keeps up: the offered load, whatever the hardware (`delivered`).
DELIVERED = ("tokens_per_second", "tokens_per_second_per_gpu", "tokens_per_second_per_rack")


def delivered(bands_: Mapping[str, Band], rate: float, replicas: int, capacity: float) -> dict[str, Band]:
    """An open loop's throughput bands where its replicas keep up with `rate` requests/s at `capacity` each.

    It serves what arrives, min(offered, replicas x capacity), so where the replica capacity's band (the offline
    family's, `CAPACITY_METRICS`) runs from c_low to c_high, the throughput lies in [min(1, replicas x c_low / rate),
    min(1, replicas x c_high / rate)] of the offered load, not in the offered load over the serving-under-load
    family's errors (those runs' throughput errors are their own replicas' against their arrivals). nu68fix: newuser68's
    72 replicas at 0.694 requests/s each, capacity band 0.930 to 1.444 requests/s, read REQ-TPUT at risk (26,780
    tokens/s, -22 %) though even the band's low end keeps up; now 32,750 to 32,750 tokens/s. Empty where the capacity
    has no measured band.
    """
    cap = bands_.get("replica_capacity")
    ends = cap.values(capacity) if cap is not None else None
    if cap is None or ends is None or rate <= 0:
        return {}
    low, high = (min(1.0, replicas * c / rate) for c in ends)
    text = (f"what the open loop delivers, min(offered, {replicas} replicas x the replica capacity's band "
            f"{significant(ends[0])} to {significant(ends[1])} requests/s = {significant(replicas * ends[0])} to "
            f"{significant(replicas * ends[1])} requests/s): {low:.1%} to {high:.1%} of the offered "
            f"{significant(rate)} requests/s; the capacity's band: {cap.describe()}")
    errors = (1 / high - 1, 1 / low - 1) if low > 0 else (1 / high - 1, float("inf"))
    return {m: replace(cap, metric=m, low=errors[0], high=errors[1], median=0.0, spread=None, span="", reach=None,
                       delivered=text) for m in DELIVERED if m in bands_}
