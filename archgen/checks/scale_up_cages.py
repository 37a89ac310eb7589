"""CAB005 for a scale-up domain: its accelerator and trunk cables against the switch part's port cages."""

from __future__ import annotations

from collections.abc import Iterator

from archgen.checks.registry import Context, Violation
from archgen.model.network import CAGES, cage_fits

__all__ = ["scale_up_cages"]


def scale_up_cages(ctx: Context) -> Iterator[Violation]:
    """A scale-up domain's `link` and `trunk_link` against its switch part's port cages (newuser59).

    Judged where every port group of the switch names a cage of `CAGES` (an NVLink tray's backplane cartridge names
    none): the cable must plug into one of them. A UALink switch of OSFP ports took a QSFP112-only DAC as its
    accelerator and trunk links with no finding, as a fabric's tier would not (`checks.cabling.media_cage`, CAB005).
    """
    for c in ctx.clusters.values():
        su, sw = c.cluster.spec.scale_up, c.cluster.scale_up_switch
        if su is None or sw is None or not all(g.cage in CAGES for g in sw.groups):
            continue
        cages = sorted({g.cage for g in sw.groups})
        for key, link in (("link", c.cluster.scale_up_link), ("trunk_link", c.cluster.scale_up_trunk)):
            if link is not None and link.cages and not any(cage_fits(m, g) for m in link.cages for g in cages):
                yield Violation(c.cluster.path, c.cluster.spec.id, ("scale_up", key),
                                f"scale_up.{key}: {link.id} ({', '.join(link.cages)}) fits no port of {sw.id} "
                                f"({', '.join(cages)}): expected a cable or module for {' or '.join(cages)}")
