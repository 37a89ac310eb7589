"""Torus, dragonfly and rail-only fabrics in closed form, beside the fat tree of `archgen.analyse.fabric`.

Every count is a formula over the spec's numbers (N chips, d_i chips along dimension i, s = line rate):

* **torus** (N. P. Jouppi et al., "TPU v4: An Optically Reconfigurable Supercomputer for Machine Learning with
  Hardware Support for Embeddings", ISCA 2023): N = Π d_i chips; links along dimension i = N (a ring of d_i ≥ 3
  closes), N/2 for d_i = 2 (the pair's one link), N/d_i·(d_i − 1) without wraparound; links per chip = 2 per
  dimension of 3 or more, 1 per dimension of 2; diameter = Σ ⌊d_i/2⌋ hops (Σ (d_i − 1) as a mesh); bisection
  (one direction) = 2·N/D links across the largest dimension D (N/D as a mesh or D = 2). With optical circuit
  switches joining cubes of c_i chips, the N/c_i links of dimension i that cross a cube face run through OCSes:
  one OCS per dimension and face position (F = Σ_i Π_{j≠i} c_j OCSes, 48 for TPU v4's 4x4x4 cubes), each taking
  2 x cubes fibres (128 of a Palomar OCS's 136 ports for 64 cubes), 2·Σ_i N/c_i fibres in all (6,144 for TPU v4's
  4,096 chips, as Jouppi et al. count). A pod of more cubes than one OCS's ports / 2 (68 for 136 ports) takes
  ⌈2·cubes / ports⌉ OCSes per face position, unless `count` states them; each OCS then takes ⌈fibres / OCSes⌉
  ports. A torus may be a slice of a larger pod (`ocs.cubes`: TPU v5p's 8,960-chip pod of 140 cubes, whose largest
  slice is 16x16x24, 96 cubes; Google Cloud TPU v5p documentation, https://cloud.google.com/tpu/docs/v5p): every
  face of every pod cube is fibred (2·F per cube), the torus figures are the slice's, and the pod holds
  ⌊pod cubes / slice cubes⌋ such slices at once. An OCS (`technology: optical-circuit`) is rate agnostic: all its
  ports count at any line rate.
* **dragonfly** (J. Kim, W. J. Dally, S. Scott, D. Abts, "Technology-Driven, Highly-Scalable Dragonfly Topology",
  ISCA 2008): g groups of a routers, p terminals and h global links per router, routers joined all-to-all in a
  group; a router uses p + (a − 1) + h ports; g ≤ a·h + 1, and each pair of groups gets m = ⌊a·h/(g − 1)⌋ global
  links, or m is stated (`pair_links`, "links per arc") and h = ⌈m·(g − 1)/a⌉ derived; routers = a·g, local
  links = g·a(a − 1)/2, global links = m·g(g − 1)/2; diameter = 3 router-to-router
  hops (4 routers) between groups (2 hops when every router has a global link to every other group, h ≥ g − 1),
  1 hop (2 routers) inside one; bisection (cut between halves of the groups) =
  min(E·s/2, ⌊g/2⌋·⌈g/2⌉·m·s); largest size (a·h + 1)·a·p terminals. Oversubscription (global taper) = a group's
  terminal ports over the global links that leave it to the g − 1 other groups, a·p / ((g − 1)·m): 1:1 at Kim et
  al.'s balance p = h with g = a·h + 1 groups, and Glenn K. Lockwood's "blocking factor" of a Cray EX dragonfly
  (512 injection links per group over links-per-arc x (G − 1), https://glennklockwood.com/garden/dragonfly).
* **rail-only** (W. Wang et al., "How to Build Low-cost Networks for Large Language Models (without Sacrificing
  Performance)", arXiv 2307.12169, 2023): R rails x P planes, each its own tree of the E_r = scale-up domains
  ports on it: one switch when E_r ≤ k, else leaves of d down / u up ports (split by the oversubscription),
  L_r = ⌈E_r / d⌉, and S_r = the smallest divisor of u ≥ ⌈L_r·u / k_spine⌉ spines; no spine joins two rails, so
  traffic between rails crosses the scale-up domain. Bisection (cut between halves of the domains) = R·P × one
  rail's least balanced cut (`analyse.bisection`, leaves filled in order), min(E_r·s/2, L_r·u·s/2) where its leaves
  are equal (98 domains on leaves of 48 down and 16 up, 48/48/2: 17 uplinks a rail, not 24; pods34); hops 1 (or 3);
  the leaf oversubscription is the fullest leaf's, min(d, E_r) / u.

The graphs that cross-check these forms on small instances are in `archgen.topology` (`torus_graph`,
`dragonfly_graph`, `rail_only_graph`; tests/test_topologies.py).
"""

