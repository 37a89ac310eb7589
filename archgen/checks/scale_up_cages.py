"""CAB002, CAB005 for a scale-up domain: its cables against the switch part's port lanes and cages; CAB010: UALink."""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.network import count
from archgen.analyse.nodes import compute_accelerator
from archgen.analyse.scale_up_pod import is_pod
from archgen.checks.media_ends import LANE_RULE, lane_g, lanes_mismatch, switch_port, too_wide
from archgen.checks.registry import Context, Violation
from archgen.model.network import CAGES, COPPER_MEDIA, cage_fits
from archgen.model.technology import other_link

__all__ = ["UALINK_RACKS", "scale_up_cages", "scale_up_lanes", "ualink_beyond"]

#: The racks UALink 200G 1.0 is laid out for: "The links support deterministic performance across one to four racks"
#: (Tom's Hardware on the final specification, 2025-04-08, tomshardware.com/tech-industry/ualink-has-nvidias-nvlink-
#: in-the-crosshairs-final-specs-support-up-to-1-024-gpus-with-200-gt-s-bandwidth: "cable lengths are optimized for
#: <4 meters"); the consortium's specification webinar (2025-04-22) slide: "1 RACK: UALink; 2 RACKS: UALink; 3-4
#: RACKS: UALink or UEC Ethernet; > 4 RACKS: Ethernet".
UALINK_RACKS = 4
#: Why an optical UALink link is outside the specification: the consortium's answer to "Do you anticipate UALink
#: supporting optical in the 2.0 specification?" (ualinkconsortium.org/blog/a-deeper-dive-responding-to-the-ualink-
#: 200g-1-0-specification-webinar-qa-session-822).
NO_OPTICS = ("the UALink 200G 1.0 specification's cables are copper, optimised for under 4 m, and the consortium "
             "\"does not currently have plans to specify optical requirements\"")


def scale_up_cages(ctx: Context) -> Iterator[Violation]:
    """A scale-up domain's `link` and `trunk_link` against its switch part's port cages (newuser59).

    Judged where every port group of the switch names a cage of `CAGES` (an NVLink tray's backplane cartridge names
    none): the cable must plug into one of them. A UALink switch of OSFP ports took a QSFP112-only DAC as its
    accelerator and trunk links with no finding, as a fabric's tier would not (`checks.link_media.media_cage`, CAB005).
    It must fit in width too, by the fabric tiers' rule (`media_ends.too_wide`): the accelerators' `link` in the
    switch's main `ports`, a `trunk_link` in at least one group whose cage it fits (cabfix35: an 8-lane cable passed
    in 4-lane ports). A domain names one part per link, the same at both ends, so the rule of two parts meeting
    (`checks.link_interfaces`, CAB002) holds by itself: the accelerator's end states no cage or plan to judge.
    """
    for c in ctx.clusters.values():
        su, sw = c.cluster.spec.scale_up, c.cluster.scale_up_switch
        if su is None or sw is None or not all(g.cage in CAGES for g in sw.groups):
            continue
        cages = sorted({g.cage for g in sw.groups})
        for key, link in (("link", c.cluster.scale_up_link), ("trunk_link", c.cluster.scale_up_trunk)):
            if link is None or not link.cages:
                continue
            if not any(cage_fits(m, g) for m in link.cages for g in cages):
                yield Violation(c.cluster.path, c.cluster.spec.id, ("scale_up", key),
                                f"scale_up.{key}: {link.id} ({', '.join(link.cages)}) fits no port of {sw.id} "
                                f"({', '.join(cages)}): expected a cable or module for {' or '.join(cages)}")
                continue
            ports = [switch_port(sw, g) for g in ((sw.ports,) if key == "link" else sw.groups)
                     if any(cage_fits(m, g.cage) for m in link.cages)]
            wide = [(why, p) for p in ports if (why := too_wide(link, p))]
            if ports and len(wide) == len(ports):   # a trunk may use any group it fits (`analyse.scale_up_racks`)
                why, port = wide[0]
                yield Violation(c.cluster.path, c.cluster.spec.id, ("scale_up", key), f"scale_up.{key}: {why}",
                                count(link.lanes), count(port.wired or 0),
                                public=f"the scale-up {'trunk ' if key == 'trunk_link' else ''}cables: {why}")


