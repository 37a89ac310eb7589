"""Derive the model's `Hardware` from a `Cluster` spec and the parts it references.

Only counts and rates are read: the accelerators placed (layout → units → racks → slots → systems), the scale-up
domain (size, and its bandwidth, which the cluster states for both directions), the compute fabric, and the node's
host memory (each accelerator's share, for offload). The pipeline passes the `ScaleOutPath` the network analysis
derived: from the sized fat tree (bandwidth per accelerator at the fabric's rate, the taper of its tiers and the
non-blocking pod under them) or, for a cluster with no compute fabric, from the node's compute NICs
(`analyse.network.nic_path`). Without one the model has no scale-out. A torus scale-up domain (`topology: torus`)
gives the hardware its `dims` and one link's share of the domain's bandwidth (per direction / links per chip), so
groups inside a domain take the torus collectives of `perf.comm.torus`.

On that hardware it estimates a workload (`estimate_on_cluster`): the job's share of it (`estimate_hardware`), then
the estimate and what it says of the cluster (the notes on the network between domains: `perf.workload.network_notes`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace

from archgen.errors import AnalyseError, BuildError, WorkloadError
from archgen.model import Accelerator, Cluster, Document, Rack, System
from archgen.model.accelerator import AMD, NVIDIA
from archgen.model.requirements import Requirement
from archgen.model.workload import Model, Workload
from archgen.open_item import Worded
from archgen.perf.comm import rccl_net
from archgen.perf.comm.placement import job_share
from archgen.perf.hw.from_spec import DEFAULT_SCALE_OUT_LATENCY, hardware_for
from archgen.perf.hw.given import si
from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.host_share import HostShare
from archgen.perf.train.goodput import Failures
from archgen.perf.workload.defaults_note import latency_note
from archgen.perf.workload.efficiency_range import memory_note
from archgen.perf.workload.estimate import estimate, precision
from archgen.perf.workload.estimate_result import Estimate
from archgen.perf.workload.machine import Machine
from archgen.perf.workload.network_notes import (
    assumed_fabric_note,
    network_latency_note,
    planes_note,
    scale_out_efficiency_note,
)
from archgen.perf.workload.racks_note import (
    bridge_note,
    domain_latency,
    domain_racks_note,
    domain_span,
    fabric_latency_note,
    one_rack_switch_note,
    pod_note,
    second_hop,
)
from archgen.perf.workload.slices import job_slice, placement_problem, slice_problem, torus_problem
from archgen.perf.workload.unconfirmed_note import marked, unconfirmed_figures, unconfirmed_note, unconfirmed_read
from archgen.topology import ScaleOutPath, TorusPath, torus_degree

#: The collective library each accelerator vendor ships, named in what the estimate says of the network transport:
#: NVIDIA's NCCL (github.com/NVIDIA/nccl) and AMD's RCCL, its ROCm fork (github.com/ROCm/rccl), which AMD's AI NICs
#: drive through the ANP net plugin (github.com/ROCm/amd-anp, "extends AMD's RCCL library"). Another vendor's
#: accelerator reads "the collective library".
COLLECTIVE_LIBRARY = {NVIDIA: "NCCL", AMD: "RCCL"}


def machine(cluster: Cluster, items: Mapping[str, Document], scale_out: ScaleOutPath | None = None,
            it_power: float = 0.0, *, failures: Failures | None = None,
            failure_ends: tuple[Failures, ...] = (), cost_per_accelerator_hour: float | None = None,
            rates: str = "", utilisation: float = 1.0) -> Machine:
    """The `Machine` of a cluster (see `cluster_hardware`)."""
    hw, total, per_rack, per_node = cluster_hardware(cluster, items, scale_out)
    part = items.get(hw.accelerator)
    vendor = getattr(part, "vendor", "")
    return Machine(cluster.id, hw, total, per_rack, it_power, failures, failure_ends, cost_per_accelerator_hour,
                   rates, scale_out.transport if scale_out is not None else "", utilisation,
                   COLLECTIVE_LIBRARY.get(vendor, "the collective library"),
                   bool(scale_out is not None and scale_out.assumed), per_node, mesh_limit(cluster, items, hw),
                   bool(scale_out is not None and scale_out.transport and scale_out.latency is None),
                   scale_out.cube if isinstance(scale_out, TorusPath) else (),
                   unconfirmed_figures(part) if isinstance(part, Accelerator) else (),
                   peak_dense=tuple(dt for dt, b in part.peak_basis.items() if b == "dense")
                   if isinstance(part, Accelerator) else (), planes=scale_out.planes if scale_out is not None else 1,
                   domain_racks=domain_span(cluster.scale_up),
                   withheld=scale_out.withheld if scale_out is not None else "",
                   withheld_by=scale_out.withheld_by if scale_out is not None else "",
                   **domain_latency(cluster, items, part, scale_out))


def mesh_limit(cluster: Cluster, items: Mapping[str, Document], hw: Hardware) -> int:
    """The largest full mesh the accelerator's stated `scale_up.links` join, or 0 (not a mesh, or links unstated).

    A full mesh of n needs n - 1 peer links (x `links_per_peer`) on every accelerator, as NET010 judges a cluster's
    own domain (`analyse.scale_up._mesh_links`); a sweep's `scale_up_size` beyond it is refused (`perf.explore.points`).
    """
    su = cluster.scale_up
    own = getattr(items.get(hw.accelerator), "scale_up", None)
    if su is None or su.topology != "mesh" or own is None or not own.links:
        return 0
    return own.links // su.links_per_peer + 1


def took_all(err: WorkloadError, workload: Workload, on: Machine) -> WorkloadError:
    """`err` saying, where `workload` gives no accelerator count, that the job took all of cluster `on`'s.

    A user who grows a cluster sees why a job of 576 accelerators is refused: it asked for all 9,216 (review62);
    `archgen estimate` and `check` (`perf.workload.results`) say it alike. The fabric and the customer's words stay.
    """
    if workload.accelerators:
        return err
    said = f" (the workload gives no accelerator count, so it takes all {on.accelerators:,} of cluster '{on.cluster}')"
    public = getattr(err.reason, "public", "")
    reason = Worded(err.reason + said, public + said) if public else err.reason + said
    return WorkloadError(err.workload, reason, err.location, err.subject, err.fabric)


def estimate_on_cluster(workload: Workload, model: Model | None, on: Machine, hardware: Hardware | None = None, *,
                        with_sensitivity: bool = True, with_stack_range: bool = True,
                        elsewhere: Sequence[Requirement] = ()) -> Estimate:
    """Estimate `workload` on the cluster `on`: the one way the pipeline, `archgen estimate` and sweeps do it.

    The workload takes its `accelerators` of the cluster, or all of them; `hardware` replaces the cluster's own
    (a what-if or a sweep point). More accelerators than the cluster has is a `WorkloadError`. `elsewhere`: the
    requirements other documents state on the workload, whose memory targets bound its layout search (`estimate`).
    """
    hardware = given_hardware(hardware, "estimate_on_cluster")
    return estimate_on_job(workload, model, on, estimate_hardware(workload, on, hardware), hardware,
                           with_sensitivity=with_sensitivity, with_stack_range=with_stack_range, elsewhere=elsewhere)


def estimate_on_job(workload: Workload, model: Model | None, on: Machine, hw: Hardware,
                    hardware: Hardware | None = None, *, with_sensitivity: bool = True,
                    with_stack_range: bool = True, elsewhere: Sequence[Requirement] = ()) -> Estimate:
    """`estimate_on_cluster`, given the job's hardware `hw`: `estimate_hardware(workload, on, hardware)`.

    For a caller that also times something else on the job's hardware (a collective workload's busbw curve,
    `perf.workload.results`): it computes it once and passes it here.
    """
    gpus = workload.accelerators or on.accelerators
    # the part's own step, before any hop (`job_hardware` keeps the latency; `second_hop` adds the hop)
    borrowed = fabric_latency_note(hardware or on.hardware, on.own_link, on.domain_fabric)
    est = estimate(workload, model, hw, gpus, gpus_per_rack=on.per_rack,
                   with_sensitivity=with_sensitivity, with_stack_range=with_stack_range, elsewhere=elsewhere)
    what_if = hardware is not None and hw.scale_out_latency != on.hardware.scale_out_latency
    note = network_latency_note(hw, gpus, "as the what-if sets it" if what_if
                                else f"as {on.transport} declares" if on.transport else "", on.library,
                                unset=on.transport if on.latency_unset and not what_if else "")
    told = ("scale_up.latency",) if set(latency_note(hw)) & set(est.notes) else ()   # its own note names it
    # the job sends (all-to-all, p2p): an all-to-all or p2p workload, pipeline or expert parallelism, attention DP
    sends = est.layout.get("op") in ("all_to_all", "p2p") or est.layout.get("attention_dp") == "yes" or any(
        isinstance(est.layout.get(k), int) and int(est.layout[k]) > 1 for k in ("pp", "ep"))
    lay = [v for k in ("tp", "cp", "dp", "pp") if isinstance(v := est.layout.get(k), int)]   # a training layout's
    stages = (lay[0] * lay[1] * lay[2], lay[3]) if len(lay) == 4 else (0, 0)   # pipeline, which the note names
    added = [n for n in (domain_racks_note(on.hardware, hw, on.domain_racks, on.hop_latency, on.switch_part, stages,
                                           on.hop_made_of),
                         one_rack_switch_note(hw, on.domain_racks, on.switch_latency, on.switch_part),
                         pod_note(hw, on.pod_flight, on.pod_made_of, on.switch_part),
                         borrowed, bridge_note(on.hardware, on.per_node, gpus),
                         assumed_fabric_note(on, hw, gpus), planes_note(on, hw, gpus), note,
                         scale_out_efficiency_note(on, hw, gpus), memory_note(hw),
                         *rccl_net.latency_note(hw, gpus, sends),
                         *unconfirmed_note(hw.accelerator, on.unconfirmed, precision(workload), told,
                                           float(hw.compute_capability), workload.training is not None)) if n]
    read = unconfirmed_read(on.unconfirmed, precision(workload))
    est = replace(marked(est, read, precision(workload), on.peak_dense), memory_type=hw.memory_type)
    if not added:
        return replace(est, cluster=on.cluster, unconfirmed=read)
    # an estimate that does not fit keeps why as its last note: a sweep row shows that one (`perf.explore.points`)
    notes = [*est.notes, *added] if est.fits or not est.notes else [*est.notes[:-1], *added, est.notes[-1]]
    return replace(est, cluster=on.cluster, notes=notes, unconfirmed=read)


def estimate_hardware(workload: Workload, on: Machine, hardware: Hardware | None = None) -> Hardware:
    """The hardware `estimate_on_cluster` times `workload` on: `job_hardware`, then a hop between racks or a pod's.

    `hardware` replaces the cluster's own (a what-if, a sweep point). A search whose times are compared with the
    estimate's (`estimate --search-plan`) takes this, not `on.hardware`: before (planhw38) the plan search timed on
    the cluster's whole domain, not the job's share of it, and printed +1.0 % against the estimate for the very layout
    the estimate took. More accelerators than the cluster has is a `WorkloadError`, and so is a job across scale-up
    domains of a cluster whose compute fabric is infeasible (`Machine.withheld`): the path between domains counts links
    on ports its switches do not have, so no figure timed on it is provided, in `check`, `estimate` and a sweep
    alike. A job inside one domain meets no fabric (`job_domain`: all its accelerators in one). The refusal comes
    before the layout search, and says so: a job whose layout would not run either is not taken for one that runs.
    """
    gpus = workload.accelerators or on.accelerators
    if gpus > on.accelerators:
        raise WorkloadError(workload.id, f"asks for {gpus} accelerators; cluster '{on.cluster}' has {on.accelerators}")
    hw = job_hardware(workload, hardware or on.hardware, gpus, on)
    if on.withheld and gpus > (hw.job_domain or hw.scale_up_size):
        raise WorkloadError(workload.id, f"{on.withheld}; its layout was not searched or checked",
                            fabric=on.withheld_by)
    return second_hop(on.hardware, hw, on.domain_racks, on.hop_latency, on.pod_flight)


def job_hardware(workload: Workload, hardware: Hardware, gpus: int, on: Machine) -> Hardware:
    """`hardware` as a job of `gpus` accelerators of `on` runs on it; a `WorkloadError` where its torus refuses them.

    Its own slice of an OCS pod (`job_slice`), its share of each domain (`comm.placement`) and, on RCCL across
    domains, the scale-out efficiency over AMD's expectations (`rccl_net.with_range`): the one rule of
    `estimate_on_cluster` and of a batch of sweep points (`perf.explore.vectorised`), which before took `placed`
    alone and so timed a job of whole cubes on a TPU v4 pod on the pod's torus, not its slice's (sweepspeed3's
    drift test: 27.1 s against 23.6 s a step at 128 chips, another layout chosen).
    """
    if problem := torus_problem(hardware, gpus, on):
        raise WorkloadError(workload.id, problem)
    if problem := slice_problem(hardware, gpus, on):
        err = WorkloadError(workload.id, problem)
        err.subject = (workload.id, ("accelerators",)) if workload.accelerators else None
        raise err
    return rccl_net.with_range(placed(workload, job_slice(hardware, gpus, on), gpus, on), gpus)


def given_hardware(hardware: object, caller: str) -> Hardware | None:
    """`hardware` given to `caller` in place of the cluster's own (None: the cluster's), or an `AnalyseError` naming it.

    A library caller's what-if is a `Hardware` (`hardware_for`, `Hardware.scaled`); an id, a dict or a factor there
    failed inside the model with an `AttributeError` before. An `AnalyseError`, as `Hardware.scaled` refuses a bad
    factor: the performance model raises no `UsageError` (tests/test_error_kinds.py).
    """
    if hardware is None or isinstance(hardware, Hardware):
        return hardware
    raise AnalyseError(f"{caller}: hardware: expected a Hardware (`hardware_for`, `Hardware.scaled`) or None for the "
                     f"cluster's own, got {type(hardware).__name__} {hardware!r}")


def placed(workload: Workload, hw: Hardware, gpus: int, on: Machine) -> Hardware:
    """`hw` for `workload` on `gpus` of `on`: its share of each scale-up domain (`comm.placement.job_share`).

    A stated `placement.per_domain` the model cannot honour is a `WorkloadError` at that field (`placement_problem`).
    """
    stated = workload.placement.per_domain if workload.placement is not None else 0
    if stated and (problem := placement_problem(stated, hw, gpus, on)):
        err = WorkloadError(workload.id, problem)
        err.subject = (workload.id, ("placement", "per_domain"))
        raise err
    return job_share(hw, gpus, stated)


def _get(items: Mapping[str, Document], ref: str, cls: type, what: str):
    part = items.get(ref)
    if not isinstance(part, cls):
        raise BuildError(f"{what} '{ref}' is not a {cls.__name__} in the specs", subject=(ref, ()))
    return part


def cluster_hardware(cluster: Cluster, items: Mapping[str, Document],
                     scale_out: ScaleOutPath | None = None) -> tuple[Hardware, int, int, int]:
    """Hardware, accelerator count, accelerators per rack and per node of a cluster.

    Args:
        cluster: The cluster spec.
        items: Every validated spec by id (racks, systems, accelerators, NICs).
        scale_out: What traffic between scale-up domains meets, as the network analysis derived it.

    Returns:
        (hardware, accelerators in the cluster, accelerators in its largest rack, accelerators per node).
    """
    units = {u.id: u for u in cluster.units}
    rack_counts: dict[str, int] = {}
    for place in cluster.layout:
        if place.unit is not None:
            if place.unit not in units:                   # the build's layout problem says where; no estimate
                raise BuildError(f"cluster '{cluster.id}' places unit '{place.unit}', which it does not define",
                                 subject=(cluster.id, ("layout",)))
            for rc in units[place.unit].racks:
                rack_counts[rc.rack] = rack_counts.get(rc.rack, 0) + rc.count * place.count
        else:
            assert place.rack is not None, "a placement gives exactly one of unit and rack (model.cluster)"
            rack_counts[place.rack] = rack_counts.get(place.rack, 0) + place.count
    total, per_rack, acc_ids, node = 0, 0, set(), None
    for rack_id, n in sorted(rack_counts.items()):
        rack = _get(items, rack_id, Rack, "rack")
        in_rack = 0
        for slot in rack.slots:
            part = items.get(slot.part)
            if isinstance(part, System) and part.accelerator and part.accelerators:
                in_rack += part.accelerators * slot.count
                acc_ids.add(part.accelerator)
                node = node or part
        total += in_rack * n
        per_rack = max(per_rack, in_rack)
    if not acc_ids:
        raise BuildError(f"cluster '{cluster.id}' has no accelerators", subject=(cluster.id, ("layout",)))
    if len(acc_ids) > 1:
        raise BuildError(f"cluster '{cluster.id}' mixes accelerators ({', '.join(sorted(acc_ids))}); the performance "
                         "model needs one kind", subject=(cluster.id, ("layout",)))
    assert node is not None, "a node is taken with each accelerator kind found"
    acc = _get(items, acc_ids.pop(), Accelerator, "accelerator")
    su = cluster.scale_up
    size = su.size if su else node.accelerators
    bw_up = su.bandwidth / 2 if su else None
    out, over, pod = ((scale_out.bandwidth, scale_out.oversubscription, scale_out.pod) if scale_out
                      else (None, 1.0, 0))
    hw = hardware_for(acc, scale_up_size=size, scale_up_bandwidth=bw_up, scale_out_bandwidth=out,
                      oversubscription=over, pod=pod,
                      scale_out_latency=(scale_out.latency if scale_out is not None and scale_out.latency is not None
                                         else DEFAULT_SCALE_OUT_LATENCY),
                      scale_out_reduction=bool(scale_out and scale_out.in_network_reduction),
                      host=HostShare.of_node(node.host_memory, node.accelerators) if node.host_memory else None,
                      scale_up_mesh=bool(su and su.topology == "mesh"))
    if su is not None and su.topology == "torus" and su.dims:   # a torus domain (Trn2 4x4): its groups on its rings
        hw = replace(hw, torus=tuple(su.dims), torus_link_bandwidth=si(su.bandwidth / 2 / torus_degree(su.dims), "B/s"))
        if su.dim_bandwidth is not None:   # each dimension's share over its own links (Trn2 UltraServer: 1,024 + 256)
            links = [si(b / 2, "B/s") / max(torus_degree([d]), 1)
                     for b, d in zip(su.dim_bandwidth, su.dims, strict=True)]
            hw = replace(hw, torus_link_bandwidth=max(links), torus_dim_factor=tuple(b / max(links) for b in links))
    if isinstance(scale_out, TorusPath):   # the torus joins every chip: one ICI domain, collectives in perf.comm.torus
        hw = replace(hw, scale_up_size=math.prod(scale_out.dims), scale_up_bandwidth=si(scale_out.bandwidth, "B/s"),
                     torus=scale_out.dims, torus_link_bandwidth=si(scale_out.link, "B/s"),
                     torus_wraparound=scale_out.wraparound, scale_out_bandwidth=0.0)
    return hw, total, per_rack, node.accelerators

