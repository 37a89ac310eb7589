"""REL: failure data, checkpoints and hot spares of clusters and training workloads (docs/reliability.md)."""

from __future__ import annotations

import math
from collections.abc import Iterator

from archgen.analyse.goodput import Goodput, no_checkpoint_target
from archgen.analyse.goodput_notes import FIXED_WIRING, interval_words
from archgen.analyse.nodes import compute_node
from archgen.analyse.rate_sets import scope_chain
from archgen.analyse.storage_demand import amount, capacity_needed
from archgen.checks import rate_repairs  # noqa: F401 (registers REL015: a repair of 0 h)
from archgen.checks import storage_paths as paths
from archgen.checks.registry import Context, Severity, Violation, check
from archgen.display import decimals
from archgen.model import Cluster, FailureRates
from archgen.perf.workload.results import WorkloadResult
from archgen.units import Q_


def _jobs(ctx: Context) -> Iterator[tuple[str, WorkloadResult, Goodput]]:
    """(workload path, workload result, goodput) of every training workload the REL stage analysed."""
    for path, g in sorted(ctx.operations.goodput.items()):
        yield path, ctx.workloads[path], g


@check("REL001", "rel.checkpoint_fits")
def checkpoint_fits_storage(ctx: Context) -> Iterator[Violation]:
    """A training job's checkpoint fits where it is kept: its cluster's checkpoint storage, or, in memory, its nodes'.

    An in-memory checkpoint (`checkpoint.in_memory`) is kept in host memory, each node holding its own shard and a
    replica of a peer's (Gemini, SOSP 2023, with its default of two replicas): 2 x checkpoint / nodes per node,
    against the compute node's `host_memory.capacity` (not judged where the node states none); its storage is not
    where it goes, though the copies it persists there (`checkpoint.keep`, where stated) and its dataset are.

    On the storage, the checkpoints a retention policy keeps at once (`checkpoint.keep`, the one being written
    counted) and the dataset where it states a `size` are judged together against `storage.capacity`; without
    `checkpoint.keep` a single checkpoint is, a lower bound that the finding says.

    Fix: raise the cluster's `storage.capacity` (the nodes' `host_memory` for in-memory checkpoints), keep fewer
    checkpoints (`checkpoint.keep`), or checkpoint less state (`checkpoint.bytes_per_parameter`).
    """
    for path, r, g in _jobs(ctx):
        built = ctx.clusters.get(f"cluster/{r.estimate.cluster}") if r.estimate else None
        cluster = built.cluster.spec if built is not None else None   # its storage's figures derived (`appliance`)
        in_memory = r.workload.checkpoint.in_memory
        if in_memory:   # its checkpoints in host memory; the copies it keeps on the storage and its dataset below
            yield from _in_memory_fits(ctx, path, g)
        storage = cluster.storage if isinstance(cluster, Cluster) else None
        need, counted, public = capacity_needed(r.workload, g.checkpoint_size)
        if cluster is None or storage is None or need <= storage.figure("capacity").m_as("B"):
            continue
        rest = f" the {storage.figure('capacity'):~P} of {cluster.id}'s checkpoint storage"
        if need == g.checkpoint_size and r.workload.checkpoint.keep is None and not in_memory:   # one checkpoint
            yield Violation(path, cluster.id, ("storage", "capacity"),
                            f"checkpoint of {Q_(g.checkpoint_size, 'B').to('TB'):.4g~P} does not fit{rest}",
                            Q_(need, "B").to("TB"), storage.figure("capacity").to("TB"))
            continue
        yield Violation(path, cluster.id, ("storage", "capacity"), f"{amount(need)} ({counted}) do not fit{rest}",
                        Q_(need, "B").to("TB"), storage.figure("capacity").to("TB"),
                        public=f"{amount(need)} ({public}) do not fit{rest}")