def scale_up_lanes(ctx: Context) -> Iterator[Violation]:
    """A scale-up domain's `link` and `trunk_link` lanes against its switch part's port lanes (CAB002; nu83fix).

    Judged on the port groups that state `lanes`, by CAB002's rule (`media_ends.lanes_mismatch`): the accelerators'
    `link` against the switch's main `ports`, which they reach; a `trunk_link` against every group, a finding where it
    runs on none (a rack's trunks may use any group, `analyse.scale_up_racks`). newuser83: an 800G DR8 module, 8 x 100G
    lanes, passed as the trunk of UALink switch ports of 4 x 200G lanes.
    """
    for c in ctx.clusters.values():
        su, sw = c.cluster.spec.scale_up, c.cluster.scale_up_switch
        if su is None or sw is None:
            continue
        for key, link in (("link", c.cluster.scale_up_link), ("trunk_link", c.cluster.scale_up_trunk)):
            groups = [g for g in ((sw.ports,) if key == "link" else sw.groups) if g.lane_rate() is not None]
            lane = (link.rate / link.lanes).to("Gbit/s") if link is not None else None
            if lane is None or not groups or not all(lanes_mismatch(lane, g.lane_rate()) for g in groups):
                continue
            g = groups[0]
            yield Violation(c.cluster.path, c.cluster.spec.id, ("scale_up", key),
                            f"scale_up.{key}: {link.id} has {lane_g(lane)} lanes, the {sw.id} port group '{g.name}' "
                            f"runs {lane_g(g.lane_rate())} lanes: expected {lane_g(g.lane_rate())} lanes ({LANE_RULE})",
                            lane, g.lane_rate(),
                            public=f"the scale-up {'trunk ' if key == 'trunk_link' else ''}cables, {link.id}, have "
                                   f"{lane_g(lane)} lanes, and the {sw.id} ports they plug into run "
                                   f"{lane_g(g.lane_rate())} lanes ({LANE_RULE})")


def ualink_beyond(ctx: Context) -> Iterator[Violation]:
    """CAB010: a stated UALink domain on optics, over more than `UALINK_RACKS`, or of accelerators of another link.

    Racks: a trunked domain's (its racks' switches joined rack to rack); a pod (`switch_rack`) is the
    specification's 1,024-accelerator layout, each of its runs held to its link's reach (CAB001), the under-4 m
    cables the one-to-four-racks guidance stands on, so its racks are not counted (review46: a 32-rack pod of 32
    warned). Optics: its `link` or `trunk_link`. Another link: the accelerator's own scale-up link is not UALink
    (`technology.other_link`; nu83fix: newuser83's MI355X, Infinity Fabric, on UALink switches passed, only the
    estimate's note saying its step latency was borrowed).
    """
    for c in ctx.clusters.values():
        su = c.cluster.spec.scale_up
        if su is None or su.technology != "ualink":
            continue
        acc = compute_accelerator(ctx.design, c.nodes)
        own = acc.scale_up.technology if acc is not None and acc.scale_up is not None else ""
        if acc is not None and own and other_link(own, su.technology):
            yield Violation(c.cluster.path, c.cluster.spec.id, ("scale_up", "technology"),
                            f"a UALink domain of {acc.id}, whose own scale-up link is {own}: it has no UALink port "
                            "to join the domain's switches, so the domain cannot be built of it as stated, and its "
                            "`scale_up.latency` is not a UALink step: expected an accelerator whose scale-up link is "
                            "UALink",
                            public=f"a UALink domain of {acc.id}, whose own scale-up link is {own}: it has no UALink "
                                   "port to join the domain's switches, so the domain cannot be built of it as stated, "
                                   "and its collective step latency is not a UALink figure")
        for key, link in (("link", c.cluster.scale_up_link), ("trunk_link", c.cluster.scale_up_trunk)):
            if link is not None and link.media not in COPPER_MEDIA:
                yield Violation(c.cluster.path, c.cluster.spec.id, ("scale_up", key),
                                f"scale_up.{key}: {link.id} is {link.media} fibre in a UALink domain, but "
                                f"{NO_OPTICS}: its reach, power and latency are the module's, not the "
                                "specification's; expected a copper cable (dac, acc, aec)",
                                public=f"the scale-up {'trunk ' if key == 'trunk_link' else ''}cables, {link.id}, are "
                                       f"{link.media} fibre in a UALink domain, but {NO_OPTICS}: their reach, power "
                                       "and latency are the module's, not the specification's")
        if su.racks > UALINK_RACKS and not is_pod(su):
            yield Violation(c.cluster.path, c.cluster.spec.id, ("scale_up", "racks"),
                            f"a UALink domain over {su.racks} racks: UALink 200G 1.0 is laid out for 1 to "
                            f"{UALINK_RACKS} racks (its cables optimised for under 4 m; the consortium names Ethernet "
                            f"beyond {UALINK_RACKS} racks): expected at most {UALINK_RACKS}", count(su.racks),
                            count(UALINK_RACKS))
