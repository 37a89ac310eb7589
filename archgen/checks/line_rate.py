"""CAB002's first half: each link option of a fabric runs at the line rate of the ports it joins.

A fat tree's access links run at the fabric's `speed` and its upper tiers' at the leaves' uplink rate; a module may
carry one or a whole number (2, 4, 8) of those ports (twin-port OSFP). A torus joins chips, each link one ICI link
per direction at the fabric's `speed` (`model.fabrics.Torus`): its chip-to-chip links (`neighbour`) and the chip end
of its OCS fibres run at it. The OCS end (`b` of `ocs`) does not: an optical circuit switch steers light mirror to
mirror, rate agnostic (`specs/catalog/switches/palomar-ocs.yaml` notes; Mission Apollo, arXiv 2208.10041). Before,
only fat trees were judged, so a TPU v4 ICI cable (400 Gb/s) passed on an 800 Gb/s torus and the bill of materials,
optics power and failure units counted it (newuser37's Ironwood trial).
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.build.fabrics import LinkOption
from archgen.checks.registry import Context, Violation
from archgen.units import Q


def _option(c, fa, opt: LinkOption, speed: Q, ends: tuple[str, ...], what: str) -> Iterator[Violation]:
    """A violation for each of `opt`'s `ends` ('a', 'b') that runs neither at `speed` nor at 2, 4 or 8 times it."""
    for tag in ends:
        end = getattr(opt, tag)
        ratio = float((end.rate / speed).to("").magnitude)
        path = opt.path + ((tag,) if opt.a.id != opt.b.id else ())
        if ratio < 1 - 1e-9 or abs(ratio - round(ratio)) > 1e-9 or round(ratio) not in (1, 2, 4, 8):
            yield Violation(fa.fabric.path, c.cluster.spec.id, path,
                            f"{end.id} runs at {end.rate:~P}, not the {speed:~P} of {what} or a multiple of it",
                            end.rate, speed)


def line_rates(ctx: Context) -> Iterator[Violation]:
    """Every fat-tree and torus link option whose end runs at no whole multiple of its ports' line rate."""
    for c in ctx.clusters.values():
        for fa in c.fabrics:
            spec = fa.fabric.spec
            if spec.topology == "torus":
                for key, t in fa.fabric.tiers.items():
                    for opt in t.links:
                        same = opt.a.id == opt.b.id
                        ends = ("a",) if same or key == "ocs" else ("a", "b")   # the OCS end: rate agnostic
                        yield from _option(c, fa, opt, spec.speed, ends, "this torus' links")
                continue
            if spec.topology != "fat-tree" or fa.tier("leaf") is None:
                continue
            for key, t in fa.fabric.tiers.items():
                if fa.tier(key) is None:
                    continue
                speed = spec.speed if key == "leaf" else fa.tier("leaf").up_speed
                for opt in t.links:
                    yield from _option(c, fa, opt, speed, ("a",) if opt.a.id == opt.b.id else ("a", "b"),
                                       "this tier")
