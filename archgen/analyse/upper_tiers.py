"""The tiers above one fat-tree plane's leaves in closed form: spines, pods and cores, and fixed spine/core counts.

Split from `archgen.analyse.tiers` (the tier split and the leaves) for its size; `archgen.analyse.fabric` sizes a
fabric with both. Every count is a formula over the leaves' uplinks and the switches' ports, never a loop over switches.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from archgen.analyse.nodes import count
from archgen.analyse.ports import Problem
from archgen.analyse.tiers import PlaneDemand, TierCount, fat_tree, media_needed, split
from archgen.build import BoundFabric
from archgen.topology import pod_leaves


def _smallest_divisor_at_least(n: int, low: int) -> int | None:
    """The smallest divisor of `n` that is ≥ `low`, or None."""
    return next((d for d in range(max(low, 1), n + 1) if n % d == 0), None)


def _largest_divisor_at_most(n: int, high: int) -> int:
    """The largest divisor of `n` that is ≤ `high` (at least 1)."""
    return next((d for d in range(min(high, n), 0, -1) if n % d == 0), 1)


@dataclass(frozen=True)
class Upper:
    """The tiers above one plane's leaves, the wiring numbers they fix, and the ports per plane they reach."""

    max_endpoints: int
    tiers: tuple[TierCount, ...] = ()
    links: dict[str, int] = field(default_factory=dict)
    pods: int = 0
    spines_per_pod: int = 0
    pair_links: int = 0
    problems: tuple[Problem, ...] = ()
    core_group: int = 1   # spines of a pod whose core links go to one core group (`_cores`)


def spine_tier(fabric: BoundFabric, leaf: TierCount, access: int, demand: PlaneDemand) -> Upper:
    """Spines of a 2-tier plane: the smallest divisor of the leaf uplinks that takes them all.

    Its reach is the ports of as many leaves as a spine has ports; `demand` (rail groups) counts whole groups.
    """
    spec, here, problems = fat_tree(fabric), fabric.owner_path, list[Problem]()
    spine_sw, up_speed = fabric.tiers["spine"].switch, leaf.up_speed
    top = split(fabric, "spine", up_speed, True)
    k_spine, b_spine = top.radix, top.plan.breakout
    problems += top.problems
    leaves, up, uplinks = leaf.switches, leaf.up, leaf.switches * leaf.up
    max_endpoints = demand.reach(k_spine, leaf.down)
    spare = f", {leaf.spare} of them spare," if leaf.spare else ""
    # at least two spines where the leaves have two uplinks: one spine would be a single point of failure
    need = max(math.ceil(uplinks / k_spine) if k_spine else 0, min(up, 2) if leaves > 1 else 1)
    fixed, derived = spec.spine.count, _smallest_divisor_at_least(up, need) or need
    spines = derived if fixed is None else fixed
    if fixed is not None and up % fixed:
        problems.append(Problem("NET002", here + ("spine", "count"),
                                f"{up} leaf uplinks do not divide evenly over {fixed} spines", count(up), count(fixed)))
    if fixed is not None and k_spine and leaves <= k_spine and uplinks > fixed * k_spine:  # too few, not too large
        problems.append(Problem("NET018", here + ("spine", "count"),
                                f"{fixed} spine(s) x {k_spine} ports take {fixed * k_spine} of the {uplinks} leaf "
                                f"uplinks; at least {derived} are needed", count(fixed), count(derived)))
    elif leaves > k_spine or (k_spine and uplinks > spines * k_spine):
        problems.append(Problem("NET003", here + ("tiers",),
                                f"2 tiers of {k_spine}-port spines reach {max_endpoints} ports per plane; "
                                f"{access} needed ({leaves} leaves{spare} > {k_spine} spine ports): use 3 tiers"
                                + _core_needed(spec),
                                count(access), count(max_endpoints), tier="spine"))
    spine = TierCount("spine", spine_sw, up_speed, k_spine, b_spine, k_spine, 0, up_speed, spines, uplinks, 0,
                      0, top.unassigned)
    return Upper(max_endpoints, (spine,), {"leaf_spine": uplinks}, 0, spines, 0, tuple(problems))