from __future__ import annotations

import math
from typing import Any

from archgen.analyse.bisection import fat_tree_pods, least_balanced_cut
from archgen.analyse.fabric import FabricAnalysis, rails
from archgen.analyse.fabric_nodes import node_management_ports, node_ports
from archgen.analyse.nodes import NodeType, compute_node, count
from archgen.analyse.ports import Problem, tier_ports, up_ports
from archgen.analyse.rack_ports import device_ports
from archgen.analyse.tiers import TierCount
from archgen.build import BoundFabric, ClusterDesign, Design
from archgen.display import figure
from archgen.errors import InternalError
from archgen.model import Accelerator
from archgen.model.fabrics import Dragonfly, RailOnly, Torus
from archgen.topology import torus_degree
from archgen.units import Q_


def analyse_topology(design: Design, cluster: ClusterDesign, fabric: BoundFabric, nodes: tuple[NodeType, ...],
                     accelerators: int) -> FabricAnalysis:
    """Closed-form sizing of a torus, dragonfly or rail-only fabric."""
    spec = fabric.spec
    if isinstance(spec, Torus):
        return _torus(design, fabric, spec, nodes, accelerators)
    if isinstance(spec, Dragonfly):
        return _dragonfly(design, cluster, fabric, spec, nodes, accelerators)
    if isinstance(spec, RailOnly):
        return _rail_only(design, cluster, fabric, spec, nodes, accelerators)
    raise InternalError(f"no closed form for topology '{spec.topology}'")


def _result(fabric: BoundFabric, accelerators: int, problems: list[Problem], **kw) -> FabricAnalysis:
    """A FabricAnalysis with the fat-tree-only fields left empty."""
    fields: dict[str, Any] = dict(
        tiers_used=1, planes=1, ports_per_node={}, node_ports=0, endpoint_ports=0, reserved_ports=0, rails=0,
        rails_per_leaf=0, group="", group_domains=0, groups=0, leaves_per_group=0, pods=0, spines_per_pod=0,
        core_links_per_spine_pair=0, tiers=(), links={}, oversubscription={}, hops=0, max_endpoints=0,
        max_accelerators=0, failure={})
    fields.update(kw)
    return FabricAnalysis(fabric=fabric, accelerators=accelerators, problems=tuple(problems),
                          topology=fabric.spec.topology, **fields)


# ------------------------------------------------------------------------------------------------ torus

def ring_links(d: int, wrap: bool) -> int:
    """Links of one ring (or line) of d chips."""
    if d <= 1:
        return 0
    return (d if d >= 3 else 1) if wrap else d - 1


