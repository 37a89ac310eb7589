"""REL's checks of checkpoint storage: room, paths, ports, uplinks, appliances, data reads (docs/reliability.md).

Split from `checks/reliability.py` for its size (`MODULE_PARTS`), which imports this module (its rules register
together) and the training jobs the REL stage analysed, `jobs`.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.goodput import Goodput, no_checkpoint_target
from archgen.analyse.nodes import compute_node
from archgen.analyse.storage_demand import amount, capacity_needed
from archgen.checks import storage_paths as paths
from archgen.checks.registry import Context, Violation, check
from archgen.display import figure
from archgen.model import Cluster
from archgen.open_item import customer_text
from archgen.perf.workload.results import WorkloadResult
from archgen.units import Q_


def jobs(ctx: Context) -> Iterator[tuple[str, WorkloadResult, Goodput]]:
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
    for path, r, g in jobs(ctx):
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
                            f"checkpoint of {figure(Q_(g.checkpoint_size, 'B').to('TB'))} does not fit{rest}",
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
                        f"an in-memory checkpoint of {figure(Q_(g.checkpoint_size, 'B').to('TB'))} over {g.nodes} "
                        f"nodes keeps {figure(Q_(need, 'B').to('GB'))} per node (its shard and a peer's replica), "
                        f"more than {node.part.id}'s {host.capacity:~P} of host memory",
                        Q_(need, "B").to("GB"), host.capacity.to("GB"))


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
            lost = "; checkpoint write time, goodput and spares are not provided"
            yield Violation(path, w.id, ("checkpoint",), why + lost, public=customer_text(why) + lost)


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
    yield from paths.dataset_reads_over(ctx, jobs(ctx))


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
