"""NET: cluster fabrics and scale-up domains can be built as specified and meet their requirements."""

from __future__ import annotations

from collections.abc import Iterator

from archgen.checks import fabric_shape as shape
from archgen.checks import network_roles as roles
from archgen.checks import network_warnings  # noqa: F401 (registers the warnings, NET021 to NET032)
from archgen.checks.expectations import cluster_totals
from archgen.checks.fabric_requirements import bandwidth_shortfalls, bisection_shortfalls
from archgen.checks.proportion import surplus
from archgen.checks.registry import Context, Violation, check

_fabric_problems, _cluster_problems = roles.fabric_problems, roles.cluster_problems  # analysers' problems, by check


@check("NET001", "network.radix")
def radix(ctx: Context) -> Iterator[Violation]:
    """No switch needs more ports than its radix at the fabric's line rate.

    Fix: use a switch with more ports, raise the oversubscription, or add a tier.
    """
    yield from _fabric_problems(ctx, "NET001")


@check("NET002", "network.uplinks_divisible")
def uplinks_divisible(ctx: Context) -> Iterator[Violation]:
    """Each leaf's uplinks divide evenly over the spines it connects to, and each spine's over its core group.

    Fix: choose a spine count that divides the leaf uplinks (NVIDIA's 3-SU design uses 16 spines, not 12), and a
    core count that the message lists, or leave `spine.count` and `core.count` out to have them derived.
    """
    yield from _fabric_problems(ctx, "NET002")


@check("NET003", "network.tiers")
def tiers(ctx: Context) -> Iterator[Violation]:
    """The fabric fits in the tiers asked: k·d endpoints for 2 tiers (k²/2 at 1:1), k³/4 for 3, one leaf for 1.

    Fix: add a tier (`tiers: 2` or `3`, or `auto`), use higher-radix switches, add planes, or shrink the cluster.
    """
    yield from _fabric_problems(ctx, "NET003")


@check("NET004", "network.rails")
def rails(ctx: Context) -> Iterator[Violation]:
    """Rails × planes equal the fabric ports of one scale-up domain, so NIC n lands on the leaf of rail n.

    Fix: set `rails` to the NIC ports per node (DGX: 8) or per rack-scale domain (NVL72: 72), divided by `planes`.
    """
    yield from _fabric_problems(ctx, "NET004")


@check("NET005", "network.planes")
def planes(ctx: Context) -> Iterator[Violation]:
    """The plane count divides every node's NIC ports into equal shares.

    Fix: make `planes` a divisor of the NIC ports per node, or change `ports_per_node`.
    """
    yield from _fabric_problems(ctx, "NET005")


@check("NET006", "network.oversubscription_bisection")
def oversubscription_bisection(ctx: Context) -> Iterator[Violation]:
    """Every tier's oversubscription as used and the bisection per accelerator meet the fabric's requirements.

    The ratio judged is the metric `<tier>.oversubscription`: the down ports in use over the up ports, not all the
    down ports a split sets aside (as built, NET033) nor the ratio stated.

    Fix: add spines or uplinks (lower the oversubscription), or relax `max_oversubscription` /
    `min_bisection_per_accelerator` with the requirement's owner.
    """
    yield from bisection_shortfalls(ctx)


@check("NET007", "network.nic_bandwidth")
def nic_bandwidth_per_accelerator(ctx: Context) -> Iterator[Violation]:
    """NIC bandwidth into the fabric per accelerator, each card at most its host interface, meets the requirement.

    Fix: fit more or faster NICs, use more ports per node, or relax `min_bandwidth_per_accelerator`.
    """
    yield from bandwidth_shortfalls(ctx)


@check("NET008", "network.totals")
def totals(ctx: Context) -> Iterator[Violation]:
    """Accelerators = nodes × accelerators per node, and the cluster's expected totals match the derived ones.

    `expect` may pin accelerators, nodes and racks, and per fabric the switches and cables of each tier (the
    published component table of a reference design). An expectation whose nodes × accelerators per node is not
    its accelerators contradicts itself, and the finding says so.

    Fix: correct `expect`, or the rack counts and rack contents (or the fabric rules) that the totals come from.
    """
    yield from (v for c in ctx.clusters.values() for v in cluster_totals(c))


@check("NET009", "network.reserved_ports")
def reserved_ports(ctx: Context) -> Iterator[Violation]:
    """Reserved leaf ports (UFM / fabric manager, storage, services) fit beside the nodes' ports.

    Fix: free leaf ports by removing a node per SU (NVIDIA's 31-node SU makes room for the UFM), or add a leaf.
    """
    yield from _fabric_problems(ctx, "NET009")


