"""PWR020 and PWR021: a hall's `deployed` list names clusters of the run in that hall; a shared hall states one.

The list tells clusters standing side by side in a hall from alternatives for it (`analyse.hall_groups`): the
hall's totals and its overload checks read it, so an id that names no cluster of the run, or a cluster standing in
another hall, would leave a figure short without a word. A hall several clusters of the run name without the list
has no totals, and PWR021 says why rather than summing what may be alternatives; so does a hall whose list is
empty (`deployed: []`: nothing deployed yet, every cluster naming it a candidate).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from archgen.analyse.hall_groups import standing
from archgen.analyse.hall_totals import HALL_TOTALS
from archgen.checks.registry import Violation
from archgen.errors import did_you_mean


def deployed_problems(fac: Any, clusters: dict[str, Any]) -> Iterator[Violation]:
    """PWR020: each id of `fac.deployed` that is no cluster of the run, or a cluster that names another hall.

    Judged where a cluster of the run names the hall (a run of racks alone has no clusters to list), as its
    `facility` or in a hall of its floor (`floor.halls[].facility`, `hall_groups.standing`: hall29fix, such a
    cluster was refused as naming another facility).
    """
    here = standing(clusters, fac.id)
    if fac.deployed is None or not here:
        return
    by_id = {c.cluster.spec.id: c for c in clusters.values()}
    names = ", ".join(f"'{c.cluster.spec.id}'" for c in here.values())
    for i, cid in enumerate(fac.deployed):
        c = by_id.get(cid)
        if c is None:
            hint = did_you_mean(cid, by_id, lead="; ")
            expected = (f"expected the id of a cluster standing in facility '{fac.id}' (clusters naming it: "
                        f"{names})")
            yield Violation(f"facility/{fac.id}", fac.id, ("deployed", i), f"`deployed` lists '{cid}', which is no "
                            f"cluster of this run: {expected}{hint}",
                            public=f"the clusters named as standing in facility '{fac.id}' include '{cid}', which "
                                   f"is no cluster of this design: {expected}")
        elif (c.cluster.facility is None or c.cluster.facility.id != fac.id) and c.cluster.path not in here:
            there = f"names facility '{c.cluster.facility.id}'" if c.cluster.facility is not None else \
                "names no facility"
            yield Violation(f"facility/{fac.id}", fac.id, ("deployed", i), f"`deployed` lists cluster '{cid}', "
                            f"which {there} (its `facility`) and has no hall naming it (`floor.halls[].facility`): "
                            f"expected a cluster whose `facility` or one of whose halls is '{fac.id}' (clusters "
                            f"naming it: {names})",
                            public=f"the clusters named as standing in facility '{fac.id}' include '{cid}', which "
                                   f"{there}: expected a cluster in facility '{fac.id}' (clusters naming it: {names})")


#: `HALL_TOTALS` as a customer reads them.
_TOTALS_SAID = "totals (IT power, facility power and facility energy a year)"


def totals_not_provided(fac: Any, clusters: dict[str, Any]) -> Iterator[Violation]:
    """PWR021: a hall that several clusters of the run name, stating no `deployed`: its totals are not provided.

    So too a hall whose `deployed` is empty, that any cluster of the run names: no cluster stands in it yet, every
    one naming it is a candidate judged alone (`hall_groups.candidate`), and there is nothing to total. A cluster
    one of whose halls names the facility (`hall_groups.standing`) names it too.
    """
    here = standing(clusters, fac.id)
    names = ", ".join(f"'{c.cluster.spec.id}'" for c in here.values())
    if fac.deployed == [] and here:
        judged = (f": {names} {'name' if len(here) > 1 else 'names'} it, each a candidate design judged alone "
                  "against the hall, with no warning where they exceed it together")
        yield Violation(f"facility/{fac.id}", fac.id, ("deployed",), f"not provided: the hall's totals "
                        f"({', '.join(HALL_TOTALS)}), since facility '{fac.id}' lists no cluster as deployed "
                        f"(`deployed: []`){judged} (list the clusters standing in the hall in its `deployed`)",
                        severity="info", public=f"not provided: the hall's {_TOTALS_SAID}, since facility "
                                                f"'{fac.id}' names no cluster as standing in it{judged}")
        return
    if fac.deployed is not None or len(here) < 2:
        return
    why = (f": {names} name it, and they may be alternatives for the hall, whose sum is no figure; each is judged "
           "against the hall alone, with a warning where they exceed it together")
    yield Violation(f"facility/{fac.id}", fac.id, (), f"not provided: the hall's totals ({', '.join(HALL_TOTALS)}), "
                    f"since the spec does not say which clusters are deployed together in facility '{fac.id}'{why} "
                    "(list the clusters standing in the hall side by side in its `deployed`)", severity="info",
                    public=f"not provided: the hall's {_TOTALS_SAID}, since the design does not say which clusters "
                           f"stand in facility '{fac.id}' together{why}")
