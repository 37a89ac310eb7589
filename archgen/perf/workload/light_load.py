"""The model's worst latency errors at light load on any serving family: a target cleared beyond them is met (light39).

A serving-under-load latency whose own load bin holds fewer than `bands.MIN_BIN` measurements has no band
("unmeasured at this load"), and a requirement its estimate meets is at risk (`model.at_risk.unbanded`). At light
load that told a user nothing: Llama 3.1 405B NVFP4 on GB200 at 8 requests/s read `ttft_p99 <= 6 s` at risk at
228.7 ms, a 26x margin, where even the capacity band's worst case puts the run at load 0.14 (newuser97, issue 20).

No band can be made for it from the bands that do have runs: the one measurement under Poisson arrivals at light load
(DeepSeek-R1 NVFP4 on 72 GB300, MLPerf Inference v5.1 Server, TTFT -83.6 %) lies far outside what its offline
throughput band carried over would allow (-53.5 % to -22.6 % as a time), and the dense closed loops' TTFT (+40.9 %)
outside the dense offline band's (-30.1 % to +8.8 %); the per-request host cost is not modelled at all. So no band is
given. What the project has measured at light load instead bounds how badly the model has ever erred there: the
lowest and highest error of every measurement taken at light load (`LIGHT` bin, by its own load) of the same latency
(a request's first token, mean and percentiles, or its gaps), on every serving family (dense and MoE) and either
arrival (`ARRIVALS`). A target that the estimate still meets at those errors is met, beyond every error measured there,
and says so; one it does not, or where those measurements are too few to likely hold a further run
(`bands.LIKELY`), stays at risk. Only where the run cannot leave the light bin (its load and the capacity band's reach
both under `band_families.LIGHT`): nearer capacity a queue magnifies the error (the worst measured, -97.9 %, Llama 3.1
8B on 8 B200 at a measured load of 0.94 where the model put it at 0.70), and nothing short of that is beyond it.
And only where the job's own family has at least `bands.MIN_BIN` of those runs, so that its worst errors are not all
another family's: MoE serving has one (the GB300 run), and newuser33's DeepSeek-R1 on a DGX B200 at MLPerf's 5.02/s,
at load 0.23 by the model, read TTFT p99 87 ms where the run measured 1.696 s, 19.4x, beyond the -88.9 % worst (since
lengths40 its reach, 0.59 at the capacity band scored at one length as the capacity is simulated, leaves light load).
The dense family's own light-load runs are all closed loops (NIM, Llama 3.3 70B on 2 H100): that a Poisson run's
queueing at a load under 0.5 stays within the MoE Poisson run's error is an assumption no dense Poisson run at light
load has tested (docs/perf-model.md, Error bands, Light load).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

from archgen.perf.workload.band_families import ARRIVALS, FAMILIES, LOAD_FAMILIES
from archgen.perf.workload.band_table import TABLE

#: The latencies whose light-load errors are taken together: a request's first token, and its gaps (mean, p50, p99).
LATENCIES = (("ttft", "ttft_p50", "ttft_p99"), ("tpot", "tpot_p50", "tpot_p99"))


class Worst(NamedTuple):
    """The errors measured at light load on one latency (`worst`), in its own direction (a time's).

    `runs` is the most measurements any one of the latency's figures has (its mean's, usually): a run gives its mean,
    p50 and p99 as three measurements, so that is the fewest runs they can come from; `own` the same count of the
    estimate's own family. `lowest` says where the lowest error, the model's worst under-prediction of the time, was
    measured.
    """

    runs: int
    own: int
    low: float
    high: float
    lowest: str


def worst(quantity: str, family_: str, table: Mapping[str, Mapping[str, tuple]] | None = None) -> Worst | None:
    """The errors measured at light load on `quantity`'s latency over every serving family and arrival; None if none.

    None too where `quantity` is not a latency kept per load bin (`LATENCIES`). `family_` is the estimate's, whose
    own runs `Worst.own` counts.
    """
    group = next((g for g in LATENCIES if quantity in g), ())
    rows = TABLE if table is None else table
    found = [(row, fam, q, arrival) for q in group for fam in LOAD_FAMILIES for arrival in ARRIVALS
             if (row := rows.get(fam, {}).get(f"{q}@light@{arrival}"))]
    if not found:
        return None

    def runs(families: tuple[str, ...]) -> int:
        return max(sum(row[0] for row, fam, q_, _ in found if q_ == q and fam in families) for q in group)
    row, fam, q, arrival = min(found, key=lambda f: f[0][1])
    return Worst(runs(LOAD_FAMILIES), runs((family_,)), row[1], max(f[0][2] for f in found),
                 f"{FAMILIES[fam]}'s {' '.join((q.split('_')[0].upper(), *q.split('_')[1:]))} {ARRIVALS[arrival]}")


def page_words(min_runs: int, likely: float, coverage: Callable[[int], float],
               table: Mapping[str, Mapping[str, tuple]] | None = None) -> str:
    """The rule and today's worst light-load errors, as docs/accuracy.md states them (`output.accuracy`).

    `min_runs`, `likely` and `coverage` are `bands.MIN_BIN`, `bands.LIKELY` and `bands.expected_coverage` (passed:
    `bands` imports this module), so that the page judges the runs as `Band.beyond` does.
    """
    parts, own = [], []
    for group in LATENCIES:
        w = worst(group[0], LOAD_FAMILIES[0], table)
        if w is None:
            continue
        few = (f" (expected coverage {coverage(w.runs):.0%}, under {likely:.0%}: too few, so a target on it stays "
               "at risk)" if coverage(w.runs) < likely else "")
        parts.append(f"{group[0].upper()} (mean and percentiles) {w.low:+.1%} to {w.high:+.1%} on {w.runs} or more "
                     f"runs, the worst on {w.lowest}{few}")
        own += [f"{FAMILIES[fam]} {group[0].upper()} {mine.own if mine else 0}"
                for fam in LOAD_FAMILIES for mine in (worst(group[0], fam, table),)]
    return ("A latency with no band at light load (its own bin and arrival hold fewer than "
            f"{min_runs} measurements) is judged by the worst errors measured at light load on any serving family "
            "and arrival instead: a target the estimate still meets at both is met, saying so, not at risk; one "
            "within them stays at risk (docs/perf-model.md, Error bands, Light load). No band is made from them. "
            f"Today: {'; '.join(parts)}. Only for a run whose load and reach stay at light load, and whose own family "
            f"has at least {min_runs} of those runs ({', '.join(own)}).")
