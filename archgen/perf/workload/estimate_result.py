"""What a workload estimate returns (`Estimate`): below the estimate's training, serving and collective parts."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any

from archgen.metric import RENAMED
from archgen.model.accelerator import is_hbm
from archgen.model.requirements import Outcome
from archgen.perf.workload.band_span import Span
from archgen.perf.workload.bands import Band
from archgen.units import Q

#: The words a reader sees for each component of an estimate's time breakdown (`Estimate.breakdown`): a training
#: step's (`training_estimate`), a served request's (`serve.run.run_breakdown`) and a collective's. The
#: diagrams label their bars by these in both editions; the customer edition's breakdown table names them so too.
BREAKDOWN_TITLES = {
    "compute": "Compute", "tp_comm": "Tensor-parallel communication", "cp_comm": "Context-parallel communication",
    "ep_comm": "Expert-parallel communication", "pp_comm": "Pipeline-parallel communication",
    "dp_comm": "Data-parallel communication", "bubble": "Pipeline bubble", "optimizer": "Optimizer step",
    "prefill_per_request": "Prefill per request", "decode_per_request": "Decode per request",
    "idle_per_request": "Idle per request", "collective": "Collective",
}


class Metrics(dict[str, Q]):
    """An estimate's metrics by name; a renamed metric's old name (`metric.RENAMED`) still reads it, with a warning."""

    def __missing__(self, name: str) -> Q:
        if name not in RENAMED:
            raise KeyError(name)
        return self._renamed(name, 3)

    def get(self, name: str, default: Any = None) -> Any:
        """As `[name]` for a renamed metric's old name, warning too (review23: it answered None), else `dict.get`."""
        if name not in self and name in RENAMED and RENAMED[name][0] in self:
            return self._renamed(name, 3)
        return super().get(name, default)

    def _renamed(self, name: str, stacklevel: int) -> Q:
        new, since = RENAMED[name]
        warnings.warn(f"metric {name!r} was renamed {new!r} in {since}: use {new!r}", DeprecationWarning,
                      stacklevel=stacklevel)
        return self[new]


@dataclass(frozen=True)
class Taken:
    """A layout field or switch an estimate took by default, not from the spec (`defaults_taken`).

    `value` as a spec writes it; `source` where it came from: 'searched', 'stack nemo-2025', 'field default', ...
    """

    name: str
    value: str
    source: str


@dataclass(frozen=True)
class Estimate:
    """Everything `estimate` found for one workload."""

    workload: str
    kind: str
    accelerator: str
    accelerators: int   # the job's accelerators: `archgen estimate --format json`'s `accelerators`
    layout: dict[str, int | str]
    metrics: dict[str, Q]
    breakdown: dict[str, Q]
    memory: dict[str, Q]
    fits: bool
    searched: dict[str, int] = field(default_factory=dict)
    sensitivity: dict[str, float] = field(default_factory=dict)
    #: the metric the elasticities are of where it is not the job's own (step time, tokens/s per accelerator): an open
    #: loop that keeps up has them of `replica_capacity`, as its tokens/s is the offered load
    sensitivity_of: str = ""
    #: The workload's requirements judged on it (`derived.judge_requirements`), by the consumer: None until judged
    #: (`estimate_on_cluster` judges none; `JobOnCluster.estimate` and the pipeline do), [] where it has none.
    requirements: list[Outcome] | None = None
    notes: list[str] = field(default_factory=list)
    conventions: dict[str, str] = field(default_factory=dict)
    hardware: dict[str, Q] = field(default_factory=dict)
    cluster: str = ""
    misfit: str = ""  # why the job does not fit in accelerator memory ("" when it fits); PERF002 reports it
    bands: dict[str, Band] = field(default_factory=dict)  # each metric's measured error (perf.bands)
    span: Span | None = None  # the estimate over the part's stated efficiency ranges (perf.workload.band_span.Span)
    latency_spans: tuple[Span, ...] = ()  # an offline serving job's TPOT and TTFT over those ranges, likewise
    routing: Span | None = None  # an MoE serving job's tokens/s per accelerator at the routing's ends (routing_note)
    limits: dict[str, str] = field(default_factory=dict)  # by metric: why no hardware moves it (the offered load)
    load: float | None = None  # a simulated serving run's load, served over capacity (perf.serve.run.ServingRun)
    unjudged: dict[str, str] = field(default_factory=dict)  # by metric: why a target on it is not judged (not provided)
    #: by metric: its value at the other end of a cited range over a knob the job leaves unstated, and why; a
    #: target met at one end only is not provided (`estimate.launch_ends`, `derived.judge_requirements`)
    unsettled: dict[str, tuple[Q, str]] = field(default_factory=dict)
    unconfirmed: tuple[str, ...] = ()  # the part's figures it reads that the part lists unconfirmed (cluster.py)
    #: hardware rows that show such a figure, each with the figure ('peak': 'peak.fp8'; `unconfirmed_note.marked`)
    hardware_unconfirmed: dict[str, str] = field(default_factory=dict)
    #: what a training estimate took by default rather than from the spec (`perf.workload.defaults_taken`)
    defaults: tuple[Taken, ...] = ()
    #: what it assumes that no source gives for this part, in words: another vendor's training stack
    #: (`defaults_note.assumed_stack`); REQ005 names each on the estimate's figures (`analyse.assumed`)
    assumed: tuple[str, ...] = ()
    #: a serving estimate's batch left to its limits: which one bound the sequences in flight per replica, in words
    #: (the engine's max_batch_size with its source, or the KV cache); "" where the job or a sweep axis states it
    batch_bound: str = ""
    #: what the `hbm_*` hardware rows' memory is (`Hardware.memory_type`): 'GDDR6' on an L40S, marked on those rows
    memory_type: str = "HBM"

    def __post_init__(self) -> None:
        if not isinstance(self.metrics, Metrics):
            object.__setattr__(self, "metrics", Metrics(self.metrics))

    def hardware_mark(self, row: str) -> str:
        """The text after a hardware row: its mark where it shows a figure the part lists unconfirmed, else ''.

        '  (unconfirmed: rubin peak.fp8, not confirmed from a public source)'. A link bandwidth row says it counts one
        direction (`Hardware`'s), where a cluster's `scale_up.bandwidth` counts both: newuser89's H800 cluster stated
        400 GB/s and the row read "scale_up_bandwidth 200 GB/s" with nothing to say why.
        """
        figure = self.hardware_unconfirmed.get(row)
        memory = (f"  ({self.memory_type}, not HBM)" if row in ("hbm_capacity", "hbm_bandwidth")
                  and not is_hbm(self.memory_type) else "")
        value = self.hardware.get(row)
        direction = ("  (each direction)" if row in ("scale_up_bandwidth", "scale_out_bandwidth")
                     and value is not None and value.magnitude > 0 else "")
        return memory + direction + (f"  (unconfirmed: {self.accelerator} {figure}, not confirmed from a public "
                                     "source)" if figure else "")

    @property
    def gpus(self) -> int:
        """Deprecated: `accelerators`, the name of `archgen estimate --format json` (docs/python-api.md named this)."""
        warnings.warn("Estimate.gpus is deprecated: use Estimate.accelerators, the name archgen estimate's JSON uses",
                      DeprecationWarning, stacklevel=2)
        return self.accelerators
