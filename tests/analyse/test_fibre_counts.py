"""nu80fix: each fibre cord states its strands, and the port map sums the strands leaving each rack.

A cabling contractor sizes MPO trunks and patch panels by fibre count, and the BOM said only "MPO-12". NVIDIA's
structured cabling requirements give the fibres of each cable: MPO multimode and single-mode "Fiber count per strand:
8 (12 is allowed)", LC single-mode "2 (Duplex connector)" ("NVIDIA Interconnect Structured Cabling Requirements for
InfiniBand NDR/XDR and 400/800G ETH Solutions", "MPO/LC Cable Requirements",
https://docs.nvidia.com/networking/display/intrcnctcabreqndr400eth/mpo/lc+cable+requirements); IEEE 802.3bm clause 95
puts 100GBASE-SR4's 4 transmit and 4 receive lanes on 8 of an MPO-12's 12 positions.
"""

from __future__ import annotations

import pytest
import yaml

from archgen.analyse.fibre_cords import _cord
from archgen.analyse.portmap import port_map
from archgen.model.network import Link
from archgen.render.wiring import fibre_runs, section
from tests.conftest import SPECS

SU = "cluster/gb200-nvl72-su"


def test_every_su_cord_states_8_fibres(shipped) -> None:
    """The GB200 SU's 752 cables (576 compute, 144 storage splitters, 32 OOB uplinks) are all MPO-12: 8 fibres."""
    fibres = [line for line in shipped.clusters[SU].cabling.bom if line.kind == "Fibre"]
    assert sum(line.quantity for line in fibres) == 576 + 144 + 32
    assert all(", 8 fibres, " in line.name for line in fibres)


