"""What overlap costs both sides on one GPU (`perf.train.contention`, `exposure.sm_kept`), against the published
kernel-level measurements in tests/perf/data/overlap-interference.yaml (sources in its header).

The model charges two shares: the SMs a communication kernel holds (compute runs on the rest) and the HBM both
need (a collective stores what it receives and reads it back, 2x its link rate by NCCL's maintainer; the compute
moves its own bytes). These tests pin what the two shares predict for each published case and record how much of
the measured interference they leave unexplained: every published figure is larger, so the model still credits
overlap more than the hardware gives (issue 20)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from archgen.perf.hw import kernels as K
from archgen.perf.train import contention as C
from archgen.perf.train.exposure import NCCL_CTAS, sm_kept

DATA = yaml.safe_load((Path(__file__).parent / "data" / "overlap-interference.yaml").read_text(encoding="utf-8"))


def test_the_pair_rule_by_hand(h100):
    """Fluid sharing: a pair whose HBM shares sum to s > 1 runs both at 1/s of their speed until the shorter ends,
    so it ends (s - 1) x the shorter's time later than the longer alone (`excess`); with room in the HBM, 0."""
    rate = h100.hbm_bandwidth * h100.hbm_efficiency
    assert float(C.hbm_share(h100, rate * 1e-3, 1e-3)) == pytest.approx(1.0)
    assert float(C.hbm_share(h100, 1.0, 0.0)) == 0.0
    # 100 GB received in a second takes 2 x 100 GB of HBM traffic
    assert float(C.comm_share(h100, 100e9, 1.0)) == pytest.approx(2 * 100e9 / rate)
    assert C.excess(0.6, 0.3) == 0.0 and C.excess(0.9, 0.3) == pytest.approx(0.2)
    assert C.excess(0.7, 0.3) == 0.0  # exactly the HBM's rate: no residue
    # a collective paced by a 400 Gb/s NIC (50 GB/s received) beside memory-bound compute: 3.5 % of H100's HBM
    assert float(C.comm_share(h100, 50e9, 1.0)) == pytest.approx(0.035, abs=0.001)


def test_an_a100_all_gather_slows_kernels_more_than_sms_and_hbm_explain(a100):
    """NVIDIA/nccl#1428 (A100-SXM4-80GB, an NVLink all-gather at 300 GB/s): attention 0.18 -> 0.33 ms (1.83x), GEMM
    1.18 -> 2.08 ms (1.76x), an element-wise kernel 0.02 -> 0.05 ms (2.5x). The model's two shares: the 16 SMs it
    gives NCCL (of 108: +14.8 %) and, for a memory-bound kernel (HBM share 1), the all-gather's 2 x 300 GB/s over
    the A100's sustained 1.61 TB/s (+37.3 %): 1.52x for the element-wise kernel, 1.15x for a compute-bound GEMM
    or attention (the HBM has room). So the shares explain a third of the element-wise slowdown and a fifth of the
    GEMM's; even at the maintainer's 3x they leave the GEMM at 1.15x. The rest (caches, clocks, block
    scheduling) has no per-kernel figure and is not charged."""
    d = DATA["nccl1428"]
    assert a100.multiprocessors == 108
    lost = 1.0 - float(sm_kept(a100, NCCL_CTAS))
    assert lost == pytest.approx(16 / 108)
    comm = float(C.comm_share(a100, d["link_rate_gb_s"] * 1e9, 1.0))
    assert comm == pytest.approx(2 * 300e9 / (2.039e12 * 0.79), rel=1e-3)
    predicted = {"elementwise": 1.0 + float(C.excess(1.0, comm)) + lost, "gemm": 1.0 + float(C.excess(0.0, comm)) + lost,
                 "attention": 1.0 + float(C.excess(0.0, comm)) + lost}
    measured = {k: v[1] / v[0] for k, v in d["kernels_ms"].items()}
    assert predicted["elementwise"] == pytest.approx(1.52, abs=0.01)
    assert predicted["gemm"] == pytest.approx(1.148, abs=0.001)
    explained = {k: (predicted[k] - 1) / (measured[k] - 1) for k in measured}
    assert explained["elementwise"] == pytest.approx(0.35, abs=0.01)
    assert explained["gemm"] == pytest.approx(0.19, abs=0.01)
    assert explained["attention"] == pytest.approx(0.18, abs=0.01)
    assert all(predicted[k] < measured[k] for k in measured)