@check("NET010", "network.scale_up")
def scale_up(ctx: Context) -> Iterator[Violation]:
    """The scale-up domain holds the accelerators it claims, at their links' bandwidth, with a switch port per link.

    The domain's `bandwidth` counts both directions, so it is twice the accelerator's `scale_up.bandwidth`
    (per direction, as datasheets give it): NVLink 5 is 900 GB/s per direction, 1.8 TB/s both ways. Estimates
    run on the domain's figure. Each rack type holding accelerators places `switches` trays of the `switch` part
    per domain (one per rack, or one per node), so the ports are judged on the trays the racks' power and BOM count.
    An NVLink domain runs on an NVLink switch part, and an NVLink switch part only in an NVLink domain. A switched
    rack domain of several systems names its switch part (a node domain's baseboard may hold them: taken at its
    word); one hop needs each accelerator linked to every switch, at most the ports' rate, by no more links than
    its `scale_up.links` (NVLink, Infinity Fabric). A mesh joins every accelerator to each of its `size - 1` peers, so
    the accelerator needs that many links (times `links_per_peer`) where its `scale_up.links` is stated. A torus joins
    each accelerator to its neighbours along `dims` (4 in a Trn2 instance's 4x4), so the accelerator needs that many
    links, and its bandwidth is at most what they carry (a torus may leave some of the accelerator's links unused).
    A UALink port is x1, x2 or x4 (UALink 200G 1.0), so a UALink domain's `link` and its UALink switch's ports have
    1, 2 or 4 lanes.

    Fix: set `scale_up.size` to the accelerators per node or rack, `bandwidth` to twice the accelerator's
    per-direction figure (or waive with the reason a domain is built with fewer links), and `switches` to enough
    trays for size × links per accelerator, no more than its links, as many as the rack places per domain; a mesh
    no larger than the accelerator's links allow (a part joined as a torus or ring is not a mesh).
    """
    yield from _cluster_problems(ctx, "NET010")


@check("NET011", "network.nic_ports")
def nic_ports_used(ctx: Context) -> Iterator[Violation]:
    """The fabrics use no more NIC ports of a role than the nodes have, and each attaches some.

    A fabric of nodes (`endpoints.nodes`, the default) whose `nic_role` (default `role`) no node's NICs carry
    attaches nothing, yet would be sized and powered as if it did.

    Fix: lower `ports_per_node`, or fit the NICs the fabrics need; name a `nic_role` the nodes have.
    """
    yield from _fabric_problems(ctx, "NET011")
    yield from roles.overused_nic_roles(ctx)


@check("NET012", "network.placement", severity="warning")
def placement(ctx: Context) -> Iterator[Violation]:
    """The racks named for a tier hold as many of its switches as the fabric needs.

    Fix: add racks of that type to the layout, or more switch slots to the rack type.
    """
    yield from _cluster_problems(ctx, "NET012", extra=True)


@check("NET017", "network.surplus_switches", severity="info")
def surplus_switches(ctx: Context) -> Iterator[Violation]:
    """Racks hold no more of a switch than the fabrics place in them (up to rounding to whole racks).

    For each rack type and switch part, the switches placed (racks of that type x switches per rack) are compared
    with those the fabrics derive for tiers whose `rack` is that type; switches derived for a tier that names no
    rack are counted against the first racks that hold the part. A surplus below one switch per rack is not
    reported: racks of one type hold the same slots, so the odd ones out could only go with a rack type of their
    own. The switches of the scale-up domain are left to NET010. Each finding gives the unused switches' draw. A
    switch a tier of an infeasible fabric counts (its wiring withheld: NET001, NET003, NET018) is not weighed: that
    count is no build, and the error says the fabric needs more, not fewer (review62: 112 of 544 QM9700 "unused"
    beside NET003's "use 3 tiers").

    Severity: info where the unused switches draw at most 1 % of the cluster's IT power, a warning above it: this
    project's review threshold, not a published figure (a spare or management pair per rack, often deliberate, stays
    under it; newuser72's 612 unused Q3400, 2.1 MW, 3.0 %, are above).

    Fix: lower the switch count in the rack type's `slots`, or name the rack type in the tier that should use the
    switches; if the fabric should use them all, check its endpoints and oversubscription.
    """
    yield from surplus(ctx)


@check("NET013", "network.single_points_of_failure", severity="warning")
def single_points_of_failure(ctx: Context) -> Iterator[Violation]:
    """No single spine or core switch failure disconnects part of a fabric (checked on the switch graph).

    Fabrics of up to 2,000 switches per plane are checked on their graph (articulation points); larger ones without
    spare leaves by the closed form of `topology.clos_single_points`, which agrees with the graph on
    the regular shapes it decides (a million-accelerator fat tree would otherwise spend seconds on a graph).

    Fix: use at least two spines (and cores), each leaf connected to more than one.
    """
    yield from shape.single_points(ctx)


