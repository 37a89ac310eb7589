"""The rack document's port map says its ports are the NICs', at their rating, not what a fabric cables (newuser108).

Before: the GB200 NVL72 rack document gave BlueField-3 "4 ports per system" at "Port speed 400 Gb/s", "72 ports in
rack", while the GB200 SU document that places the rack cables 2 of those 4 ports a node at 200 Gb/s ("Ports cabled
per node 2", "Speed the fabric runs 200"): an ODM reading both saw two port counts and two speeds for one link.
Expected: the rack document names its columns as the cluster's port map does (NIC ports, NIC port rating) and says
where the cabled ports and their speed are.
"""

from __future__ import annotations

from archgen.render.rack import network


def test_the_rack_port_map_gives_the_nics_ports_at_their_rating(shipped_run):
    a = shipped_run.racks["rack/gb200-nvl72"]
    section = network(a, shipped_run.design.specs)
    assert section is not None
    para, table = section.blocks
    assert [c.heading for c in table.columns] == [
        "System", "Role", "NIC", "NICs per system", "NIC ports per system", "NIC port rating (Gb/s)", "Systems",
        "NIC ports in rack"]
    storage = next(r for r in table.rows if r[1] == "storage")
    assert storage[2:5] == ("bluefield-3", 2, 4) and storage[5].m_as("Gbit/s") == 400 and storage[7] == 72
    assert "How many of them a fabric cables and the speed it runs them at" in para.text
