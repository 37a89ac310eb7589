"""A layout set's points as a grid of hardware: the sweep's hardware axes whose values become arrays, and the cuts.

`point_fields` gives each field those axes change, point by point; `grid_hw` and `batch_hw` the hardware of a batch
of points with each varying field as an array (along the grid's own axes, or one per point); `grid_batch` and
`row_stride` say where a batch or a chunk may be cut so that it holds whole rows (or whole blocks of the last axes) of
that grid. Split from `vectorised_bounds` (the bounds that read this hardware) for its size.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np

from archgen.model.sweep_axes import HARDWARE_AXES
from archgen.perf.explore.problem import SweepProblem
from archgen.perf.explore.vectorised_rows import PointSet
from archgen.perf.hw.hardware import Hardware
from archgen.quantity_json import json_magnitude
from archgen.units import Q

#: Hardware axes whose values become arrays within a layout set (`scale_up_size` changes the valid layouts).
VECTOR_AXES = tuple(a for a in HARDWARE_AXES if a != "scale_up_size")


def grid_hw(pts: PointSet, take: slice) -> tuple[Hardware, tuple[int, ...]] | None:
    """The hardware of the points `take` with the sweep's vector axes on axes of their own (and a trailing one).

    A layout set holds every level of its vector axes, in row-major order, so a field one axis changes varies along
    that axis alone, and what depends on other figures only is then worked out once per their levels (numpy
    broadcasts it; the same numbers). Each field keeps the axes it varies along: (fields, grid shape), or None where
    the points do not fill whole rows of the grid, nor whole blocks of its trailing axes (`grid_blocks`: a batch
    smaller than a row).
    """
    dims = [len(v) for a, v in pts.problem.axes.items() if a in VECTOR_AXES]
    start, stop, _ = take.indices(len(pts.indices))
    i = next((i for i in range(1, len(dims)) if start % math.prod(dims[i:]) == 0
              and (stop - start) % math.prod(dims[i:]) == 0), None)
    if i is None:
        return None
    shape = ((stop - start) // math.prod(dims[i:]), *dims[i:])
    change: dict[str, Any] = {}
    for f, arr in pts.fields.items():
        v = arr[take].reshape(shape)
        for i in range(len(shape)):  # drop each axis the field does not vary along
            first = v.take([0], axis=i)
            v = first if np.all(v == first) else v
        change[f] = float(v.reshape(-1)[0]) if v.size == 1 else v[..., None]
    peak = dict(pts.hardware.peak)
    if "peak" in change:
        peak[pts.dtype] = change.pop("peak")
    return dataclasses.replace(pts.hardware, peak=peak, **change), shape


def grid_batch(problem, most: int) -> int:
    """At most `most` points (at least one) in whole rows of a layout set's grid, or of blocks of its last axes.

    A row (`grid_hw`) is the product of the vector axes' sizes but the first; where a row holds more than `most`
    points, a block of the last axes that fits.
    """
    dims = [len(v) for a, v in problem.axes.items() if a in VECTOR_AXES]
    block = next((b for b in (math.prod(dims[i:]) for i in range(1, len(dims))) if b <= most), 1)
    return max(1, most - most % block)


def row_stride(problem, most: int | None = None) -> int:
    """Points from one row of a layout set's grid to the next, in the sweep's point order.

    The product of the sizes of the axes after the first vector axis (1 with fewer than two vector axes). Chunks cut
    at its multiples hold whole rows of every set they reach (`commands.workers.submit`), which `grid_hw` takes whole.
    With `most`, the stride of a row where it is at most `most`, else of the largest block of the last vector axes
    that is (the axes after the second vector axis, the third, ...: `grid_hw` takes whole blocks too, as
    `grid_batch` cuts a batch), else 1.
    """
    names = list(problem.axes)
    vector = [i for i, a in enumerate(names) if a in VECTOR_AXES]
    strides = [math.prod(len(problem.axes[a]) for a in names[v + 1:]) for v in vector[:-1]]
    return next((s for s in strides if most is None or s <= most), 1)


def batch_hw(pts: PointSet, take, shape: tuple[int, ...]) -> Hardware:
    """The set's hardware for the points `take` (an index or slice), each varying field shaped `shape`."""
    change: dict[str, Any] = {}
    peak = dict(pts.hardware.peak)
    for f, arr in pts.fields.items():
        x = arr[take]
        x = float(x[0]) if np.all(x == x[0]) else x.reshape(shape)
        if f == "peak":
            peak[pts.dtype] = x
        else:
            change[f] = x
    return dataclasses.replace(pts.hardware, peak=peak, **change)


def point_fields(problem: SweepProblem, hw: Hardware, levels, pos: np.ndarray, dtype: str) -> dict[str, np.ndarray]:
    """Per point, each hardware field a vector axis changes, as `point_axes.point_hardware` computes it."""
    out: dict[str, np.ndarray] = {}
    for name in VECTOR_AXES:
        if name not in problem.axes:
            continue
        table: dict[str, list[float]] = {}
        for value in problem.axes[name]:
            if isinstance(value, Q):
                got = {"peak" if name == "peak" else name: json_magnitude(value)}
            elif name == "peak":
                got = {"peak": hw.peak_for(dtype) * float(value)}
            elif name == "latency":
                got = {"scale_up_latency": hw.scale_up_latency * float(value),
                       "scale_out_latency": hw.scale_out_latency * float(value)}
            else:
                got = {name: getattr(hw, name) * float(value)}
            if name == "scale_up_bandwidth" and hw.torus:   # a torus' links follow it, as `Hardware._replaced` has them
                got["torus_link_bandwidth"] = hw.torus_link_bandwidth * got[name] / hw.scale_up_bandwidth
            for f, x in got.items():
                table.setdefault(f, []).append(x)
        for f, xs in table.items():
            out[f] = np.asarray(xs, dtype=float)[levels[name][pos]]
    return out