def _in_memory_fits(ctx: Context, path: str, g: Goodput) -> Iterator[Violation]:
    """REL001 for an in-memory checkpoint: a node's shard and its peer's replica in the node's host memory."""
    a = ctx.clusters.get(f"cluster/{ctx.workloads[path].estimate.cluster}")
    node = compute_node(a.nodes) if a is not None else None
    host = node.part.host_memory if node is not None else None
    need = 2 * g.checkpoint_size / max(g.nodes, 1)
    if node is not None and host is not None and need > host.capacity.m_as("B"):
        yield Violation(path, node.part.id, ("host_memory", "capacity"),
                        f"an in-memory checkpoint of {Q_(g.checkpoint_size, 'B').to('TB'):.4g~P} over {g.nodes} "
                        f"nodes keeps {Q_(need, 'B').to('GB'):.4g~P} per node (its shard and a peer's replica), "
                        f"more than {node.part.id}'s {host.capacity:~P} of host memory",
                        Q_(need, "B").to("GB"), host.capacity.to("GB"))


@check("REL002", "rel.progress", severity="warning")
def checkpoint_within_mtti(ctx: Context) -> Iterator[Violation]:
    """A training job writes a checkpoint in less time than its mean time to interruption.

    When the write takes longer than the MTTI, Daly's optimum interval is the MTTI itself and most checkpoints are
    lost to the next failure: the job barely progresses.

    Fix: add checkpoint write bandwidth (`storage.write_bandwidth`, storage NICs), checkpoint less state, or run on
    fewer or more reliable parts.
    """
    for path, r, g in _jobs(ctx):
        if g.mtti and g.write_time >= g.mtti:
            yield Violation(path, r.workload.id, ("checkpoint",),
                            f"a checkpoint takes {Q_(g.write_time, 's').to('min'):.3g~P}, the mean "
                            f"time to interruption is {Q_(g.mtti, 's').to('min'):.3g~P}",
                            Q_(g.write_time, "s").to("min"), Q_(g.mtti, "s").to("min"))


@check("REL003", "rel.spares", severity="info")
def spares_held(ctx: Context) -> Iterator[Violation]:
    """The cluster keeps the hot spare nodes a training job needs to hold its goodput target.

    A spare is a node the job does not use; without one, a job that loses a node waits for its repair.

    Where a scale-up domain spans several nodes (an NVL72 rack), a spare must be inside the job's domain (an idle
    tray of it) or a whole idle domain. A torus wired without OCSes takes none: it is reported only where its goodput
    misses the target.

    A job that states no `placement` fills whole domains in order: its idle trays are all in its last one.

    Where no idle node can stand in at all, every hardware failure waits for its repair: the finding gives the job's
    mean nodes in repair m, e^-m (the share of time none is in repair) and its goodput with a failed node replaced at
    once, the other end of its range, since no design input states the repair time (docs/reliability.md, Hot spares).

    Severity: a warning where the job states its own `checkpoint.goodput_target` and its goodput misses it, or where
    no number of hot spares holds the target (a stated target missed is not information: newuser41's goodput 0.184
    against a stated 0.9 read info); info where the default target (0.9, not stated) is missed for want of idle nodes.

    Fix: run the job on fewer accelerators with `placement: {per_domain: 64}` (an NVL72 rack can run 64 of 72 GPUs,
    2 trays idle), add spare nodes, or cut repair times; `checkpoint.goodput_target` sets the target (default 0.9).
    """
    for path, r, g in _jobs(ctx):
        stated = r.workload.checkpoint.goodput_target is not None and g.goodput < g.target
        severity: Severity | None = "warning" if stated else None
        whose, said = ((f" (the job's stated {key})" if stated else "")
                       for key in ("checkpoint.goodput_target", "goodput target"))
        if g.fixed_wiring:
            if g.goodput < g.target:
                misses = f"goodput {decimals(g.goodput, 3)} misses the target {g.target:g}"
                yield Violation(path, r.workload.id, ("cluster",), f"{misses}{whose}, and {FIXED_WIRING}",
                                Q_(g.goodput, ""), Q_(g.target, ""), severity=severity,
                                public=f"{misses}{said}, and {FIXED_WIRING}")
        elif g.spares_needed is None:
            yield Violation(path, r.workload.id, ("checkpoint",),
                            f"no number of hot spares holds goodput {g.target:g}; the failure "
                            f"rate and checkpoint cost alone leave it below" + _repair_wait(g), severity="warning")
        elif g.spares_needed > g.spares_available:
            takes = (f" takes {g.spares_needed} hot spare node(s); its cluster leaves {g.spares_available} idle, so "
                     f"goodput is {decimals(g.goodput, 3)}")
            packed = ("; its ranks fill whole scale-up domains in order, so those in its last domain stand in for "
                      "that domain's trays alone") if g.packed else ""
            yield Violation(path, r.workload.id, ("accelerators",) if r.workload.accelerators else ("cluster",),
                            f"holding goodput {g.target:g}{whose}{takes}"
                            + (f"{packed} (`placement.per_domain` states a segment)" if packed else "")
                            + _repair_wait(g), Q_(g.spares_available, ""), Q_(g.spares_needed, ""),
                            severity=severity, public=f"holding goodput {g.target:g}{said}{takes}{packed}"
                                                      + _repair_wait(g))


