"""The failure-rate table's per-unit column times its units is the class's failures a year, on any node size.

The input that showed it (new-user trial, a fleet reliability engineer): a GB200 cluster's document listed the
host class at 288 trays x 0.1519 per unit-year and 21.9 failures a year (288 x 0.1519 = 43.7). 0.1519 is Llama 3's
rate per 8-GPU server (Table 5: 46 host interruptions over 302.78 server-years), applied per accelerator, so a
4-GPU tray takes half of it; the column showed the server's figure beside tray counts. Here the shipped GB200 SU
(144 trays of 4 GPUs).
"""

from __future__ import annotations

import pytest

from archgen.render.blocks import Para, Table
from archgen.render.operations import open_items, reliability_section

#: Llama 3 405B, Table 5 and section 3.3.4: 46 host and 63 software interruptions in 54 days on 2,048 8-GPU servers.
SERVER_YEARS = 2048 * 54 / 365.25
HOST, SOFTWARE = 46 / SERVER_YEARS, 63 / SERVER_YEARS


@pytest.fixture(scope="module")
def rows(shipped_run):
    a = shipped_run.clusters["cluster/gb200-nvl72-su"]
    (table,) = [b for b in reliability_section(shipped_run, a).blocks if isinstance(b, Table) and b.id ==
                "failure-rates"]
    return {r[0]: r for r in table.rows}


def test_units_times_the_per_unit_rate_is_the_failures_a_year(rows):
    for name, units, per_unit, per_year, basis in rows.values():
        if basis.startswith("not provided"):   # a class without a rate (REL004): no figure to multiply
            assert per_unit is None and per_year is None, name
            continue
        assert units * per_unit == pytest.approx(per_year, rel=1e-9), name


def test_a_per_server_rate_on_4_gpu_trays_is_half_the_servers_and_says_so(rows):
    for name, server in (("host", HOST), ("software", SOFTWARE)):
        _, units, per_unit, _, basis = rows[name]
        assert units == 144
        assert per_unit == pytest.approx(server * 4 / 8, rel=1e-3)
        assert f"the set's {server:.4f} is per server of 8 accelerators, applied per accelerator" in basis
    # counted per GPU: nothing to say of servers; its count and interval (netrates): 268 events, Garwood's 95 %
    assert rows["accelerator"][4].startswith("sourced; counted from 268 events, 95 % ")
    assert "per server" not in rows["accelerator"][4]


def test_the_network_classes_name_the_one_count_they_share_and_its_interval(rows):
    """Llama 3's 35 "Network Switch/Cable" interruptions, one pooled rate per optical end and copper cable
    (tests/analyse/test_network_rate.py); switches at Alibaba HPN's ToR rate.

    0.004718 a part-year x 24.379 / 35 and x 48.677 / 35 (Garwood's 95 % on 35 events): 0.0033 to 0.0066.
    """
    for name in ("transceiver", "cable"):
        assert rows[name][4] == ("assumed; one count of 35 events for cable, transceiver, the same rate for "
                                 "each unit (the source does not split the count; how far a class's own rate lies "
                                 "from it is in no interval or range), 95 % 0.0033 to 0.0066"), name
    # a switch takes a switch's rate (issue 22), borrowed from Alibaba Cloud's ToRs and said so; no count
    assert rows["switch"][4] == ("sourced; borrowed: measured by Alibaba Cloud, ToRs of its single-ToR LLM-training "
                                 "clusters (Qian et al., HPN, SIGCOMM 2024, section 2.3)")
    assert rows["switch"][2] == pytest.approx(0.00051 * 12)


def test_the_document_says_which_rate_is_borrowed_from_which_operator(shipped_run):
    """Issue 22: the H100 set's switch rate is Alibaba Cloud's, not Meta's; the reliability section and the open
    items say so, where the table's basis cell alone would leave a reader to find it."""
    a = shipped_run.clusters["cluster/gb200-nvl72-su"]
    said = [b.text for b in reliability_section(shipped_run, a).blocks if isinstance(b, Para)]
    hpn = ("(measured by Alibaba Cloud, ToRs of its single-ToR LLM-training clusters (Qian et al., HPN, "
           "SIGCOMM 2024, section 2.3))")
    lent = f"scale_up_switch {hpn}, switch {hpn}"   # spares23: the NVLink switch trays, a class of their own
    [borrowed] = [t for t in said if t.startswith("Rates the 'field-h100-2024' set borrows")]
    assert borrowed.startswith(f"Rates the 'field-h100-2024' set borrows from another operator's fleet: {lent}. ")
    # review30: the rate was measured on ToRs, and the GB200 SU's 72 NVLink switch trays take it too: said here
    assert "A switch rate stands for every switch here, whatever its tier (a leaf, a spine, an optical circuit " \
           "switch, and a scale-up switch tray, a class of its own that takes the switch rate where the set states " \
           "none for it)" in borrowed
    assert f"Reliability rests on failure rates borrowed from another operator's fleet: {lent}." in \
        open_items(shipped_run, a)


@pytest.mark.parametrize(("cluster", "acc"), [("mi355x-th5", "mi355x"), ("tpu-v4-pod", "tpu-v4"),
                                              ("gb200-nvl72-su", "gb200")])
def test_the_open_items_say_every_rate_was_measured_on_another_accelerator(shipped_run, cluster, acc):
    """newuser103: the MI355X document's Open items named the switch rate borrowed from Alibaba's fleet, and not
    that every rate of the set (GPU, host, NIC, software) was measured on NVIDIA H100s, which REL007 and the
    reliability section say: a buyer reading the open items alone saw the small borrow and not the large one."""
    a = shipped_run.clusters[f"cluster/{cluster}"]
    assert ("Reliability rests on rate sets measured on other accelerators: 'field-h100-2024' failure rates "
            f"(measured on h100-sxm5-80gb; {acc} borrows them).") in open_items(shipped_run, a)
