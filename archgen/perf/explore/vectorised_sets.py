"""A sweep's layout set prepared: what its points share and no hardware figure of theirs changes.

`perf.explore.vectorised` evaluates a chunk's points set by set. What a set's search needs besides the points'
hardware (the training setup, the valid layouts, the search's arrays: `vectorised_bounds.prepare`) is the same for
every point of the set, so it is made once per set (`preparation`), and a caller may keep it for the next chunk of
the same set (`Cached`: `commands.workers` gives each worker process such a cache).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, NamedTuple

import numpy as np

from archgen.errors import ArchgenError
from archgen.model.workload import Workload
from archgen.perf.explore.point_axes import point_hardware
from archgen.perf.explore.vectorised_bounds import Prepared, prepare
from archgen.perf.hw.arch import Arch
from archgen.perf.hw.hardware import Hardware
from archgen.perf.train.layouts import enumerate_layouts
from archgen.perf.train.refused import without_refused_tp
from archgen.perf.workload.training_setup import TrainingSetup, training_setup


class Preparation(NamedTuple):
    """A layout set's setup, valid layouts and prepared search: made once per set, not per point or per chunk."""

    setup: TrainingSetup | None        # None: the set cannot run (the per-point path gives the reason)
    lay: dict[str, np.ndarray] | None  # the valid layouts (None: the workload gives the whole layout)
    prepared: Prepared | None          # what their search needs (`vectorised_bounds.prepare`), with an empty memo


#: `vectorised.evaluate`'s `cached(key, make)`: `make()`, or what an earlier call with an equal key made.
Cached = Callable[[Hashable, Callable[[], Preparation]], Preparation]


def preparation(workload: Workload, arch: Arch, hw: Hardware, gpus: int, available: int) -> Preparation:
    """A layout set's `Preparation`, from its first point (`hw`: that point's hardware; `available`: the cluster's).

    None of it depends on a figure the vector axes change (`training_setup` reads the scale-up size, the host memory
    and the compute capability, `enumerate_layouts` the scale-up size; `prepare` no hardware), so any point of the
    set gives the same, and a chunk that starts inside the set gets what its first chunk got.
    """
    try:
        setup = training_setup(workload, arch, hw, gpus) if gpus <= available else None
        lay = None if setup is None or setup.complete else without_refused_tp(enumerate_layouts(
            arch, setup.job, gpus, hw, setup.fixed, setup.pipeline, setup.zeros, setup.search_etp), setup.job,
            setup.knobs.sequence_parallel)  # as `search_training` keeps them
    except ArchgenError:
        return Preparation(None, None, None)
    if setup is None or (lay is not None and len(lay["tp"]) == 0):
        return Preparation(None, None, None)
    return Preparation(setup, lay, None if lay is None else prepare(setup, lay))


def port_rule(problem: Any, base: Any, levels: dict[str, np.ndarray],
              pos: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """A layout set's points (`pos`) the switched domain's port rule admits, and those it refuses, level by level.

    Over a cluster's `link` part a point's `scale_up_bandwidth` moves its links per accelerator, so the widest domain
    its switches' ports join and whether the chip has those links (`point_axes._switch_ports`, NET010). The rule
    reads nothing else of a point but its scale-up size and its machine (`base`: the cluster, the chip), which a
    set's points share (they are not `VECTOR_AXES`), so `point_axes.point_hardware` itself asks it once per level of
    the bandwidth in the set. Returns the admitted positions, and the refused ones in a list per level (their reason
    names the level). The rule only refuses: an admitted point's hardware is what it would be without it.
    """
    axis = problem.axes.get("scale_up_bandwidth")
    if axis is None or base.switch is None or not base.switch.per_bandwidth:
        return pos, []
    size = {"scale_up_size": problem.axes["scale_up_size"][levels["scale_up_size"][pos[0]]]} \
        if "scale_up_size" in problem.axes else {}
    at = levels["scale_up_bandwidth"][pos]
    admitted = np.ones(len(pos), dtype=bool)
    refused = []
    for level in dict.fromkeys(at.tolist()):   # in point order
        try:   # the precision moves only `peak`, which the rule does not read
            point_hardware(base.hardware, {**size, "scale_up_bandwidth": axis[level]}, "bf16", base.mesh_limit,
                           base.switch)
        except ArchgenError:
            admitted &= at != level
            refused.append(pos[at == level])
    return pos[admitted], refused
