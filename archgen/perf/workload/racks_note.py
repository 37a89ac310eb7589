"""What `archgen estimate` says of a cluster's scale-up domain latency: over several racks, and on another fabric.

Over several racks (`scale_up.racks`, a GB200 NVL36x2): the model takes the whole domain as one scale-up domain
(`docs/perf-model.md`, "Scale-up domains over several racks"), at its bandwidth, because the trunk links between
each pair of racks are sized to carry a rack's accelerators' bandwidth per direction
(`analyse.scale_up_racks.trunk_links_per_pair`), and at the accelerator's one-rack `scale_up.latency` per collective
step. A step between racks crosses one more switch. The job's ranks are taken to fill each domain from its first
accelerator on, a rack boundary (a job smaller than the domain at offset 0; the note says so): a scheduler placing
it from another accelerator cuts other groups by a rack, and no spec states such an offset. Where the switch part
states its port-to-port `latency` (a UALink switch: "with 400G ports, a 25T switch is <= 150 ns, 50T <200ns, and a
100T switch < 250ns", the UALink Consortium's answers to its 200G 1.0 specification webinar,
ualinkconsortium.org/blog/a-deeper-dive-responding-to-the-ualink-200g-1-0-specification-webinar-qa-session-822, a
target, not a measured switch),
`second_hop` adds it as NCCL's tuning model adds a slower step: only on the steps that cross, counted as NCCL counts
a ring's steps between nodes (`perf.comm.nccl.ring_latency`, tuning.cc `nInterSteps`: 2 (R - 1) of an all-reduce's
2 (n - 1) steps, R - 1 of n - 1 otherwise), so each step takes hop x (R - 1) / (n - 1) more on average, n the
accelerators the job holds of one domain and R the racks they span. Point-to-point sends that every rank makes at
once (a pipeline's, a CP ring's) wait on the slowest, so where they cross racks they take the whole hop (recorded as
`Hardware.rack_cross`; the note names a pipeline's stage boundaries across racks, `racks.stages_across`); an
all-to-all takes it on its sends to peers in other racks (`racks._across`; a2ahop). A TP, DP, CP or EP group inside one
rack takes none (`perf.comm.racks.group_times`; `second_hop` records the average and the rack's size in
`Hardware.rack_hop` and `rack_size` for it). NVIDIA publishes no NVLink switch latency, and the catalog's NVLink
trays state none, so on an NVL36x2 nothing is added and the note says so (newuser59).

A UALink pod (`scale_up.switch_rack`, `analyse.scale_up_pod`) is one switch stage: no second hop (`domain_span` is
1), and every step of a job of two or more takes twice the flight of its longest run to the switch racks (`pod_flight`,
`pod_note`); its switch's `latency` is not added, as in one rack (`one_rack_switch_note`'s reason).

On another fabric: an accelerator's `scale_up.latency` is a step over its own link (NCCL's NVLink step, or a figure
the part marks unconfirmed). A cluster whose domain states another `scale_up.technology` (an MI355X in a UALink or
Ethernet domain) gets that figure unchanged: no collective step latency of UALink or an Ethernet scale-up domain is
published (the consortium's figures above are a switch's port to port, not a library's step), so
`fabric_latency_note` says it is borrowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from archgen.display import figure
from archgen.model import Cluster, Document
from archgen.model.network import COPPER_MEDIA, Link
from archgen.model.scale_up import ScaleUp
from archgen.model.site import fibre_delay
from archgen.model.technology import TECHNOLOGIES, other_link
from archgen.perf.comm.placement import domain_share
from archgen.perf.comm.racks import stages_across
from archgen.perf.hw.given import si
from archgen.perf.hw.hardware import Hardware
from archgen.topology import ScaleOutPath
from archgen.units import Q_, Q

__all__ = ["COPPER_DELAY", "bridge_note", "domain_latency", "domain_racks_note", "domain_span", "fabric_latency_note",
           "one_rack_switch_note", "pod_flight", "pod_note", "second_hop", "stated_hop"]


#: Flight time of a passive copper (twinax DAC) run: at most 4.5 ns a metre, NVIDIA's OSFP passive DAC product
#: specifications, "Time propagation delay ... 4.5 ns/m, Informative" (MCP4Y10-Nxxx, docs.nvidia.com/networking/
#: display/mcp4y10nxxx2x400pub/specifications; the same in the MCP7Y60 and MCP1650 QSFP56 DAC specifications).
#: Taken for every copper assembly (`COPPER_MEDIA`: an ACC or AEC is the same twinax): a maximum, so the hop is not
#: understated.
COPPER_DELAY = Q_(4.5, "ns/m")


def stated_hop(latency: Q | None, switch: str, trunk: Link | None, run: Q | None) -> tuple[float, str]:
    """(s, words) of the second switch hop between racks: the switch's `latency`, the trunk's flight and its ends.

    0 where the switch states no `latency` (the hop is not modelled: `domain_racks_note` says so). Else the switch's
    port-to-port latency plus the flight time over the longest trunk `run` (copper at `COPPER_DELAY`, fibre at
    `model.site.fibre_delay`'s group index, multimode's where the trunk is multimode; not provided where no run is
    laid out) plus the trunk part's
    `latency_per_end` at both ends, or words saying an optical or active part states none (not zero: not provided).
    """
    if latency is None:
        return 0.0, ""
    total, words = latency.to("s"), [f"{figure(latency.to('ns'))}, {switch}'s `latency`"]
    if trunk is not None and run is not None:
        flight, said = _flight(trunk, run)
        total = total + flight
        words.append(f"{flight.to('ns').m:.3g} ns of flight over the longest trunk run, {said}")
    elif trunk is not None:
        words.append("no flight time: no trunk run is laid out")
    if trunk is not None and trunk.latency_per_end is not None:
        total = total + 2 * trunk.latency_per_end.to("s")
        if trunk.latency_per_end.m:
            words.append(f"{figure((2 * trunk.latency_per_end).to('ns'))} of {trunk.id}'s modules "
                         "(`latency_per_end` at both ends)")
    elif trunk is not None and trunk.media != "dac":
        words.append(f"{trunk.id} states no `latency_per_end`: its modules' latency is not added, so the hop is a "
                     "lower bound")
    return float(total.m_as("s")), ", and ".join(words)


def _flight(link: Link, run: Q) -> tuple[Q, str]:
    """One-way flight time (s) over `run` of `link`'s media, and its words: copper at `COPPER_DELAY`, fibre by kind.

    Fibre at `model.site.fibre_delay`'s single-mode or multimode group index (by `media`, not by fibre grade).
    """
    copper = link.media in COPPER_MEDIA
    flight = (run * COPPER_DELAY).to("s") if copper else fibre_delay(run, link.media == "multimode").to("s")
    return flight, f"{run.m_as('m'):.3g} m of {link.media}" + (f" at up to {COPPER_DELAY:~P}" if copper else "")


def pod_flight(link: Link | None, run: Q | None) -> tuple[float, str]:
    """(s, words) a pod's collective step adds: its longest run to the switch racks flown there and back, and ends.

    A pod (`scale_up.switch_rack`, `analyse.scale_up_pod`) puts any two accelerators one switch hop apart, as a
    one-rack domain does, so the accelerator's `scale_up.latency` (a step through the fabric end to end, its switch
    crossing included) stands; a send runs from its rack to a switch rack and back, so it adds twice the longest
    run's flight and the `link` part's `latency_per_end` at all four ends where stated. The step latency's own
    in-rack cable flight (about a metre, under 5 ns) is not taken off, so the figure leans high by that.
    """
    if link is None:
        return 0.0, ""
    if run is None:
        return 0.0, "no flight time: no run to the switch racks is laid out"
    flight, said = _flight(link, run)
    total, words = 2 * flight, [f"2 x {flight.to('ns').m:.3g} ns of flight over the longest run, {said}"]
    if link.latency_per_end is not None and link.latency_per_end.m:
        total = total + 4 * link.latency_per_end.to("s")
        words.append(f"{figure((4 * link.latency_per_end).to('ns'))} of {link.id}'s modules (`latency_per_end` at "
                     "four ends)")
    elif link.latency_per_end is None and link.media != "dac":
        words.append(f"{link.id} states no `latency_per_end`: its modules' latency is not added, a lower bound")
    return float(total.m_as("s")), ", and ".join(words)


def pod_note(job: Hardware, flight: float, made_of: str, switch: str) -> str:
    """The note of a job of two or more accelerators on a pod: one hop, and what its runs add ("" on no pod)."""
    if not made_of or domain_share(job) < 2 or job.torus:
        return ""
    return (f"the scale-up domain of {job.scale_up_size} is a pod of one switch stage in switch racks "
            "(`scale_up.switch_rack`): any two of its accelerators, in one rack or two, are one switch hop apart, "
            f"so no second hop is added and the all-pairs bandwidth is each accelerator's links'; a collective step "
            f"takes {job.accelerator}'s `scale_up.latency`, its one switch crossing included ({switch}'s stated "
            f"`latency` is not added again), plus {flight * 1e9:.4g} ns ({made_of}): "
            f"{job.scale_up_latency * 1e6:.4g} us (docs/perf-model.md, UALink pods)")


def domain_span(su: ScaleUp | None) -> int:
    """Racks a domain's second switch hop spans (`Machine.domain_racks`): `racks`, 1 for a pod (one switch stage)."""
    return su.racks if su is not None and su.switch_rack is None else 1


