"""CAB: cable runs: media that reach their length at the fabric's line rate; assumed lengths of unplaced runs."""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.network import count
from archgen.checks.registry import Context, Violation, check
from archgen.units import Q_

#: Lane rate from which passive copper (DAC) and multimode fibre are not offered: NVIDIA LinkX 800G 200G-PAM4
#: interconnect list ("XDR: LACC and single-mode only; no multimode, no AOC, no DAC"),
#: https://docs.nvidia.com/networking/display/800g200gpam4list
NO_DAC_MMF_FROM = Q_(200, "Gbit/s")


@check("CAB001", "cabling.reach")
def reach(ctx: Context) -> Iterator[Violation]:
    """Every run is within the reach of the link media it uses (from the catalog).

    Fix: add a longer-reach link option for the tier (e.g. single-mode), or move the racks closer.
    """
    for c in ctx.clusters.values():
        if c.cabling is None:
            continue
        for t in c.cabling.tiers:
            for opt, n, longest in t.over_reach:
                fa = next(f for f in c.fabrics if f.fabric.spec.id == t.fabric)
                yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.tiers[_tier_key(t.tier)].links_path,
                                f"{t.tier}: {n} link(s) up to {longest:.1f} m exceed the {opt.reach:~P} reach of "
                                f"{opt.label}", Q_(longest, "m"), opt.reach.to("m"))


@check("CAB002", "cabling.media_rate")
def media_rate(ctx: Context) -> Iterator[Violation]:
    """Each link option runs at the tier's line rate and is a media type offered at its lane rate.

    A module must carry one or a whole number (2, 4, 8) of the tier's ports; passive copper and multimode are not
    offered at 200 Gb/s per lane or more.

    Fix: pick link parts whose rate is the fabric speed or a multiple (twin-port), and LACC or single-mode at XDR.
    """
    for c in ctx.clusters.values():
        for fa in c.fabrics:
            for key, t in fa.fabric.tiers.items():
                tier = fa.tier(key)
                if tier is None:
                    continue
                speed = fa.fabric.spec.speed if key == "leaf" else fa.tier("leaf").up_speed
                for opt in t.links:
                    ends = ((opt.a, "a"),) if opt.a.id == opt.b.id else ((opt.a, "a"), (opt.b, "b"))
                    for end, tag in ends:
                        ratio = float((end.rate / speed).to("").magnitude)
                        path = opt.path + ((tag,) if opt.a.id != opt.b.id else ())
                        if ratio < 1 - 1e-9 or abs(ratio - round(ratio)) > 1e-9 or round(ratio) not in (1, 2, 4, 8):
                            yield Violation(fa.fabric.path, c.cluster.spec.id, path,
                                            f"{end.id} runs at {end.rate:~P}, not the {speed:~P} of this tier or a "
                                            "multiple of it", end.rate, speed)
                        lane = (end.rate / end.lanes).to("Gbit/s")
                        if end.media in ("dac", "multimode") and lane >= NO_DAC_MMF_FROM:
                            yield Violation(fa.fabric.path, c.cluster.spec.id, path,
                                            f"{end.id} is {end.media} at {lane:~P} per lane; at 200G-PAM4 only LACC "
                                            "and single-mode are offered", lane, NO_DAC_MMF_FROM)


@check("CAB003", "cabling.media_missing", severity="info")
def media_missing(ctx: Context) -> Iterator[Violation]:
    """Every tier of a fabric names its link media, so its reach and optics are checked and counted.

    Fix: list link options under `links.access`, `links.leaf_spine` or `links.spine_core`.
    """
    for c in ctx.clusters.values():
        for fa in c.fabrics:
            for name in fa.links:
                key = _tier_key(name)
                if not fa.fabric.tiers[key].links and fa.links[name]:
                    yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.owner_path + ("links",),
                                    f"{name}: {fa.links[name] * fa.planes} links without link media; reach and "
                                    "optics are not checked", count(fa.links[name] * fa.planes))


@check("CAB004", "cabling.unplaced_length", severity="warning")
def unplaced_length(ctx: Context) -> Iterator[Violation]:
    """Runs to switches placed in no rack get an assumed length: the longest run the floor holds.

    Such a switch could stand anywhere on the floor, so its runs are given the corner-to-corner length
    (2 x tray_drop + the rows' length and depth + slack) for media choice, reach and optics, never a patch-cord
    length that would understate them.

    Fix: place the tier's switches in a rack type of the cluster (`leaf.rack`, `spine.rack`, `core.rack`) so that
    their runs have real lengths.
    """
    for c in ctx.clusters.values():
        if c.cabling is None:
            continue
        for t in c.cabling.tiers:
            if t.unplaced_links and t.assumed_length is not None:
                fa = next(f for f in c.fabrics if f.fabric.spec.id == t.fabric)
                yield Violation(fa.fabric.path, c.cluster.spec.id, fa.fabric.owner_path + (_tier_key(t.tier),),
                                f"{t.tier}: {t.unplaced_links} link(s) end at switches placed in no rack; their "
                                f"length is assumed to be {t.assumed_length.m_as('m'):.1f} m, the longest run the "
                                "floor holds (corner to corner)", count(t.unplaced_links))


def _tier_key(tier: str) -> str:
    return {"access": "leaf", "leaf_spine": "spine", "spine_core": "core"}[tier]
