"""What `archgen estimate` says of a scale-up domain that spans racks (`scale_up.racks`, a GB200 NVL36x2).

The model takes the whole domain as one scale-up domain (`docs/perf-model.md`, "Scale-up domains over several
racks"): its bandwidth, because the trunk links between each pair of racks are sized to carry a rack's accelerators'
bandwidth per direction (`analyse.scale_up_racks.trunk_links_per_pair`), and the accelerator's one-rack
`scale_up.latency` per collective step, because no per-hop NVLink switch latency could be cited for the second
switch hop between racks. The cluster document's scale-up table said so; the estimate itself did not, so a TP or EP
group of 72 over two racks of 36 read like one inside an NVL72 rack (newuser59).
"""

from __future__ import annotations

from archgen.perf.comm.placement import domain_share
from archgen.perf.hw.hardware import Hardware

__all__ = ["domain_racks_note"]


def domain_racks_note(domain: Hardware, job: Hardware, racks: int) -> str:
    """The note for a job whose share of a domain of `racks` racks is more than one rack's ("" where it is not).

    `domain` is the cluster's own hardware (the whole domain's size, not a sweep point's), `job` the job's (its share
    of each domain, `comm.placement.job_share`, and any what-if).
    """
    if racks <= 1 or domain.torus:
        return ""
    per_rack = domain.scale_up_size // racks
    share = domain_share(job)
    if share <= per_rack:
        return ""
    bandwidth = job.scale_up_bandwidth / 1e9
    return (f"the scale-up domain of {domain.scale_up_size} spans {racks} racks of {per_rack} (`scale_up.racks`), "
            f"and the job takes {share} of each domain: a group across racks crosses two switch hops and "
            f"the trunk links; taken at the domain's {bandwidth:.4g} GB/s per direction (the trunks are sized to "
            f"carry it) and the one-rack latency of {job.accelerator}, {job.scale_up_latency * 1e6:.4g} us per "
            "collective step (`scale_up.latency`): the second switch hop's latency is not added, no per-hop figure "
            "could be cited (docs/perf-model.md, Scale-up domains over several racks)")