def spine_core_tiers(fabric: BoundFabric, leaf: TierCount, access: int, demand: PlaneDemand) -> Upper:
    """Spines and cores of a 3-tier plane: pods of leaves and spines, cores in groups linking every pod.

    Its reach is the ports of the leaves of as many pods as a core has ports; `demand` (rail groups) counts whole
    groups.
    """
    spec, here, problems = fat_tree(fabric), fabric.owner_path, list[Problem]()
    spine_sw, core_sw, up_speed = fabric.tiers["spine"].switch, fabric.tiers["core"].switch, leaf.up_speed
    mid = split(fabric, "spine", up_speed, False)
    top = split(fabric, "core", mid.up_speed, True)
    k_spine, b_spine, s_down, s_up = mid.radix, mid.plan.breakout, mid.down, mid.up
    k_core, b_core = top.radix, top.plan.breakout
    problems += mid.problems + top.problems
    leaves, up, uplinks = leaf.switches, leaf.up, leaf.switches * leaf.up
    spines_per_pod = spec.spine.count or _spines_per_pod(leaves, up, s_down)
    if spines_per_pod and up % spines_per_pod:
        problems.append(Problem("NET002", here + ("spine", "count"),
                                f"{up} leaf uplinks do not divide evenly over {spines_per_pod} spines per pod",
                                count(up), count(spines_per_pod)))
    # the one home; a spelling of its own here gave d_spine at S = 0, where pod_leaves gives d_spine // u, but S is 0
    # only at u = 0 (spine.count is > 0, _spines_per_pod returns u), where both give d_spine
    per_pod = pod_leaves(s_down, up, spines_per_pod)
    pods = math.ceil(leaves / per_pod) if leaves else 0
    spines = pods * spines_per_pod
    spine_up = spines * s_up
    cores, pair_links, core_group, core_problems = _cores(fabric, k_core, pods, spines_per_pod, s_up)
    problems += core_problems
    # reach: pods grow to d_spine leaves (one link per leaf-spine pair) unless spine.count fixes them
    cap = k_core * (per_pod if spec.spine.count else max(s_down, per_pod))
    max_endpoints = demand.reach(cap, leaf.down)
    if pods > k_core:
        problems.append(Problem("NET003", here + ("tiers",),
                                (f"3 tiers of {k_core}-port cores reach {max_endpoints} ports per plane "
                                 f"({k_core} pods); {access} needed in {pods} pods") if k_core else
                                (f"3 tiers reach no ports: the cores ({core_sw.id if core_sw else 'no switch'}) have "
                                 f"none to take the spines' {mid.up_speed:~P} uplinks (NET001); {access} needed in "
                                 f"{pods} pods"), count(access), count(max_endpoints), tier="core"))
    fullest = math.ceil(min(per_pod, leaves) * up / spines_per_pod) + s_up if spines_per_pod else 0
    spine = TierCount("spine", spine_sw, up_speed, k_spine, b_spine, s_down, s_up, mid.up_speed, spines, uplinks,
                      spine_up, 0, mid.unassigned, fullest, mid.up_split)
    core = TierCount("core", core_sw, mid.up_speed, k_core, b_core, k_core, 0, mid.up_speed, cores, spine_up, 0, 0,
                     top.unassigned)
    return Upper(max_endpoints, (spine, core), {"leaf_spine": uplinks, "spine_core": spine_up}, pods, spines_per_pod,
                  pair_links, tuple(problems), core_group)


def cores_inherit(spec) -> bool:
    """Whether the cores name no `switch` while the spines name one other than the fabric's: cores of the leaf switch.

    A fat tree's tiers take the fabric's `switch` unless they name one; where only the spines do (newuser55's
    out-of-band fabric: SN2201 leaves, SN4600C spines), `tiers: 3` alone builds cores of the leaf switch. A tree of
    one switch throughout is not so: its cores are the switch the user chose for every tier.
    """
    return spec.core.switch is None and spec.spine.switch not in (None, spec.switch)


def _core_needed(spec) -> str:
    """What 3 tiers need besides `tiers: 3`: a core switch, and link media for the new tier (`tiers.media_needed`).

    The core switch where the cores would take the fabric's switch and not the spines'; the media where the fabric
    lists them for its other tiers.

    One wording for both: the compute fabric of newuser105's 16-SU GB200 SuperPOD, told "use 3 tiers" alone, checked
    clean with its 9,216 spine-core links on no media, while its OOB fabric's message named `links.spine_core`.
    """
    media = media_needed(spec, "spine_core")
    if not cores_inherit(spec):
        return media
    links = " and their links (`links.spine_core`)" if media else ""
    return (f", with a core switch (`core: {{switch: ...}}`, e.g. the spines' {spec.spine.switch}; without one the "
            f"cores are the fabric's `switch`, {spec.switch}){links}, or spines with more ports")