def _repair_wait(g: Goodput) -> str:
    """Where every hardware failure of a job waits for its repair (no hot spare): what its goodput rests on, else ''.

    The mean nodes in repair m (M/M/inf) and goodput near e^-m, the chance that none of its nodes is in repair, at the
    rate set's repair time; and the goodput with a failed node replaced at once, the other end of its range.
    """
    if g.swapped is None:
        return ""
    return (f"; every hardware failure waits for its repair (the rate set's {g.repair / 3600:.3g} h mean, which no "
            f"design input states): {g.in_repair:.3g} of its nodes are in repair on average, so it runs only "
            f"about e^-{g.in_repair:.3g} = {decimals(math.exp(-g.in_repair), 3)} of the time, and with a failed node "
            f"replaced at once its goodput would be {decimals(g.swapped.goodput, 3)} at the same failure rates")


@check("REL004", "rel.rates", severity="warning")
def parts_have_rates(ctx: Context) -> Iterator[Violation]:
    """Every part class of a cluster has a failure rate, so that its interruptions are complete.

    Fix: add the class to the cluster's `FailureRates` set, give the part its own `reliability:`, or name an
    existing set in `failure_rates`.
    """
    for path, rel in sorted(ctx.operations.reliability.items()):
        cluster = ctx.clusters[path].cluster.spec
        if not rel.rates_id:
            yield Violation(path, cluster.id, ("failure_rates",) if cluster.failure_rates else (),
                            f"no FailureRates set '{cluster.failure_rates or 'field-h100-2024'}'")
        elif rel.unrated:
            yield Violation(path, cluster.id, ("failure_rates",) if cluster.failure_rates else (),
                            f"no failure rate for {', '.join(rel.unrated)}; their failures are left out"
                            f"{_broken_base(ctx, rel.rates_id)}")


def _broken_base(ctx: Context, rates_id: str) -> str:
    """Where the set's `base` chain ends at an id that names no `FailureRates` set: a clause saying so, else ''."""
    specs = ctx.design.specs
    found = specs.get(rates_id)
    last = scope_chain(specs, found if isinstance(found, FailureRates) else None)[-1:]
    if not last or not last[0].base or isinstance(specs.get(last[0].base), FailureRates):
        return ""
    return f" ('{last[0].id}' takes the classes it leaves out from base '{last[0].base}', which names no set)"


@check("REL005", "rel.interval", severity="info")
def interval_near_optimum(ctx: Context) -> Iterator[Violation]:
    """A training job's checkpoint interval is within a factor of two of Daly's optimum.

    The finding gives goodput at the interval and at the optimum; it is a warning where the interval is longer than
    the run takes to train (`checkpoint.tokens` stated): no checkpoint is written before the run ends.

    Fix: leave `checkpoint.interval` out to use the optimum, or set it near the optimum shown.
    """
    for path, r, g in _jobs(ctx):
        if r.workload.checkpoint.interval is not None and g.optimum and not 0.5 <= g.interval / g.optimum <= 2:
            run = ctx.metrics.get(path, {}).get("time_to_train")
            words, longer = interval_words(g, run.m_as("s") if run is not None else None)
            yield Violation(path, r.workload.id, ("checkpoint", "interval"), words, Q_(g.interval, "s").to("min"),
                            Q_(g.optimum, "s").to("min"), severity="warning" if longer else None)


