"""A 3-tier plane's cores beside the count by ports alone: what the even spread over the pods costs (NET036).

The cores are sized in groups (`upper_tiers.core_groups`): a core takes l links from each of G spines of every pod, so
it meets every pod alike, pods·G·l ports, with G dividing the spines of a pod and l their uplinks. Where the pods do
not divide the core's ports, the largest G·l within ⌊k_core / pods⌋ can leave many ports free: 16 GB200 SUs on one
QM9700 plane (288 leaves in 9 pods of 32 spines with 32 core links each, 64-port cores) take G·l = 4 (powers of two,
7 at most), 256 cores of 36 ports used, where the 9,216 spine uplinks fill ⌈9,216 / 64⌉ = 144 by ports alone;
32 SUs (18 pods) take 512 against 288 (newuser105). The count by ports is not built: its cores would take
⌊links / cores⌋ links from some pods and one more from others (144 cores: 7 from eight pods and 8 from the ninth),
and a core with more links in from one pod than out to another carries more than its links' worth between them,
above the stated ratio (`upper_tiers._cores`). Published fat trees at this scale avoid the case rather than solve
it: the k-ary fat tree has k pods of k-port switches (Al-Fares et al., SIGCOMM 2008, §2.3), NVIDIA's DGX SuperPOD
B200 reference architecture lists 3-tier rows of 4, 8 and 16 pods on 64-port cores (16 SUs: 64 cores, 32: 128, 64:
256), and Meta's 24K cluster 8 pods on 576-port ATSWs. This module says what the even spread costs where a design
does not: the cores' free ports and the count by ports, never a count it does not build.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from archgen.analyse.fabric import FabricAnalysis
from archgen.model.fabrics import FatTree


@dataclass(frozen=True)
class CoreSurplus:
    """One plane's cores as sized and by ports alone (per plane; `planes` to scale)."""

    cores: int
    by_ports: int
    ports: int        # a core's ports at the tier's rate
    used: int         # ports used on each core: pods·G·l
    links: int        # spine-core links of the plane
    pods: int

    @property
    def per_pod(self) -> int:
        """Links a core takes from each pod (G·l)."""
        return self.used // self.pods

    @property
    def free(self) -> int:
        """Core ports left free over the plane."""
        return self.cores * self.ports - self.links

    @property
    def spread(self) -> str:
        """How the count by ports would spread a pod's links over its cores: '7 or 8 links from a pod'.

        Never even: where the count by ports divides a pod's links S·s_up, G·l = S·s_up / count fits the ports and
        splits into G dividing S and l dividing s_up (G = gcd(G·l, S)), so the sizing would have taken it.
        """
        low = self.links // self.pods // self.by_ports
        return f"{low} or {low + 1} links from a pod"


def core_surplus(fa: FabricAnalysis) -> CoreSurplus | None:
    """The cores of a 3-tier fat tree's plane where they outnumber the count by ports alone, or None.

    Derived counts only (a stated `core.count` is the user's, NET018 its floor), over two pods or more of whole
    pods (a part-full last pod is NET031's, which gives the count by ports beside its own). By ports: ⌈links /
    k_core⌉, two at least where the sizing gives two (one core would be a single point of failure).
    """
    spec, leaf, core = fa.fabric.spec, fa.tier("leaf"), fa.tier("core")
    if not isinstance(spec, FatTree) or fa.tiers_used != 3 or fa.pods < 2 or spec.core.count is not None \
            or leaf is None or core is None or not (core.down and core.switches and core.down_used):
        return None
    pod_leaves = fa.shape.pod_leaves
    if not pod_leaves or leaf.switches % pod_leaves:
        return None
    by_ports = max(math.ceil(core.down_used / core.down), min(2, core.switches))
    if by_ports >= core.switches:
        return None
    return CoreSurplus(core.switches, by_ports, core.down, core.down_used // core.switches, core.down_used, fa.pods)
