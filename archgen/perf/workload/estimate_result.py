"""What a workload estimate returns (`Estimate`): below the estimate's training, serving and collective parts."""

from __future__ import annotations

from dataclasses import dataclass, field

from archgen.model.requirements import Outcome
from archgen.perf.workload.bands import Band, Span
from archgen.units import Q


@dataclass(frozen=True)
class Estimate:
    """Everything `estimate` found for one workload."""

    workload: str
    kind: str
    accelerator: str
    gpus: int
    layout: dict[str, int | str]
    metrics: dict[str, Q]
    breakdown: dict[str, Q]
    memory: dict[str, Q]
    fits: bool
    searched: dict[str, int] = field(default_factory=dict)
    sensitivity: dict[str, float] = field(default_factory=dict)
    requirements: list[Outcome] = field(default_factory=list)  # filled by the consumer (`derived.judge_requirements`)
    notes: list[str] = field(default_factory=list)
    conventions: dict[str, str] = field(default_factory=dict)
    hardware: dict[str, Q] = field(default_factory=dict)
    cluster: str = ""
    misfit: str = ""  # why the job does not fit in accelerator memory ("" when it fits); PERF002 reports it
    bands: dict[str, Band] = field(default_factory=dict)  # each metric's measured error (perf.bands)
    span: Span | None = None  # the estimate over the part's stated efficiency ranges (perf.workload.bands.Span)
    limits: dict[str, str] = field(default_factory=dict)  # by metric: why no hardware moves it (the offered load)
    load: float | None = None  # a simulated serving run's load, served over capacity (perf.serve.run.ServingRun)