@check("REL006", "rel.storage", severity="warning")
def checkpoint_has_storage(ctx: Context) -> Iterator[Violation]:
    """A training job's cluster says where its checkpoints go, so that their write time and goodput are known.

    Without `storage:` archgen does not guess a write bandwidth (the compute NICs would write a terabyte in a
    fraction of a second): checkpoint times, goodput, spares and cost per goodput token are not provided, and so
    are requirements on them. Nor where `storage:` is stated but no fabric of role storage or converged takes a
    port of the compute nodes and `storage.external_network` does not say who builds the network they reach it over:
    the stated bandwidth would reach them over nothing the design builds or names (with that statement the figures
    are given at the nodes' NIC line rate, and REL012 says so instead). Nor where the figures left out to
    `storage.appliance` are none, the appliance placed in no rack or stating no `storage:` figures (REL014). In-memory
    checkpoints need a NIC on the nodes to reach the peers' memory.

    Fix: give the cluster's `storage:` (capacity, write and read bandwidth with their source) and a storage fabric
    that takes ports of its compute nodes, or, where that network is built outside the design, say by whom in
    `storage.external_network`; or checkpoint to peer host memory (`checkpoint.in_memory: true`) from nodes that
    list their NICs.
    """
    for path, r in sorted(ctx.workloads.items()):
        est, w = r.estimate, r.workload
        if est is None or not est.fits or w.training is None or path in ctx.operations.goodput:
            continue
        a = ctx.clusters.get(f"cluster/{est.cluster}")
        why = no_checkpoint_target(ctx.design.specs, a, w) if a is not None else None
        if why:
            said = no_checkpoint_target(ctx.design.specs, a, w, said=True) if a is not None else why
            lost = "; checkpoint write time, goodput and spares are not provided"
            yield Violation(path, w.id, ("checkpoint",), why + lost, public=f"{said}{lost}")


@check("REL007", "rel.scope", severity="info")
def rates_in_scope(ctx: Context) -> Iterator[Violation]:
    """A cluster's failure rates were measured on its own accelerator, or the document says they are borrowed.

    A set whose source leaves the accelerator model unstated (StepFun's trace: NVIDIA, model not stated) is not
    shown to be the cluster's own either: this finding says so too ("accelerator not stated by the source").

    Fix: name a `failure_rates` set measured on the cluster's accelerator, or accept the borrowed rates knowingly
    (waive this finding with the reason).
    """
    for path, rel in sorted(ctx.operations.reliability.items()):
        said = ([f"{rel.borrowed}: rates from another generation or vendor"] if rel.borrowed else []) + (
            [rel.unstated] if rel.unstated else [])
        if said:
            cluster = ctx.clusters[path].cluster.spec
            yield Violation(path, cluster.id, ("failure_rates",) if cluster.failure_rates else (), "; ".join(said))


@check("REL008", "rel.blocking", severity="info")
def checkpoint_blocking_known(ctx: Context) -> Iterator[Violation]:
    """An asynchronous or in-memory checkpoint's blocking time rests on the nodes' host link, not on an assumption.

    Such a checkpoint stops training only to copy each accelerator's share to host memory, over the node's
    `host_memory.link`. A node that gives no link leaves that copy's rate unknown: archgen does not guess it and
    charges the whole write as blocking, an upper bound on the checkpoint's cost, and this finding says so. The
    blocking time itself is then not provided, and a requirement on it is REQ002 (not provided), not judged on the
    assumption. Goodput and what rests on it are given at that bound, and its range (`goodput_high`) reaches the
    other end, no stop at all; a requirement on them met at one end and not at the other is REQ002 as well.

    Fix: give the compute node's `host_memory` (capacity, link and efficiency, with their source), or accept the
    whole write as the cost (waive this finding with the reason).
    """
    for path, r, g in _jobs(ctx):
        if g.blocking_assumed:
            cp = r.workload.checkpoint
            kind = "in-memory" if cp.in_memory else "asynchronous"
            cluster = r.estimate.cluster if r.estimate else "?"
            rest = (f", so the {kind} checkpoint's copy to host memory has no rate: training is taken to stop for the "
                    f"whole write, {Q_(g.write_time, 's'):.3g~P} (an assumption, an upper bound): goodput "
                    f"{decimals(g.goodput, 4)} there, "
                    f"{decimals(g.unblocked.goodput if g.unblocked else g.goodput, 4)} with no stop")
            yield Violation(path, r.workload.id, ("checkpoint",),
                            f"the nodes of cluster '{cluster}' give no `host_memory.link`{rest}", Q_(g.blocking, "s"),
                            None, public=f"the nodes of cluster '{cluster}' state no host memory link{rest}")


