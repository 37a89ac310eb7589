"""A sweep's problem (`SweepProblem`: what every point needs, small and picklable) and one evaluated point (`PointRow`).

`perf.explore.points` evaluates them; moved out of it so that the modules it imports (`batch_path`, `front`,
`hardware_scope`, `sweep_notes`) read them without an import cycle (issue 19 part 6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from archgen.model.requirements import Requirement
from archgen.model.sweep import Sweep
from archgen.model.workload import Model, Workload
from archgen.perf.workload.machine import Machine


@dataclass(frozen=True)
class Stated:
    """A requirement on the sweep's workload written in another document: a `Requirements` document's or a cluster's.

    `check` judges it on the workload (`subject: workload/<id>`, or a glob that matches it), so every point is judged
    on it too, beside the workload's own (`build.Design.requirements_of` binds them).
    """

    kind: str  # the document's kind: "Requirements", "Cluster"
    owner: str  # its id
    requirement: Requirement


@dataclass(frozen=True)
class SweepProblem:
    """Everything the points of one sweep need, independent of the specs they came from."""

    sweep: Sweep
    workload: Workload
    model: Model | None
    bases: dict[tuple[str, str | None], Machine]  # by (cluster, accelerator axis value or None)
    axes: dict[str, list]  # always with a `cluster` axis (the workload's cluster when the sweep gives none)
    documents: tuple[Stated, ...] = ()  # the workload's requirements written elsewhere, with ids of their own
    #: By cluster and level of each facility axis (`model.sweep_axes.facility_levels`; None where not swept): the cost
    #: per used accelerator-hour in USD (None: not provided), the utilisation, the share of the TCO that is an energy
    #: cost at maximum draw and USD per kWh of IT energy (`analyse.sweep_figures.facility_figures`).
    facility: dict[tuple, tuple[float | None, float, float, float]] = field(default_factory=dict)
    #: The clusters `archgen check` fails, by id: why, in words (`commands.sweep_problems.failing`); their points are
    #: not feasible (`feasibility`).
    failing: dict[str, str] = field(default_factory=dict)
    #: The accelerator's TDP in W of each of `bases`, by its key: what a `tdp` axis scales or replaces (`point_base`).
    tdp: dict[tuple[str, str | None], float] = field(default_factory=dict)
    #: What the points rest on that no figure of theirs shows, in words (`sweep_notes.scope_notes` says them): an
    #: accelerator axis's chip on scale-up links other than its own (`commands.sweep_problems._links_kept`).
    notes: tuple[str, ...] = ()

    @property
    def size(self) -> int:
        """Number of points."""
        return math.prod(len(v) for v in self.axes.values())

    def point(self, index: int) -> dict[str, Any]:
        """The axis values of point `index` (the last axis varies fastest)."""
        values: dict[str, Any] = {}
        for name in reversed(list(self.axes)):
            levels = self.axes[name]
            index, i = divmod(index, len(levels))
            values[name] = levels[i]
        return {name: values[name] for name in self.axes}


@dataclass(frozen=True)
class PointRow:
    """One evaluated point."""

    index: int
    values: dict[str, Any]
    cluster: str
    status: str  # "ok", "does not fit" or "invalid"
    reason: str = ""  # why it could not run or does not fit; of one that fits, the SHALL requirements not provided
    layout: dict[str, Any] = field(default_factory=dict)
    metrics: dict[str, float] = field(default_factory=dict)
    met: dict[str, bool | None] = field(default_factory=dict)
    feasible: bool = False
    #: requirements the point meets at its central value but not at one end of the value's range: the model's error
    #: band (an estimate's metric) or the range over the failure-rate sets (goodput and what derives from it):
    #: `check`'s REQ004 "at risk", a warning; still feasible
    at_risk: tuple[str, ...] = ()
    #: of a serving point that fits with its batch left to its limits, which one bound it (`Estimate.batch_bound`)
    batch_bound: str = ""

    @property
    def fits_high_end(self) -> bool | None:
        """Whether a point that fits (status "ok": at the model's figure) fits at its memory range's high end too.

        The high end is the most allocator waste a published measurement found (`perf.hw.reserve.memory_ends`), as a
        training estimate's fit sentence says of one job (`render.fits.fits_text`). None where the point does not fit
        or its memory has no range (a serving job, a TPU).
        """
        spare = self.metrics.get("memory_headroom_low")
        if self.status != "ok" or spare is None or spare != spare:   # NaN: no range
            return None
        return spare >= 0
