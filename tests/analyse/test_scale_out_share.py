"""The network's share of capex is reported beside the cluster interconnect's (buyer trial, issue 22, item 3).

`network_capex_share` holds a rack-scale system's scale-up (NVLink) switch trays; Epoch AI's 9-13 % cluster-level
interconnect (Cottier et al. 2024, arXiv:2405.21015) does not. The shipped GB200 SU read 16.9 % against that
anchor with no word on the basis; without its 72 NVLink switch trays it is 9.1 %. DGX B200 has no scale-up switch
part (its NVSwitches are inside the system), so both shares agree.
"""

from __future__ import annotations

import pytest

from archgen.render import operations


def test_the_scale_out_share_leaves_out_the_scale_up_switches(shipped):
    gb = shipped.metrics["cluster/gb200-nvl72-su"]
    # 0.1688 before the OOB leaves were sized per rack: 208 more Cat6a (10 USD) and 40 more SR4 modules (200 USD)
    # 0.1691 before the 132 leaf-spine links past the DAC's 2 m longest length sold took SR8 modules (+99,000 USD),
    # 0.1721 until they took 66 LACC at 3 m, the shortest sold, at the DAC's placeholder price (newuser80)
    assert gb["network_capex_share"].m == pytest.approx(0.1691, abs=1e-4)
    assert gb["scale_out_capex_share"].m == pytest.approx(0.0912, abs=1e-4)  # 0.0945 with the SR8 above
    cost = shipped.operations.cost["cluster/gb200-nvl72-su"]
    trays = sum(line.total for line in cost.lines if line.part == "nvlink5-switch-tray")
    assert (gb["network_capex_share"] - gb["scale_out_capex_share"]).m == pytest.approx((trays / cost.capex).m)
    dgx = shipped.metrics["cluster/dgx-b200-superpod"]
    assert dgx["scale_out_capex_share"].m == pytest.approx(dgx["network_capex_share"].m)


def test_the_cost_paragraph_labels_each_share(shipped):
    a = shipped.clusters["cluster/gb200-nvl72-su"]
    text = operations.cost_section(shipped, a).blocks[0].text
    assert "16.9 % of the capex, the scale-up switch trays included" in text
    assert "without them (every fabric's switches, transceivers and cables) is 9.1 %, the basis on which Epoch" in text
