"""Where a job runs on a cluster: its slice of a torus, and a stated share of each scale-up domain.

`torus_problem` and `slice_problem` refuse a job the torus cannot hold as one slice, `job_slice` gives a job of
whole OCS cubes a torus of its own, and `placement_problem` says why a stated `placement.per_domain` cannot be
honoured. Split from `perf.workload.cluster` for its size; `Machine`, the cluster as the model sees it, is in
`perf.workload.machine`.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from archgen.perf.comm.torus import cube_grid, slice_counts, sub_torus
from archgen.perf.hw.hardware import Hardware
from archgen.perf.workload.machine import Machine


def job_slice(hw: Hardware, gpus: int, on: Machine) -> Hardware:
    """`hw` with a job of whole OCS cubes on its own slice (`slice_shape`), each of its rings closed.

    The OCSes rewire a job's cubes into a torus of its own (Jouppi et al., ISCA 2023, as summarised at
    https://glennklockwood.com/garden/processors/TPUv4: "a job ... land[s] on a tight torus topology ... using
    optical switching"), so a 16x16x4 job on the 16x16x16 pod closes its third dimension through them, as the same
    job on a 16x16x4 slice does. Google's v4 page (https://cloud.google.com/tpu/docs/v4) names tori on slices whose
    every dimension is a multiple of 4 and gives only twisted shapes (2A=B=C, 2A=2B=C) as examples; whether every
    other shape of whole cubes wraps is not stated there. A job that is not whole cubes, or a torus without OCSes,
    keeps the cluster's torus.
    """
    if not on.ocs_cube or not hw.torus or gpus >= math.prod(hw.torus) or gpus % math.prod(on.ocs_cube):
        return hw
    return replace(hw, torus=tuple(slice_shape(hw.torus, gpus, on.ocs_cube)))


def slice_shape(dims: tuple[int, ...], gpus: int, cube: tuple[int, ...] = ()) -> list[int]:
    """Chips along each dimension of the slice a job of `gpus` runs on; more entries than `dims` where none holds it.

    Without OCSes, a sub-torus of the torus: along each dimension a size that divides it, the first dimensions first
    (`perf.comm.torus.sub_torus`). Through OCSes (`cube`) a slice is a sub-torus of one cube, or whole cubes in any
    shape (Cloud TPU: AxBxC "all <=4 or all integer multiples of 4", https://cloud.google.com/tpu/docs/types-topologies;
    v5p's 16x16x24 on 4x4x4 cubes): the sub-torus of the torus where it is whole cubes, else the shape of cubes
    closest to a cube (`cube_grid`; 3,840 chips, 60 cubes, are 12x16x20).
    """
    if not cube:
        return sub_torus(dims, gpus)
    per_cube = math.prod(cube)
    if gpus <= per_cube:
        return sub_torus(tuple(cube), gpus)
    if gpus % per_cube:
        return [*cube, gpus]      # no slice: part of a cube beyond whole ones
    shape = sub_torus(dims, gpus)
    if len(shape) == len(cube) and not any(t % c for t, c in zip(shape, cube, strict=True)):
        return shape
    return [g * c for g, c in zip(cube_grid(gpus // per_cube, len(cube)), cube, strict=True)]


def torus_problem(hw: Hardware, gpus: int, on: Machine) -> str | None:
    """Why a job of `gpus` cannot run on `on`, or None: more chips than its torus or domain joins, none beyond it.

    A torus through OCSes may be a slice of a larger pod (`ocs.cubes`): the cluster holds the pod's chips, the ICI
    joins one slice's, and slices meet only over the data-centre network (Google Cloud TPU Multislice), which a
    cluster with no scale-out fabric does not model. The torus collectives would otherwise add the rest as one
    more line of ICI links that does not exist (`perf.comm.torus.sub_torus`). Without a torus, a scale-up domain
    with no scale-out path (a `Machine` made without its `ScaleOutPath`) joins only its own: a job beyond it would
    run its collectives over no link at all (`comm.group.out_bandwidth`: a step of 10^39 s, said to fit).
    """
    chips = math.prod(hw.torus) if hw.torus else int(np.max(hw.scale_up_size))
    if gpus <= chips or bool(np.any(np.asarray(hw.scale_out_bandwidth) > 0)):
        return None
    if not hw.torus:
        return (f"asks for {gpus} accelerators; a scale-up domain of cluster '{on.cluster}' joins {chips}, and no "
                f"scale-out path joins the domains (a caller of `machine` gives it the cluster's sized fabric, "
                f"`pipeline.cluster_network`): expected at most {chips}")
    return (f"asks for {gpus} accelerators; the {'x'.join(map(str, hw.torus))} torus of cluster '{on.cluster}' "
            f"joins {chips} of its {on.accelerators}, and nothing the model times joins it to the others (slices of "
            f"an OCS pod meet only over the data-centre network; multislice is not modelled): expected at most "
            f"{chips}")


def slice_problem(hw: Hardware, gpus: int, on: Machine) -> str | None:
    """Why `gpus` chips of a torus cannot run as one job, or None: they form no slice of it (`slice_shape`).

    A job inside one torus runs on a slice: Cloud TPU runs jobs on slice shapes only
    (https://cloud.google.com/tpu/docs/types-topologies: AxBxC, each at most 4 or all multiples of 4; Jouppi et al.,
    ISCA 2023, slices of whole 4x4x4 cubes). The model times a slice whose sizes divide the torus' (its groups tile
    it) or, through OCSes, any shape of whole cubes; a box that divides no dimension would run that dimension as an
    open line with no wraparound, which the torus collectives do not model. They would otherwise add the chips left
    over as one more line of ICI links that does not exist (1,000 chips of 16x16x16 as 8 chips and a line of 125).
    A job over several torus domains joined by a scale-out fabric (Trn2 instances over EFA) is not judged here.
    """
    chips = math.prod(hw.torus) if hw.torus else 0
    if not chips or gpus > chips or len(slice_shape(hw.torus, gpus, on.ocs_cube)) == len(hw.torus):
        return None
    cube = on.ocs_cube
    counts = slice_counts(cube) | set(range(0, chips + 1, math.prod(cube))) if cube else slice_counts(hw.torus)
    near = [max((c for c in counts if 0 < c < gpus), default=0), min((c for c in counts if c > gpus), default=0)]
    shown = " or ".join(f"{c} ({'x'.join(map(str, slice_shape(hw.torus, c, cube)))})" for c in near if c)
    return (f"asks for {gpus} accelerators, which form no slice of the {'x'.join(map(str, hw.torus))} torus of "
            f"cluster '{on.cluster}' (a job runs on a sub-torus{_OCS_SLICE if cube else _SUB_TORUS}; Cloud TPU runs "
            f"jobs on slice shapes only): expected {shown}")


_OCS_SLICE = " of one cube or on whole cubes joined through the OCSes"
_SUB_TORUS = ": along each dimension a size that divides it"


def placement_problem(per_domain: int, hw: Hardware, gpus: int, on: Machine) -> str | None:
    """Why a job of `gpus` cannot hold `per_domain` accelerators of each scale-up domain of `on`, or None."""
    size = hw.scale_up_size
    if hw.torus:
        return (f"placement.per_domain {per_domain}: the cluster's scale-up domain is a torus "
                f"({'x'.join(map(str, hw.torus))}), whose collectives run on its rings, not on a share of it; "
                "remove placement")
    if per_domain > size:
        return f"placement.per_domain {per_domain} exceeds the scale-up domain of {size} accelerators"
    if per_domain % max(on.per_node, 1):
        return (f"placement.per_domain {per_domain} is not whole nodes of {on.per_node} accelerators; expected a "
                f"multiple of {on.per_node} (a Slurm segment counts nodes)")
    if per_domain > gpus:
        return (f"placement.per_domain {per_domain} is more than the job's {gpus} accelerators; expected at most "
                f"{gpus}, or remove placement")
    need, have = math.ceil(gpus / per_domain), on.accelerators // size
    if need > have:
        return (f"placement.per_domain {per_domain}: {gpus} accelerators need {need} scale-up domains; cluster "
                f"'{on.cluster}' has {have} of {size}")
    return None
