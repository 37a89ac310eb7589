"""catalog35: the HGX H800 node DeepSeek-V3's 2,048-GPU cluster ran on, as DeepSeek describes it, and a small cluster of
it on QM9700 rail leaves that `archgen check` passes with the access optics stated end by end (CAB005).

DeepSeek-V3 technical report (arXiv 2412.19437) §3.1 and §3.2.2; Zhao et al., ISCA '25 (arXiv 2505.09343) §4.1,
§4.3, §5.1: eight H800 on NVLink at 400 GB/s (200 GB/s each way), eight 400G InfiniBand ConnectX-7, one per GPU, and
one 400G Ethernet RoCE NIC for storage.
"""

from __future__ import annotations

import pytest

from archgen.model import KINDS
from archgen.units import Q_
from tests.checks.test_cases import CASES, _load
from tests.conftest import run_specs
from tests.test_catalog import _raw

CASE = "pass_hgx_h800_flat_top_at_the_connectx7_twin_port_finned_at_the_qm9700"


def test_the_part_is_deepseeks_node():
    node = KINDS["System"].model_validate(_raw("hgx-h800-8gpu"))
    gpu = KINDS["Accelerator"].model_validate(_raw(node.accelerator))
    nic = KINDS["NIC"].model_validate(_raw("connectx-7"))
    assert (node.accelerator, node.accelerators) == ("h800-sxm5-80gb", 8)
    assert [(n.part, n.count, n.role) for n in node.nics if n.role != "management"] == [
        ("connectx-7", 8, "compute"), ("connectx-7", 1, "storage")]
    # ISCA '25 §4.1 and §4.3: NVLink 400 GB/s both ways, 200 each way, four times an IB NIC's 50 GB/s
    assert 2 * gpu.scale_up.bandwidth == Q_(400, "GB/s")
    assert gpu.scale_up.bandwidth / nic.ports.speed.to("GB/s") == 4
    # no OEM datasheet found: the DGX H100 class figures stand, marked
    assert {"mechanical", "power.max", "power.psus"} <= set(node.unconfirmed_fields())


def test_a_small_h800_cluster_on_qm9700_leaves_checks_clean(tmp_path):
    """Sixteen servers, four QM9700 rail leaves and two spines, a flat-top DR4 at each ConnectX-7 and a twin-port
    finned 2 x DR4 at the switch: no error at all. The optics count each end as its module: 128 access links take 128
    single-port DR4 (9 W, MMS4X00-NS400) at the NICs and 64 twin-port 2 x DR4 (17 W, MMS4X00-NS) at the leaves; the
    128 leaf-spine links, 64 twin-ports at each end: 128 x 9 + 64 x 17 + 128 x 17 = 4,416 W."""
    case = next(c for c in _load(CASES / "CAB005.yml")["cases"] if c["name"] == CASE)
    run = run_specs(tmp_path, case["files"])
    assert run.errors == []
    fabric = run.clusters["cluster/h800-small"].fabrics[0]
    assert fabric.links["access"] == 128 and fabric.links["leaf_spine"] == 128
    assert run.metrics["cluster/h800-small"]["optics_power"].m_as("W") == pytest.approx(128 * 9 + 64 * 17 + 128 * 17)


def test_llama3_rates_are_scoped_to_the_h100_they_were_measured_on(tmp_path):
    """newuser103: `field-h100-2024` scoped H100 and H800, so messages said its rates were "measured on
    h100-sxm5-80gb, h800-sxm5-80gb"; the Llama 3 run it counts used H100 only (Dubey et al., arXiv 2407.21783,
    section 3.3.1: "up to 16K H100 GPUs, each running at 700W TDP with 80GB HBM3"). An H800 cluster on it now borrows
    them (REL007), as any cluster outside a set's scope does; an H100 one does not."""
    from archgen.analyse.rate_sets import measured_outside

    case = next(c for c in _load(CASES / "CAB005.yml")["cases"] if c["name"] == CASE)
    run = run_specs(tmp_path, case["files"])
    field = run.specs.get("field-h100-2024")
    assert field.accelerators == ["h100-sxm5-80gb"]
    assert measured_outside(run.specs, field, "h800-sxm5-80gb") == "h100-sxm5-80gb"
    assert measured_outside(run.specs, field, "h100-sxm5-80gb") == ""
    (rel007,) = [f for f in run.findings if f.id == "REL007" and f.object == "cluster/h800-small"]
    assert "'field-h100-2024' (h100-sxm5-80gb), " in rel007.message, rel007.message   # before: not named at all
