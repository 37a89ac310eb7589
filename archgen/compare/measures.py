"""What a diff says beside a metric's move: the model's band, whether both sides measure one thing, a class at 0.

newuser101's trial of eight pull requests found three figures that read as ones we can stand behind:

- an estimate's move without its band (MFU 56.29 % → 49.46 % "worse", of a figure whose band is -10 % to +61 %):
  `bands` gives the ends of the model's error band on each side, as `check`'s JSON `bands` and REQ004 take them
  (`perf.workload.derived.band_ends`), and `within` says whether each side's value lies in the other's band;
- two measures compared (a serving job made offline → concurrency 64: TTFT 35.8 ms → 142.7 ms "worse +299 %", one
  prefill on an idle replica against a loaded run's mean): a workload's figures are of one run of its job, and
  `Measure` is what defines that run (its job, the scenario its figures come from, its accelerators); where one
  differs, `unlike` says why its figures are not comparable;
- a reliability class that disappears (a pull request that drops every copper cable: `interruptions_per_day.cable`
  read "only in BASE", so the total moved and no class explained it): `no_parts` says that a side with no part of
  the class has 0 of its interruptions, and why.
"""

from __future__ import annotations

from dataclasses import dataclass

from archgen.perf.workload.band_families import run_scenario
from archgen.perf.workload.derived import band_ends
from archgen.pipeline import Run
from archgen.units import Q_, Q

#: The ends of a figure's band: (low, high).
Ends = tuple[Q, Q]

#: A part class's interruptions of a job and their interval's ends (`analyse.reliability.job_breakdown`).
CLASS = "interruptions_per_day."


def bands(run: Run, path: str) -> dict[str, Ends]:
    """The ends of the model's error band of each banded figure of workload `path` in `run`; {} elsewhere.

    One band machinery: an estimate's `bands` at its value and, where the figure has a range of its own (a job's cost
    over its goodput's range), at each end of it (`derived.band_ends`), as `check --format json` and REQ004 read them.
    """
    w = run.workloads.get(path)
    est = w.estimate if w is not None else None
    if est is None:
        return {}
    out = {}
    for name, band in est.bands.items():
        value = est.metrics.get(name)
        ends = band_ends(band, value, est.metrics, name) if value is not None else None
        if ends is not None:
            out[name] = ends
    return out


def within(value: Q, ends: Ends | None) -> bool:
    """Whether `value` lies between a band's ends (inclusive); False without a band or where the units differ."""
    if ends is None or not value.is_compatible_with(ends[0]):
        return False
    v = float(value.to(ends[0].units).magnitude)
    return float(ends[0].magnitude) <= v <= float(ends[1].to(ends[0].units).magnitude)


@dataclass(frozen=True)
class Measure:
    """What defines the figures of a workload's run: its job, the scenario they come from, its accelerators.

    `scenario` is a serving job's (`band_families.run_scenario`: a server scenario without an arrival rate reports
    the offline closed form, so it is offline), "" for another job's.
    """

    job: str
    scenario: str
    accelerators: int

    @classmethod
    def of(cls, run: Run, path: str) -> Measure | None:
        """The measure of workload `path`'s figures in `run`; None where it has no estimate."""
        w = run.workloads.get(path)
        if w is None or w.estimate is None:
            return None
        serving = w.workload.inference
        scenario = run_scenario(serving.scenario, serving.arrival_rate) if serving is not None else ""
        return cls(w.estimate.kind, scenario, w.estimate.accelerators)


def unlike(base: Measure | None, head: Measure | None, name: str) -> str:
    """Why BASE's and HEAD's figure `name` of a workload measure different things; "" where they measure one.

    Said as what moved, BASE → HEAD ("scenario offline → concurrency"), words that read alike in the pull-request
    comment and a partner's change list (which names no BASE or HEAD).

    A figure is of its run: another job or scenario makes every figure of it another measure (an offline TTFT is one
    prefill on an idle replica, a concurrency run's a loaded mean). Another accelerator count does too, but for a
    figure per accelerator (`*_per_gpu`) or of the accelerators' peak (`mfu`), which the count does not define.
    """
    if base is None or head is None or base == head:
        return ""
    if base.job != head.job:
        return f"job {base.job} → {head.job}"
    if base.scenario != head.scenario:
        return f"scenario {base.scenario} → {head.scenario}"
    if base.accelerators != head.accelerators and "per_gpu" not in name and name != "mfu":
        return f"accelerators {base.accelerators:,} → {head.accelerators:,}"
    return ""


def no_parts(run: Run, path: str, name: str) -> tuple[Q, str] | None:
    """A part class's interruptions (`interruptions_per_day.<class>`, `_low`, `_high`) where `run` has none: 0.

    Where `path`'s cluster (a workload's, its job's) holds no part of the class, the class drops out of its breakdown
    (`failure_model.Reliability.by_class` lists classes that fail); its interruptions are then 0 (the reason, "no
    cable parts", names no side: the 0 stands in that side's column) and the total's move
    is the class's (newuser101: copper cables swapped for optics); so too where its parts there interrupt no job (a
    management network's cables). None where a part of the class interrupts a job there (a class without a rate is
    left as missing: not stated is not 0), or no breakdown is given at all.
    """
    if not name.startswith(CLASS) or "interruptions_per_day" not in run.metrics.get(path, {}):
        return None
    part = name.removeprefix(CLASS).removesuffix("_low").removesuffix("_high")
    w = run.workloads.get(path)
    cluster = f"cluster/{w.workload.cluster}" if w is not None else path
    rel = run.operations.reliability.get(cluster)
    held = [c for c in rel.classes if c.name == part and c.units] if rel is not None and part != "site" else None
    if held is None or any(c.interrupts for c in held):
        return None
    words = part.replace("_", " ")
    return Q_(0, "1/day"), f"only {words} parts that interrupt no job" if held else f"no {words} parts"
