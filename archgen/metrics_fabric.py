"""The metric registry's fabric metrics, declared as `archgen.metrics.REGISTRY` holds them (in its order).

Split from `archgen.metrics` for its size only: the registry is one table (STYLE.md habit 13), and these are its
rows for a cluster's fabrics and their topologies.
"""

from __future__ import annotations

from archgen.metric import Metric

_N, _F, _C, _TOP = "analyse/network.py", "analyse/fabric.py", "analyse/cabling.py", "analyse/topologies.py"
#: Names of either per-accelerator bandwidth, injection or bisection: "did you mean" offers both (half the injection
#: on a 1:1 fat tree is the bisection, so a target written against the wrong one misses by 50 %; newuser22).
_PER_ACCELERATOR = ("bandwidth_per_accelerator", "bandwidth_per_gpu")

FABRIC: tuple[Metric, ...] = (
    # fabrics
    Metric("fabric", "tiers", "", "", 0, "Tiers", "Switch tiers used.", _N),
    Metric("fabric", "planes", "", "", 0, "Planes", "Parallel planes of the fabric.", _N),
    Metric("fabric", "rails", "", "", 0, "Rails", "Rails (NIC positions per node wired to their own leaves); only on a "
           "rail-optimized fat tree or a rail-only fabric.", _N),
    Metric("fabric", "endpoint_ports", "", "", 0, "Endpoint ports", "Ports of nodes and attached switches.", _F),
    Metric("fabric", "reserved_ports", "", "", 0, "Reserved ports", "Leaf ports held back for growth or "
           "services.", _F),
    Metric("fabric", "north_south_bandwidth", "B/s", "Gbit/s", 0, "North-south bandwidth", "Reserved ports "
           "marked `north_south` (links to the site core) at the fabric's line rate, one direction; not provided "
           "where the fabric marks none.", _N, maximise=True),
    Metric("fabric", "north_south_oversubscription", "", "", 2, "North-south oversubscription", "The node ports' "
           "bandwidth over the north-south bandwidth, each port at the rate it runs at (the fabric's `speed`; 1 is "
           "every node port at line rate out of the cluster); not provided where the fabric marks no north-south "
           "ports or attaches no node ports.", _N, minimise=True),   # the bandwidth's inverse, better lower
    # a fabric's bandwidths are better higher, as throughput is (`archgen diff`: a taper that halves the bisection
    # reads as worse, not as a change with no direction)
    Metric("fabric", "injection_bandwidth", "B/s", "Tbit/s", 1, "Injection bandwidth", "Bandwidth the endpoints "
           "put into the fabric, one direction.", _F, maximise=True),
    Metric("fabric", "bisection_bandwidth", "B/s", "Tbit/s", 1, "Bisection bandwidth", "The least cut over the "
           "balanced splits of the endpoints, at most half the node ports' bandwidth (so full bisection is half the "
           "injection), one direction.", _F, maximise=True),
    Metric("fabric", "injection_per_accelerator", "B/s", "Gbit/s", 0, "Injection per accelerator", "Injection "
           "bandwidth over the accelerators it joins (a torus slice's chips, not its pod's): on a compute fabric, "
           "the scale-out bandwidth per accelerator.", _N, maximise=True, synonyms=_PER_ACCELERATOR + (
               "scale_out_bandwidth_per_accelerator", "scale_out_bandwidth_per_gpu", "injection_per_gpu",
               "injection_bandwidth_per_accelerator", "network_bandwidth_per_accelerator",
               "nic_bandwidth_per_accelerator")),
    Metric("fabric", "bisection_per_accelerator", "B/s", "Gbit/s", 0, "Bisection per accelerator", "Bisection "
           "bandwidth over the accelerators it joins (a torus slice's chips, not its pod's).", _N, maximise=True,
           synonyms=_PER_ACCELERATOR + ("bisection_bandwidth_per_accelerator", "bisection_per_gpu")),
    Metric("fabric", "hops_max", "", "", 0, "Hops", "Switch hops of the longest path (2 × tiers − 1).", _F),
    Metric("fabric", "max_endpoints", "", "", 0, "Largest endpoint count", "Endpoints the design's switches and "
           "tiers can take.", _F),
    Metric("fabric", "max_accelerators", "", "", 0, "Largest accelerator count", "Accelerators the design can take "
           "at the compute node's ports.", _F),
    Metric("fabric", "<tier>.switches", "", "", 0, "Switches", "Switches of tier <tier>, every plane.", _N),
    Metric("fabric", "<tier>.spare_switches", "", "", 0, "Spare switches", "Spare switches of tier <tier>.", _N),
    Metric("fabric", "<tier>.ports_used", "", "", 0, "Ports used", "Ports used at tier <tier>, every plane.", _N),
    Metric("fabric", "<tier>.ports_free", "", "", 0, "Ports free", "Ports left at tier <tier>, every plane, those "
           "in no `down`/`up` range and those of port groups no role uses included: ports used + free = switches x "
           "radix.", _N),
    Metric("fabric", "<tier>.max_ports_used_per_switch", "", "", 0, "Ports used per switch", "Most ports used on "
           "one switch of tier <tier>: the fullest leaf's access ports and uplinks, a 3-tier spine of the fullest "
           "pod; other tiers take their links evenly.", _N),
    Metric("fabric", "<tier>.radix", "", "", 0, "Ports after breakout", "Ports of one switch of tier <tier> after "
           "breakout, at the tier's rates, whether or not a `down`/`up` range takes them; a port group no role uses "
           "counts once per port (a Tomahawk 5 leaf of 32 ports at 2x400G and 32 at 800G: 96; the documents print its "
           "64 ports as cabled).", _N),
    Metric("fabric", "<tier>.breakout", "", "", 0, "Breakout", "Logical ports per cage at tier <tier>.", _N),
    Metric("fabric", "<tier>.breakout_cages", "", "", 0, "Cages used", "Cages used at tier <tier>, every "
           "plane.", _N),
    Metric("fabric", "<tier>.oversubscription", "", "", 2, "Oversubscription as used", "Oversubscription as used "
           "(down:up, a ratio with no unit; 1 is non-blocking): the bandwidth of the down ports in use at tier <tier> "
           "over its up ports; leaf, the endpoint ports of its fullest leaf over that leaf's uplinks; spine, the leaf "
           "links of its fullest pod over that pod's core links. Neither the ratio as built (all the down ports over "
           "the up ports, which NET033 holds to the stated ratio) nor as stated: it is lower where down ports stay "
           "free (a 96-port leaf split 3:1 whose rail groups use 64 of its 96 down ports is 2 as used).", _F,
           minimise=True),   # better lower, as the bisection it tapers is better higher: 1:1 → 2:1 reads worse
           #                   (newuser101: the spines halved read "worse" on the bisection and "—" here)
    Metric("fabric", "links.<link>", "", "", 0, "Links", "Links at level <link>, every plane.", _N),
    Metric("fabric", "cables.<link>", "", "", 0, "Cables", "Physical cables at level <link>, every plane: copper "
           "assemblies and optical cables, a cable split across two planes or spines counted once.", _C),
    Metric("fabric", "transceivers.<link>", "", "", 0, "Transceivers", "Optical modules at both ends of the links "
           "at level <link>, every plane.", _C),
    Metric("fabric", "links.<link>.max_length", "m", "m", 1, "Longest run", "Longest cable run at level <link> on "
           "the floor.", _C),
    Metric("fabric", "network_power", "W", "kW", 2, "Network power", "The fabric's switches at maximum power plus its "
           "optics.", _C),
    Metric("fabric", "optics_power", "W", "kW", 2, "Optics power", "Transceivers of the fabric.", _C),
    Metric("fabric", "failure.leaf.ports_lost", "", "", 0, "Ports lost with a leaf", "Endpoint ports one leaf "
           "holds.", _F, minimise=True),
    Metric("fabric", "failure.leaf.accelerators_affected", "", "", 0, "Accelerators behind a leaf", "Accelerators "
           "whose own NIC ports one leaf carries (its rails' ports x accelerators per port).", _F, minimise=True),
    Metric("fabric", "failure.leaf.bandwidth_lost", "", "percent", 1, "Bandwidth lost with a leaf", "Share of the "
           "fabric's leaf bandwidth one leaf carries.", _F, minimise=True),
    Metric("fabric", "failure.spine.uplink_bandwidth_lost", "", "percent", 1, "Uplink bandwidth lost with a spine",
           "Share of a pod's uplink bandwidth one spine carries.", _F, minimise=True),
    Metric("fabric", "failure.spine.bisection_per_accelerator", "B/s", "Gbit/s", 0, "Bisection with a spine lost",
           "Bisection per accelerator with the busiest spine of one plane lost (its leaf links and core links), by "
           "`bisection_per_accelerator`'s rule.", _F, maximise=True),
    Metric("fabric", "failure.core.bisection_per_accelerator", "B/s", "Gbit/s", 0, "Bisection with a core lost",
           "Bisection per accelerator with one core of one plane lost (its spine links), by "
           "`bisection_per_accelerator`'s rule; 3 tiers only.", _F, maximise=True),
    Metric("fabric", "failure.plane.bandwidth_lost", "", "percent", 1, "Bandwidth lost with a plane", "Share of "
           "the bandwidth one plane carries.", _F, minimise=True),
    Metric("fabric", "failure.plane.bisection_per_accelerator", "B/s", "Gbit/s", 0, "Bisection with a plane lost",
           "Bisection per accelerator with one plane lost: the other planes' (none on a one-plane fabric).", _F,
           maximise=True),
    # torus, dragonfly and rail-only fabrics
    Metric("fabric", "torus.diameter", "", "", 0, "Torus diameter", "Hops of the longest shortest path between chips.",
           _TOP),
    Metric("fabric", "torus.links_per_chip", "", "", 0, "Links per chip", "Neighbour links of each chip.", _TOP),
    Metric("fabric", "torus.links", "", "", 0, "Torus links", "Chip-to-chip links of the torus (of the slice, in a "
           "larger pod), each once: a board trace, a cable, or two fibres through an OCS.", _TOP),
    Metric("fabric", "torus.board_links", "", "", 0, "Board links", "Torus links inside the systems' `torus_block`: "
           "board traces, in no `links.<link>`, no cable and no failure unit.", _TOP),
    Metric("fabric", "torus.cubes", "", "", 0, "Cubes", "Cubes of the torus (of the slice, in a larger pod).", _TOP),
    Metric("fabric", "torus.pod_cubes", "", "", 0, "Pod cubes", "Cubes the optical circuit switches join (the pod).",
           _TOP),
    Metric("fabric", "torus.slices", "", "", 0, "Slices per pod", "Slices of the torus' shape the pod holds at "
           "once.", _TOP),
    Metric("fabric", "torus.ocs", "", "", 0, "Optical circuit switches", "Optical circuit switches joining the "
           "cubes (stated, or one per dimension and face position times the fewest that fit).", _TOP),
    Metric("fabric", "torus.ocs_ports_used", "", "", 0, "Ports used per OCS", "Fibres each optical circuit switch "
           "takes.", _TOP),
    Metric("fabric", "failure.chip.links_lost", "", "", 0, "Links lost with a chip", "Neighbour links one chip "
           "holds.", _TOP, minimise=True),
    Metric("fabric", "failure.chip.bandwidth_lost", "", "percent", 2, "Bandwidth lost with a chip", "Share of the "
           "torus one chip carries.", _TOP, minimise=True),
    Metric("fabric", "dragonfly.groups", "", "", 0, "Groups", "Dragonfly groups.", "analyse/topologies.py"),
    Metric("fabric", "dragonfly.global_links_per_group_pair", "", "", 0, "Global links per group pair", "Global "
           "links between each pair of groups.", "analyse/topologies.py"),
    Metric("fabric", "dragonfly.global_links_per_router", "", "", 0, "Global links per router", "Global links of "
           "each router (stated, or what the links per group pair need).", "analyse/topologies.py"),
    Metric("fabric", "dragonfly.global_links", "", "", 0, "Global links", "Links between groups.", _TOP),
    Metric("fabric", "dragonfly.local_links", "", "", 0, "Local links", "Links inside groups.", _TOP),
    Metric("fabric", "failure.router.ports_lost", "", "", 0, "Ports lost with a router", "Terminal ports one "
           "router holds.", "analyse/topologies.py", minimise=True),
    Metric("fabric", "failure.router.bandwidth_lost", "", "percent", 1, "Bandwidth lost with a router", "Share of "
           "the routers one router is.", "analyse/topologies.py", minimise=True),
    Metric("fabric", "rail_only.domains_per_rail", "", "", 0, "Domains per rail", "Scale-up domains a rail leaf "
           "joins.", "analyse/topologies.py"),
)