def test_an_h100_one_wave_gemm_beside_an_all_gather_lies_between_the_sm_share_and_a_second_wave(h100):
    """forum 337991 (H100): a one-wave GEMM of 132 blocks beside a 24-block all-gather drops from ~80 % to ~47 %
    MFU, 1.70x its time. Sharing the SMs in proportion (the model's rule) gives 132 / 108 = 1.22x; a second wave for
    the 24 blocks that do not fit gives 2x, if the all-gather held its SMs for the whole first wave. The GEMM's
    HBM share is small, so the HBM adds nothing. The measurement lies between the two: the model's proportional
    share is the low end of what a grid-filling kernel pays."""
    d = DATA["forum337991"]
    measured = d["mfu"][0] / d["mfu"][1]
    assert measured == pytest.approx(1.70, abs=0.01)
    proportional = 1.0 / float(sm_kept(h100, d["comm_blocks"]))
    waves = math.ceil(d["gemm_blocks"] / (h100.multiprocessors - d["comm_blocks"])) / math.ceil(
        d["gemm_blocks"] / h100.multiprocessors)
    assert proportional == pytest.approx(1.222, abs=0.001) and waves == 2.0
    assert proportional < measured < waves


def test_the_sm_share_the_model_charges_is_below_the_published_average_slowdown(h100, a100):
    """Lee et al. 2025 (4 A100, H100, MI250, MI210; GPT and LLaMA): overlapped compute runs on average 18.9 % slower
    (at most 40 %) than alone. The model charges NCCL's 16 SMs: +12.1 % of the overlapped time on H100, +14.8 % on
    A100, plus the HBM share where the pair over-subscribes it (none for compute-bound GEMMs), so it charges less
    than the average measured."""
    d = DATA["lee2025"]
    for hw, want in ((h100, 16 / 132), (a100, 16 / 108)):
        charged = 1.0 - float(sm_kept(hw, NCCL_CTAS))
        assert charged == pytest.approx(want)
        assert charged < d["compute_slowdown_mean"] < d["compute_slowdown_max"]


def test_mi300x_overlap_realises_far_less_than_the_model_credits(accelerators):
    """Agrawal et al. (MI300X): GEMMs beside collectives realise on average 21 % of overlap's ideal speedup (42 %
    prioritised and partitioned). For two equal kernels the model's pair takes 1 + (lost + s - 1) of one, where the
    catalog gives MI300X its 304 CUs (r39fix; the 16 a collective takes cost 16/304 of them) and a compute-bound GEMM
    leaves the HBM room (s = 1): it credits 90 % of the ideal (speedup 1.90). The model's overlap on MI300X is
    therefore optimistic by construction; its AMD training rows (docs/accuracy.md) use no overlapped collective large
    enough to show it."""
    from archgen.perf.hw.from_spec import hardware_for
    hw = hardware_for(accelerators["mi300x"], scale_up_size=8)
    assert float(sm_kept(hw, NCCL_CTAS)) == pytest.approx(1.0 - NCCL_CTAS / 304)
    pair = 1.0 + (1.0 - float(sm_kept(hw, NCCL_CTAS))) + float(C.excess(0.0, 0.2))
    realised = (2.0 / pair - 1.0) / (2.0 - 1.0)
    assert realised == pytest.approx(0.9, abs=1e-9)
    assert realised > 2 * DATA["agrawal2024"]["share_of_ideal_speedup"]["plain"]
    assert K.memory_time(hw, 1.0) > 0


def test_hbm_sharing_leaves_an_infiniband_all_to_all_almost_free(accelerators):
    """The Bridge card's all-to-all (Qwen3-30B-A3B, EP 16 over two H100 nodes): each call receives a rank's 4096
    tokens' 8 routed copies less its own sixteenth, 4096 x 8 x 2048 x 2 B x 15/16 = 126 MB, in the 0.46 ms
    HybridEP's README rate gives it: 0.27 TB/s received, twice that through HBM, a 19 % share; beside the layer's
    compute (43 % of the HBM rate) the pair does not over-subscribe the HBM, so nothing is added. The profile's
    stretch of the communication kernels from 8.25 to 10.83 s (tests/perf/test_small_expert_moe.py) is not HBM."""
    from pathlib import Path as P

    from archgen.perf.hw.arch import Arch
    from archgen.perf.train.job import Job
    from archgen.perf.train.layer import layer_times
    from archgen.scoring.cases import case_hardware, read_cases
    cases, _ = read_cases(P(__file__).parent / "data" / "bridge-26.04.yaml")
    case = next(c for c in cases if c.id == "bridge-card-h100-qwen3-30b-bf16-ep16-overlap-on")
    hw = case_hardware(case, accelerators)
    received = 4096 * 8 * 2048 * 2.0 * 15 / 16
    comm = float(C.comm_share(hw, received, 0.464e-3))
    assert comm == pytest.approx(0.187, abs=0.005)
    arch = Arch.from_model(case.model)
    job = Job(arch, 4096, 1024, "bf16", moe_dispatcher="hybridep", ep_dedup=True, overlap_ep_comm=True,
              rope_fusion=True)  # the card ran Megatron-Bridge (nemo-2025: fused RoPE; ropefuse41)
    lt = layer_times(hw, job, tp=1.0, mb=1.0, cp=1.0, ep=16.0, rc=0.0, sp=False)
    # the layer's bytes over its forward time (0.425 before rope40 charged the QK norms and rotary embedding)
    assert float(lt.hbm) == pytest.approx(0.447, abs=0.005)
    assert float(C.excess(lt.hbm, comm)) == 0.0
