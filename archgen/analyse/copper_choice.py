"""Which of a tier's copper assemblies a run takes, where several reach it: one stated rule, never the list's order.

Two copper assemblies of a tier join the same cages and differ in the lengths sold (and passive or active): an
installer pulls the one sold at the run's length, whatever order the spec lists them in (NVIDIA's DAC 0.5-2 m, its
LACC "extends the reach to 3, 4, and 5-meters": LinkX 100G-PAM4 overview,
https://docs.nvidia.com/networking/display/400g100gpam4ovpub/linkx-100g-pam4-product-line-overview). The rule, in
order (`copper_fit`):

1. the least cable past the run: a copper part's shortest length sold past it (`shortest_sold`), 0 where it is sold
   at the run's length (cab29);
2. where two are both sold at that length (a 2 m run between the DAC's 0.5-2 m and an AEC's 2-7 m), the one drawing
   less at its two ends (`power_per_end`, a datasheet figure: the passive DAC's < 0.1 W an end against the AEC's
   DSPs). Their prices are not read: a part's catalog price is often an assumed placeholder (the LACC's is the
   DAC's) and a proposal's `Prices` list may price it otherwise, so a choice by price would rest on a number the
   cost section may not use;
3. where nothing of these separates them (two vendors' DACs of one reach and power), the first listed is counted,
   and CAB011 refuses the design, naming both (`copper_rivals`).

The cabling section names the runs rule 2 decided (`render.cabling`), so the choice is said, not silent.
"""

from __future__ import annotations

import numpy as np

from archgen.build import LinkOption
from archgen.model.network import COPPER_MEDIA

#: Lengths (m) and powers (W) closer than this are the same.
EPS = 1e-9


def shortest_sold(opt: LinkOption) -> float:
    """A copper assembly's shortest length sold in metres (0 where none is stated, or for fibre: cut to length)."""
    if opt.a.min_length is None or opt.a.media not in COPPER_MEDIA:
        return 0.0
    return float(opt.a.min_length.m_as("m"))


def cable_power(opt: LinkOption) -> float:
    """What one assembly draws at its two ends in watts (`power_per_end` of each end's part)."""
    return float(opt.a.power_per_end.m_as("W") + opt.b.power_per_end.m_as("W"))


def copper_fit(length: np.ndarray, options: tuple[LinkOption, ...]) -> np.ndarray:
    """Per run, the copper option the rule above gives; -1 where no copper option reaches it.

    Least cable past the run, then the least power; among equals on both, the first listed (CAB011 says so).
    """
    fit = np.full(len(length), -1, dtype=np.int64)
    slack = np.full(len(length), np.inf)
    power = np.full(len(length), np.inf)
    for i, opt in enumerate(options):
        if opt.a.media not in COPPER_MEDIA:
            continue
        over = np.maximum(shortest_sold(opt) - length, 0.0)
        watts = cable_power(opt)
        reaches = length <= opt.reach.m_as("m")
        better = reaches & ((over < slack - EPS) | ((np.abs(over - slack) <= EPS) & (watts < power - EPS)))
        fit[better], slack[better], power[better] = i, over[better], watts
    return fit


def copper_rivals(length: np.ndarray, choice: np.ndarray,
                  options: tuple[LinkOption, ...]) -> list[tuple[int, int, np.ndarray]]:
    """(option taken, other copper option, runs) where the other is sold as near the run's length and reaches it.

    Each pair once, in the options' order: rule 2 decided these runs where the taken option draws less, and nothing
    did where the two draw the same (`cable_power`; CAB011).
    """
    out = []
    for i, taken in enumerate(options):
        if taken.a.media not in COPPER_MEDIA:
            continue
        mine = choice == i
        if not mine.any():
            continue
        over = np.maximum(shortest_sold(taken) - length, 0.0)
        for j, other in enumerate(options):
            if j == i or other.a.media not in COPPER_MEDIA:
                continue
            runs = mine & (length <= other.reach.m_as("m")) & \
                (np.abs(np.maximum(shortest_sold(other) - length, 0.0) - over) <= EPS)
            if runs.any():
                out.append((i, j, runs))
    return out