def _spines_per_pod(leaves: int, up: int, s_down: int) -> int:
    """The fewest spines per pod (a divisor of the leaf uplinks u, two at least) that take a pod's uplinks.

    Pods are as few as one link per leaf-spine pair allows (⌈L / d_spine⌉) and filled evenly; a pod of P leaves
    needs S ≥ ⌈P·u / d_spine⌉ spines. Full pods give S = u (the B200 RA's 3-tier rows); one GB300 SU of 8 leaves
    with 72 uplinks each on 72-down spines gives 8, not 72.
    """
    if not (up and s_down):
        return up
    pods = math.ceil(leaves / s_down)
    fill = math.ceil(leaves / pods) if pods else 0
    return _smallest_divisor_at_least(up, max(math.ceil(fill * up / s_down), min(up, 2))) or up


def _cores(fabric: BoundFabric, k_core: int, pods: int, spines_per_pod: int, s_up: int) -> tuple[int, int, int, list]:
    """Cores of a 3-tier plane, links per spine-core pair, spines of a pod per core group, a fixed count's problems.

    A core group takes G spines of every pod (spines jG .. jG + G − 1 to group j, G dividing the spines per pod S); each
    of its cores takes l links from each of them (l dividing s_up), so a group holds s_up / l cores, a core uses
    pods·G·l ports and meets every pod alike: its links in from one pod match its links out to another. Derived: the
    fewest cores, S·s_up / (G·l) with pods·G·l ≤ k_core, groups of two cores or more where some G and l give them, then
    groups of one spine (G = 1, spine j of every pod to group j, Facebook's spine planes) where as few. Groups of
    several spines take fewer where s_up's divisors leave ⌊k_core / pods⌋ unused: Meta's 8 pods of 16 CTSWs with 27
    uplinks on 576-port ATSWs take 6 cores of 9 links from 8 spines of each pod, every port used, where groups of one
    spine took 16 at 216 ports (topo36). A count by ports alone can be lower still and is not built: newuser91's 6 pods
    of 32 spines of 16 core links on 64-port cores take 64 (G = 1, l = 8), 48 by ports, whose cores would take 10 links
    from some pods and 11 from others (NET036 gives the cores' free ports and the count by ports; a stated count's
    NET018 gives it too). Two cores at least, where groups of one spine give two: one would be a single
    point of failure. A fixed count C keeps groups of one spine and fixes l = s_up·S / C, so C must be a multiple of S
    whose quotient divides s_up, and pods·l must fit the core's ports.
    """
    here, fixed, problems = fabric.owner_path + ("core", "count"), fat_tree(fabric).core.count, list[Problem]()
    pair_links = _largest_divisor_at_most(s_up, k_core // pods) if pods and k_core >= pods else 1
    cores = spines_per_pod * (s_up // pair_links) if s_up else 0
    if fixed is None or not (s_up and spines_per_pod):
        fewest = core_groups(pods, spines_per_pod, s_up, k_core) if pods else None
        return (fewest[0], fewest[2], fewest[1], problems) if fewest else (cores, pair_links, 1, problems)
    per_group, rest = divmod(fixed, spines_per_pod)
    if rest or not per_group or s_up % per_group:
        valid = [spines_per_pod * g for g in range(s_up // pair_links, s_up + 1) if s_up % g == 0]
        shown = ", ".join(str(n) for n in valid[:4]) + (", ..." if len(valid) > 4 else "")
        problems.append(Problem("NET002", here, f"{fixed} cores do not make {spines_per_pod} equal core groups (one "
                                f"per spine of a pod) that split the {s_up} spine uplinks evenly; counts that do: "
                                f"{shown}", count(fixed), count(cores)))
        return fixed, pair_links, 1, problems
    links = s_up // per_group
    if per_group == 1 and s_up > 1 and pods > 1:
        problems.append(_one_core_groups(fabric, fixed, pods, s_up, k_core))
    if pods * links > k_core:
        core_sw = fabric.tiers["core"].switch
        by_ports = math.ceil(pods * spines_per_pod * s_up / k_core) if k_core else cores
        uneven = (f"; {by_ports:,} would take the {pods * spines_per_pod * s_up:,} spine uplinks by ports alone, but "
                  "only with more links from some pods than from others, which is not built (NET036)"
                  if by_ports < cores and (spines_per_pod * s_up) % by_ports else "")
        problems.append(Problem("NET018", here, f"{fixed} cores are fewer than the {cores} the spines need: each core "
                                f"takes {links} links from its spine in each of the {pods} pods, {pods * links} "
                                f"ports, and {core_sw.id if core_sw else 'the core switch'} has {k_core}{uneven}",
                                count(fixed), count(cores)))
    return fixed, links, 1, problems


def _one_core_groups(fabric: BoundFabric, fixed: int, pods: int, s_up: int, k_core: int) -> Problem:
    """NET035: a stated core count of one core a group (one core per spine of a pod), with the counts to take.

    Each spine's `s_up` uplinks all go to one core, which that core's loss cuts. The count left out is derived
    (`core_groups`: groups of two cores or more where the ports allow); a stated count keeps groups of one spine, so
    the smallest that spreads the uplinks is one per spine times the smallest divisor g ≥ 2 of `s_up` whose
    pods·s_up / g links a core takes (`_cores`). One pod is left to NET027 (its cores carry no traffic).
    """
    spines = fixed   # one group per spine of a pod, of one core each
    g = next((g for g in range(2, s_up + 1) if s_up % g == 0 and pods * (s_up // g) <= k_core), None)
    derived = core_groups(pods, spines, s_up, k_core)
    said = (f"{fixed} cores make {spines} core groups of one core, one per spine of a pod: each spine's {s_up} "
            "uplinks all go to one core, whose loss cuts the spine off the core tier")
    left = (f"leave KEY out (derived: {derived[0]:,} cores, {s_up // derived[2]} a group)"
            if derived and s_up // derived[2] > 1 else "")
    stated = (f"state {spines * g:,} ({g} cores a group, a stated count keeping groups of one spine: each spine meets "
              f"each with {s_up // g} link(s), so one core lost leaves it {g - 1} of {g} of its core links)"
              if g else "")
    rest = " or ".join(x for x in (left, stated) if x) or f"no count of two cores a group fits the {k_core}-port cores"
    return Problem("NET035", fabric.owner_path + ("core", "count"), f"{said}; {rest}".replace("KEY", "`core.count`"),
                   count(1), count(g or 1), public=f"{said}; {rest}".replace("KEY", "the core count"))


def core_groups(full: int, spines: int, s_up: int, k_core: int, last_links: int = 0) -> tuple[int, int, int] | None:
    """(cores, G, l): the fewest cores in groups of G of a pod's `spines` with l links from each (`_cores`).

    A group takes G·s_up links from each of `full` pods and its share of a last pod's `last_links`, ⌈last_links·G /
    spines⌉ (NET031's regrouped last pod, `checks.pods`); a core takes G·l from each full pod and its part of that
    share, ⌈share·l / s_up⌉, which must fit k_core. Among the fewest, two cores a group at least where some G and l
    give them, then groups of one spine where as few; two cores at least where groups of one spine give two (one
    would be a single point of failure). A group of one core takes all of a spine's uplinks, which that core's loss
    cuts; published fat trees spread them (Al-Fares et al., SIGCOMM 2008, §2.3: each aggregation switch meets k/2
    cores, one link each; Facebook's fabric: a fabric switch meets every spine of its plane), so a spine keeps
    (n − 1)/n of them with one of its group's n cores lost (core38). None where no core fits.
    """
    groups = [g for g in range(1, spines + 1) if spines % g == 0]
    fits = [(spines * s_up // (g * n), g, n) for g in groups for n in range(1, s_up + 1) if s_up % n == 0
            and full * g * n + math.ceil(math.ceil(last_links * g / spines) * n / s_up) <= k_core]
    floor = min(2, min((c for c, g, _ in fits if g == 1), default=2))
    return min(fits, key=lambda f: (f[0] < floor, f[0], s_up // f[2] < 2, f[1], f[2])) if fits else None


def pod_spines(leaves: int, up: int, s_down: int) -> int:
    """The fewest spines a pod of `leaves` leaves needs on its own (`_spines_per_pod` for that pod alone)."""
    return _spines_per_pod(leaves, up, s_down)


def fullest_pod(leaf: TierCount, spine: TierCount, spines_per_pod: int) -> tuple[int, int]:
    """Used leaves and spines of a 3-tier plane's fullest pod (leaves fill pods in order, `topology.tier_pairs`).

    A pod holds P = ⌊d_spine / (u / S)⌋ leaves (one plane's S spines each take u / S links of every leaf); its
    spines are S whether the pod is full or not. Without pods (no spines per pod): every used leaf and spine.
    """
    if not (spines_per_pod and spine.down):
        return leaf.used_switches, spine.switches
    return min(pod_leaves(spine.down, leaf.up, spines_per_pod), leaf.used_switches), spines_per_pod
