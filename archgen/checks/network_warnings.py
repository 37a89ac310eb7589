"""NET's warnings on a fabric that builds (NET021, NET023, NET024, NET026, NET028 to NET035).

Split from `archgen.checks.network` for its size (as it holds them: each check's `@check` and docstring, its findings
the named helpers'): a cluster whose network draws out of proportion to its IT power, leaves a NIC role or a
management or front-end network unwired, a management fabric not knowing its power parts' ports, NIC ports above the
fabric's rate, a rack short of its per-rack leaves, nodes of two accelerators, a second compute fabric no estimate
reads, a last pod with spines and core links it does not use, an oversubscription stated the wrong way round or
built above the stated ratio, a bisection that may lie above the least cut, or a stated core count of one core per
core group. `checks.network` imports it, so NET's checks register together.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.checks import management_ports as management
from archgen.checks import network_roles as roles
from archgen.checks import pods
from archgen.checks import stated_ratios as ratios
from archgen.checks.fabric_requirements import even_share_bisections
from archgen.checks.proportion import violations
from archgen.checks.registry import Context, Violation, check

_fabric_problems = roles.fabric_problems  # the sized fabrics' problems, by check (as `checks.network` reads them)


@check("NET021", "network.proportion", severity="warning")
def out_of_proportion(ctx: Context) -> Iterator[Violation]:
    """Network power is at most 15 % of IT power; no tier of over two switches uses under a quarter of its ports.

    The figures and their reasons are in `archgen.checks.proportion`. A tier whose wiring an infeasible topology
    withheld is not weighed (`network.withheld_tiers`): its ports used count links on ports the switches lack
    (8 cores "using 8 of 64 ports" over 2 leaves fixed where 16 are needed, infeastail42).

    Fix: use fewer tiers or fixed counts that fit the endpoints (`tiers: 2`, `spine.count`, `core.count`), or
    switches of fewer ports; waive it for the cluster or fabric with the reason when the room is for growth.
    """
    yield from violations(ctx)


@check("NET023", "network.unwired_nic_role", severity="warning")
def unwired_nic_role(ctx: Context) -> Iterator[Violation]:
    """Every NIC role a node carries (compute, storage, front end, a BMC's management port) is used by a fabric.

    Fix: add a fabric with that `role` or `nic_role`, or waive the finding on its subject, saying who builds it.
    """
    yield from roles.unwired_nic_roles(ctx)


@check("NET024", "network.missing_networks", severity="warning")
def missing_networks(ctx: Context) -> Iterator[Violation]:
    """A cluster has an out-of-band management network and a front-end network besides its compute fabric.

    Fix: add a `management` fabric and a `frontend` (or `converged`) one, or waive the finding on its subject; give a
    front end's ports to the site core as `reserved: [{name: ..., ports: N, north_south: true}]`.
    """
    yield from roles.missing_networks(ctx)


@check("NET032", "network.unstated_management_ports", severity="warning")
def unstated_management_ports(ctx: Context) -> Iterator[Violation]:
    """A management fabric taking power parts' or CDUs' ports (`endpoints.power`, `cooling`) knows each part's count.

    Fix: state each power shelf's, PDU's and CDU's `management_ports` from its datasheet (0 where it has none).
    """
    yield from management.unstated_power_ports(ctx)


@check("NET026", "network.nic_faster_than_fabric", severity="warning")
def nic_faster_than_fabric(ctx: Context) -> Iterator[Violation]:
    """Every node NIC port runs at the fabric's line rate, not above it (after the fabric's `nic_breakout`).

    An 800G ConnectX-8 port on a 400G fabric runs at 400G, half its rate unused. A warning on a compute fabric (the
    estimates run at its rate), info on others (reference designs run storage ports below the card's rate).

    Fix: give `nic_breakout` (e.g. '2x400G', where the NIC part lists it) to use each port as several fabric
    ports, one per plane; or raise `speed` to the NIC's rate; or waive the finding, saying why the rate is enough.
    """
    yield from roles.nic_rate_problems(ctx)


@check("NET028", "network.leaves_per_rack", severity="warning")
def leaves_per_rack(ctx: Context) -> Iterator[Violation]:
    """A rack type holds the leaves its racks' ports need where the leaves are sized per rack (`leaf.serves_racks`).

    Each group of racks needs ⌈its ports / leaf down ports⌉ leaves (BMC, switch and power-shelf management ports).

    Fix: set the leaf switch's slot count in the rack type to the leaves the finding gives (more are unused, fewer
    send ports to leaves in other racks), or change `leaf.serves_racks`; for ports that should not be cabled, set
    the parts' `management_ports` or the fabric's `endpoints`.
    """
    yield from _fabric_problems(ctx, "NET028")


@check("NET029", "network.one_accelerator", severity="warning")
def one_accelerator(ctx: Context) -> Iterator[Violation]:
    """A cluster's nodes carry one kind of accelerator.

    A cluster's analyses that read one accelerator or node (the failure-rate sets' scope, REL007, and so goodput;
    checkpoint times; the scale-up switches) take its compute node's, the node type holding most of its accelerators
    (`analyse.nodes.compute_node`), so a cluster of two generations is analysed as the larger one without a word;
    its per-accelerator metrics (cost per accelerator-hour, bandwidth per accelerator) mix both kinds; and no
    workload can be estimated on it (PERF003: the performance model needs one kind). newuser51: DGX B200 racks added
    to a 128-node DGX H100 cluster gave 1,152 accelerators and passed `check` with only the rack placement warnings.

    Fix: make each kind a cluster of its own; both may name one hall (`facility`), whose capacities PWR010, PWR011
    and COOL009 judge them against together, and state the storage they share with one `storage.id`, counted once
    in the hall (docs/clusters.md).
    """
    yield from roles.mixed_accelerators(ctx)


@check("NET030", "network.one_scale_out_fabric", severity="warning")
def one_scale_out_fabric(ctx: Context) -> Iterator[Violation]:
    """A cluster's traffic between scale-up domains runs over one compute fabric, as its estimates take it.

    The performance model reads the first fabric of role `compute` (else the first `converged`); a second one (a
    plane written as a fabric of its own) carries nothing in any estimate (newuser72: two 400G planes, 400 Gb/s).

    Fix: write parallel planes over the same NICs as one fabric with `planes: N` (and `nic_breakout` where each NIC
    port splits over them); or waive the finding, saying which fabric the estimates should not read.
    """
    yield from roles.other_compute_fabrics(ctx)


@check("NET031", "network.partial_pod", severity="warning")
def partial_pod(ctx: Context) -> Iterator[Violation]:
    """A 3-tier fat tree's last pod, holding fewer leaves than a pod takes, has only the spines and core links they use.

    The sizing gives every pod a full pod's spines, each with a full pod's core uplinks; in a last pod of r of P
    leaves, r·u leaf uplinks need ⌈r·u / d_spine⌉ spines (the fewest dividing u, as a pod standing alone takes), and
    their core links those spines' downlinks at the tier's down:up ratio (`checks.pods`, with the sources). The
    finding gives the spines, cores and spine-core links (with their transceivers) beyond those and the IT power
    they draw (switches at maximum); cores counted in groups of one spine per full pod, the floor by ports beside
    them. A fixed `spine.count` or `core.count` is the user's choice, not judged.

    Fix: grow the cluster to whole pods, or take the counts the finding gives with `spine.count` and `core.count`
    fixed where the wiring allows them; where the last pod is cabled for growth, waive the finding saying so.
    """
    yield from pods.partial_pods(ctx)


@check("NET033", "network.stated_oversubscription", severity="warning")
def stated_oversubscription(ctx: Context) -> Iterator[Violation]:
    """A fat tree's stated oversubscription is down:up at or above 1:1, and its tiers are built at it.

    A ratio under 1:1 gives a tier more up than down bandwidth: "1:3" written for a 3:1 taper, as Meta's Llama 3
    paper writes 7 down to 1 up "1:7", builds three times the uplinks (a warning at the key). A ratio the ports
    cannot give exactly is built more oversubscribed, u = ⌊d·s / (o·s_up)⌋ (info, with the ratio as built;
    `checks.stated_ratios`). As built is all of a tier's down ports over its up ports; the metric
    `<tier>.oversubscription` is the ratio as used (the down ports in use over the up ports), lower where down ports
    stay free, so a spine stated 2:1 may be built 2.05:1 and used at 1.52:1.

    Fix: write the ratio down:up ('3:1' for three down to one up); for spare uplinks on purpose, and where the ports
    do not divide, give `down` and `up` ports for the split wanted; or waive the finding with the reason.
    """
    yield from ratios.stated_ratios(ctx)


@check("NET034", "network.even_share_bisection", severity="info")
def even_share_bisection(ctx: Context) -> Iterator[Violation]:
    """A rail-optimized plane's bisection is the least cut of its leaves as wired, or says that it may lie above it.

    The bisection cuts a rail plane's leaves as the cabling wires them (`analyse.leaf_loads`): a short group's leaves
    hold fewer ports than a full group's; a cluster analysed from counts only (NET015) is counted from its layout.
    Where it cannot (wired leaves that would take the least-cut search past `SEARCH_LIMIT`), it cuts the ports
    shared evenly over the used leaves, which moves endpoints onto the short leaves and can overstate the least cut:
    by 60 % on a plane of seven short units beside a full one (review53: 204.8 Tb/s shared evenly, 128 Tb/s as
    wired). The finding names the fabric, why, and a `min_bisection_per_accelerator` that this figure meets but does
    not prove; the N-1 figures likewise.
    A requirement on them that they meet is at risk (REQ004), not met (`checks.judgement.even_share_risks`).

    Fix: nothing in the spec is wrong: where the figure decides something, take the least cut of the leaves as wired
    from a smaller model of the plane (fewer alike pods) or by hand; where it is known to hold, waive the finding
    saying so.
    """
    yield from even_share_bisections(ctx)


@check("NET035", "network.one_core_groups", severity="warning")
def one_core_groups(ctx: Context) -> Iterator[Violation]:
    """A 3-tier fat tree's stated core count spreads each spine's uplinks over two cores or more.

    A `core.count` of one core per spine of a pod makes core groups of one core: every uplink of a pod's spine j goes
    to core j, and that core's loss cuts the spine off the cores (the pods keep their other spines). Derived counts
    take groups of two cores or more where the ports allow, so a spine keeps (n − 1)/n of its core links with one of
    its group's n cores lost (`analyse.upper_tiers.core_groups`; Al-Fares et al., SIGCOMM 2008, §2.3: each
    aggregation switch meets k/2 cores; Facebook's fabric: a fabric switch meets every spine of its plane). The
    finding gives the count stated, the group size, the smallest count that spreads the uplinks, and the derived
    count. A spine of one uplink, or a fabric of one pod (NET027: its cores carry no traffic), is not judged.

    Fix: state the count the message gives (two cores a group or more), or leave `core.count` out to have it derived;
    where one core per spine is meant, waive the finding saying why.
    """
    yield from _fabric_problems(ctx, "NET035")


@check("NET036", "network.idle_core_ports", severity="warning")
def idle_core_ports(ctx: Context) -> Iterator[Violation]:
    """A 3-tier fat tree's derived cores are no more than its spine uplinks need by ports, or say what the rest cost.

    The cores are sized in groups that meet every pod alike (`analyse.upper_tiers.core_groups`), so a core takes
    the same links from each pod, at most ⌊k_core / pods⌋; where the pods do not divide the core's ports, the
    groups' spines and links can leave many ports free. 16 GB200 SUs on 64-port QM9700 cores (9 pods of 32 spines
    with 32 core links) take 256 cores of 36 ports used, where ⌈9,216 / 64⌉ = 144 take the spine uplinks by ports
    alone (32 SUs, 18 pods: 512 against 288; newuser105). The count by ports is not built: its cores would take
    more links from some pods than from others, and a core with more links in from one pod than out to another
    carries more than its links' worth between them (`analyse.core_ports`). The finding gives the cores' ports used
    and free, the count by ports, and the cores more than it with their maximum power and price. A stated
    `core.count` (NET018 its floor), a fabric of one pod (NET027) or a part-full last pod (NET031, which gives the
    count by ports beside its own) is not judged here.

    Fix: a pod count that divides the core's ports (the SUs, or the spines' down ports that set a pod's leaves; NVIDIA's
    3-tier SuperPOD rows use 4, 8 and 16 pods of 64-port cores), cores of more ports, or waive the finding with the
    reason where the even spread is wanted.
    """
    yield from pods.idle_core_ports(ctx)
