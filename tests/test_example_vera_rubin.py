"""examples/vera-rubin: a Vera Rubin NVL72 SU entered from NVIDIA's announced figures (newuser63).

The README states `archgen check`'s summary and its warnings; they are held here, so that a change that moves a
finding on this example updates its README. The rack's input power is the derivation its tray states
(`vr-compute-tray` notes): 18 trays at 8.9 kW and 9 NVLink 6 trays at 4.8 kW on the busbar, over the 0.97 shelf
efficiency (orv3-power-shelf-33kw), plus the two SN2201 (98 W each) fed from outside the shelves.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import _from_repo, run_specs

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "vera-rubin"


@pytest.fixture(scope="module")
def run():
    return _from_repo("examples/vera-rubin")


def test_the_readme_states_the_check_summary(run):
    live = [f for f in run.findings if not f.waived]
    count = Counter(f.severity for f in live)
    summary = (f"{count['error']} error(s), {count['warning']} warning(s), {count['info']} info, "
               f"{sum(bool(f.waived) for f in run.findings)} waived")
    # weight67: 4 rack weights; nu67fix: COOL021 x 3; nu72fix: NET017 from info to warning (1.3 % of IT power)
    # newuser82: NET032 (10 power parts state no management ports), NET024 info (no north-south ports)
    assert summary == "0 error(s), 10 warning(s), 34 info, 5 waived"
    assert summary in (EXAMPLE / "README.md").read_text(encoding="utf-8")
    warnings = Counter(f.id for f in live if f.severity == "warning")
    # offtpot37: offline tpot is a request's gap between tokens (55.1 ms), REQ-PERF-VR-011 a should not met
    assert warnings == {"CAT010": 3, "COST002": 1, "NET017": 1, "NET032": 1, "PERF001": 1, "REL004": 1, "REL006": 1,
                        "REQ004": 1}


def test_the_rack_input_power_is_the_trays_derivation(run):
    busbar = 18 * 8.9 + 9 * 4.8
    assert run.metrics["rack/vr-nvl72"]["input_power"].m_as("kW") == pytest.approx(busbar / 0.97 + 2 * 0.098,
                                                                                   abs=0.05)


def test_the_serving_estimate_has_no_band_past_the_moe_runs_prompts(run):
    """The DeepSeek-V3 serving headline has no band (margin43): its 2,048-token prompt is past the longest prompt of
    the scored MoE runs (804) by more than `CONTEXT_MARGIN`. Before, its band lay below its estimate (hops2): the
    model over-predicted all 6 scored MoE offline serving runs. NVFP4 decode streaming's range is still stated: Rubin
    stated none and streamed its FP4 weights at the HBM point 0.85, where every measured NVIDIA NVFP4 part streams at
    0.405 (rubin.yaml)."""
    est = run.workloads["workload/deepseek-v3-serve-vr"].estimate
    assert any("fp4 decode-GEMM streaming efficiency (catalog point 0.405, range 0.405 to 0.85)" in n
               for n in est.notes)
    b = est.bands["tokens_per_second_per_gpu"]
    assert not b.measured and (b.measure, b.tokens, b.longest) == ("prompt", 2_048, 804)
    assert b.describe().startswith("no band: unmeasured at this context; the job's 2,048-token prompt is past the 804")
    # and the estimate says plainly that it is likely optimistic, by the family's range (moeserve2)
    assert est.conventions["moe_serving"].startswith("likely optimistic: the model over-predicted the tokens/s of "
                                                     "every scored MoE offline serving run, 6 of 6, by +29.2% to "
                                                     "+115.2%")  # +28.7 % before kvrule37; +115.2 % before mla35;
    # +28.4 % to +115.1 % before decode36 counted output_len - 1 decode steps a request offline; +28.9 % before kvcfg38
    # stated HPE's kvcache_free_gpu_mem_frac 0.97 on its Mixtral row


def test_the_racks_text_states_its_own_redundancy_and_loop(run):
    """review47: the partner document prints the rack's description and its loop's notes. Forked from gb300-nvl72,
    the description said the shelves were "declared N+0 here" where the spec declares N+1 (and N+1 holds: 8 x 33 kW
    less one is 231 kW against 203.4 kW at the busbar, 223.1 kW at the 230 kW high end x 0.97), and the liquid notes
    named "the GB300 NVL72 rack" and "one CDU group (2 CDUs, N+1) per 8-rack scalable unit" where the rack states
    4 racks per CDU group."""
    rack = next(r.spec for r in run.design.racks if r.path == "rack/vr-nvl72")
    assert rack.power.shelves.redundancy == "N+1"
    assert "N+0" not in rack.description and "N+1" in rack.description
    notes = rack.cooling.liquid.notes
    assert "GB300" not in notes and f"per {rack.cooling.liquid.racks_per_cdu}-rack" in notes
    capacity = 7 * 33.0
    assert 230 * 0.97 < capacity and run.metrics["rack/vr-nvl72"]["it_power"].m_as("kW") < capacity


def test_each_connectx9_cage_takes_one_twin_port_module(run):
    """optics31: the 1.6T port split 2 x 800G leaves its one OSFP-RHS cage through one twin-port 2 x DR4 module.

    288 NICs, one cage each (`connectx-9` ports.count 1): 288 RHS twin-port modules at the NICs and 288 IHS twin-port
    modules at the Q3400 leaves (144 x 800G in 72 twin-port cages each), for 576 links; was 576 single-port 800G DR4
    modules for 288 cages, two to a cage (review47's first open item), which CAB012 refuses.
    """
    assert not [f for f in run.findings if f.id == "CAB012"]
    cabling = run.clusters["cluster/vr-nvl72-su"].cabling
    access = next(t for t in cabling.tiers if (t.fabric, t.tier) == ("compute", "access"))
    assert access.links == 576
    assert access.modules == {"smf-1.6t-2xdr4": 288, "smf-1.6t-2xdr4-rhs": 288}


def test_two_single_port_modules_in_one_connectx9_cage_are_refused(tmp_path):
    """The example as it was (review47): a 4-lane 800G DR4 at each half of the split 1.6T port. CAB012 refuses it,
    naming the cage, the breakout and the cabling's count: 576 modules for 288 cages."""
    files = {str(p.relative_to(EXAMPLE)): p.read_text(encoding="utf-8") for p in EXAMPLE.rglob("*.yaml")}
    cluster = "clusters/vr-nvl72-su.yaml"
    files[cluster] = files[cluster].replace("{a: smf-1.6t-2xdr4-rhs, b: smf-1.6t-2xdr4}",
                                            "{a: smf-800g-dr4-rhs, b: smf-1.6t-2xdr4}")
    [finding] = [f for f in run_specs(tmp_path, files).findings if f.id == "CAB012"]
    assert finding.severity == "error" and finding.location.file == f"specs/{cluster}"
    assert finding.message == (
        "access: smf-800g-dr4-rhs (800G, 4 lanes) carries 1 of the 2 800G ports of one connectx-9 NIC cage "
        "(nic_breakout 2x800G): 2 modules would share one cage (the cabling counts 576 of them for 288 cages); "
        "expected one module carrying 2 x 800G (a twin-port or breakout module of 1600G)")