def domain_latency(cluster: Cluster, items: Mapping[str, Document], part: object,
                   scale_out: ScaleOutPath | None = None) -> dict:
    """What the scale-up domain adds to, or says of, the accelerator's step latency (this module's notes).

    The second hop where the domain spans racks and its switch states a port-to-port latency, with the trunk's flight
    over the longest run `scale_out` carries and its modules' stated latency (`stated_hop`); a pod's runs to its
    switch racks (`pod_flight`); the domain's technology in words where the cluster states one
    (`scale_up.technology`) that is not the accelerator's own link (`technology.other_link`). Moved from
    `perf.workload.cluster` (ualink30).
    """
    su, own = cluster.scale_up, getattr(getattr(part, "scale_up", None), "technology", "")
    if su is None:
        return {}
    switch = items.get(su.switch) if su.switch else None
    run = scale_out.trunk_run if scale_out is not None else None
    stated = getattr(switch, "latency", None) if domain_span(su) > 1 else None
    other = "technology" in su.model_fields_set and bool(own) and other_link(own, su.technology)
    trunk, link = (items.get(k) if k else None for k in (su.trunk_link, su.link))
    hop, made_of = stated_hop(stated, su.switch or "", trunk if isinstance(trunk, Link) else None, run)
    pod, pod_words = pod_flight(link if isinstance(link, Link) else None, run) if su.switch_rack else (0.0, "")
    own_rack = getattr(switch, "latency", None) if su.racks == 1 and not su.switch_rack else None
    return {"hop_latency": hop, "hop_made_of": made_of, "switch_part": su.switch or "",
            "switch_latency": si(own_rack, "s") if own_rack is not None else 0.0, "pod_flight": pod,
            "pod_made_of": pod_words, "own_link": own if other else "",
            "domain_fabric": TECHNOLOGIES[su.technology].words if other else ""}


