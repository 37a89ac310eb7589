"""A multi-rack scale-up domain's trunk cables summed per pair of racks, with the path they take on the floor.

`analyse.cabling` lays one trunk run per pair of switch trays (`scale_up_racks.trunk_ends`) and counts its cables
(`TierCabling.run_cables`); the floor plan (`render.floor_domains`) and its text alternative want them per pair of
racks. A run shorter than the tray run between its two racks (`cabling.tray_run`) took the side-by-side path,
straight across between neighbours of one row (`floor.side_by_side`, `cabling._lengths`); every other run goes up
to the overhead tray, along it and down. Nothing is decided here that the cabling did not decide: the path is read
from the length it chose.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from archgen.analyse.cable_bins import whole
from archgen.analyse.cabling import tray_run
from archgen.analyse.network import ClusterAnalysis
from archgen.analyse.other_ports import rack_xy
from archgen.analyse.scale_up_pod import is_pod
from archgen.analyse.scale_up_racks import domain_racks

__all__ = ["TrunkPair", "domain_groups", "trunk_pairs"]


@dataclass(frozen=True)
class TrunkPair:
    """The trunk cables between two racks of one scale-up domain (rack instances in floor order)."""

    a: int
    b: int
    cables: int
    #: Of them, the cables laid straight across between neighbours (the side-by-side path); the rest go via the tray.
    straight: int
    #: The pair's longest run (m), as the BOM orders it before binning.
    longest: float


def trunk_pairs(a: ClusterAnalysis) -> tuple[TrunkPair, ...]:
    """Each pair of racks joined by trunk cables, in floor order of its A rack then its B rack (() if none).

    A pod's runs to its switch racks are no trunks (`scale_up_pod`): () for a pod, whose floor plan outlines its
    compute racks and draws no lines to the switch racks (ualink30: not drawn).
    """
    cab = a.cabling
    if cab is None or not cab.trunk_runs or is_pod(a.cluster.spec.scale_up):
        return ()
    tr = cab.trunk_runs[0]
    tier = next((t for t in cab.tiers if (t.fabric, t.tier) == (tr.fabric, tr.tier)), None)
    per_run = tier.run_cables if tier is not None and tier.run_cables is not None else tr.weight.astype(float)
    x, y = rack_xy(a.cluster)
    tray = tray_run(a.cluster, x, y, tr.a_rack, tr.a_u, tr.b_rack, tr.b_u)
    straight = (tr.a_rack != tr.b_rack) & (tr.length < tray - 1e-9)
    keys = np.stack([tr.a_rack, tr.b_rack], axis=1)
    pairs, which = np.unique(keys, axis=0, return_inverse=True)
    which = which.reshape(-1)
    cables = np.bincount(which, weights=per_run, minlength=len(pairs))
    across = np.bincount(which, weights=np.where(straight, per_run, 0.0), minlength=len(pairs))
    longest = np.zeros(len(pairs))
    np.maximum.at(longest, which, tr.length)
    return tuple(TrunkPair(int(p[0]), int(p[1]), whole(float(c)), whole(float(s)), float(m))
                 for p, c, s, m in zip(pairs, cables, across, longest, strict=True))


def domain_groups(a: ClusterAnalysis) -> np.ndarray:
    """Rack instances of each multi-rack scale-up domain, shape (domains, racks); (0, 0) for one-rack domains."""
    su = a.cluster.spec.scale_up
    if su is None or su.racks < 2 or not a.cluster.instances:
        return np.zeros((0, 0), dtype=np.int64)
    return domain_racks(a.cluster, su.racks)
