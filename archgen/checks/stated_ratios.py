"""NET033: a fat tree's stated oversubscription, read the way round it is written and kept as built.

`checks/network_warnings.py` registers the check; this module holds what it finds. A ratio is down:up everywhere in
archgen ("3:1": three parts down to one up). Published designs write it both ways: Meta's Llama 3 paper gives its
aggregation layer "an oversubscription ratio of 1:7" for seven down to one up (arXiv:2407.21783, section 3.3.1), so
a network architect copying that habit writes "1:3" for a 3:1 taper and archgen builds the opposite, three times
the up ports of the down ports (newuser91: 16,384 GPUs on Tomahawk 5 rail leaves stated "1:3" took 512 leaves and
49,152 leaf-spine links where 256 and 8,192 carry 1:1, and nothing but the switch count said so). A ratio under 1:1
is a warning at the key that states it. Uplinks beyond the down bandwidth on purpose (spares, so that a spine's loss
leaves a leaf at 1:1) are written as `up` ports, which fix the split and are not judged here, or the finding is waived
with that reason.

A ratio the ports cannot give exactly is built more oversubscribed than stated: the up ports are the whole ports
below it, u = ⌊d·s / (o·s_up)⌋ (`analyse.tiers.split`), so a spine of 47 down ports at "3:1" takes 15 up, 3.13:1,
and a `max_oversubscription` of "3:1" then fails at NET006 on the ratio the design itself stated. An info finding
says so, with the ratio as built and the ports that give the stated one or better.

Three ratios are in play, and every message names which it gives: as stated (the key), as built (all of a switch's
down ports over its up ports, what this check compares), and as used (the down ports in use over the up ports, the
metric `<tier>.oversubscription`, lower where down ports stay free). newuser96's spine stated "2:1" is built 2.05:1
here while its metric reads 1.52 as used; without the names the two read as a contradiction.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.fabric import FabricAnalysis
from archgen.analyse.network import count
from archgen.analyse.ports import up_ports
from archgen.checks.registry import Context, Violation
from archgen.model.fabrics import FatTree
from archgen.model.tiers import TIER_NAMES

#: A built ratio this close to the stated one is the stated one (a float's last bits).
_SAME = 1e-9


def stated_ratios(ctx: Context) -> Iterator[Violation]:
    """NET033: stated ratios under 1:1 (warning) and stated ratios the ports build more oversubscribed (info)."""
    for c in ctx.clusters.values():
        for fa in c.fabrics:
            if isinstance(fa.fabric.spec, FatTree):
                yield from _fabric(fa, c.cluster.spec.id)


def _fabric(fa: FabricAnalysis, owner: str) -> Iterator[Violation]:
    spec, here = fa.fabric.spec, fa.fabric.owner_path
    assert isinstance(spec, FatTree)
    for name in TIER_NAMES[:max(fa.tiers_used - 1, 0)]:     # the top tier has no uplinks and reads no ratio
        tier, t = getattr(spec, name), fa.tier(name)
        stated = spec.stated_ratio(name)   # None where ports fix the split (NET019)
        if t is None or not t.up or stated is None:
            continue
        over, key = stated
        s, s_up = t.speed.m_as("Gbit/s"), t.up_speed.m_as("Gbit/s")
        built = t.down * s / (t.up * s_up)
        ports = f"{t.down} down x {s:g}G over {t.up} up x {s_up:g}G"
        if over < 1 - _SAME:
            down, up = _written(over)
            yield Violation(fa.fabric.path, owner, here + key,
                            f"{name} oversubscription {down}:{up} as stated is down:up, so each {name} switch gets "
                            f"more up than down bandwidth ({ports}, {built:.3g}:1 as built); for {up} down to "
                            f"{down} up (a taper, as Meta's Llama 3 paper writes 7 down to 1 up as '1:7'), write "
                            f"'{up}:{down}'; for spare "
                            "uplinks on purpose, give `up` ports",
                            count(built), count(1),
                            public=f"the {name} switches are built with more uplink than downlink bandwidth "
                            f"({ports}, {built:.3g}:1 as built), which a stated ratio of {down}:{up} asks for")
        elif built > over * (1 + _SAME):
            more = up_ports(t.down * s / s_up, over) + 1
            advice = (f"{more} up ports give {t.down * s / (more * s_up):.3g}:1 where they fit" if tier.down is not None
                      and tier.down.ports is not None else "give `down` and `up` ports to choose the split")
            yield Violation(fa.fabric.path, owner, here + key,
                            f"{name} oversubscription {over:g}:1 as stated is {built:.3g}:1 as built, all down "
                            f"ports over up ports ({ports}; the metric {name}.oversubscription is the ratio as "
                            f"used, the down ports in use over them): the up ports are the whole number below the "
                            f"stated ratio; {advice}",
                            count(built), count(over), severity="info",
                            public=f"the {name} switches are built at {built:.3g}:1, all down ports over up ports "
                            f"({ports}), more oversubscribed than the stated {over:g}:1; their oversubscription as "
                            "used counts only the down ports in use")


def _written(over: float) -> tuple[str, str]:
    """A ratio under 1 as a person wrote it: 1/3 → ('1', '3'); 0.8 → ('1', '1.25')."""
    return "1", f"{1 / over:.3g}"
