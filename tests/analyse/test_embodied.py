"""A cluster's embodied carbon: its parts' product carbon footprints over its bill of materials (newuser75).

A sustainability lead reports the hardware's manufacturing emissions (scope 3, capital goods) beside the scope 2
figures; on main no part could state a footprint, so the figure had no input. Now a part's (and an empty rack's)
`embodied_carbon` summed over the BOM is the cluster's, and a part without one makes the total not provided, never
a partial sum read as the whole. No shipped part states one: NVIDIA published footprint summaries for HGX H100 and
HGX B200 baseboards, none for a GB200 NVL72 system (archgen/analyse/embodied.py).
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from archgen.analyse.embodied import embodied_figures
from archgen.model.embodied import EmbodiedCarbon

CLUSTER = "cluster/gb200-nvl72-su"
GATE = EmbodiedCarbon(value="100 kg", boundary="cradle-to-gate", basis="assumed", source="test input")


class _Stated:
    """The run's specs with every part stating `footprint` (`grave` for the ids it names)."""

    def __init__(self, specs, grave: tuple[str, ...] = ()):
        self.specs, self.grave = specs, grave

    def get(self, ref):
        part = self.specs.get(ref)
        stated = GATE.model_copy(update={"boundary": "cradle-to-grave"}) if ref in self.grave else GATE
        return part.model_copy(update={"embodied_carbon": stated}) if part is not None else None


def _cluster(a):
    racks = {k: SimpleNamespace(spec=r.spec.model_copy(update={"embodied_carbon": GATE}))
             for k, r in a.cluster.rack_types.items()}
    return SimpleNamespace(cabling=a.cabling, cluster=SimpleNamespace(rack_types=racks))


def test_no_shipped_part_states_a_footprint_so_the_total_is_not_provided(shipped):
    assert "embodied_carbon" not in shipped.metrics[CLUSTER]
    why = shipped.operations.withheld[CLUSTER]["embodied_carbon"]
    assert why.startswith("no `embodied_carbon` (product carbon footprint) stated for ")
    assert "more" in why   # the parts are named, the first three, then how many more


def test_the_total_is_each_lines_quantity_times_its_parts_footprint(shipped):
    a = shipped.clusters[CLUSTER]
    # accessories counted by rule (no catalog part) are left out, as from the capex
    units = sum(line.quantity for line in a.cabling.bom if line.provided and not line.within
                and (shipped.specs.get(line.part) is not None or line.part in a.cluster.rack_types))
    m, why = embodied_figures(_Stated(shipped.specs), _cluster(a))
    assert not why
    assert m["embodied_carbon"].m_as("kg") == pytest.approx(units * 100)


def test_footprints_of_two_boundaries_are_not_added(shipped):
    a = shipped.clusters[CLUSTER]
    m, why = embodied_figures(_Stated(shipped.specs, grave=("qm9700",)), _cluster(a))
    assert not m
    assert why["embodied_carbon"].startswith("the parts' footprints state different boundaries (cradle-to-gate: ")
    assert "cradle-to-grave: qm9700" in why["embodied_carbon"]


def test_cradle_to_grave_footprints_alone_give_no_total(shipped):
    """review38: every part cradle-to-grave was summed as scope 3 capital goods, use phase and all.

    The GHG Protocol's Scope 3 Standard (2011, category 2, capital goods) counts cradle-to-gate; a grave footprint's
    use phase is the electricity the cluster's scope 2 `carbon_per_year` already counts.
    """
    a = shipped.clusters[CLUSTER]
    grave = GATE.model_copy(update={"boundary": "cradle-to-grave"})
    everything = tuple(line.part for line in a.cabling.bom)
    racks = {k: SimpleNamespace(spec=r.spec.model_copy(update={"embodied_carbon": grave}))
             for k, r in a.cluster.rack_types.items()}
    m, why = embodied_figures(_Stated(shipped.specs, grave=everything),
                              SimpleNamespace(cabling=a.cabling, cluster=SimpleNamespace(rack_types=racks)))
    assert not m
    assert why["embodied_carbon"].startswith("the parts' footprints are cradle-to-grave (")
    assert "cradle-to-gate figure" in why["embodied_carbon"]
