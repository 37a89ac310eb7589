"""CAB002 and CAB005: each link option's media against the ports it plugs into, and its two ends against each other.

Split from `archgen.checks.cabling` for its size (as it holds them: each check's `@check` and docstring, its findings
the named helpers'): a module's lanes against its ports' lane rate, its two parts' interfaces (`checks.
link_interfaces`), and its cages and width against the cages at both ends (`checks.media_ends`), for a fabric's
tiers and a scale-up domain's cables (`checks.scale_up_cages`). `checks.cabling` imports it, so CAB's checks register
together; cable runs (reach, lengths, layout, copper assemblies) stay there.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.network import count
from archgen.checks.line_rate import line_rates
from archgen.checks.link_interfaces import cage_remedy, ends_unjudged, ends_unmet
from archgen.checks.media_ends import (
    LANE_RULE,
    NO_DAC_MMF_FROM,
    lane_g,
    lanes_mismatch,
    option_ends,
    too_wide,
)
from archgen.checks.registry import Context, Violation, check
from archgen.checks.scale_up_cages import scale_up_cages, scale_up_lanes
from archgen.model.field_words import said
from archgen.model.network import CAGES, cage_fits


@check("CAB002", "cabling.media_rate")
def media_rate(ctx: Context) -> Iterator[Violation]:
    """Each link option runs at the tier's line rate and the lane rate of its ports, in a media offered at that rate.

    A module must carry one or a whole number (2, 4, 8) of the tier's ports; a torus's chip-to-chip links and the
    chip end of its OCS fibres run at the fabric's speed (`checks.line_rate`). Its lanes may not be faster than
    those of the switch or NIC ports it plugs into (where they declare `lanes`), must be the same at both ends,
    and at 200G-PAM4 (XDR) must equal the port's: XDR ports do not downshift to 100G-PAM4 (NDR) media. Passive
    copper and multimode are not offered at 200 Gb/s per lane or more. A scale-up domain's `link` and `trunk_link`
    lanes are held to its switch's port lanes alike (`checks.scale_up_cages.scale_up_lanes`). Source: NVIDIA LinkX
    800G 200G-PAM4 list, https://docs.nvidia.com/networking/display/800g200gpam4list. A link's two parts meet on one
    medium, lane rate and wavelength plan, lane groups matching after breakout (`checks.link_interfaces`).

    Fix: pick link parts whose rate is the fabric speed or a multiple (twin-port) and whose lanes match the ports,
    and LACC or single-mode at XDR.
    """
    yield from line_rates(ctx)
    seen: set[tuple] = set()
    for c, fa, key, opt, end, tag, ports, path in option_ends(ctx):
        lane = (end.rate / end.lanes).to("Gbit/s")
        found = []
        for port in ports:
            if port.lane is not None and lanes_mismatch(lane, port.lane):
                found.append((f"{end.id} has {lane_g(lane)} lanes, the {port.what} runs {lane_g(port.lane)} lanes: "
                              f"expected {'at most ' if port.lane < NO_DAC_MMF_FROM else ''}{lane_g(port.lane)} lanes "
                              f"({LANE_RULE})", lane, port.lane))
        fastest = max([lane, *(p.lane for p in ports if p.lane is not None)], key=lambda q: q.m_as("Gbit/s"))
        if end.media in ("dac", "multimode") and fastest >= NO_DAC_MMF_FROM:
            found.append((f"{end.id} is {end.media} on {lane_g(fastest)} lanes; at 200G-PAM4 only LACC and "
                          "single-mode are offered (NVIDIA LinkX 200G-PAM4 list: no DAC, multimode or AOC)",
                          fastest, NO_DAC_MMF_FROM))
        if tag == "b":
            found.extend(ends_unmet(opt.a, opt.b))
            if (why := ends_unjudged(opt.a, opt.b)) and (fa.fabric.path, path, why, key) not in seen:
                seen.add((fa.fabric.path, path, why, key))
                yield Violation(fa.fabric.path, c.cluster.spec.id, path, f"{key}: {why}", severity="info",
                                public=f"{said(key)}: {why}")
        for message, value, limit in found:
            if (fa.fabric.path, path, message, key) not in seen:
                seen.add((fa.fabric.path, path, message, key))
                yield Violation(fa.fabric.path, c.cluster.spec.id, path, f"{key}: {message}", value, limit,
                                public=f"{said(key)}: {message}")
    yield from scale_up_lanes(ctx)


@check("CAB005", "cabling.media_cage")
def media_cage(ctx: Context) -> Iterator[Violation]:
    """Each link option's modules fit the cages of the ports at both ends; a scale-up link those of its switch.

    A module fits in width too: no more lanes than its cage wires (`checks.media_ends.too_wide`), a scale-up
    domain's cable in its switch's ports alike (`checks.scale_up_cages`).

    A module lists the cages it plugs into (`cages`); a port group or NIC its `cage`. OSFP and QSFP never mix; an
    OSFP module with a finned integrated heat sink (IHS) does not go into a riding-heat-sink (RHS) cage, nor a
    flat-top RHS module into an IHS cage (NVIDIA LinkX 200G-PAM4 list: IHS only in air-cooled Q3400/Q3200
    switches, RHS in ConnectX-8 and liquid-cooled switches; ConnectX-7 OSFP cards take RHS modules only).

    Where the module fits the other end, the finding says so and names the catalog's modules (or cable ends) that fit
    the cage it fails, in shape and width, and link with it by CAB002's rule (`checks.link_interfaces.
    linking_modules`): a single-port ConnectX-7 PCIe card (HGX H100, H800) on a QM9700 leaf takes `{a: smf-400g-dr4,
    b: smf-800g-dr8}`, `{a: smf-400g-dr4, b: lpo-800g-dr8}` or the splitter DAC `{a: dac-400g, b: dac-800g-osfp}`,
    and no one module of the catalog serves both ends.

    Fix: pick the module variant for each end's cage (e.g. `{a: <flat-top NIC module>, b: <finned switch module>}`),
    or correct the cage of the port group or NIC slot.
    """
    seen: set[tuple] = set()
    for c, fa, key, _opt, end, tag, ports, path in option_ends(ctx):
        if not end.cages:
            continue
        for port in ports:
            fits = port.cage not in CAGES or any(cage_fits(m, port.cage) for m in end.cages)
            if fits and (wide := too_wide(end, port)) and (fa.fabric.path, path, wide) not in seen:
                seen.add((fa.fabric.path, path, wide))   # a module that fits no cage there is said so below
                yield Violation(fa.fabric.path, c.cluster.spec.id, path, f"{key}: {wide}", count(end.lanes),
                                count(port.wired or 0), public=f"{said(key)}: {wide}")
            if not fits and (fa.fabric.path, path, port.what) not in seen:
                seen.add((fa.fabric.path, path, port.what))
                head = (f"{end.id} ({', '.join(end.cages)}) does not fit the {port.cage} cage of the {port.what}: "
                        f"expected a module for {port.cage}")
                fix, public = cage_remedy(ctx, c, fa, key, end, tag, port)
                yield Violation(fa.fabric.path, c.cluster.spec.id, path, f"{key}: {head}{fix}",
                                public=f"{said(key)}: {head}{public}")
    yield from scale_up_cages(ctx)
