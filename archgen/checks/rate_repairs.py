"""REL015: a node's hardware rate that states a repair time of 0, taken as a unit replaced at once (newuser92).

Split from `checks.reliability` for its size; that module imports it, so that the REL rules register together.
"""

from __future__ import annotations

from collections.abc import Iterator

from archgen.analyse.failure_model import HARDWARE_CLASSES
from archgen.checks.registry import Context, Violation, check


@check("REL015", "rel.instant_repair", severity="info")
def repair_stated(ctx: Context) -> Iterator[Violation]:
    """A node's hardware rate (accelerator, host, NIC) with `repair: 0 h` is said to be a unit replaced at once.

    A repair time of 0 is read as written: a failed unit is back at once, so no node of a job waits in repair. The
    restart after a failure, the nodes in repair, goodput and the hot spares then carry no repair wait, the most
    favourable case (with a 72 h repair, one failed NVL72 tray kept a job down until a whole idle rack stood in). A
    set or a part that leaves `repair` out takes 24 h (assumed); 0 is a statement, and this finding names it so that
    it is not one by mistake.

    Fix: state the time to repair or replace a failed unit and return it to service (e.g. '72 h'), or keep 0 where a
    hot-swapped unit is on the shelf and waive this finding with the reason.
    """
    for path, rel in sorted(ctx.operations.reliability.items()):
        zero = [c.name for c in rel.classes if c.name in HARDWARE_CLASSES and c.rate is not None and c.units
                and c.rate.repair.m == 0]
        if zero:
            cluster = ctx.clusters[path].cluster.spec
            names = " and ".join(zero) if len(zero) < 3 else f"{', '.join(zero[:-1])} and {zero[-1]}"
            yield Violation(path, cluster.id, ("failure_rates",) if cluster.failure_rates else (),
                            f"the {names} rate{'s' if len(zero) > 1 else ''} of '{rel.rates_id}' state a repair of "
                            "0 h: a failed unit is taken as replaced at once, so no node waits in repair and the "
                            "restart, goodput and spares carry no repair wait")
