"""A cluster's cabling as `analyse.cabling` lays it out (`Cabling`): its tiers, runs, BOM and placement problems.

Below `analyse.network`, whose `ClusterAnalysis.cabling` holds one, and above nothing that reads a cluster analysis,
so that the network analysis need not import the module that builds its cabling (issue 19 part 6: the type-only
cycle `network` -> `cabling` -> `network`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from archgen.analyse.bom_line import BomLine
from archgen.analyse.ports import Problem
from archgen.analyse.tier_cabling import TierCabling, TierRuns
from archgen.units import Q


@dataclass(frozen=True)
class Cabling:
    """The cluster's cabling: tiers, runs, BOM and placement problems."""

    tiers: tuple[TierCabling, ...]
    runs: tuple[TierRuns, ...]
    rack_names: tuple[str, ...]
    bom: tuple[BomLine, ...]
    problems: tuple[Problem, ...]
    optics_power: Q
    network_power: dict[str, Q] = field(default_factory=dict)
    unplaced_switches: tuple[tuple[str, str, str, int], ...] = ()   # (fabric, tier, switch, count): placement.unplaced
    #: A multi-rack scale-up domain's runs between racks, in no fabric (not in `runs`): its trunks, or a pod's
    #: accelerator-to-switch runs to its switch racks (`scale_up_pod.pod_ends`).
    trunk_runs: tuple[TierRuns, ...] = ()
