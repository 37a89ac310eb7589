"""What the REL and COST stage found (`analyse.operations_stage.analyse_operations`): a container, light to import.

`checks.registry.Context` holds one by default, so that a command whose checks do not read reliability and cost
(`archgen validate`) need not import the cost analysis and the performance model under it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from archgen.analyse.cost import Cost
    from archgen.analyse.failure_model import Reliability
    from archgen.analyse.goodput import Goodput
    from archgen.units import Q


@dataclass(frozen=True)
class Operations:
    """What the REL and COST stage found: per cluster (by path) and per training workload (by path)."""

    reliability: dict[str, Reliability] = field(default_factory=dict)
    cost: dict[str, Cost] = field(default_factory=dict)
    goodput: dict[str, Goodput] = field(default_factory=dict)
    #: Metrics not provided, with the reason, by object path (cost figures of a cluster with unpriced parts and of
    #: its workloads); requirements on them are judged not provided with that reason (checks.requirements).
    withheld: dict[str, dict[str, str]] = field(default_factory=dict)
    #: The figures among those that a fabric's infeasible topology withheld (NET001, NET003, NET018), by object path
    #: and metric: that fabric's object path. Its wiring figures (`analyse.network.infeasible`) and every figure of a
    #: job it refused (`WorkloadResult.refused_by`): the error cascade folds a requirement on one under the fabric's
    #: error (`checks.cascade`), by this record, not by the reason's words.
    infeasible: dict[str, dict[str, str]] = field(default_factory=dict)
    #: Figures that rest on an input nobody gave, by object path and metric: the value at the other end of what that
    #: input allows, and why (an asynchronous checkpoint's blocking time without a host link, REL008; None for an
    #: energy at maximum draw, an upper bound with no known lower end: `analyse.job_energy.upper_bounds`). A
    #: requirement met at one end and not the other is not provided (`model.unsettled.unsettled_note`).
    unsettled: dict[str, dict[str, tuple[Q | None, str]]] = field(default_factory=dict)
    #: Whose goodput each cluster's `goodput` and cost per goodput hour are, by cluster path, in words
    #: (`analyse.goodput_notes.largest_job`: its largest training job, by a stated rule on a tie).
    goodput_job: dict[str, str] = field(default_factory=dict)
    #: The assumed inputs (`basis: assumed`) each figure rests on, by object path and metric
    #: (`analyse.assumed.assumed_inputs`): a requirement met on it says so (REQ005).
    assumed: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)

    def join(self, path: str, ends: Mapping[str, tuple[Q | None, str]], values: Mapping[str, Q]) -> None:
        """`ends`, other ends of `path`'s figures over another input nobody gave, beside those `unsettled` holds.

        `model.unsettled.joined` on the figures' `values`: an end already held is kept, none dropped (restore42:
        `headroom_ends` was laid over them by key). Imported here: this container stays light to import.
        """
        from archgen.model.unsettled import joined
        self.unsettled[path] = joined(self.unsettled.get(path, {}), ends, values)
