"""Cables per run and per length bin: what a vendor orders, counted the way the BOM and the port map count cables.

A run of a tier carries `weight` links. A cable carries `links_per_cable` of them (a twin-port 800G DAC between a
leaf and a spine carries two 400G links; a node's twin-port cage takes one cable for two ports). On a tier whose
runs each join one pair of switches (`PAIR_TIERS`), a copper assembly serves one pair, so a run takes whole
assemblies, ⌈links / links per assembly⌉, as `tier_cabling.tier_totals` and the port map cut them. Elsewhere a run
holds its share, links / links per cable, and a bin (or a row of the run list) rounds its sum up.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from archgen.analyse.link_ends import cords_per_link, links_per_cable
from archgen.build import LinkOption
from archgen.model.network import COPPER_MEDIA
from archgen.units import Q

#: Tiers whose runs each join one pair of switches with the run's weight in links (`tier_ends`, `rail_layout`): a
#: copper assembly serves one pair, so a pair takes ⌈links / links per assembly⌉ of them, as the port map cuts them.
PAIR_TIERS = ("leaf_spine", "spine_core")


def run_cables(tr: Any, options: Sequence[LinkOption], speed: Q, a_cage: int | None) -> np.ndarray:
    """Cables of each run of `tr` (a `tier_cabling.TierRuns`): whole assemblies on a pair tier's copper, else a share.

    An access run whose A end is no node (`group` < 0: a reserved port, an extra endpoint) has one port per cage, as
    `_tier_totals` counts it.
    """
    if not options or not len(tr.weight):
        return np.zeros(len(tr.weight))
    copper = np.array([o.a.media in COPPER_MEDIA for o in options])
    opt = np.clip(tr.option, 0, len(options) - 1)
    cords = np.array([cords_per_link(o, speed) for o in options], dtype=np.int64)   # a twin-port's 2 at 800G
    share = tr.weight * cords[opt] / run_legs(tr, options, speed, a_cage)
    return np.where(copper[opt] & (tr.tier in PAIR_TIERS), np.ceil(share - 1e-9), share)


def run_legs(tr: Any, options: Sequence[LinkOption], speed: Q, a_cage: int | None) -> np.ndarray:
    """Links one cable of each run of `tr` carries (`links_per_cable` of its option): above 1 a 1:k splitter.

    A node's cage (`a_cage` ports) may split a cable where an access run from a single-port cage (`group` < 0: a
    reserved port, an extra endpoint) takes a straight one: one tier, one option, both kinds of cable.
    """
    if not options or not len(tr.weight):
        return np.ones(len(tr.weight), dtype=np.int64)
    at_node = np.array([links_per_cable(o, speed, a_cage) for o in options], dtype=np.int64)
    alone = np.array([links_per_cable(o, speed, 1) for o in options], dtype=np.int64)
    opt = np.clip(tr.option, 0, len(options) - 1)
    return np.where((tr.group < 0) & (tr.tier == "access"), alone[opt], at_node[opt])


def whole(n: float) -> int:
    """Cables ordered for a sum of runs' shares: rounded up (a share of a cable is a cable)."""
    return int(np.ceil(n - 1e-9))


def bin_cables(tr: Any, options: Sequence[LinkOption], cables: np.ndarray) -> dict[tuple[str, float], int]:
    """Cables per (link option label, length bin) of one tier's runs, each bin rounded up."""
    keys = tr.option * 10_000_000 + np.round(tr.bin * 100).astype(np.int64)
    uniq, inv = np.unique(keys, return_inverse=True)
    sums = np.bincount(inv.ravel(), weights=cables, minlength=len(uniq))
    return {(options[int(k // 10_000_000)].label, (int(k) % 10_000_000) / 100): whole(s)
            for k, s in zip(uniq.tolist(), sums.tolist(), strict=True)}


def cord_bins(tr: Any, options: Sequence[LinkOption], cables: np.ndarray,
              legs: np.ndarray) -> dict[tuple[str, float, int], int]:
    """Cables per (optical option label, length bin, links a cable carries), each rounded up: the fibre cords.

    `legs` per run (`run_legs`): a bin's 1:k splitter cables and straight cords are counted apart, as the port map
    names each row's cable (`fibre_cords.fibre_lines` orders them on lines of their own). Copper options: none.
    """
    optical = np.array([o.a.media not in COPPER_MEDIA for o in options])[np.clip(tr.option, 0, len(options) - 1)]
    out: dict[tuple[str, float, int], int] = {}
    for k in sorted(set(legs[optical].tolist())):  # not np.unique, which imports numpy.ma (14 ms of `check`)
        mask = optical & (legs == k)
        keys = tr.option[mask] * 10_000_000 + np.round(tr.bin[mask] * 100).astype(np.int64)
        uniq, inv = np.unique(keys, return_inverse=True)
        sums = np.bincount(inv.ravel(), weights=cables[mask], minlength=len(uniq))
        for key, n in zip(uniq.tolist(), sums.tolist(), strict=True):
            out[(options[int(key // 10_000_000)].label, (int(key) % 10_000_000) / 100, int(k))] = whole(n)
    return out


def copper_bins(tiers: Sequence[Any]) -> dict[str, dict[float, int]]:
    """Copper assemblies per BOM part (an option's `a` end, as the BOM orders it) and ordered length bin (m).

    From each tier's `cables_by_bin` (a `tier_cabling.TierCabling`), as the fibre cords are; a 0 m bin is a length
    not known (a tier whose runs are not laid out).
    """
    out: dict[str, dict[float, int]] = {}
    for t in tiers:
        copper = {opt.label: opt.a.id for opt in t.options if opt.a.media in COPPER_MEDIA}
        for (label, length), n in t.cables_by_bin.items():
            if label in copper and n:
                bins = out.setdefault(copper[label], {})
                bins[float(length)] = bins.get(float(length), 0) + n
    return out


def assumed_copper(tiers: Sequence[Any]) -> dict[str, set[float]]:
    """The length bins of each copper BOM part (as `copper_bins`) that hold runs of an assumed length (CAB004).

    From each tier's `assumed_bins`: runs with an end in no rack, whose length is the floor's longest.
    """
    out: dict[str, set[float]] = {}
    for t in tiers:
        copper = {opt.label: opt.a.id for opt in t.options if opt.a.media in COPPER_MEDIA}
        for label, length in t.assumed_bins:
            if label in copper:
                out.setdefault(copper[label], set()).add(float(length))
    return out