def torus_figures(dims: list[int], wrap: bool = True, per_neighbour: int = 1) -> dict[str, int]:
    """Chips, links, links per chip, diameter (hops) and bisection links (one direction) of a torus or mesh."""
    n = math.prod(dims)
    links = sum(ring_links(d, wrap) * (n // d) for d in dims) * per_neighbour
    degree = torus_degree(dims) * per_neighbour
    diameter = sum(d // 2 if wrap else d - 1 for d in dims)
    big = max(dims)
    cut = ((2 if wrap and big >= 3 else 1) * (n // big) if big > 1 else 0) * per_neighbour
    return {"chips": n, "links": links, "degree": degree, "diameter": diameter, "bisection_links": cut}


def ocs_figures(dims: list[int], cube: list[int], wrap: bool = True, pod: int | None = None, radix: int = 0,
                count: int | None = None) -> dict[str, int]:
    """OCSes, ports used per OCS, fibres and the torus links crossing cube faces (module docstring).

    `pod`: cubes the OCSes join (default: the torus' own); `radix`: ports of one OCS (0: unknown, one OCS per face
    position); `count`: OCSes stated (default: derived).
    """
    n, cubes = math.prod(dims), math.prod(d // c for d, c in zip(dims, cube, strict=True))
    crossing = sum(n // c for d, c in zip(dims, cube, strict=True) if d > 1 and (wrap or d > c))
    faces = sum(math.prod(c for j, c in enumerate(cube) if j != i) for i in range(len(cube)))
    pod = pod or cubes
    fibres = 2 * crossing if pod == cubes else 2 * faces * pod
    ocs = count or faces * (max(math.ceil(2 * pod / radix), 1) if radix else 1)
    return {"cubes": cubes, "pod_cubes": pod, "ocs": ocs, "ocs_ports": math.ceil(fibres / ocs), "fibres": fibres,
            "crossing": crossing, "slices": pod // cubes if cubes else 0, "faces": faces}


def _torus(design: Design, fabric: BoundFabric, spec: Torus, nodes: tuple[NodeType, ...],
           accelerators: int) -> FabricAnalysis:
    here, problems = fabric.owner_path, list[Problem]()
    f = torus_figures(spec.dims, spec.wraparound, spec.links_per_neighbour)
    shape = "x".join(str(d) for d in spec.dims)
    pod = spec.ocs.cubes if spec.ocs is not None else None
    chips = pod * math.prod(spec.ocs.cube) if spec.ocs is not None and pod else f["chips"]
    if chips != accelerators:
        what = f"a pod of {pod} cubes holds" if pod else f"a {shape} torus joins"
        want = f"cubes holding {accelerators} chips" if pod else f"dims whose product is {accelerators}"
        problems.append(Problem("NET020", here + (("ocs", "cubes") if pod else ("dims",)), f"{what} {chips} chips; "
                                f"the cluster has {accelerators} accelerators: expected {want}",
                                count(chips), count(accelerators)))
    if pod and f["chips"] > chips:
        problems.append(Problem("NET020", here + ("dims",), f"a {shape} slice joins {f['chips']} chips; the pod's "
                                f"{pod} cubes hold {chips}", count(f["chips"]), count(chips)))
    compute = compute_node(nodes)
    acc = design.specs.get(compute.part.accelerator) if compute and compute.part.accelerator else None
    have = acc.scale_up.links if isinstance(acc, Accelerator) and acc.scale_up else 0
    if have and isinstance(acc, Accelerator) and f["degree"] > have:   # `have` is read from an Accelerator
        problems.append(Problem("NET001", here + ("dims",), f"each chip of a {shape} torus needs {f['degree']} "
                                f"links; {acc.id} has {have}", count(f["degree"]), count(have)))
    if have and isinstance(acc, Accelerator) and acc.scale_up is not None:
        problems += _chip_link_rate(acc, spec, have, here)
    system = compute.part if compute is not None else None
    block = system.torus_block if system is not None else None
    unit = spec.ocs.cube if spec.ocs is not None else spec.dims
    if system is not None and block is not None and (
            len(block) != len(unit) or any(u % b for u, b in zip(unit, block, strict=False))
            or math.prod(block) != system.accelerators):
        problems.append(Problem("NET020", here + ("dims",), f"{system.id}'s torus_block "
                                f"{'x'.join(map(str, block))} does not tile the {'cube' if spec.ocs else 'torus'} "
                                f"{'x'.join(map(str, unit))} with its {system.accelerators} chips: expected "
                                "sides dividing the cube's, whose product is the system's accelerators",
                                count(math.prod(block)), count(system.accelerators)))
        block = None

    def board(cube: list[int], cubes: int) -> int:
        """Links inside the systems' blocks of `cubes` cubes (or the torus): board traces, not cables."""
        if block is None:
            return 0
        return cubes * math.prod(cube) // math.prod(block) * torus_figures(block, False, spec.links_per_neighbour)[
            "links"]

    s = spec.speed
    on_board = board(spec.dims, 1) if spec.ocs is None else 0
    links = {"neighbour": f["links"] - on_board}
    tiers: tuple[TierCount, ...] = ()
    figures = {"torus.diameter": count(f["diameter"]), "torus.links_per_chip": count(f["degree"]),
               "torus.links": count(f["links"])}
    ocs_sw = fabric.tiers["ocs"].switch
    if spec.ocs is not None:
        radix = 0 if ocs_sw is None else ocs_sw.ports.count if ocs_sw.technology == "optical-circuit" else \
            tier_ports(ocs_sw, None, None, s, None, None, here + ("ocs",), here + ("ocs", "switch")).radix
        n = spec.links_per_neighbour
        o = ocs_figures(spec.dims, spec.ocs.cube, spec.wraparound, pod, radix // n, spec.ocs.count)
        inside = f["links"] - o["crossing"] * n
        if pod and pod != o["cubes"]:    # the pod's cubes, each with the links inside it
            inside = pod * (torus_figures(spec.ocs.cube, False, n)["links"])
        links = {"neighbour": inside - board(spec.ocs.cube, pod or o["cubes"]), "ocs": o["fibres"] * n}
        per_ocs = o["ocs_ports"] * n
        if ocs_sw is not None and per_ocs > radix:
            problems.append(Problem("NET001", here + (("ocs", "count") if spec.ocs.count else ("ocs", "switch")),
                                    f"each of {o['ocs']} OCSes takes {per_ocs} fibres ({o['fibres'] * n} from "
                                    f"{o['pod_cubes']} cubes); {ocs_sw.id} has {radix} ports: expected at least "
                                    f"{math.ceil(o['fibres'] * n / radix) if radix else '?'} OCSes",
                                    count(per_ocs), count(radix)))
        tiers = (TierCount("ocs", ocs_sw, s, radix, 1, radix, 0, s, o["ocs"], o["fibres"] * n, 0),)
        on_board = board(spec.ocs.cube, pod or o["cubes"])
        figures |= {"torus.cubes": count(o["cubes"]), "torus.ocs": count(o["ocs"]),
                    "torus.ocs_ports_used": count(per_ocs), "torus.pod_cubes": count(o["pod_cubes"]),
                    "torus.slices": count(o["slices"])}
    figures["torus.board_links"] = count(on_board)
    failure = {"failure.chip.links_lost": count(f["degree"]),
               "failure.chip.bandwidth_lost": count(1 / f["chips"] if f["chips"] else 0)}
    return _result(fabric, accelerators, problems, tiers_used=0, endpoint_ports=f["chips"], tiers=tiers,
                   links=links, injection=(f["chips"] * f["degree"] * s).to("Gbit/s"),
                   bisection=(f["bisection_links"] * s).to("Gbit/s"), hops=f["diameter"],
                   max_endpoints=f["chips"], max_accelerators=f["chips"], failure=failure, figures=figures)


def _chip_link_rate(acc: Accelerator, spec: Torus, links: int, here: tuple) -> list[Problem]:
    """NET016: a torus' `speed` (one link, one direction) against the rate of one of its chips' own links.

    The chips are the torus' switches: their links are `scale_up.bandwidth` (per direction) over `scale_up.links`
    (TPU v4: 300 GB/s / 6 = 400 Gb/s). A `speed` above that is bandwidth no chip carries, and the injection,
    bisection and every estimate on the torus would be taken at it (800 Gb/s on TPU v4 doubled them all).
    """
    if acc.scale_up is None:
        return []
    per_chip = acc.scale_up.bandwidth
    rate = (per_chip / links).to("Gbit/s")
    if spec.speed <= rate * (1 + 1e-9):
        return []
    text = (f"the torus runs {spec.speed:~P} per link and direction; {acc.id}'s {links} links carry "
            f"{figure(per_chip.to('GB/s'))} per direction" "{}" f", {figure(rate)} each: expected a " "{}"
            f" of at most {figure(rate)}")
    return [Problem("NET016", here + ("speed",), text.format(" (its `scale_up.bandwidth`)", "`speed`"),
                    spec.speed.to("Gbit/s"), rate, public=text.format("", "line rate"))]


# ------------------------------------------------------------------------------------------------ dragonfly

def dragonfly_figures(a: int, p: int, h: int, g: int, m: int | None = None) -> dict[str, int]:
    """Routers, links, global links per group pair (`m`, default what h gives), diameter and bisection links."""
    m = m if m is not None and g > 1 else (a * h) // (g - 1) if g > 1 else 0
    cut = (g // 2) * ((g + 1) // 2) * m if g > 1 else (a // 2) * ((a + 1) // 2)
    return {"routers": a * g, "terminals": a * p * g, "local": g * a * (a - 1) // 2, "global": m * g * (g - 1) // 2,
            "pair_links": m, "routers_on_path": (2 if a == 1 else 3 if h >= g - 1 else 4) if g > 1 else min(a, 2),
            "bisection_links": cut, "max_terminals": (a * h + 1) * a * p}


def _endpoints(design: Design, cluster: ClusterDesign, fabric: BoundFabric,
               nodes: tuple[NodeType, ...]) -> tuple[dict[str, int], int, int, list[Problem]]:
    ports_per_node, n_ports, problems = node_ports(design, fabric, nodes)
    spec = fabric.spec
    switches = device_ports(cluster, spec.endpoints)
    return (ports_per_node, n_ports, n_ports + switches + spec.endpoints.extra + node_management_ports(spec, nodes),
            problems)


def _dragonfly(design: Design, cluster: ClusterDesign, fabric: BoundFabric, spec: Dragonfly,
               nodes: tuple[NodeType, ...], accelerators: int) -> FabricAnalysis:
    here = fabric.owner_path
    ports_per_node, n_ports, endpoints, problems = _endpoints(design, cluster, fabric, nodes)
    a, p, m, s = spec.group_size, spec.terminals, spec.pair_links, spec.speed
    fewest = max(math.ceil(endpoints / (a * p)), 1)
    g = spec.groups or fewest
    h = spec.global_links or max(math.ceil((m or 0) * (g - 1) / a), 1)
    h_key = ("global_links",) if spec.global_links else ("pair_links",)
    if m is not None and g > 1 and m * (g - 1) > a * h:
        problems.append(Problem("NET020", here + ("pair_links",), f"{m} global links to each of {g - 1} other "
                                f"groups take {m * (g - 1)} per group; {a} routers x {h} global links give {a * h}",
                                count(m * (g - 1)), count(a * h)))
    router = fabric.tiers["leaf"].switch
    plan = tier_ports(router, None, None, s, None, None, here, fabric.switch_path("leaf"))
    k, need = plan.radix, p + (a - 1) + h
    problems += plan.problems
    if router is not None and need > k:
        problems.append(Problem("NET001", here + h_key, f"a router needs {p} terminal + {a - 1} local + "
                                f"{h} global = {need} ports; {router.id} has {k} at {float(s.m_as('Gbit/s')):g}G: "
                                f"expected global_links <= {max(k - p - a + 1, 0)}", count(need), count(k)))
    if g < fewest:
        problems.append(Problem("NET020", here + ("groups",), f"{g} groups of {a} x {p} terminals hold {g * a * p} "
                                f"ports; {endpoints} endpoints need {fewest} groups", count(g), count(fewest)))
    if g > a * h + 1:
        problems.append(Problem("NET020", here + (("groups",) if spec.groups else h_key),
                                f"{g} groups need {g - 1} global links per group, one to each other group; "
                                f"{a} routers x {h} global links give {a * h}: at most {a * h + 1} groups",
                                count(g), count(a * h + 1)))
    f = dragonfly_figures(a, p, h, g, m)
    used = min(endpoints, f["terminals"])
    tier = TierCount("router", router, s, k, plan.breakout, p, need - p, s, f["routers"], used,
                     f["routers"] * (a - 1) + 2 * f["global"], up_split=plan.breakout)
    bisection = min(used * s / 2, f["bisection_links"] * s)
    # a group's a·p terminal ports over the (g − 1)·m global links to the other groups (module docstring)
    oversub = {"global": a * p / ((g - 1) * f["pair_links"])} if g > 1 and f["pair_links"] else {}
    compute = compute_node(nodes)
    ppn = ports_per_node.get(compute.part.id, 0) if compute else 0
    per_acc = compute.part.accelerators if compute else 0
    figures = {"dragonfly.groups": count(g), "dragonfly.global_links_per_group_pair": count(f["pair_links"]),
               "dragonfly.global_links_per_router": count(h),
               "dragonfly.global_links": count(f["global"]), "dragonfly.local_links": count(f["local"])}
    failure = {"failure.router.ports_lost": count(p), "failure.router.bandwidth_lost": count(1 / f["routers"])}
    return _result(fabric, accelerators, problems, tiers_used=1, ports_per_node=ports_per_node, node_ports=n_ports,
                   endpoint_ports=endpoints, tiers=(tier,), links={"access": used, "local": f["local"],
                                                                   "global": f["global"]},
                   injection=(n_ports * s).to("Gbit/s"), bisection=bisection.to("Gbit/s"), oversubscription=oversub,
                   hops=f["routers_on_path"], max_endpoints=f["max_terminals"],
                   max_accelerators=f["max_terminals"] // ppn * per_acc if ppn else 0, failure=failure,
                   figures=figures)


# ------------------------------------------------------------------------------------------------ rail-only

def rail_only_figures(domains: int, rails_: int, k: int, k_spine: int, over: float) -> dict[str, int]:
    """Per rail: leaves, spines, down/up ports; and the rail's largest size, for `domains` ports on each rail."""
    if domains <= k:
        return {"leaves": 1 if domains else 0, "spines": 0, "down": k, "up": 0, "tiers": 1, "max": k}
    up = up_ports(k, 1 + over)
    down = k - up
    leaves = math.ceil(domains / down) if down else 0
    low = max(math.ceil(leaves * up / k_spine) if k_spine else 0, min(up, 2))
    spines = next((d for d in range(max(low, 1), up + 1) if up % d == 0), low)
    return {"leaves": leaves, "spines": spines, "down": down, "up": up, "tiers": 2, "max": k_spine * down}


def _rail_only(design: Design, cluster: ClusterDesign, fabric: BoundFabric, spec: RailOnly,
               nodes: tuple[NodeType, ...], accelerators: int) -> FabricAnalysis:
    here, planes = fabric.owner_path, spec.planes
    ports_per_node, n_ports, endpoints, problems = _endpoints(design, cluster, fabric, nodes)
    compute = compute_node(nodes)
    ppn = ports_per_node.get(compute.part.id, 0) if compute else 0
    per_domain, n_rails, rail_problems = rails(cluster, fabric, compute, ppn)
    problems += rail_problems
    s = spec.speed
    leaf_sw, spine_sw = fabric.tiers["leaf"].switch, fabric.tiers["spine"].switch
    leaf_plan = tier_ports(leaf_sw, spec.leaf.down, None, s, None, None, here + ("leaf",),
                           fabric.switch_path("leaf"))
    spine_plan = tier_ports(spine_sw, spec.spine.down, None, s, None, None, here + ("spine",),
                            fabric.switch_path("spine"))
    problems += [*leaf_plan.problems, *spine_plan.problems]
    domains = math.ceil(n_ports / ppn / per_domain) if ppn else 0   # one port per domain per rail and plane
    over = spec.leaf.oversubscription or spec.oversubscription
    f = rail_only_figures(domains, n_rails, leaf_plan.radix, spine_plan.radix, over)
    leaves, spines = n_rails * f["leaves"], n_rails * f["spines"]
    access = domains * n_rails
    leaf = TierCount("leaf", leaf_sw, s, leaf_plan.radix, leaf_plan.breakout, f["down"], f["up"], s, leaves, access,
                     leaves * f["up"], unassigned=leaf_plan.unassigned, up_split=leaf_plan.breakout)
    tiers: tuple[TierCount, ...] = (leaf,)
    links = {"access": access}
    if f["tiers"] == 2:
        tiers += (TierCount("spine", spine_sw, s, spine_plan.radix, spine_plan.breakout, spine_plan.radix, 0, s,
                            spines, leaves * f["up"], 0, unassigned=spine_plan.unassigned),)
        links["leaf_spine"] = leaves * f["up"]
    per_rail = domains * s / 2   # one switch a rail, or its least balanced cut (leaves filled in order, pods34)
    if f["tiers"] == 2:
        gbps = s.m_as("Gbit/s")
        per_rail = Q_(least_balanced_cut(fat_tree_pods(domains, f["leaves"], f["down"], f["up"] * gbps, f["leaves"],
                                                       0.0), gbps), "Gbit/s")
    bisection = (per_rail * n_rails * planes).to("Gbit/s")
    # the fullest rail leaf's down:up, as a fat tree's (review47): a rail's leaves fill in order
    oversub = {"leaf": min(f["down"], domains) / f["up"]} if f["tiers"] == 2 and f["up"] else {}
    per_acc = compute.part.accelerators if compute else 0
    max_endpoints = f["max"] * n_rails * planes
    figures = {"rail_only.domains_per_rail": count(domains)}
    failure = {"failure.leaf.ports_lost": count(min(f["down"], domains)),
               "failure.leaf.bandwidth_lost": count(1 / leaves / planes if leaves else 0),
               "failure.plane.bandwidth_lost": count(1 / planes)}
    return _result(fabric, accelerators, problems, tiers_used=f["tiers"], planes=planes,
                   ports_per_node=ports_per_node, node_ports=n_ports, endpoint_ports=endpoints, rails=n_rails,
                   tiers=tiers, links=links, injection=(n_ports * s).to("Gbit/s"), bisection=bisection,
                   oversubscription=oversub, hops=2 * f["tiers"] - 1, max_endpoints=max_endpoints,
                   max_accelerators=max_endpoints // ppn * per_acc if ppn else 0, failure=failure, figures=figures)
