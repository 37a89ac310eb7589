"""An estimate's error bands by metric (`bands`) and the context a job's bands are read at (`context_of`).

The look-up over `perf.workload.bands.band` for every metric of an estimate; split from `bands.py` for its size.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from archgen.display import significant
from archgen.perf.workload.band_families import ContextTokens, quantity_family
from archgen.perf.workload.band_span import Span, same_span, turned
from archgen.perf.workload.bands import Band, band


def bands(family_: str, names: Iterable[str], accelerator: str = "", span: Span | None = None,
          load: float | None = None, context: ContextTokens | None = None, vendor: str = "", arrival: str = "poisson",
          spans: Iterable[Span] = (), capacity: bool = False, routing: Span | None = None) -> dict[str, Band]:
    """The band of each of `names` that has one (`band`): on `accelerator` of `vendor`, its `span`, `load`, arrival.

    `spans` are further spans (a serving job's TPOT and TTFT): a metric takes the first of them that states its
    quantity, else `span`. A `capacity` run's throughput takes the offline family's band (`quantity_family`). An MoE
    serving estimate's `routing` span goes to each metric stating its quantity (`Band.routing`).
    """
    more = tuple(spans)

    def own(name: str) -> Span | None:
        return next((s for s in more if same_span(family_, s[0], name)), span)
    return {name: b for name in names if (b := band(quantity_family(family_, name, capacity), name,
                                                    accelerator=accelerator, span=own(name), load=load,
                                                    context=context, vendor=vendor, arrival=arrival,
                                                    routing=routing, simulated=capacity)) is not None}


def context_of(job: object) -> ContextTokens | None:
    """A workload's or a case's context: a serving request's prompt and decode context, a training sequence (else None).

    The decode context is what an output token's attention reads on average, the prompt + half the output
    (`ContextTokens`).
    """
    inf, training = getattr(job, "inference", None), getattr(job, "training", None)
    if inf is not None:
        return ContextTokens(inf.input_len, inf.input_len + inf.output_len // 2)
    return ContextTokens(training.seq_len, 0) if training is not None else None



def keep_up(bands_: Mapping[str, Band], rate: float, capacity: float) -> dict[str, Band]:
    """The band of `replicas_to_keep_up`, ceil(`rate` / `capacity`), a whole count, saying which way each end goes.

    Its errors are the replica capacity's turned (a count is a rate over the capacity), so they read inverted beside
    it: -31.6 % to +8.8 % for the capacity's -8.1 % to +46.2 % (newuser104). The band says the count at each end of the
    capacity's band (`Band.carried`): fewer replicas where the capacity is higher than the model's, more where lower.
    Empty where the estimate has no such band.
    """
    keep, cap = bands_.get("replicas_to_keep_up"), bands_.get("replica_capacity")
    if keep is None:
        return {}
    keep = replace(keep, whole=rate / capacity)
    ends, counts = (cap.values(capacity) if cap is not None else None), keep.values(rate / capacity)
    if ends is None or counts is None:
        return {"replicas_to_keep_up": keep}
    said = (f"ceil({significant(rate)} requests/s / the replica capacity): {counts[0]:,.0f} replicas at the capacity "
            f"band's high end ({significant(ends[1])} requests/s), {counts[1]:,.0f} at its low end "
            f"({significant(ends[0])} requests/s), so fewer where the capacity is higher than the model's and more "
            "where lower; the capacity's errors turned, as a count's: ")
    return {"replicas_to_keep_up": replace(keep, carried=said)}


#: The throughput metrics of an open loop that keeps up: the offered load, whatever the hardware (`delivered`).
DELIVERED = ("tokens_per_second", "tokens_per_second_per_gpu", "tokens_per_second_per_rack")


def delivered(bands_: Mapping[str, Band], rate: float, replicas: int, capacity: float) -> dict[str, Band]:
    """An open loop's throughput bands at `rate` requests/s on replicas of `capacity` each, kept up with or outrun.

    It serves what arrives, min(offered, replicas x capacity), so where the replica capacity's band (the offline
    family's, `CAPACITY_METRICS`) runs from c_low to c_high, the throughput lies in [min(1, replicas x c_low / rate),
    min(1, replicas x c_high / rate)] of the offered load, not in the offered load over the serving-under-load
    family's errors (those runs' throughput errors are their own replicas' against their arrivals). nu68fix: newuser68's
    72 replicas at 0.694 requests/s each, capacity band 0.930 to 1.444 requests/s, read REQ-TPUT at risk (26,780
    tokens/s, -22 %) though even the band's low end keeps up; now 32,750 to 32,750 tokens/s. Replicas that arrivals
    outrun serve r x c (the estimate's tokens/s), so the same band holds it, its errors taken against r x c: before
    (newuser104) such a run's tokens/s took the serving-under-load family's errors, -0.1 % to +22.3 %, measured on runs
    whose throughput was their offered load, beside its own replica capacity's -8.1 % to +46.2 % (an MoE job's none
    at all, beside a banded capacity). Empty where the capacity has no measured band.
    """
    cap = bands_.get("replica_capacity")
    ends = cap.values(capacity) if cap is not None else None
    if cap is None or ends is None or rate <= 0:
        return {}
    low, high = (min(1.0, replicas * c / rate) for c in ends)
    served = min(1.0, replicas * capacity / rate)   # the estimate's share of the offered load: 1 where it keeps up
    text = (f"what the open loop delivers, min(offered, {replicas} {'replica' if replicas == 1 else 'replicas'} x the "
            "replica capacity's band "
            f"{significant(ends[0])} to {significant(ends[1])} requests/s = {significant(replicas * ends[0])} to "
            f"{significant(replicas * ends[1])} requests/s): {low:.1%} to {high:.1%} of the offered "
            f"{significant(rate)} requests/s; the capacity's band: {cap.describe()}")
    errors = (served / high - 1, served / low - 1) if low > 0 else (served / high - 1, float("inf"))
    return {m: replace(cap, metric=m, low=errors[0], high=errors[1], median=0.0, spread=None, span="", reach=None,
                       delivered=text) for m in DELIVERED if m in bands_}


def offline_gap(bands_: Mapping[str, Band], tpot: float, step: float, batch: float, kv_bound: bool
                ) -> dict[str, Band]:
    """An offline run's TPOT bands (and tokens/s per user's, 1 / TPOT): the tokens/s band carried by Little's law.

    No published offline run's TPOT is scored (MLPerf's Offline judges no latency; trtllm-bench prints it only with
    --streaming and NVIDIA's perf-overview tables give throughput alone). But a request's mean latency over a run of
    `batch` in flight is batch x output_len / tokens/s per replica (Little's law), so at the same split of it between
    the first token and the gaps TPOT moves as 1 / tokens/s: the offline family's tokens/s band, turned, holds it. The
    split is the scheduler's: the closed form's point `tpot` is the most a request waits between its tokens at its
    tokens/s (every prompt prefilled between the steps, `lengths.offline_gap`), the decode `step` the least (an engine
    that decodes first), so the band runs from the step at the model's error one way to the point at the error the
    other (`Band.spread`, with the tokens/s band's own spread over the stated efficiency ranges where it has one).
    Where the `batch` is the KV cache's capacity by the model's memory estimate (`kv_bound`), which no published run
    measured, a TPOT target met across the band is at risk (`Band.caveat`), as it is for tokens/s's own caveat (a
    context past its runs', `bands.band`), which the carried bands keep (review63: it was dropped). Empty where
    tokens/s has no measured band or the metrics' own bands were measured (a scored offline TPOT, whose band is its
    own).
    """
    tput = bands_.get("tokens_per_second")
    if tput is None or not tput.measured or tpot <= 0 or step <= 0:
        return {}
    a, b = tput.spread or (1.0, 1.0)   # tokens/s's factors over the stated efficiency ranges (rates)
    ranges = f" and, as tokens/s does, {tput.span} over the part's stated efficiency ranges" if tput.span else ""
    said = (f"no published offline run's TPOT is scored; by Little's law a request lives {batch:,.0f} in flight x "
            "its output tokens / the replica's tokens/s, so TPOT moves as 1 / tokens/s and takes its band turned, "
            f"from the decode step of the batch ({significant(step * 1e3)} ms, the closed form's least gap; an engine "
            "that decodes first, fewer decoding, may go below it) to the closed form's schedule "
            f"({significant(tpot * 1e3)} ms, prompts prefilled between the steps){ranges}, each end taken with the "
            "model's error in the same direction; ")
    kv = (f"the {batch:,.0f} in flight are the KV cache's capacity by the model's memory estimate, which no "
          "published run measured: a larger cache holds more requests in flight and lengthens each one's gaps in "
          "proportion") if kv_bound else ""
    caveat = "; ".join(c for c in (tput.caveat, kv) if c)   # tokens/s's own (a context past its runs') kept first
    time_errors = turned(tput.low, tput.high)
    own = {"tpot": (*time_errors, (step / tpot / b, 1 / a)),
           "tokens_per_second_per_user": (tput.low, tput.high, (a, b * tpot / step))}
    return {m: replace(tput, metric=m, low=low, high=high, spread=spread, span="", routing=None, routed="",
                       carried=said + ("tokens/s's band as a time: " if m == "tpot" else "tokens/s's band: "),
                       caveat=caveat, caveat_risk=tput.caveat_risk)   # tokens/s's words first; the KV cache's has none
            for m, (low, high, spread) in own.items() if m in bands_ and not bands_[m].measured}