def _spans(domain: Hardware, job: Hardware, racks: int) -> tuple[int, int]:
    """(accelerators a rack of the domain holds, racks the job's share spans); (0, 0) where it stays in one rack."""
    if racks <= 1 or domain.torus:
        return 0, 0
    per_rack = domain.scale_up_size // racks
    share = domain_share(job)
    if share <= per_rack:
        return 0, 0
    return per_rack, -(-share // per_rack)


def second_hop(domain: Hardware, job: Hardware, racks: int, hop: float, pod: float = 0.0) -> Hardware:
    """`job` with a stated second-hop latency `hop` (s) averaged over its ring steps (module docstring).

    On a pod (`pod`: `pod_flight`'s s, racks 1), every step of a job of two or more takes `pod` more instead.
    """
    if pod > 0 and domain_share(job) >= 2 and not job.torus:
        return replace(job, scale_up_latency=job.scale_up_latency + pod)
    per_rack, spanned = _spans(domain, job, racks)
    if not spanned or hop <= 0:
        return job
    added = hop * (spanned - 1) / (domain_share(job) - 1)
    return replace(job, scale_up_latency=job.scale_up_latency + added, rack_hop=added, rack_cross=hop,
                   rack_size=per_rack)


def domain_racks_note(domain: Hardware, job: Hardware, racks: int, hop: float = 0.0, switch: str = "",
                      pipeline: tuple[int, int] = (0, 0), made_of: str = "") -> str:
    """The note for a job whose share of a domain of `racks` racks is more than one rack's ("" where it is not).

    `domain` is the cluster's own hardware (the whole domain's size, not a sweep point's), `job` the job's (its share
    of each domain, `comm.placement.job_share`, and any what-if, after `second_hop`); `hop` the port-to-port latency
    (s) its switch part `switch` states, 0 where it states none; `pipeline` a training layout's (tp·cp·dp, pp), whose
    stage boundaries across racks the note names (`racks.stages_across`); `made_of` what the hop is
    (`stated_hop`'s words; "": the switch's `latency` alone).
    """
    per_rack, spanned = _spans(domain, job, racks)
    if not spanned:
        return ""
    share = domain_share(job)
    bandwidth = job.scale_up_bandwidth / 1e9
    head = (f"the scale-up domain of {domain.scale_up_size} spans {racks} racks of {per_rack} (`scale_up.racks`), "
            f"and the job takes {share} of each domain, its ranks from the domain's first rack on (assumed: a job "
            "placed from another accelerator has other groups cut by a rack): a group across racks crosses two "
            f"switch hops and the trunk links; taken at the domain's {bandwidth:.4g} GB/s per direction (the trunks "
            "are sized to carry it) and ")
    if hop > 0:
        what = made_of or f"{switch}'s `latency`"
        return head + (f"{job.scale_up_latency * 1e6:.4g} us per collective step: {job.accelerator}'s one-rack "
                       f"`scale_up.latency` plus the second hop, {hop * 1e9:.4g} ns ({what}), on "
                       f"{spanned - 1} of every {share - 1} ring steps (those that cross racks, as NCCL counts steps "
                       "between nodes), averaged over the steps, where a group inside one rack (its ranks' span "
                       f"dividing {per_rack}: tp, or a DP, CP or EP group in Megatron's rank order) takes none; "
                       f"{_sends(job, pipeline)} take the whole {hop * 1e9:.4g} ns where they cross racks, every send "
                       "waiting on the slowest; an all-to-all across racks takes it on its sends to peers in other "
                       "racks (docs/perf-model.md, Scale-up domains over several racks)")
    return head + (f"the one-rack latency of {job.accelerator}, {job.scale_up_latency * 1e6:.4g} us per "
                   "collective step (`scale_up.latency`): the second switch hop's latency is not added, "
                   f"{switch or 'the switch part'} states no `latency` and no per-hop figure could be cited "
                   "(docs/perf-model.md, Scale-up domains over several racks)")


def _sends(job: Hardware, pipeline: tuple[int, int]) -> str:
    """Which sends take the whole hop: the pipeline's, naming the stage boundaries across racks where it is known."""
    span, pp = pipeline
    across = stages_across(job, span, pp) if span else ()
    if not across:
        return "the pipeline's sends and a CP ring's steps"
    pairs = ", ".join(f"{s} and {s + 1}" for s in across)
    return (f"the pipeline's sends between stages {pairs} (of 0 to {pp - 1}, stage s on ranks s x {span} on) "
            "and a CP ring's steps")


def one_rack_switch_note(job: Hardware, racks: int, latency: float, switch: str) -> str:
    """Why a one-rack domain's switch `latency` (s) is not added ("" where none is stated or no step crosses it).

    A step in one rack crosses one switch, and `scale_up.latency` is a step through the fabric end to end (NCCL's
    NVLink step, or a figure the part marks unconfirmed), its switch crossing included: adding the switch's
    port-to-port figure would count it twice (nu83fix; newuser83: it went unused without a word).
    """
    if racks > 1 or latency <= 0 or domain_share(job) < 2 or job.torus:
        return ""
    return (f"{switch} states a port-to-port `latency` of {latency * 1e9:.4g} ns, not added: a collective step in "
            f"this one-rack domain crosses one switch, and {job.accelerator}'s `scale_up.latency`, "
            f"{job.scale_up_latency * 1e6:.3g} us, is a step through the fabric end to end, that crossing included; "
            "adding it would be counting that crossing twice (docs/perf-model.md, Scale-up domains over several racks)")


def fabric_latency_note(job: Hardware, own: str, domain: str) -> str:
    """The note of a job on a domain of technology `domain` (words) whose accelerator's link is `own` ("": none)."""
    if not domain:
        return ""
    return (f"scale-up latency {job.scale_up_latency * 1e6:.3g} us per collective step is {job.accelerator}'s "
            f"`scale_up.latency`, stated for its own link ({own}), but the cluster's domain runs on {domain} "
            "(`scale_up.technology`): "
            f"no collective step latency of {domain} is published, so the figure is borrowed, not {domain}'s "
            "(elasticity: latency; docs/perf-model.md, Scale-up latency on another fabric)")


def bridge_note(domain: Hardware, per_node: int, gpus: int) -> str:
    """The note of a job on NVLink bridge groups: domains smaller than their node (`analyse.scale_up.bridge_groups`).

    The groups of one node reach each other over PCIe; the model has one path between domains, the scale-out
    network's, so a job over more than one group takes that rate between them, not PCIe's, and the note says so.
    """
    size = domain.scale_up_size
    if domain.torus or not 1 < size < per_node or per_node % size or gpus <= size:
        return ""
    return (f"the scale-up domain of {size} is an NVLink bridge group, {per_node // size} to a node of {per_node}: "
            "traffic between a node's groups crosses PCIe, which the estimate takes at the scale-out rate per "
            f"accelerator ({domain.scale_out_bandwidth * 8 / 1e9:.4g} Gb/s), not PCIe's (docs/clusters.md, "
            "NVLink bridges)")