def test_fibres_leaving_each_rack(shipped) -> None:
    """Each NVL72 rack: 18 trays x 4 ConnectX-7 cords (72) + 18 trays x 2 BlueField-3 ports on 1:2 splitters (18)
    + 2 OOB leaves x 2 uplinks (4) = 94 cables, 94 x 8 = 752 fibres; the IB rack takes the 576 compute cords, the
    Ethernet rack the 144 storage and 32 OOB ones. Every optical cable joins two racks, so the strands leaving all
    racks are 2 x 8 x 752 = 12,032."""
    rows = {rack: (cables, fibres, unstated) for rack, cables, fibres, unstated
            in port_map(shipped.clusters[SU]).rack_fibres()}
    nvl72 = {rack: v for rack, v in rows.items() if "gb200-nvl72" in rack}
    assert len(nvl72) == 8 and set(nvl72.values()) == {(18 * 4 + 18 * 2 // 2 + 2 * 2, 94 * 8, 0)}
    assert rows["su01/gb200-su-ib-01"] == (576, 576 * 8, 0)
    assert rows["su01/gb200-su-eth-01"] == (144 + 32, (144 + 32) * 8, 0)
    assert sum(f for _, f, _ in rows.values()) == 2 * 8 * 752


def test_wiring_section_lists_the_rack_fibres(shipped) -> None:
    """The wiring section carries the per-rack table in layout order, the SU's 8 alike NVL72 racks on one row."""
    a = shipped.clusters[SU]
    pm = port_map(a)
    sub = next(s for s in section(a, pm).sections if s.id == "rack-fibres")
    table = next(b for b in sub.blocks if getattr(b, "id", "") == "rack-fibres")
    assert table.rows == (("su01/gb200-nvl72-01 to su01/gb200-nvl72-08", "gb200-nvl72", 8, 94, 752, 0),
                          ("su01/gb200-su-ib-01", "gb200-su-ib", 1, 576, 4608, 0),
                          ("su01/gb200-su-eth-01", "gb200-su-eth", 1, 176, 1408, 0))


def test_rack_runs_keep_every_racks_counts(shipped) -> None:
    """bigrender38: the runs name every rack the per-rack list does, with its counts: each run's racks of its type
    in layout order between its first and last, all with the run's counts (the DGX B200 SuperPOD's 38 racks, 16
    rows: a compute rack with an extra cable breaks its type's run)."""
    for a in shipped.clusters.values():
        per_rack = {rack: tuple(rest) for rack, *rest in port_map(a).rack_fibres()}
        order: dict[str, list[str]] = {}
        for inst in a.cluster.instances:
            order.setdefault(inst.rack.spec.id, []).append(inst.name)
        expanded = {}
        for racks, kind, n, *these in fibre_runs(a, list((r, *v) for r, v in per_rack.items())):
            names = order[kind]
            first, _, last = racks.partition(" to ")
            span = names[names.index(first):names.index(last or first) + 1]
            assert len(span) == n
            expanded.update(dict.fromkeys(span, tuple(these)))
        assert expanded == per_rack
    assert len(fibre_runs(shipped.clusters["cluster/dgx-b200-superpod"],
                          port_map(shipped.clusters["cluster/dgx-b200-superpod"]).rack_fibres())) == 16


def test_a_rack_without_fibres_ends_its_types_run() -> None:
    """Racks of one type join across other types between them; one of the type with nothing leaving ends the run,
    so a row's first and last never span it; a rack the layout does not hold keeps a row of its own. The rows do
    not grow with alike racks (10,000 racks, 2 rows)."""
    from types import SimpleNamespace as NS

    def layout(*names: str) -> NS:
        return NS(cluster=NS(instances=[NS(name=n, rack=NS(spec=NS(id=n.rstrip("0123456789")))) for n in names]))
    a = layout("c1", "leaf1", "c2", "c3", "c4")
    fibres = [("c1", 2, 16, 0), ("leaf1", 4, 32, 0), ("c2", 2, 16, 0), ("c4", 2, 16, 0), ("x", 1, 8, 0)]
    assert fibre_runs(a, fibres) == (("c1 to c2", "c", 2, 2, 16, 0), ("leaf1", "leaf", 1, 4, 32, 0),
                                     ("c4", "c", 1, 2, 16, 0), ("x", "—", 1, 1, 8, 0))
    many = layout(*(f"c{i}" for i in range(5000)), *(f"s{i}" for i in range(5000)))
    rows = fibre_runs(many, [(inst.name, 1, 8, 0) for inst in many.cluster.instances])
    assert rows == (("c0 to c4999", "c", 5000, 1, 8, 0), ("s0 to s4999", "s", 5000, 1, 8, 0))


def test_unstated_count_is_said() -> None:
    """A part that states no fibre count (the LPO DR8) orders a cord 'fibre count not stated', its id apart."""
    pid, name, _ = _cord("singlemode", "", "", 10.0)
    assert "fibre count not stated" in name and pid.endswith("-nf")
    pid8, name8, _ = _cord("singlemode", "MPO-12/APC", "Type-B", 10.0, 1, "OS2", 8)
    assert ", 8 fibres, " in name8 and not pid8.endswith("-nf")


def test_copper_has_no_fibre_count() -> None:
    data = yaml.safe_load((SPECS / "catalog" / "links" / "dac-800g-osfp.yaml").read_text(encoding="utf-8"))
    data["fibres"] = 8
    with pytest.raises(ValueError, match="a dac part has no fibre"):
        Link.model_validate(data)


def test_a_splitter_with_a_leg_in_its_own_rack_sends_only_the_other_leg_out() -> None:
    """review42: a 1:2 splitter (8 fibres) from rack A to legs in A and B counted 8 fibres leaving A; 4 stay in A
    (the leg there), 4 leave for B, and B's leg sends its 4 back. A straight cord between A and B: 8 each way."""
    from archgen.analyse.end_names import End, Leg
    from archgen.analyse.portmap import CableRow, PortMap

    def end(racks: tuple[str, ...]) -> End:   # at several racks: a split end, one leg a rack
        return End.split(tuple(Leg(rack, f"d{k}", "p", 1) for k, rack in enumerate(racks)), "p") if (
            len(racks) > 1) else End(racks[0], 1, "d", "p")

    def row(a: tuple[str, ...], b: tuple[str, ...]) -> CableRow:
        return CableRow("x", "f", "access", end(a), end(b), "multimode", 2, 5.0, 5.0, fibres=8)
    assert PortMap((row(("A",), ("A", "B")),), ()).rack_fibres() == [("A", 1, 4, 0), ("B", 1, 4, 0)]
    assert PortMap((row(("A",), ("B",)),), ()).rack_fibres() == [("A", 1, 8, 0), ("B", 1, 8, 0)]
    assert PortMap((row(("A",), ("B", "C")),), ()).rack_fibres() == [("A", 1, 8, 0), ("B", 1, 4, 0), ("C", 1, 4, 0)]
    assert PortMap((row(("A",), ("A",)),), ()).rack_fibres() == []
    # alike cables are counted once per kind and multiplied; a rack keeps the place where the map first names it
    rows = (row(("A",), ("B",)), row(("C",), ("A", "B")), row(("A",), ("B",)))
    assert PortMap(rows, ()).rack_fibres() == [("A", 3, 20, 0), ("B", 3, 20, 0), ("C", 1, 8, 0)]
    # the racks are read from the legs, not from the text: a rack whose name holds " + " is one rack
    assert PortMap((row(("A + B",), ("C",)),), ()).rack_fibres() == [("A + B", 1, 8, 0), ("C", 1, 8, 0)]