@check("NET027", "network.idle_core", severity="warning")
def idle_core(ctx: Context) -> Iterator[Violation]:
    """A 3-tier fat tree holds more than one pod; in one pod its cores and spine-core links carry no traffic.

    `tiers: 3` over leaves that fit under one pod's spines (newuser26: 128 leaves on 144-port spines built 144
    cores, 20,736 spine-core links and about 760 kW that no path uses). The finding gives the idle switches,
    links, transceivers and their power.

    Fix: set `tiers: 2` (or `auto`); keep `tiers: 3` only for growth, and waive the finding saying so.
    """
    yield from shape.idle_core(ctx)


@check("NET014", "network.structure")
def structure(ctx: Context) -> Iterator[Violation]:
    """Units named in the layout or a fabric's `group` are defined, once.

    Fix: define the unit in `units`, or correct the name in `layout` or the fabric's `group`.
    """
    yield from _cluster_problems(ctx, "NET014")


@check("NET015", "network.size")
def size(ctx: Context) -> Iterator[Violation]:
    """The cluster is small enough to lay out rack by rack (cable lengths need positions).

    Fix: split the cluster into halls described separately, or check the counts for a typo.
    """
    yield from _cluster_problems(ctx, "NET015")


@check("NET016", "network.switch_speed")
def switch_speed(ctx: Context) -> Iterator[Violation]:
    """Every switch and node NIC runs at least the fabric's line rate (switch ports split evenly by breakout).

    A NIC port or a torus chip's link (`scale_up.bandwidth` / `scale_up.links`) slower than the fabric would have its
    nodes inject, and estimates run, at a rate it cannot carry; a `nic_breakout` the NIC does not list, ports it lacks;
    one its part allows only beside other accelerators (`breakout_accelerators`), a split its source does not support.

    Fix: use a switch whose ports run at `speed` or a multiple of it, NICs (a torus: chip links) of at least `speed`,
    and a `nic_breakout` each NIC's part lists in its `ports.breakouts` (and its `breakout_accelerators` allows beside
    the node's accelerator).
    """
    yield from _fabric_problems(ctx, "NET016")


@check("NET018", "network.fixed_counts")
def fixed_counts(ctx: Context) -> Iterator[Violation]:
    """Every fixed switch count (`<tier>.count`) is built and holds what the fabric needs.

    A count below the derived number would leave endpoints or uplinks without a port; a count on a tier that
    `tiers: auto` does not build would be ignored. Counts are per plane (spines: per pod on 3 tiers).

    Fix: raise the count to the number the message gives, or leave it out to have it derived; with
    `tiers: auto`, set `tiers` to build the tier the count is for.
    """
    yield from _fabric_problems(ctx, "NET018")


@check("NET019", "network.port_groups")
def port_groups(ctx: Context) -> Iterator[Violation]:
    """Each tier's `down` and `up` ports exist on its switch, fit their port group, and use a breakout it allows.

    A port group lists its count, native speed and allowed breakouts (`ports`, `port_groups`); a tier gives ports
    to its roles by group, range and breakout (OCP OPG-256: ports 1-32 as 2x400G down, 33-64 native 800G up).
    Fixed `uplinks` come from a group that runs `uplink_speed`. The same ports are checked at the leaf, spine and
    core; the top tier that `tiers: auto` builds takes no `up`, `uplinks` or `oversubscription`.

    Fix: name a group the switch has, keep ranges inside it and apart, and pick one of its `breakouts` whose rate is
    the fabric's `speed` (for `down`).
    """
    yield from _fabric_problems(ctx, "NET019")


@check("NET025", "network.links_for_growth", severity="info")
def links_for_growth(ctx: Context) -> Iterator[Violation]:
    """Keys of a tier the fabric builds only at a larger size are noted, each with the size that uses it.

    With `tiers: auto` (or on a rail-only fabric, whose rails grow from one switch to leaves and spines), the links
    to a tier not built at the design's size and that tier's own keys (`core.switch`, `core.rack`, `core.down`;
    on a rail-only fabric `spine.switch`, `spine.rack`, `spine.down` and the leaves' `oversubscription`) are kept
    for growth: the cluster document's growth series builds the tier and uses them. A count on such a tier is
    NET018, and uplink keys of the top tier NET019 (the cores' are refused at validation: no size reads them).
    With a fixed `tiers` every key of a tier it does not build is refused at validation.

    Fix: nothing, where the keys are for growth; else leave them out, or set `tiers` to build the tier now.
    """
    yield from roles.unbuilt_key_notes(ctx)


@check("NET020", "network.topology_size")
def topology_size(ctx: Context) -> Iterator[Violation]:
    """A torus joins exactly the cluster's accelerators, and a dragonfly has the groups its endpoints need.

    A torus of d1 x d2 (x d3) chips must hold every accelerator of the cluster; a dragonfly of g groups holds
    g x group_size x terminals endpoint ports and at most group_size x global_links + 1 groups (one global link to
    every other group; Kim et al., ISCA 2008).

    Fix: set `dims` to a shape whose product is the accelerator count; give the dragonfly more groups, routers or
    terminals per router, or more global links per router.
    """
    yield from _fabric_problems(ctx, "NET020")