@check("REL009", "rel.spare_model", severity="warning")
def spare_model_valid(ctx: Context) -> Iterator[Violation]:
    """A training job's hot spares outnumber its nodes in repair, where the spare model's wait for a repair holds.

    The spare model counts the job's nodes in repair as Poisson (M/M/inf: nodes x hardware failure rate x repair
    time) and charges an interruption that finds every spare in repair one wait for the first node back. That is a
    correction to the restart while the spares outnumber the nodes in repair. Where more are in repair on average
    than the job has spares, the job is short of spares most of the time, and its waits are set by the repair queue
    the closed form does not model (repair scheduling, the repair times' spread, idle spares failing): the restart
    time is then not provided (a requirement on it is REQ002), and the goodput and spares given rest on that wait.
    With no spare at all the wait is the failed node's own repair, and this finding does not apply.

    Fix: cut repair times or failure rates (check the `FailureRates` figures: an AFR of 100 % with a year's repair
    leaves a node in repair most of its life), or keep more idle nodes than are in repair.
    """
    for path, r, g in _jobs(ctx):
        if g.spares_overrun:
            yield Violation(path, r.workload.id, ("checkpoint",),
                            f"the job's {g.nodes} node(s) keep {g.in_repair:.3g} nodes in repair on average (M/M/∞: "
                            f"nodes × hardware failure rate × repair time), more than {_spares(g)}: the spare model "
                            "is outside its validity, so the restart time (with its wait for a repair) is not "
                            f"provided; goodput {decimals(g.goodput, 4)} rests on that wait",
                            Q_(g.in_repair, ""), Q_(g.spare_slots, ""))


def _spares(g: Goodput) -> str:
    """What a job's nodes in repair are weighed against (REL009): its idle nodes, or what they stand in for."""
    if g.spare_slots == g.spares_available:
        return f"its {g.spares_available} hot spare(s)"
    return (f"the {g.spare_slots} failed node(s) its {g.spares_available} idle node(s) stand in for at once (a whole "
            "idle scale-up domain takes one failed node's domain, an idle node of the job's own domains one failure "
            "there)")


@check("REL010", "rel.storage_ports", severity="warning")
def storage_reaches_its_fabric(ctx: Context) -> Iterator[Violation]:
    """A cluster's stated storage bandwidth fits through the ports its storage takes on the fabrics that carry it.

    The storage's ports are a fabric's `endpoints.storage` where it states one; else, on a fabric of role `storage`,
    every endpoint that is not a compute node (`endpoints.extra`, `reserved`, and the ports of placed systems without
    accelerators, such as storage servers), which the finding says was assumed. The stated `write_bandwidth` and
    `read_bandwidth` reach the nodes through them at the fabric's line rate and no faster, so checkpoints are
    written and restored at the smaller figure. Not judged where a fabric carrying storage gives no such port (a
    `converged` fabric without `endpoints.storage`: its other ports serve the front end too). An
    `endpoints.storage` above the endpoints that are not compute nodes is reported: the fabric has no more ports.

    Fix: give the storage fabric the ports the storage system has (`endpoints.storage`, `endpoints.extra`:
    appliances × ports each, or its servers placed in racks), add storage nodes, or state the bandwidth the storage
    delivers through them.
    """
    yield from paths.storage_ports_over(ctx)


