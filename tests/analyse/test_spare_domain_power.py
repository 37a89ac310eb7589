"""A whole idle NVL72 rack taken as a hot spare draws and occupies its NVLink switch trays too (newuser41 finding 1).

Inside a scale-up domain of several nodes a spare is an idle tray of the failed tray's domain or a whole idle domain
(docs/reliability.md, Hot spares). A whole domain stands in only with its scale-up switches: an NVL72 rack's 18
compute trays are joined by its 9 NVLink switch trays (`scale_up.switches`). `spare_power` and `spare_space` counted
the compute trays alone: a buyer's 64-rack GB300 proposal needing 3 spare racks read 310.0 kW (54 x 5.74 kW) and met
a "spare power <= 400 kW" requirement, where the three racks' trays draw 412.6 kW (54 x 5.74 + 27 x 3.8 kW).
"""

from __future__ import annotations

from archgen.model.system import max_draw


def test_a_spare_nvl72_rack_counts_its_switch_trays(shipped) -> None:
    """The shipped GB200 SU's 405B job needs one whole idle rack: 18 trays of 5.4 kW and 9 switch trays of 3.8 kW
    (the catalog's figures, read here), 131.4 kW and 27 U; before, 97.2 kW and 18 U."""
    job = shipped.metrics["workload/llama3-405b-pretrain-gb200"]
    tray, switch = shipped.specs.get("gb200-compute-tray"), shipped.specs.get("nvlink5-switch-tray")
    assert job["spares"].m == 18
    expected = 18 * max_draw(tray).m_as("kW") + 9 * max_draw(switch).m_as("kW")
    assert abs(job["spare_power"].m_as("kW") - expected) < 1e-9
    assert abs(expected - (18 * 5.4 + 9 * 3.8)) < 1e-9                  # was 97.2 kW, the trays alone
    assert abs(job["spare_space"].m_as("U") - 27) < 1e-9                 # was 18 U


def test_a_spare_node_of_a_node_domain_brings_no_switch(shipped) -> None:
    """Where a spare is any idle node (an 8-GPU DGX B200, its NVLink switches inside it), nothing is added: one
    node, its own draw and height."""
    job = shipped.metrics["workload/llama3-70b-pretrain-b200"]
    node = shipped.specs.get("dgx-b200")
    assert job["spare_power"].m_as("kW") == job["spares"].m * max_draw(node).m_as("kW")
    assert job["spare_space"].m_as("U") == job["spares"].m * node.mechanical.height.m_as("U")
