"""A cluster as the performance model sees it (`Machine`): its hardware, accelerators and what a point reads of it.

`perf.workload.cluster.machine` makes one from a `Cluster` spec; moved out of `perf.workload.cluster` so that
`perf.workload.slices`, which `cluster` imports, reads it without an import cycle (issue 19 part 6).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from archgen.perf.hw.hardware import Hardware
from archgen.perf.hw.switch_ports import SwitchPorts
from archgen.perf.train.goodput import Failures


@dataclass(frozen=True)
class Machine:
    """A cluster as the performance model sees it."""

    cluster: str
    hardware: Hardware
    accelerators: int
    per_rack: int         # accelerators in its largest rack
    it_power: float = 0.0  # W: the cluster's IT load (maximum draw of its racks and fabrics), for sweeps
    failures: Failures | None = None  # what a sweep's training point needs for its goodput (perf.train.goodput)
    failure_ends: tuple[Failures, ...] = ()  # the ends of that goodput's range (analyse.goodput.failure_ends)
    cost_per_accelerator_hour: float | None = None  # USD, for a sweep point's cost per token
    rates: str = ""       # which rate set the goodput uses and what its range spans (analyse.goodput.rate_sets)
    transport: str = ""   # who declares `hardware.scale_out_latency` ("aws-ofi-nccl on NIC 'efa-v4'"); "": NCCL's IB
    utilisation: float = 1.0  # the facility's: the idle share its cost per used hour spreads (derived.charged_spares)
    library: str = "NCCL"  # the collective library of the accelerator's vendor (`COLLECTIVE_LIBRARY`)
    assumed_scale_out: bool = False  # no compute fabric: scale-out is the NICs' line rate, non-blocking (`nic_path`)
    per_node: int = 1     # accelerators of one node: a stated placement holds whole nodes (`placement_problem`)
    mesh_limit: int = 0   # a full-mesh domain: the most accelerators its part's `scale_up.links` join (0: no limit)
    latency_unset: bool = False  # `transport` leaves its latency unset (`NetTransport.latency`): not provided
    ocs_cube: tuple[int, ...] = ()  # a torus through OCSes: its cube; a job of whole cubes is a slice (`job_slice`)
    unconfirmed: tuple[str, ...] = ()  # the accelerator's figures the model reads that it marks unconfirmed
    switch: SwitchPorts | None = None  # a switched domain's switch ports and links: how many accelerators they join
    peak_dense: tuple[str, ...] = ()  # data types whose peak the part states dense (`Accelerator.peak_basis`)
    planes: int = 1       # planes the scale-out bandwidth sums (`ScaleOutPath.planes`), said in a note (`planes_note`)
    domain_racks: int = 1  # racks one scale-up domain spans (`scale_up.racks`), said in a note (`domain_racks_note`)
    hop_latency: float = 0.0  # s: its multi-rack domain's second switch hop, where the switch states `latency`
    switch_part: str = ""  # the scale-up domain's switch part, named in `domain_racks_note`
    hop_made_of: str = ""  # what `hop_latency` holds: the switch's, the trunk's flight and ends (`stated_hop`)
    switch_latency: float = 0.0  # s: a one-rack domain's switch `latency`, said not added (`one_rack_switch_note`)
    pod_flight: float = 0.0  # s: a pod's step adds its longest run to the switch racks, flown twice (`pod_flight`)
    pod_made_of: str = ""  # what `pod_flight` holds ("": the domain is not a pod, `scale_up.switch_rack`)
    own_link: str = ""    # the accelerator's own link, where the domain states another (`fabric_latency_note`)
    domain_fabric: str = ""  # that technology, in words ("" where the domain runs on the accelerator's own link)
    energy_share: float = 0.0  # of the TCO, an energy cost at maximum draw (`upper_bounds.unsettled_at` judges cost so)
    energy_price: float = 0.0  # USD per kWh of IT energy (the hall's price x PUE): what a sweep's `tdp` level costs
    hall_limit: float = math.inf  # W: the most IT power its hall takes for it (`analyse.hall_room`); inf: not held
    hall_room: str = ""   # which facility and headroom set `hall_limit`, in words (`points.over_hall` says it)
    feed_per_watt: float = 1.0  # W at the rack feeds per W more on an accelerator (`analyse.conversion.feed_per_watt`)
    capex_left_out: str = ""  # what its capex leaves out, a lower bound then (`analyse.capex_bounds.left_out`)
    withheld: str = ""    # why its path between domains is not provided (`ScaleOutPath.withheld`): no job across them
    withheld_by: str = ""  # the fabric whose infeasible topology withholds it (`ScaleOutPath.withheld_by`)