@check("REL012", "rel.storage_unwired", severity="warning")
def storage_has_a_fabric(ctx: Context) -> Iterator[Violation]:
    """Checkpoint storage is reached over a fabric of this design, not timed at NIC line rate on an external network.

    Where no fabric of role storage or converged takes a port of the compute nodes and `storage.external_network`
    says who builds the network they reach the storage over, archgen times checkpoints over the nodes' storage NICs
    (else converged or compute NICs) at line rate (`analyse.checkpoint_storage.unwired_path`): a path this design
    does not build, so the checkpoint times, goodput and storage bandwidth per accelerator rest on it. (Without that
    statement they are not provided: REL006.) Also reported: `external_network` stated where a fabric of this
    design does carry the storage to the nodes, which is then not used. Where every training job on the cluster
    checkpoints in peer host memory (`checkpoint.in_memory`), no checkpoint is timed over that path and only the
    storage's own bandwidth per accelerator rests on it: information, not a warning.

    Fix: add the storage fabric (role `storage`, or `converged` with the front end), with the storage's ports in
    `endpoints.storage` or `endpoints.extra`; or accept the line rate knowingly (waive this finding with the reason).
    """
    yield from paths.unwired_storage(ctx)


@check("REL011", "rel.storage_uplinks", severity="warning")
def storage_fits_its_uplinks(ctx: Context) -> Iterator[Violation]:
    """A cluster's stated storage bandwidth fits through the leaf uplinks of the fabrics that carry it.

    Checkpoint traffic striped over every storage port leaves a node's leaf in the share its other leaves hold; with
    the storage's ports spread over the L leaves in proportion (the placement that keeps most of it on its leaf),
    the leaf tier's uplinks U carry at most W = U L / (L - 1) (`analyse.checkpoint_storage.uplink_bound`), and an
    oversubscribed storage fabric less than its ports do. Checkpoints are written and restored at no more; storage
    on leaves of its own gets less still. Not judged on a fabric of one tier.

    Fix: lower the storage fabric's oversubscription (more leaf uplinks), or state the bandwidth the storage
    delivers through them.
    """
    yield from paths.storage_uplinks_over(ctx)


@check("REL013", "rel.dataset_reads", severity="warning")
def dataset_reads_fit(ctx: Context) -> Iterator[Violation]:
    """A training job's data loaders read no faster than its cluster's storage gives the job.

    The job reads `dataset_read_bandwidth` (its tokens per second x `dataset.read_per_token`) from the cluster's
    `storage:` while it trains; the storage gives it at most the read bandwidth a restore of the job reaches (the
    stated `read_bandwidth`, times `read_efficiency` where given, bounded by the storage's ports, the leaf uplinks
    and the job's nodes' ports to storage). Above it the GPUs wait for data, which the step time does not include.
    Judged alone: the checkpoint writes and restores share that bandwidth, and are timed as if they did not. Not
    judged without `dataset:`. An in-memory checkpoint's restore reads its peers, not the storage; its data loaders
    are judged against the storage's delivered read bandwidth bounded by the job's nodes' ports to it.

    Fix: add storage read bandwidth (`storage.read_bandwidth`, its ports on the storage fabric, the nodes' storage
    NICs), or cache the data on the nodes' local drives and state what the job then reads from the storage.
    """
    yield from paths.dataset_reads_over(ctx, _jobs(ctx))


@check("REL014", "rel.storage_appliances")
def storage_within_appliances(ctx: Context) -> Iterator[Violation]:
    """A storage built from appliances states no more than the appliances its racks place give.

    With `storage.appliance`, the storage is that System placed in the cluster's racks (their units, weight, power,
    cooling and price count it). A `capacity`, `write_bandwidth` or `read_bandwidth` left out is the placed count x
    the part's `storage:` figure; one stated is held to it: above it an error, below it information (the stated,
    smaller figure is used, as a file system's usable share can be).

    Fix: place more of the appliance in the cluster's racks, or leave the figures out to take the appliances' sum.
    """
    yield from paths.appliances_short(ctx)
